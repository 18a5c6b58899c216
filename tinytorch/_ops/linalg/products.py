"""Products beyond matmul: the contractions einsum and tensordot, outer (ger), kron, cross (and
linalg.cross), addmm / addmv / baddbmm, and the distances cdist, cosine_similarity, pairwise_distance.

einsum and tensordot are written as permutes, reshapes and matrix products, so that their graphs are
made of those ops' nodes, as PyTorch's are. vmap runs the products of this file once per sample (no
batching rule of their own yet).

PyTorch's Blas/LinearAlgebra composites ``inner``, ``vdot``, ``addr``, ``addbmm`` and the norms
``dist`` and ``renorm`` are written with matmul, broadcasting and vector_norm, so their gradients
(and second derivatives) are those ops'."""
from __future__ import annotations

import contextlib
import warnings

import numpy as np

from ... import _dtype
from ..._dtype import FLOATING_NP, FROM_NP, LOWP_NP, cpp_name
from ..._dtype_info import result_type
from ...autograd.forward_ad import formula_sum, zero_operand
from ...autograd.grad_mode import _State, no_grad
from ..creation.factory import ones_like, scalar_tensor, zeros_like
from ..._quiet_fp import silent
from ...autograd.node import Node, elem_strides, raw_dim, u64
from ...tensor import Tensor, _make, _wrap_dim
from .._core.record import OUT, legacy_name, record
from ..pointwise.arith import mul_scalar
from .._core import deprecated as _deprecated
from .._core.registry import op
from .._core.util import as_array, broadcast_shapes, fit_grad, holomorphic_backward
from ...autograd.node import sum_to
from .norms import NormBackward1, norm_backward, vector_norm
from ..shape.shape import UnsafeViewBackward0, viewed
from ..pointwise.compare import where
from . import matmul as _mm  # (its _np_matmul through the module: a CPU path may stand in its place)
from .matmul import _check_dtypes, addmv_dtype_error
from .._core.batching import composite, level_of


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


@op()
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
    for i, (lab, x) in enumerate(zip(labels, operands)):
        perm = [-1] * len(slots)
        dim = 0
        for c in lab:
            if c == _ELL:
                n = x._data.ndim - (len(lab) - 1)
                targets = [index[(_ELL, j)] for j in range(ell_dims - n, ell_dims)]
            else:
                targets = [index[c]]
            for k in targets:
                if c != _ELL and perm[k] != -1:  # a repeated label reads the diagonal
                    prev = perm[k]
                    if x._data.shape[dim] != x._data.shape[prev]:
                        raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} but the sizes don't "
                                           f"match, {x._data.shape[dim]} != {x._data.shape[prev]}")
                    x = x.diagonal(0, prev, dim).movedim(-1, prev)
                    continue
                size = x._data.shape[dim]
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
                x = x.unsqueeze(dim)
                perm[k] = dim
                dim += 1
        ops.append(x.permute(perm))
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
@op(variants="function out")
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
    shape = tuple(a._data.shape[d] for d in fa) + tuple(b._data.shape[d] for d in fb)
    pa, pb = a.permute(fa + da), b.permute(db + fb)
    if int(np.prod(shape)) == 1 and not (_flat_view(pa) and _flat_view(pb)):
        # one element, from operands that reshape would copy: PyTorch multiplies them as they are, squeezed, and
        # sums (each gradient is then laid out as the other operand's permute)
        return (pa.squeeze() * pb.squeeze()).sum().reshape(shape)
    ma = pa.reshape(-1, k) if fa else pa.reshape(1, k)
    mb = pb.reshape(k, -1) if fb else pb.reshape(k, 1)
    return ma.mm(mb).reshape(shape)


def _flat_view(t: Tensor) -> bool:
    """Can ``t`` be flattened without a copy (its dims of more than one element nested in C order)?"""
    st = elem_strides(t._data.shape, t._data.strides, t._data.itemsize)
    dims = [(n, s) for n, s in zip(t._data.shape, st) if n != 1]
    return all(s == s2 * n2 for (_, s), (n2, s2) in zip(dims, dims[1:]))



