"""The extremes of a tensor: max and min (the value, or ``(values, indices)`` along a dim, or the
elementwise maximum of two tensors), amax and amin over several dims, argmax and argmin. NaN wins,
as in PyTorch."""
from __future__ import annotations

import numpy as np

from ..._dtype import NARROW_NP, FLOATING_NP
from .._core import narrow_dtypes
from ...autograd.node import Node, raw_dim, u64
from ...tensor import Tensor, _make, _wrap_dim
from .._core.batching import pointwise
from .._core.record import OUT, record
from .._core.return_types import _named
from .._core.registry import op
from .._core.util import as_array, c_order, normalize_dims, saved_dims
from .reduce import _REDUCTION, _ReduceNode, _grad_back, _keepdim, batch_reduction
from ..pointwise.compare import maximum, minimum, where
from ..index.scatter_gather import zeros_scatter


def _return_type(name):
    """``torch.return_types.<name>``: (values, indices)."""
    return _named(name, ("values", "indices"))


max_result = _return_type("max")
min_result = _return_type("min")


class MaxBackward1(Node):
    """Full reduction: the gradient is split evenly among the elements equal to the result."""
    saved_fields = (("self", 0), ("result", 1))

    def backward(self, g):
        x, y = self._unpacked_saved
        mask = where(y.isnan(), x.isnan(), x == y)  # a NaN result came from the NaN elements (no value read)
        return (where(mask, g / mask.sum(), 0.0),)

    def jvp(self, t):
        # the tangent's mean over the elements that tie for the result, as the backward shares it
        x, y = self._unpacked_saved
        mask = where(y.isnan(), x.isnan(), x == y)
        return where(mask, t, 0.0).sum() / mask.sum()


class MinBackward1(MaxBackward1):
    pass


class MaxBackward0(Node):
    """Reduction along a dim: the gradient goes to the index that won."""
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("indices", 0), ("keepdim", "keepdim"),
                    ("self_sym_sizes", lambda n: tuple(n.in_shape)))

    def backward(self, g):
        (idx,) = self._unpacked_saved
        if not self.in_shape:  # a 0-d input: the value was the input itself
            return (g.reshape(()),)
        if not self.keepdim:
            g = g.unsqueeze(self.dim)
            idx = idx.unsqueeze(self.dim)
        return (zeros_scatter(self.in_shape, self.dim, idx, g, distinct=True),)

    def jvp(self, t):
        (idx,) = self._unpacked_saved
        if self.keepdim:
            return t.gather(self.dim, idx)
        return t.gather(self.dim, idx.unsqueeze(self.dim)).squeeze(self.dim)


class MinBackward0(MaxBackward0):
    pass


def _extreme(input, dim, keepdim, np_fn, arg_fn, full_cls, dim_cls, result_cls):
    x = input._data
    name = "max" if np_fn is np.max else "min"  # (np.max.__name__ is "amax" on numpy 1.x)
    if dim is None:
        if x.size == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        return record(as_array(np_fn(x)), full_cls, (input,), (input, OUT))
    d = _wrap_dim(dim, x.ndim)
    _nonempty_dim(x, d, name)
    if x.ndim == 0:
        values, idx = x.copy(), np.zeros((), dtype=np.int64)
    else:
        idx = as_array(arg_fn(x, axis=d, keepdims=True))
        values = np.take_along_axis(x, idx, axis=d)
        if not keepdim:
            values = values.squeeze(d)
            idx = idx.squeeze(d)
    values, idx = as_array(values), as_array(idx.astype(np.int64, copy=False))
    idx_t = _make(idx)
    return result_cls(record(values, dim_cls, (input,), (idx_t,), dim=d, keepdim=keepdim, in_shape=x.shape,
                             dim_arg=dim), idx_t)


def _nonempty_dim(x: np.ndarray, d: int, name: str) -> None:
    if x.ndim and x.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _arg_extreme(input: Tensor, dim, keepdim: bool, fn, name: str) -> Tensor:
    x = input._data
    if dim is None:
        if x.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        out = as_array(fn(x.reshape(-1), 0, False))
        return _make(out.reshape((1,) * x.ndim) if keepdim else out)
    d = _wrap_dim(dim, x.ndim)
    _nonempty_dim(x, d, name)
    if x.ndim == 0:
        return _make(np.zeros((), dtype=np.int64))
    return _make(as_array(fn(x, d, keepdim)).astype(np.int64, copy=False))


def _nan_aware(arg_fn):
    """np.argmax/np.argmin with PyTorch's NaN rule: the first NaN wins, as NaN propagates."""

    def arg(x, axis, keepdims):
        idx = arg_fn(x, axis=axis, keepdims=keepdims)
        if x.dtype in FLOATING_NP:
            nan = np.isnan(x)
            if nan.any():
                idx = np.where(nan.any(axis=axis, keepdims=keepdims), np.argmax(nan, axis=axis, keepdims=keepdims),
                               idx)
        return idx
    return arg


_nan_argmax = _nan_aware(np.argmax)
_nan_argmin = _nan_aware(np.argmin)


def _batch_max_min(op, input, dim=None, keepdim=False, *, other=None, keepdims=None):
    keepdim = _keepdim(keepdim, keepdims, op.__name__)
    if other is not None or isinstance(dim, Tensor):
        return pointwise(op, input, dim if other is None else other)
    if dim is None:
        return batch_reduction(amax if op.__name__ == "max" else amin, input, None)
    values, indices = op(input._phys, input._ld(dim), keepdim)
    return _return_type(op.__name__)(input._wrap(values), input._wrap(indices))


