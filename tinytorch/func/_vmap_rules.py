"""vmap's batching rules for reductions, shape ops, matmul, joining and losses (the table that maps
op names to them is in ``_vmap.py``)."""
from __future__ import annotations

from ..tensor import Tensor
from ._batched import (_at, _binary_fn, _level_of, _phys_of,
                       _unsupported)


# -- reductions ------------------------------------------------------------------------------------
def _dims(x, dim):
    """Physical dims for a logical ``dim`` argument (None or () means all logical dims)."""
    n = x.dim()
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(1, n + 1))
    if isinstance(dim, (tuple, list)):
        return tuple(x._ld(d) for d in dim)
    return x._ld(dim)


def _reduction(name):
    def rule(input, dim=None, keepdim=False, **kwargs):
        dims = _dims(input, dim)
        if dims == ():
            return input._wrap(input._phys.clone())
        return input._wrap(getattr(input._phys, name)(dims, keepdim=keepdim, **kwargs))
    return rule


def _var_like(name):
    def rule(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):  # var(unbiased) spelling
            dim, unbiased = None, dim
        kw = {"keepdim": keepdim}
        if unbiased is not None:
            kw["unbiased"] = unbiased
        if correction is not None:
            kw["correction"] = correction
        return input._wrap(getattr(input._phys, name)(_dims(input, dim), **kw))
    return rule


def _max_min(name):
    def rule(input, dim=None, keepdim=False, **kwargs):
        if "other" in kwargs or isinstance(dim, Tensor):
            other = kwargs.get("other", dim)
            return _binary_fn("maximum" if name == "max" else "minimum")(input, other)
        if dim is None:
            return input._wrap(getattr(input._phys, "amax" if name == "max" else "amin")(_dims(input, None)))
        res = getattr(input._phys, name)(input._ld(dim), keepdim)
        from ..ops.reduce import _return_type
        return _return_type(name)(input._wrap(res.values), input._wrap(res.indices))
    return rule


def _arg_extreme(name):
    def rule(input, dim=None, keepdim=False):
        if dim is None:
            flat = input._phys.reshape(input._bsz, -1)
            return input._wrap(getattr(flat, name)(1))
        return input._wrap(getattr(input._phys, name)(input._ld(dim), keepdim))
    return rule


def _softmax_like(name):
    def rule(input, dim=None, *args, **kwargs):
        if dim is None:
            raise _unsupported(f"{name} without an explicit dim")
        return input._wrap(getattr(input._phys, name)(input._ld(dim), **{k: v for k, v in kwargs.items()
                                                                          if k == "dtype"}))
    return rule


# -- shapes (the shape ops' own rules are on their declarations: ops/_shape_batching.py) -----------
def _transpose(input, dim0, dim1):
    return input._wrap(input._phys.transpose(input._ld(dim0), input._ld(dim1)))


def _t(input):
    if input.dim() < 2:
        return input._wrap(input._phys)
    return _transpose(input, 0, 1)


# -- matmul ----------------------------------------------------------------------------------------
def _matmul(a, b):
    lead = _level_of((a, b))
    ba, bb = _at(a, lead), _at(b, lead)
    na, nb = a.dim(), b.dim()
    pa, pb = _phys_of(a, lead), _phys_of(b, lead)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    if ba and bb:
        if na == 1 and nb == 1:
            return lead._wrap((pa * pb).sum(-1))
        if na == 1:
            return lead._wrap((pa.unsqueeze(-2) @ _pad_batch(pb, nb, 2)).squeeze(-2).reshape(
                _mm_shape(a, b, lead)))
        if nb == 1:
            return lead._wrap((pa @ pb.unsqueeze(-1)).squeeze(-1))
        n = max(na, nb)
        return lead._wrap(_pad_batch(pa, na, n) @ _pad_batch(pb, nb, n))
    if ba:  # batched @ plain
        if nb == 1 or na >= 2 or nb == 2:
            if na == 1 and nb >= 3:
                return lead._wrap((pa.reshape((lead._bsz,) + (1,) * (nb - 2) + (1, a.shape[0])) @ pb).squeeze(-2))
            if na >= 2 and nb > na:
                return lead._wrap(_pad_batch(pa, na, nb) @ pb)
            return lead._wrap(pa @ pb)
    # plain @ batched
    if nb == 1:
        if na == 1:
            return lead._wrap(pb @ pa)
        # (.., k, n) @ (B, n) -> (B, .., k): put the batch in the columns
        return lead._wrap((pa @ pb.t()).permute((pa.dim() - 1,) + tuple(range(pa.dim() - 1))))
    n = max(na, nb)
    if na == 1:
        return lead._wrap((pa.unsqueeze(0) @ pb).squeeze(-2))
    return lead._wrap(pa @ pb if na <= nb else pa @ _pad_batch(pb, nb, n))


def _pad_batch(p, k: int, n: int):
    """Insert size-1 logical dims after the batch so a k-dim logical operand has n dims."""
    if k >= n:
        return p
    s = tuple(p.shape)
    return p.reshape(s[:1] + (1,) * (n - k) + s[1:])


def _mm_shape(a, b, lead):
    import numpy as np
    return (lead._bsz,) + tuple(np.broadcast_shapes(tuple(b.shape[:-2]))) + (b.shape[-1],)


def _dot(a, b):
    return _matmul(a, b)


def _mm(a, b):
    if a.dim() != 2 or b.dim() != 2:
        raise RuntimeError("self must be a matrix" if a.dim() != 2 else "mat2 must be a matrix")
    return _matmul(a, b)


def _bmm(a, b):
    return _matmul(a, b)