# -- outer, kron -------------------------------------------------------------------------------------
@op(variants="function method out", aliases=("ger",), overlap="partial")
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """input[i] * vec2[j] (1-d tensors)."""
    if input._data.ndim != 1 or vec2._data.ndim != 1:
        raise RuntimeError("outer: Expected 1-D argument self, but got "
                           f"{input._data.ndim}-D" if input._data.ndim != 1 else
                           f"outer: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    return input.reshape(-1, 1) * vec2


ger = outer


@op(variants="function method out", overlap="partial")
def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of ``input`` times the whole ``other``."""
    n = max(input._data.ndim, other._data.ndim)
    sa = (1,) * (n - input._data.ndim) + input._data.shape
    sb = (1,) * (n - other._data.ndim) + other._data.shape
    a = input.reshape(tuple(v for s in sa for v in (s, 1)))
    b = other.reshape(tuple(v for s in sb for v in (1, s)))
    prod = a * b
    shape = tuple(x * y for x, y in zip(sa, sb))
    # ATen's kron views the product (laid out as the elementwise product of the two views lays it out): a product
    # no view can merge (a transposed input's) raises, as PyTorch's does, and a mergeable one keeps its strides
    return record(viewed(prod._data, shape), UnsafeViewBackward0, (prod,), in_shape=prod._data.shape)


# -- cross -------------------------------------------------------------------------------------------
class LinalgCrossBackward0(Node):
    saved_fields = (("self", 0), ("other", 1), ("dim", lambda n: u64(raw_dim(n))))

    @holomorphic_backward
    def backward(self, g):
        a, b = self._unpacked_saved
        ga = _fit(_cross(b, g, self.dim), self.a_shape) if self.need_a else None
        gb = _fit(_cross(g, a, self.dim), self.b_shape) if self.need_b else None
        return ga, gb


def _fit(g: Tensor, shape: tuple) -> Tensor:
    return g if g._data.shape == shape else sum_to(g, shape)


def _cross(a: Tensor, b: Tensor, dim: int) -> Tensor:
    x, y = a._data, b._data
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.cross: expected both inputs to have the same dtype, but got "
                           f"{legacy_name(x.dtype)} and {legacy_name(y.dtype)}")
    shape = broadcast_shapes(x.shape, y.shape)
    d = _wrap_dim(dim, len(shape))
    if x.ndim != y.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if shape[d] != 3 or x.shape[d] != 3 or y.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {x.shape[d]} and "
                           f"{y.shape[d]}")
    r = _cross_values(np.broadcast_to(x, shape), np.broadcast_to(y, shape), d)
    return record(r, LinalgCrossBackward0, (a, b), (a, b), dim=d, dim_arg=dim,
                  a_shape=x.shape,
                  b_shape=y.shape, need_a=a._requires_grad, need_b=b._requires_grad)


@silent
def _cross_values(x: np.ndarray, y: np.ndarray, d: int) -> np.ndarray:
    """The cross product of two arrays of one shape along ``d``: component i is ``x[j] * y[k] - x[k] * y[j]``
    ((i, j, k) the cyclic orders of 0, 1, 2), each product and the difference rounded, as PyTorch's scalar CPU
    kernel computes it on its default path (``_cpu/products.py`` holds its fused form, the vector builds')."""
    r = np.cross(x, y, axis=d)
    # C order, as PyTorch's result (numpy's moves the dim back: a view of its last-dim product)
    return np.ascontiguousarray(r, dtype=x.dtype)


@op("linalg.cross", variants="function out", overlap="any")
def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The 3-vector cross product along ``dim``."""
    return _cross(input, other, dim)


@op(variants="function method out", overlap="any")
def cross(input: Tensor, other: Tensor, dim=None) -> Tensor:
    """torch.cross: along ``dim``, or (deprecated) the first dim of size 3 when ``dim`` is None."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
                      "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to "
                      "agree with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = broadcast_shapes(input._data.shape, other._data.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    return _cross(input, other, dim)


# -- addmm, addmv, baddbmm ----------------------------------------------------------------------------
def _times(t, number):
    """PyTorch's maybe_multiply: ``t`` as it is for a factor of 1, else times the number (``mul.Scalar``)."""
    return t if number == 1 else mul_scalar(t, number)


def _scaled_product_jvp(node, ti, t1, t2, product, batch_sum: bool = False):
    """The forward formula of addmm (addmv, baddbmm; addbmm with ``batch_sum``) as PyTorch writes it:
    ``maybe_multiply(self_t, beta) + maybe_multiply(mat1_t.mm(mat2_p), alpha) + maybe_multiply(mat1_p.mm(mat2_t),
    alpha)`` (each product summed over the batch first for addbmm). A missing tangent is its operand's zero tensor
    (``zero_operand``), multiplied out as in mm's formula (matmul's ``product_jvp``); self's adds nothing
    (``formula_sum``), its sum still recorded where the product records history."""
    m1, m2 = node._unpacked_saved

    def term(x, y):
        p = product(x, y)
        return _times(p.sum(0) if batch_sum else p, node.alpha)
    second = term(m1, zero_operand(m2) if t2 is None else t2)
    first = term(zero_operand(m1) if t1 is None else t1, m2)
    return formula_sum(node, None if ti is None else _times(ti, node.beta), first) + second


class AddmmBackward0(Node):
    saved_fields = (("alpha", "alpha"), ("beta", "beta"), ("mat2", 1), ("mat1", 0),
                    ("mat1_sym_sizes", lambda n: tuple(n.geoms[0][0])),
                    ("mat1_sym_strides", lambda n: elem_strides(*n.geoms[0]) if n.need[1] else ()),
                    ("mat2_sym_sizes", lambda n: tuple(n.geoms[1][0])),
                    ("mat2_sym_strides", lambda n: elem_strides(*n.geoms[1]) if n.need[2] else ()))

    def jvp(self, ti, t1, t2):
        return _scaled_product_jvp(self, ti, t1, t2, lambda x, y: x.mm(y))

    @holomorphic_backward
    def backward(self, g):
        m1, m2 = self._unpacked_saved
        gi = _fit(_times(g, self.beta), self.in_shape) if self.need[0] else None
        g1 = _times(g.mm(m2.t()), self.alpha) if self.need[1] else None
        g2 = _times(m1.t().mm(g), self.alpha) if self.need[2] else None
        return gi, g1, g2


class AddmvBackward0(Node):
    saved_fields = (("alpha", "alpha"), ("beta", "beta"), ("vec", 1), ("mat", 0))

    def jvp(self, ti, t1, t2):
        return _scaled_product_jvp(self, ti, t1, t2, lambda x, y: x.mv(y))

    @holomorphic_backward
    def backward(self, g):
        m, v = self._unpacked_saved
        gi = _fit(_times(g, self.beta), self.in_shape) if self.need[0] else None
        gm = _times(g.unsqueeze(1) * v, self.alpha) if self.need[1] else None
        gv = _times(m.t().matmul(g), self.alpha) if self.need[2] else None
        return gi, gm, gv


class BaddbmmBackward0(Node):
    saved_fields = (("alpha", "alpha"), ("batch2", 1), ("beta", "beta"), ("batch1", 0))

    def jvp(self, ti, t1, t2):
        return _scaled_product_jvp(self, ti, t1, t2, lambda x, y: x.bmm(y))

    @holomorphic_backward
    def backward(self, g):
        b1, b2 = self._unpacked_saved
        gi = _fit(_times(g, self.beta), self.in_shape) if self.need[0] else None
        g1 = _times(g.bmm(b2.transpose(1, 2)), self.alpha) if self.need[1] else None
        g2 = _times(b1.transpose(1, 2).bmm(g), self.alpha) if self.need[2] else None
        return gi, g1, g2


def _addmul(node_cls, input, m1, m2, beta, alpha):
    """beta input + alpha (m1 @ m2), recorded; the sum itself is ``_addmul_arrays``."""
    x, a, b = input._data, m1._data, m2._data
    prod = a.shape[:-1] + b.shape[-1:] if b.ndim > 1 else a.shape[:-1]  # the product's shape
    if np.result_type(a.dtype, b.dtype).kind in "iu":  # integer tensors take the scalars as integers (0.6 -> 0)
        beta, alpha = int(beta), int(alpha)
    shape = broadcast_shapes(x.shape, prod)
    if shape != prod:
        raise RuntimeError(f"The expanded size of the tensor ({prod[-1]}) must match the existing size "
                           f"({x.shape[-1]}) at non-singleton dimension {len(shape) - 1}")
    return record(_addmul_arrays(x, a, b, beta, alpha), node_cls, (input, m1, m2), (m1, m2), beta=beta, alpha=alpha,
                  in_shape=x.shape, need=(input._requires_grad, m1._requires_grad, m2._requires_grad),
                  geoms=tuple((m._data.shape, m._data.strides, m._data.itemsize) for m in (m1, m2)))  # read lazily


def _addmul_arrays(x: np.ndarray, a: np.ndarray, b: np.ndarray, beta, alpha) -> np.ndarray:
    """beta x + alpha (a @ b) on arrays, ``x`` broadcast to the product: half and bfloat16 multiply, sum and
    scale in float32, rounded once (PyTorch's CPU GEMM); with beta 0 ``x`` is not read (its NaNs neither)."""
    if a.dtype in LOWP_NP:
        dt, prod, x = a.dtype, a.astype(np.float32) @ b.astype(np.float32), x.astype(np.float32)
    else:
        prod = a @ b
        dt = prod.dtype
    base = np.zeros_like(prod) if beta == 0 else x.astype(prod.dtype, copy=False) * (beta if beta != 1 else 1)
    return np.asarray(base + (prod * alpha if alpha != 1 else prod)).astype(dt, copy=False)


@op(variants="function method inplace out", autocast="lower", overlap="partial")
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *legacy, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2)."""
    if legacy or not isinstance(input, Tensor):  # addmm(Number beta, ...), deprecated
        kw = {k: v for k, v in (("beta", beta), ("alpha", alpha)) if v != 1}
        args, kw = _deprecated.modern("addmm", (input, mat1, mat2) + legacy, kw, ("mat1", "mat2"), True)
        return addmm(*args, **kw)
    a, b = mat1._data, mat2._data
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"{'mat1' if a.ndim != 2 else 'mat2'} must be a matrix, got "
                           f"{a.ndim if a.ndim != 2 else b.ndim}-D tensor")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    addmm_dtypes(input._data, a, b)
    return _addmul(AddmmBackward0, input, mat1, mat2, beta, alpha)


def addmm_dtypes(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """addmm's operands share one dtype, checked as PyTorch's addmm checks them: ``self`` (``x``) against
    ``mat2`` first, then ``mat1``; nothing is promoted (nn.Linear's fused node checks the same)."""
    if x.dtype != b.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {FROM_NP[x.dtype]._scalar} and "
                           f"{FROM_NP[b.dtype]._scalar}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {FROM_NP[a.dtype]._scalar} and "
                           f"{FROM_NP[b.dtype]._scalar}")


@op(variants="function method inplace torch_inplace out", overlap="partial")
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *legacy, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    if legacy or not isinstance(input, Tensor):  # addmv(Number beta, ...), deprecated
        kw = {k: v for k, v in (("beta", beta), ("alpha", alpha)) if v != 1}
        args, kw = _deprecated.modern("addmv", (input, mat, vec) + legacy, kw, ("mat", "vec"))
        return addmv(*args, **kw)
    a, v = mat._data, vec._data
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0] if input._data.ndim else 1}), mat "
                           f"({a.shape[0]}x{a.shape[1]}), vec ({v.shape[0]})")
    if not input._data.dtype == a.dtype == v.dtype:  # (nothing promoted)
        raise RuntimeError(addmv_dtype_error(input._data, a, v))
    return _addmul(AddmvBackward0, input, mat, vec, beta, alpha)



