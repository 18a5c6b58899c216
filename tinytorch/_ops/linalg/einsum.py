"""einsum and tensordot: contractions written as permutes, reshapes and matrix products, so that
their graphs are made of those ops' nodes, as PyTorch's are. vmap runs them once per sample."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor, _wrap_dim
from .._core import registry as _registry


# -- einsum ----------------------------------------------------------------------------------------
# PyTorch lowers einsum to ordinary ops, and so does this: each operand is aligned (diagonals for
# repeated labels, unsqueezes for missing ones, one permute) to [output labels, contracted labels],
# then the operands are contracted left to right, a pair at a time, as permute -> reshape -> bmm ->
# view -> permute. The graph is made of those ops' nodes (PermuteBackward0, BmmBackward0,
# ViewBackward0, SumBackward1, MulBackward0), as PyTorch's is, and every order of derivative follows.
_ELL = "..."


def _tokens(sub: str, i: int) -> list:
    out, k = [], 0
    while k < len(sub):
        if sub[k] == ".":
            if sub[k:k + 3] != _ELL or _ELL in out:
                raise RuntimeError(f"einsum(): found '.' for operand {i} that is not part of any ellipsis")
            out.append(_ELL)
            k += 3
            continue
        if not sub[k].isalpha():
            raise RuntimeError(f"einsum(): invalid subscript given at index {k} in the equation string, subscripts "
                               f"must be in [a-zA-Z]")
        out.append(sub[k])
        k += 1
    return out


def _label_key(c: str) -> int:
    return ord(c) - ord("A") if c.isupper() else 26 + ord(c) - ord("a")  # A..Z before a..z, as PyTorch


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list) -> Tensor:
    """(left * right).sum(sum_dims, keepdim=True) through one bmm (both operands aligned)."""
    if not sum_dims:
        return left * right
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left._data.ndim):
        sl, sr = left._data.shape[i] != 1, right._data.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left._data.shape[i] != right._data.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._data.shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            if left._data.shape[i] != right._data.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._data.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._data.shape[i]
        else:
            ro.append(i)
            ro_size *= right._data.shape[i]
    out_size = ([left._data.shape[d] for d in lro] + [left._data.shape[d] for d in lo] + [1] * len(sum_dims)
                + [right._data.shape[d] for d in ro])
    order = lro + lo + list(sum_dims) + ro
    operm = [0] * len(order)
    for pos, d in enumerate(order):
        operm[d] = pos
    a = left.permute(order).reshape(lro_size, lo_size, sum_size)
    b = right.permute(lro + list(sum_dims) + ro + lo).reshape(lro_size, sum_size, ro_size)
    return a.bmm(b).view(out_size).permute(operm)


@_registry.op()
def einsum(equation: str, *operands) -> Tensor:
    """Sums of products over the labels of ``equation`` ('ij,jk->ik', '...ij->...ji', 'ii->i', ...)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    subs = lhs.split(",")
    if len(subs) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(subs) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    labels = [_tokens(sub, i) for i, sub in enumerate(subs)]
    ell_dims, counts = 0, {}
    for i, (lab, t) in enumerate(zip(labels, operands)):
        n = len(lab) - (_ELL in lab)
        nd = t._data.ndim
        if (_ELL in lab and n > nd) or (_ELL not in lab and n != nd):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) "
                               f"{'is more than' if _ELL in lab else 'does not match'} the number of dimensions "
                               f"({nd}) for operand {i}{'' if _ELL in lab else ' and no ellipsis was given'}")
        if _ELL in lab:
            ell_dims = max(ell_dims, nd - n)
        for c in lab:
            if c != _ELL:
                counts[c] = counts.get(c, 0) + 1
    ell_slots = [(_ELL, j) for j in range(ell_dims)]
    if arrow:
        out_tokens = _tokens(rhs, len(subs))
        out = []
        for c in out_tokens:
            if c == _ELL:
                out += ell_slots
                continue
            if counts.get(c, 0) == 0 or c in out:
                raise RuntimeError(f"einsum(): output subscript {c} "
                                   f"{'appears more than once in the output' if c in out else 'does not appear in the equation for any input operand'}")  # noqa: E501
            out.append(c)
        ell_out = _ELL in out_tokens
    else:
        out = ell_slots + sorted((c for c, n in counts.items() if n == 1), key=_label_key)
        ell_out = True
    n_out = len(out)
    slots = out + ([] if ell_out else ell_slots) + sorted((c for c in counts if c not in out), key=_label_key)
    index = {s: k for k, s in enumerate(slots)}
    sizes = [1] * len(slots)
    dim_counts = [0] * len(slots)
    ops = []
    for i, (lab, op) in enumerate(zip(labels, operands)):
        perm = [-1] * len(slots)
        dim = 0
        for c in lab:
            if c == _ELL:
                n = op._data.ndim - (len(lab) - 1)
                targets = [index[(_ELL, j)] for j in range(ell_dims - n, ell_dims)]
            else:
                targets = [index[c]]
            for k in targets:
                if c != _ELL and perm[k] != -1:  # a repeated label reads the diagonal
                    prev = perm[k]
                    if op._data.shape[dim] != op._data.shape[prev]:
                        raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} but the sizes don't "
                                           f"match, {op._data.shape[dim]} != {op._data.shape[prev]}")
                    op = op.diagonal(0, prev, dim).movedim(-1, prev)
                    continue
                size = op._data.shape[dim]
                if size != 1:
                    if sizes[k] != 1 and sizes[k] != size:
                        raise RuntimeError(f"einsum(): subscript {c} has size {size} for operand {i} which does not "
                                           f"broadcast with previously seen size {sizes[k]}")
                    sizes[k] = size
                    dim_counts[k] += 1
                perm[k] = dim
                dim += 1
        for k in range(len(slots)):
            if perm[k] == -1:
                op = op.unsqueeze(dim)
                perm[k] = dim
                dim += 1
        ops.append(op.permute(perm))
    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(n_out, len(slots)):
            sa, sb = a._data.shape[d] != 1, b._data.shape[d] != 1
            if sa and sb:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if sa:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif sb:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = a.sum(a_sum, True)
        if b_sum:
            b = b.sum(b_sum, True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    res = ops[0]
    if len(slots) > n_out:
        if len(operands) > 1:  # the contracted dims are all 1 by now
            return res.view(res._data.shape[:n_out])
        return res.sum(list(range(n_out, len(slots))))
    return res


# -- tensordot ---------------------------------------------------------------------------------------
@_registry.op(variants="function out")
def tensordot(a: Tensor, b: Tensor, dims=2) -> Tensor:
    """Contract ``dims`` of ``a`` with ``dims`` of ``b`` (the last n of a with the first n of b for an int)."""
    na, nb = a._data.ndim, b._data.ndim
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(na - dims, na)), list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    da = [_wrap_dim(d, na) for d in da]
    db = [_wrap_dim(d, nb) for d in db]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    for x, y in zip(da, db):
        sx, sy = a._data.shape[x], b._data.shape[y]
        if sx != sy and 1 in (sx, sy):  # a size-1 contracted dim broadcasts, as in PyTorch
            if sx == 1:
                a = a.expand(tuple(sy if i == x else s for i, s in enumerate(a._data.shape)))
            else:
                b = b.expand(tuple(sx if i == y else s for i, s in enumerate(b._data.shape)))
        elif sx != sy:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a._data.shape[x]} in dim "
                               f"{x} and second has size {b._data.shape[y]} in dim {y}")
    fa = [d for d in range(na) if d not in da]
    fb = [d for d in range(nb) if d not in db]
    k = int(np.prod([a._data.shape[d] for d in da]))
    ma = a.permute(fa + da).reshape(-1, k) if fa else a.permute(da).reshape(1, k)
    mb = b.permute(db + fb).reshape(k, -1) if fb else b.permute(db).reshape(k, 1)
    shape = tuple(a._data.shape[d] for d in fa) + tuple(b._data.shape[d] for d in fb)
    return ma.mm(mb).reshape(shape)