@op(variants=_REDUCTION, batch=_batch_max_min, overlap="partial")
def max(input: Tensor, dim=None, keepdim: bool = False, *, other=None, keepdims=None):
    """Largest element, or ``(values, indices)`` along ``dim``; ``max(a, b)`` is ``maximum``."""
    if isinstance(dim, Tensor) or other is not None:
        return maximum(input, dim if other is None else other)
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "max")
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        if dim is None:
            narrow_dtypes.guard(input._data.dtype, "max_all", "max_all")
        narrow_dtypes.guard(input._data.dtype, "max_cpu", RuntimeError("max(): does not support complex input"))
    return _extreme(input, dim, keepdim, np.max, _nan_argmax, MaxBackward1, MaxBackward0, max_result)


@op(variants=_REDUCTION, batch=_batch_max_min, overlap="partial")
def min(input: Tensor, dim=None, keepdim: bool = False, *, other=None, keepdims=None):
    """Smallest element, or ``(values, indices)`` along ``dim``; ``min(a, b)`` is ``minimum``."""
    if isinstance(dim, Tensor) or other is not None:
        return minimum(input, dim if other is None else other)
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "min")
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        if dim is None:
            narrow_dtypes.guard(input._data.dtype, "min_all", "min_all")
        narrow_dtypes.guard(input._data.dtype, "min_cpu", RuntimeError("min(): does not support complex input"))
    return _extreme(input, dim, keepdim, np.min, _nan_argmin, MinBackward1, MinBackward0, min_result)


class AmaxBackward0(_ReduceNode):
    """The gradient is shared evenly among the elements equal to the extreme (unlike max(dim))."""
    saved_fields = (("dim", lambda n: saved_dims(n.dim_arg)), ("keepdim", "keepdim"), ("self", 0), ("result", 1))

    def backward(self, g):
        x, y = self._unpacked_saved
        hit = x == _grad_back(y, self.in_shape, self.dims, self.keepdim)
        share = _grad_back(g, self.in_shape, self.dims, self.keepdim) / hit.sum(self.dims, keepdim=True)
        return (hit * share,)

    def jvp(self, t):
        x, y = self._unpacked_saved
        hit = x == _grad_back(y, self.in_shape, self.dims, self.keepdim)
        return (hit * t).sum(self.dims, keepdim=self.keepdim) / hit.sum(self.dims, keepdim=self.keepdim)


class AminBackward0(AmaxBackward0):
    pass


def _amax_amin(input: Tensor, dim, keepdim: bool, np_fn, node_cls, name: str) -> Tensor:
    x = input._data
    if x.size == 0 and (dim is None or dim == ()):
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    dims = normalize_dims(dim, x.ndim)
    for d in dims:
        _nonempty_dim(x, d, name)
    return record(c_order(as_array(np_fn(x, axis=dims, keepdims=keepdim))), node_cls, (input,), (input, OUT),
                  in_shape=x.shape, dims=dims, keepdim=keepdim, dim_arg=() if dim is None else dim)


@op(variants=_REDUCTION, batch=batch_reduction)
def amax(input: Tensor, dim=(), keepdim: bool = False, *, keepdims=None) -> Tensor:
    """Largest value over ``dim`` (all dims by default); ties share the gradient."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "max_values_cpu", "max_values_cpu")
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "amax")
    return _amax_amin(input, dim, keepdim, np.max, AmaxBackward0, "amax")


@op(variants=_REDUCTION, batch=batch_reduction)
def amin(input: Tensor, dim=(), keepdim: bool = False, *, keepdims=None) -> Tensor:
    """Smallest value over ``dim`` (all dims by default); ties share the gradient."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "min_values_cpu", "min_values_cpu")
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "amin")
    return _amax_amin(input, dim, keepdim, np.min, AminBackward0, "amin")


def _batch_arg_extreme(op, input, dim=None, keepdim=False, *, keepdims=None):
    keepdim = _keepdim(keepdim, keepdims, op.__name__)
    if dim is None:  # over the flattened sample
        res = op(input._phys.reshape(input._bsz, -1), 1)
        return input._wrap(res.reshape((input._bsz,) + (1,) * input.dim()) if keepdim else res)
    return input._wrap(op(input._phys, input._ld(dim), keepdim))


@op(variants=_REDUCTION, batch=_batch_arg_extreme)
def argmax(input: Tensor, dim=None, keepdim: bool = False, *, keepdims=None) -> Tensor:
    """Index of the largest element (flattened when ``dim`` is None)."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "argmax_cpu", RuntimeError("argmax(): does not support complex input"))
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "argmax")
    return _arg_extreme(input, dim, keepdim, _nan_argmax, "argmax")


@op(variants=_REDUCTION, batch=_batch_arg_extreme)
def argmin(input: Tensor, dim=None, keepdim: bool = False, *, keepdims=None) -> Tensor:
    """Index of the smallest element (flattened when ``dim`` is None)."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "argmin_cpu", RuntimeError("argmin(): does not support complex input"))
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "argmin")
    return _arg_extreme(input, dim, keepdim, _nan_argmin, "argmin")