@op(variants="function method inplace out", autocast="lower", overlap="partial")
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *legacy, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    if legacy or not isinstance(input, Tensor):  # baddbmm(Number beta, ...), deprecated
        kw = {k: v for k, v in (("beta", beta), ("alpha", alpha)) if v != 1}
        args, kw = _deprecated.modern("baddbmm", (input, batch1, batch2) + legacy, kw, ("batch1", "batch2"), True)
        return baddbmm(*args, **kw)
    a, b = batch1._data, batch2._data
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
                           f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    # nothing promoted: PyTorch checks self against batch1, then its bmm kernel batch2
    if input._data.dtype != a.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {cpp_name(input._data.dtype)}, batch1: "
                           f"{cpp_name(a.dtype)}, batch2: {cpp_name(b.dtype)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {FROM_NP[a.dtype]._scalar} but found {FROM_NP[b.dtype]._scalar}")
    return _addmul(BaddbmmBackward0, input, batch1, batch2, beta, alpha)


# -- distances -----------------------------------------------------------------------------------------
def _p_norms(diff: np.ndarray, p: float, nan_max: bool) -> np.ndarray:
    """The p-norms of ``diff``'s last axis (absolute differences): cdist's and pdist's distances, as PyTorch's
    kernels reduce them: the 0-"norm" counts min(ceil(|d|), 1) (NaN stays NaN), and the inf-norm's max keeps a
    NaN where ``nan_max`` (pdist's vector max) and passes over it otherwise (cdist's scalar std::max, from 0)."""
    if p == 0:
        return np.minimum(np.ceil(diff), diff.dtype.type(1)).sum(-1)
    if p == float("inf"):
        if not diff.shape[-1]:
            return np.zeros(diff.shape[:-1], diff.dtype)
        return diff.max(-1) if nan_max else np.fmax.reduce(diff, axis=-1, initial=0)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return np.sqrt((diff * diff).sum(-1))
    return (diff ** p).sum(-1) ** (1 / p)


