"""vmap's batching rules for reductions, shape ops, matmul, joining and losses (the table that maps
op names to them is in ``_vmap.py``)."""
from __future__ import annotations

from ..tensor import Tensor
from ._batched import (_align, _at, BatchedTensor, _binary_fn, _fmod, _level_of, _logical_ndim, _phys_of,
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


def _linear(input, weight, bias=None):
    out = _matmul_any(input, weight.t() if not isinstance(weight, BatchedTensor) else _t(weight))
    return out if bias is None else out + bias


def _matmul_any(a, b):
    if isinstance(a, BatchedTensor) or isinstance(b, BatchedTensor):
        return _matmul(a, b)
    return a @ b


# -- losses ----------------------------------------------------------------------------------------
def _reduce_loss(lead, errors, reduction):
    if reduction == "none":
        return errors
    if errors.dim() == 0:
        return errors
    return errors.mean() if reduction == "mean" else errors.sum()


def _pointwise_loss(name):
    def rule(input, target, size_average=None, reduce=None, reduction="mean", **kwargs):
        lead = _level_of((input, target))
        F = _fmod()
        n = max(_logical_ndim(input, lead), _logical_ndim(target, lead))
        errs = getattr(F, name)(_bcast(input, lead, n), _bcast(target, lead, n), reduction="none", **kwargs)
        return _reduce_loss(lead, lead._wrap(errs), reduction)
    return rule


def _bcast(x, lead, n):
    """A full physical batch for x (expanded when x is not batched at this level)."""
    if _at(x, lead):
        return _align(x, lead, n)
    return x.unsqueeze(0).expand((lead._bsz,) + tuple(x.shape)) if isinstance(x, Tensor) else x


def _class_loss(name):
    def rule(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
             label_smoothing=0.0):
        if weight is not None:
            raise _unsupported(f"nn.functional.{name} with weight")
        lead = _level_of((input, target))
        F = _fmod()
        x = _bcast(input, lead, input.dim())
        t = _bcast(target, lead, target.dim())
        B = lead._bsz
        logical_x = tuple(input.shape)
        if len(logical_x) == 1:      # one sample of C classes: the batch becomes the loss's N
            kw = {"label_smoothing": label_smoothing} if name == "cross_entropy" else {}
            errs = getattr(F, name)(x, t, ignore_index=ignore_index, reduction="none", **kw)
            return lead._wrap(errs)
        # (N, C, ...) per sample: fold the batch into N, then mean per sample over non-ignored targets
        xs = x.reshape((B * logical_x[0],) + logical_x[1:])
        ts = t.reshape((B * logical_x[0],) + tuple(target.shape)[1:])
        kw = {"label_smoothing": label_smoothing} if name == "cross_entropy" else {}
        errs = getattr(F, name)(xs, ts, ignore_index=ignore_index, reduction="none", **kw)
        errs = errs.reshape((B,) + tuple(target.shape))
        if reduction == "none":
            return lead._wrap(errs)
        total = errs.reshape(B, -1).sum(1)
        if reduction == "sum":
            return lead._wrap(total)
        count = (t != ignore_index).reshape(B, -1).sum(1).to(errs.dtype)
        return lead._wrap(total / count)
    return rule
