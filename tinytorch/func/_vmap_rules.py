"""vmap's batching rules for reductions, shape ops, matmul, joining and losses (the table that maps
op names to them is in ``_vmap.py``)."""
from __future__ import annotations

from ..tensor import Tensor, _wrap_dim
from ._batched import _align, _at, BatchedTensor, _fmod, _level_of, _logical_ndim, _orig, _unsupported


# -- softmin (nn.functional) --------------------------------------------------------------------
def _softmax_like(name):
    def rule(input, dim=None, *args, **kwargs):
        if dim is None:
            raise _unsupported(f"{name} without an explicit dim")
        return input._wrap(getattr(input._phys, name)(input._ld(dim), **{k: v for k, v in kwargs.items()
                                                                          if k == "dtype"}))
    return rule


# -- shapes ----------------------------------------------------------------------------------------
def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _view_like(name):
    def rule(input, *shape):
        return input._wrap(getattr(input._phys, name)((input._bsz,) + _shape_arg(shape)))
    return rule


def _flatten(input, start_dim=0, end_dim=-1):
    n = input.dim()
    if n == 0:
        return input._wrap(input._phys.reshape(input._bsz, 1))
    return input._wrap(input._phys.flatten(input._ld(start_dim), input._ld(end_dim)))


def _unflatten(input, dim, sizes):
    return input._wrap(input._phys.unflatten(input._ld(dim), sizes))


def _unsqueeze(input, dim):
    return input._wrap(input._phys.unsqueeze(_wrap_dim(dim, input.dim() + 1) + 1))


def _squeeze(input, dim=None):
    if dim is None:
        dims = tuple(i + 1 for i, s in enumerate(input.shape) if s == 1)
        return input._wrap(input._phys.reshape((input._bsz,) + tuple(s for s in input.shape if s != 1))) \
            if dims else input._wrap(input._phys)
    if isinstance(dim, (tuple, list)):
        return input._wrap(input._phys.squeeze(tuple(input._ld(d) for d in dim)))
    return input._wrap(input._phys.squeeze(input._ld(dim)))


def _transpose(input, dim0, dim1):
    return input._wrap(input._phys.transpose(input._ld(dim0), input._ld(dim1)))


def _permute(input, *dims):
    dims = _shape_arg(dims)
    return input._wrap(input._phys.permute((0,) + tuple(input._ld(d) for d in dims)))


def _t(input):
    if input.dim() < 2:
        return input._wrap(input._phys)
    return _transpose(input, 0, 1)


def _expand(input, *sizes):
    sizes = _shape_arg(sizes)
    k = input.dim()
    p = input._phys
    if len(sizes) > k:
        p = p.reshape((input._bsz,) + (1,) * (len(sizes) - k) + tuple(input.shape))
    return input._wrap(p.expand((input._bsz,) + sizes))


def _getitem(input, idx):
    if not isinstance(idx, tuple):
        idx = (idx,)
    for i in idx:
        if isinstance(i, Tensor) or isinstance(i, (list,)):
            raise _unsupported("indexing with tensors or lists")
    return input._wrap(input._phys[(slice(None),) + idx])


# -- matmul (its rule is on its declaration, ops/linalg.py) ----------------------------------------
def _matmul(a, b):
    from ..ops.linalg import matmul
    return matmul(a, b)


def _linear(input, weight, bias=None):
    out = _matmul_any(input, weight.t() if not isinstance(weight, BatchedTensor) else _t(weight))
    return out if bias is None else out + bias


def _matmul_any(a, b):
    if isinstance(a, BatchedTensor) or isinstance(b, BatchedTensor):
        return _matmul(a, b)
    return a @ b


# -- joining ---------------------------------------------------------------------------------------
def _join(name):
    def rule(tensors, dim=0, **kwargs):
        lead = _level_of(tuple(tensors))
        parts = []
        for t in tensors:
            if _at(t, lead):
                parts.append(t._phys)
            else:
                parts.append(t.unsqueeze(0).expand((lead._bsz,) + tuple(t.shape)))
        nd = next(t.dim() for t in tensors) + (1 if name == "stack" else 0)
        return lead._wrap(_orig("tinytorch", name)(parts, _wrap_dim(dim, nd) + 1))
    return rule


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