@silent  # |inf| - inf in the inf-norm's mask: NaN, silently, as PyTorch's
def _pair_grad(diff: Tensor, g: Tensor, d: Tensor, p: float) -> Tensor:
    """d dist / d x_i * g for each pair's coordinates (``diff`` = x_i - x_j; ``g``, ``d`` with a trailing 1):
    the formulas of PyTorch's distance kernels, whose sign keeps NaN (min/max that propagate it) and whose
    terms are 0 where the distance is 0 (and, for p < 1, where the coordinate difference is). The signs and
    masks are constants (their derivatives are 0); the scale g / d^(p-1) is taken on the pairs, before the
    coordinates multiply it."""
    if p == 0:
        return zeros_like(diff)
    if p == 2:
        return diff * where(d == 0, 0.0, g / d)
    if p > 2 and p != float("inf"):
        return diff * diff.abs() ** (p - 2) * where(d == 0, 0.0, g / d ** (p - 1))
    x = diff._data
    sign = _make(np.sign(x))  # NaN for NaN (Tensor.sign's is 0)
    if p == 1:
        return sign * g
    if p == float("inf"):  # the coordinates where |diff| is the distance, each with the whole gradient
        one = x.dtype.type(1)
        return g * sign * _make(one - np.minimum(one, np.ceil(np.abs(np.abs(x) - d._data))))
    t = sign * diff.abs() ** (p - 1) * where(d == 0, 0.0, g / d ** (p - 1))
    return t.masked_fill(_make(x == 0), 0.0) if p < 1 else t


class CdistBackward0(Node):
    saved_fields = (("x1", 0), ("x2", 1), ("p", lambda n: float(n.p)), ("result", 2))

    def backward(self, g):
        x1, x2, d = self._unpacked_saved
        t = _pair_grad(x1.unsqueeze(-2) - x2.unsqueeze(-3), g.unsqueeze(-1), d.unsqueeze(-1), self.p)
        # batch dims broadcast between x1 and x2 are summed back to each input's shape
        g1 = _fit(t.sum(-2), x1._data.shape) if self.need[0] else None
        g2 = _fit(-t.sum(-3), x2._data.shape) if self.need[1] else None
        return g1, g2


class EuclideanDistBackward0(Node):
    """PyTorch's _euclidean_dist_backward: with r = g / d (0 where d is 0), x1 gets
    x1 * sum_j r - r @ x2 and x2 gets x2 * sum_i r - r^T @ x1."""

    def backward(self, g):
        x1, x2, d = self._unpacked_saved
        zero = d == 0
        ratio = where(zero, 0.0, g / where(zero, 1.0, d))
        g1 = _fit(x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2), x1._data.shape) if self.need[0] else None
        g2 = (_fit(x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1), x2._data.shape)
              if self.need[1] else None)
        return g1, g2


def _euclidean_dist(x1: Tensor, x2: Tensor) -> Tensor:
    """PyTorch's matrix-product form of the 2-norm distances: [-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T,
    clamped at 0, square-rooted (fast, and it loses digits where points nearly coincide)."""
    a, b = x1._data, x2._data
    acc = np.float32 if a.dtype in LOWP_NP else a.dtype  # half types: sums in float32, rounded once
    n1 = (a * a).sum(-1, keepdims=True, dtype=acc).astype(a.dtype)
    n2 = (b * b).sum(-1, keepdims=True, dtype=acc).astype(a.dtype)
    left = np.concatenate([a * a.dtype.type(-2), n1, np.ones_like(n1)], -1)
    right = np.concatenate([b, np.ones_like(n2), n2], -1)
    r = np.sqrt(np.maximum(_mm._np_matmul(left, np.swapaxes(right, -1, -2)), a.dtype.type(0)))
    return record(r, EuclideanDistBackward0, (x1, x2), (x1, x2, OUT), need=(x1._requires_grad, x2._requires_grad))


# torch.cdist's compute_mode, as the number its kernel receives
_CDIST_MODES = {None: 0, "use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


@op(autocast="fp32")
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode=None) -> Tensor:
    """p-norm distances between each row of ``x1`` and each row of ``x2`` (batched over leading dims)."""
    a, b = x1._data, x2._data
    if a.ndim < 2 or b.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X{1 if a.ndim < 2 else 2} got: "
                           f"{a.ndim if a.ndim < 2 else b.ndim}D")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} X2: {b.shape[-1]}")
    if a.dtype not in FLOATING_NP:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {legacy_name(a.dtype)}")
    if b.dtype not in FLOATING_NP:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: {legacy_name(b.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    p = float(p)
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _CDIST_MODES[compute_mode]
    r1, r2, batch = a.shape[-2], b.shape[-2], broadcast_shapes(a.shape[:-2], b.shape[:-2])
    use_mm = (p == 2 and a.size and b.size and a.shape[-1] and int(np.prod(batch)) and
              (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))))
    if a.dtype != b.dtype:  # the message of the kernel each path reaches first
        if use_mm:
            _check_dtypes(a, b)
        raise RuntimeError(f"expected scalar type {legacy_name(a.dtype)} but found {legacy_name(b.dtype)}")
    if not use_mm and a.dtype in LOWP_NP:  # PyTorch's element-wise kernel has no half types (its mm has)
        raise NotImplementedError(f"\"cdist\" not implemented for '{legacy_name(a.dtype)}'")
    if use_mm:
        # PyTorch's cdist takes the matrix-product path here, a graph of _euclidean_dist and a view
        if int(np.prod(batch)) == 1:
            dist = _euclidean_dist(x1, x2)
        else:
            n = int(np.prod(batch))
            dist = _euclidean_dist(x1.expand(batch + a.shape[-2:]).contiguous().view(n, r1, a.shape[-1]),
                                   x2.expand(batch + b.shape[-2:]).contiguous().view(n, r2, b.shape[-1]))
        return dist.view(batch + (r1, r2))
    r = _quiet_norms(a[..., :, None, :], b[..., None, :, :], p, False)
    return record(np.asarray(r, dtype=a.dtype), CdistBackward0, (x1, x2), (x1, x2, OUT), p=p,
                  need=(x1._requires_grad, x2._requires_grad))


@op(variants="function functional")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps)) along ``dim``, as PyTorch computes it: each input
    divided by its norm, the norms clamped in place (copies, unseen by autograd)."""
    common = result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {common._scalar}")
    if eps < 0:
        raise RuntimeError(f"eps must be non-negative, got: {eps:g}")
    a = x1.to(common) if x1._data.dtype.kind in "biu" else x1  # integers and bools are taken, in that dtype
    b = x2.to(common) if x2._data.dtype.kind in "biu" else x2
    if a._data.shape != b._data.shape:  # PyTorch's expand_outplace: both expanded (the second first)
        shape = broadcast_shapes(a._data.shape, b._data.shape)
        b = b.expand(shape)
        a = a.expand(shape)
    n1 = vector_norm(a, 2, dim, True).clone()
    n2 = vector_norm(b, 2, dim, True).clone()
    # eps as a tensor of the common dtype (float32 beside half and bfloat16, where eps could overflow)
    low = common in (_dtype.float16, _dtype.bfloat16)
    eps_t = scalar_tensor(eps, dtype=_dtype.float32 if low else common, device=n1.device)
    with no_grad():
        n1.clamp_min_(eps_t)
        n2.clamp_min_(eps_t)
    right = b / n2  # (the product's right operand first, as PyTorch's compiled C++ runs it)
    return ((a / n1) * right).sum(dim)


@op(variants="function functional")
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p along the last dim."""
    n = max(x1._data.ndim, x2._data.ndim)
    diff = x1 - x2 + eps
    if n == 0:
        return diff.abs()
    return vector_norm(diff, p, -1, keepdim, _node=NormBackward1)


class PdistBackward0(Node):
    """d||x_i - x_j||_p / dx_i for each pair (i < j), added into row i, and its negative into row j (PyTorch's
    kernel's terms, as cdist's)."""
    saved_fields = (("self", 0), ("p", lambda n: float(n.p)), ("result", 1))

    def backward(self, g):
        x, d = self._unpacked_saved
        rows, cols = (_make(as_array(ix, dtype=np.int64)) for ix in np.triu_indices(x._data.shape[0], 1))
        t = _pair_grad(x[rows] - x[cols], g.unsqueeze(-1), d.unsqueeze(-1), self.p)
        return zeros_like(x).index_add(0, rows, t).index_add(0, cols, -t)


@op(variants="function functional")
def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distances between the rows of a 2-d tensor, pairs (i, j) with i < j in row-major order."""
    a = input._data
    if a.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {a.ndim}D")
    if a.dtype not in FLOATING_NP:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    rows, cols = np.triu_indices(a.shape[0], 1)
    p = float(p)
    r = _quiet_norms(a[rows], a[cols], p, True)
    return record(np.asarray(r, dtype=a.dtype), PdistBackward0, (input,), (input, OUT), p=p)


@silent  # inf - inf in a difference: NaN, silently, as PyTorch's
def _quiet_norms(a: np.ndarray, b: np.ndarray, p: float, nan_max: bool) -> np.ndarray:
    return _p_norms(np.abs(a - b), p, nan_max)


def _shape(t: Tensor) -> str:
    return "[" + ", ".join(map(str, t.shape)) + "]"


@op(variants="function method out", batch=composite)
def inner(input: Tensor, other: Tensor) -> Tensor:
    """Sum over the last dimensions of both: out[i..., j...] = sum_k input[i..., k] * other[j..., k]."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    k = input.shape[-1]
    if other.shape[-1] != k:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{_shape(input)} and {_shape(other)}")
    out = input.reshape(-1, k).matmul(other.reshape(-1, k).t())
    return out.reshape(tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


@op(variants="function method out", batch=composite)
def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product of two 1-d tensors (the first conjugated: nothing to do for real ones)."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    if input.dtype != other.dtype:
        raise RuntimeError(f"vdot : expected both vectors to have same dtype, but found "
                           f"{legacy_name(input._data.dtype)} and {legacy_name(other._data.dtype)}")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
                           f"to have the same number of elements, but got {input.shape[0]} and {other.shape[0]} "
                           "elements respectively")
    return (input.conj() if input.is_complex() else input).dot(other)


def _scaled_sum(input: Tensor, product: Tensor, beta, alpha) -> Tensor:
    """beta * input + alpha * product, with input ignored (NaN included) when beta is 0."""
    if input.dtype.name == "bool" and product.dtype.name == "bool":
        prod = product if alpha else product & False
        return prod if not beta else (input | prod)
    scaled = product if alpha == 1 else product * alpha
    if scaled.dtype != product.dtype and not product.is_floating_point():
        scaled = scaled.to(product.dtype)  # an integer op keeps its dtype: alpha is cast to it
    if beta == 0:
        return scaled.expand(_broadcast(input, scaled))
    return (input if beta == 1 else input * beta) + scaled


def _broadcast(a: Tensor, b: Tensor) -> tuple:
    return broadcast_shapes(tuple(a.shape), tuple(b.shape))


@op(variants="function method inplace out", batch=composite, overlap="partial")
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *legacy, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (the outer product of vec1 and vec2)."""
    if legacy or not isinstance(input, Tensor):  # addr(Number beta, ...), deprecated
        kw = {k: v for k, v in (("beta", beta), ("alpha", alpha)) if v != 1}
        args, kw = _deprecated.modern("addr", (input, vec1, vec2) + legacy, kw, ("vec1", "vec2"))
        return addr(*args, **kw)
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D" if vec1.dim() != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    if not input.is_floating_point() and input.dtype.name != "bool":
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    outer = vec1.unsqueeze(1) & vec2.unsqueeze(0) if vec1.dtype.name == "bool" == vec2.dtype.name else \
        vec1.unsqueeze(1) * vec2.unsqueeze(0)
    return _scaled_sum(input, outer, beta, alpha)


@op(variants="function method inplace out", batch=composite, autocast="lower", overlap="partial")
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *legacy, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (the sum over the batch of batch1[i] @ batch2[i])."""
    if legacy or not isinstance(input, Tensor):  # addbmm(Number beta, ...), deprecated
        kw = {k: v for k, v in (("beta", beta), ("alpha", alpha)) if v != 1}
        args, kw = _deprecated.modern("addbmm", (input, batch1, batch2) + legacy, kw, ("batch1", "batch2"))
        return addbmm(*args, **kw)
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
                           f"{batch2.shape[0]}")
    if not (batch1.is_floating_point() or batch1.is_complex()):
        beta, alpha = int(beta), int(alpha)  # addbmm casts them to the integer dtype, without a word
    # one product over the batch and inner dimensions together: a single sum per element
    b, n, m = batch1.shape
    node = _State.enabled and any(t.requires_grad for t in (input, batch1, batch2)) and \
        level_of((input, batch1, batch2)) is None  # (under vmap: the composite's own graph)
    with no_grad() if node else contextlib.nullcontext():
        total = batch1.permute(1, 0, 2).reshape(n, b * m).matmul(batch2.reshape(b * m, batch2.shape[2]))
        out = _scaled_sum(input, total, beta, alpha)
    if not node:
        return out
    # PyTorch's node, whose formula gives C-ordered gradients (the composite's would be its permute's)
    return record(out._data, AddbmmBackward0, (input, batch1, batch2), (batch1, batch2), beta=beta, alpha=alpha,
                  in_shape=input._data.shape, sizes=(b, n, batch2.shape[2]),
                  need=(input._requires_grad, batch1._requires_grad, batch2._requires_grad))


class AddbmmBackward0(Node):
    """PyTorch's formula: the output's gradient, repeated over the batch, times each batch of the other operand
    (one bmm each: C-ordered gradients, as PyTorch's)."""
    saved_fields = (("alpha", "alpha"), ("batch1", 0), ("batch1_sym_argsize_0", lambda n: n.sizes[0]),
                    ("batch1_sym_argsize_1", lambda n: n.sizes[1]), ("batch2", 1),
                    ("batch2_sym_argsize_2", lambda n: n.sizes[2]), ("beta", "beta"))

    def jvp(self, ti, t1, t2):
        return _scaled_product_jvp(self, ti, t1, t2, lambda x, y: x.bmm(y), batch_sum=True)

    @holomorphic_backward
    def backward(self, g):
        b1, b2 = self._unpacked_saved
        wide = g.unsqueeze(0).expand(*self.sizes)  # (PyTorch's expand to (batch1's b, n, batch2's p))
        gi = _fit(_times(g, self.beta), self.in_shape) if self.need[0] else None
        g1 = _times(wide.bmm(b2.transpose(1, 2)), self.alpha) if self.need[1] else None
        g2 = _times(b1.transpose(1, 2).bmm(wide), self.alpha) if self.need[2] else None
        return gi, g1, g2


@op(variants="function method", batch=composite)
def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """The p-norm of input - other: one ``DistBackward0`` node over both inputs, as PyTorch records it."""
    if input._data.dtype.kind == "c" or other._data.dtype.kind == "c":
        return vector_norm(input - other, p)
    with no_grad():
        r = vector_norm(input - other, p)
    return record(r._data, DistBackward0, (input, other), (input, other, OUT), p=float(p), p_arg=p,
                  in_metas=((input._data.shape, input._data.dtype), (other._data.shape, other._data.dtype)))


class DistBackward0(Node):
    """d/dself = norm_backward(g, self - other, p, result), d/dother its negation."""

    saved_fields = (("self", 0), ("other", 1), ("p", "p_arg"), ("result", 2))

    def backward(self, g):
        x, o, y = self._unpacked_saved
        gd = norm_backward(g, x - o, y, self.p, (), False)
        if gd is None:  # the 0-"norm": undefined, and PyTorch's formula for ``other`` negates it
            if self.next_functions[1][0] is not None:
                raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor in C++) for "
                                   "argument #0 'self'")
            return None, None
        (xs, xt), (os_, ot) = self.in_metas
        gx = fit_grad(gd, (xs, xt)) if self.next_functions[0][0] is not None else None
        go = fit_grad(-gd, (os_, ot)) if self.next_functions[1][0] is not None else None
        return gx, go


@op(variants="function method inplace out", batch=composite, overlap="partial")
def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """``input`` with each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to it."""
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = _wrap_dim(dim, input.dim())
    others = tuple(i for i in range(input.dim()) if i != d)
    norm = vector_norm(input, p, others, keepdim=True)
    nan = norm.isnan()
    if level_of((input,)) is not None or nan._data.any():  # (vmap: whichever the samples hold; meta: none)
        # a slice whose norm is NaN is left as it is (NaN > maxnorm is false) and PyTorch's gradient there is the
        # incoming one; its scale's unused branch would carry 0 * NaN back through the norm, so that branch reads
        # zeros in its place (their gradient then dropped by the where)
        norm = vector_norm(input.where(~nan, 0.0), p, others, keepdim=True)
    factor = (maxnorm / (norm + 1e-7)).where(norm > maxnorm, ones_like(norm))
    return input * factor
