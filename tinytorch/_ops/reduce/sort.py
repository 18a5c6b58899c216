"""Sorting and selection: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, aminmax
(the counting ops are in ``counting.py``).

Every selected value is ``input`` gathered at an index, so one backward serves them all: the
gradient is scattered back to where the value came from."""
from __future__ import annotations

import numpy as np

from ..._dtype import NARROW_NP, FLOATING_NP
from ..._meta_array import MetaArray
from .._core.layout import laid_like
from .._core import narrow_dtypes
from ...autograd.node import Node, u64
from ...tensor import Tensor, _make, _wrap_dim
from .._core.batching import composite
from .._core.record import OUT, record
from .._core.registry import op
from .._core.util import c_order, normalize_dims
from .._core.return_types import _named
from .minmax import _return_type
from .reduce import _keepdim
from .scan import batch_along_dim
from .selection import quickselect_index, topk_line
from ..index.scatter_gather import zeros_scatter
from ..pointwise.compare import where

_SORT = "function method out"

sort_result = _return_type("sort")
topk_result = _return_type("topk")
kthvalue_result = _return_type("kthvalue")
median_result = _return_type("median")
nanmedian_result = _return_type("nanmedian")
mode_result = _return_type("mode")


aminmax_result = _named("aminmax", ("min", "max"))


class _SelectBackward(Node):
    """Values picked at ``indices`` along ``dim``: their gradient goes back to those places."""

    def backward(self, g):
        (idx,) = self._unpacked_saved
        if len(self.in_shape) == 0:
            return (g.reshape(()),)
        if not self.keepdim:
            g, idx = g.unsqueeze(self.dim), idx.unsqueeze(self.dim)
        return (zeros_scatter(self.in_shape, self.dim, idx, g, distinct=True),)


_SIZES = ("self_sym_sizes", lambda n: tuple(n.in_shape))
_DIM = ("dim", lambda n: u64(n.dim_arg))
# PyTorch's saved values: sort and topk keep no keepdim
_NODES = {n: type(n, (_SelectBackward,), {"saved_fields": (_DIM, ("indices", 0), ("keepdim", "keepdim"), _SIZES)
                                          if keep else (_DIM, ("indices", 0), _SIZES)})
          for n, keep in (("SortBackward0", False), ("TopkBackward0", False), ("KthvalueBackward0", True),
                          ("MedianBackward1", True), ("NanmedianBackward1", True), ("ModeBackward0", True))}


def _picked(input: Tensor, vals: np.ndarray, idx: np.ndarray, dim: int, keepdim: bool, node: str, raw=None,
            like: bool = False):
    """The (values, indices) tensors: fresh C-ordered copies (of a meta array: meta), or with ``like`` laid out as
    ``empty_like(input)`` (sort's results, which keep a dense input's strides: ``layout.laid_like``)."""
    if like:
        x = input._data
        it, vals = _make(laid_like(idx.astype(np.int64, copy=False), x)), laid_like(vals, x)
    else:
        it, vals = _make(idx.astype(np.int64, order="C")), vals.copy(order="C")
    v = record(vals, _NODES[node], (input,), (it,), dim=dim, keepdim=keepdim,
               in_shape=input._data.shape, dim_arg=dim if raw is None else raw)
    return v, it


def _argsort(x: np.ndarray, d: int, descending: bool) -> np.ndarray:
    """Stable order along ``d``; NaN counts as the largest value, as in PyTorch."""
    if not descending:
        return np.argsort(x, axis=d, kind="stable")
    n = x.shape[d]
    rev = np.flip(x, d)
    # sorting the reversed line ascending and reading it backwards keeps equal values in input order
    return (n - 1) - np.flip(np.argsort(rev, axis=d, kind="stable"), d)


def _each_line(x: np.ndarray, d: int, width: int, pick) -> np.ndarray:
    """``pick(line)`` (``width`` indices, from the line along ``d`` as a list of Python numbers) for every line,
    set along ``d``."""
    lines = np.moveaxis(x, d, -1)
    out = np.empty(lines.shape[:-1] + (width,), np.int64)
    for at in np.ndindex(lines.shape[:-1]):
        out[at] = pick(lines[at].tolist())
    return np.moveaxis(out, -1, d)


def _topk_indices(x: np.ndarray, k: int, d: int, largest: bool, sorted: bool) -> np.ndarray:
    """The indices topk reports along ``d``: what PyTorch's selection leaves first on each line
    (``selection.topk_line``; among equal values no sort gives its order)."""
    return _each_line(x, d, k, lambda line: topk_line(line, k, largest, sorted))


def _kth_indices(x: np.ndarray, k: int, d: int) -> np.ndarray:
    """The index kthvalue reports along ``d`` (kept, size 1) for the ``k``-th smallest (0-based): where PyTorch's
    quickselect leaves it (``selection.quickselect_index``)."""
    return _each_line(x, d, 1, lambda line: [quickselect_index(line, k)])


@op(variants=_SORT, batch=batch_along_dim(1, -1), overlap="partial")
def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False):
    """(values, indices) sorted along ``dim``; equal values keep their order."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "sorting_kernel_method_name",
                     RuntimeError(" Sort does not support complex dtypes on CPU"))
    x = input._data
    if x.ndim == 0:
        _wrap_dim(dim, 0)
        v, i = _picked(input, x.copy(), np.zeros((), np.int64), 0, True, "SortBackward0", dim)
        return sort_result(v, i)
    d = _wrap_dim(dim, x.ndim)
    idx = _argsort(x, d, descending)
    # laid out as empty_like(input), as ATen's sort allocates: a dense input's strides kept (a transposed input
    # sorts into a transposed result), any other's dense strides in its order
    v, i = _picked(input, np.take_along_axis(x, idx, d), idx, d, True, "SortBackward0", dim, like=True)
    return sort_result(v, i)


@op(variants=_SORT, batch=batch_along_dim(1, -1))
def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim``."""
    return sort(input.detach(), dim, descending)[1]


@op(variants=_SORT, batch=composite, overlap="partial")
def msort(input: Tensor) -> Tensor:
    """``sort(input, dim=0).values``."""
    return sort(input, 0)[0]


@op(variants=_SORT, batch=batch_along_dim(2, -1), overlap="partial")
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "topk_cpu", RuntimeError(" topk does not support complex dtypes on CPU"))
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if x.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if x.ndim == 0:
        v, i = _picked(input, x.copy(), np.zeros((), np.int64), 0, True, "TopkBackward0", dim)
        return topk_result(v, i)
    if type(x) is MetaArray:  # a meta tensor: k along ``dim``, nothing selected
        idx = MetaArray(x.shape[:d] + (k,) + x.shape[d + 1:], np.int64)
    else:
        idx = _topk_indices(x, k, d, largest, sorted)  # PyTorch's order among ties
    v, i = _picked(input, np.take_along_axis(x, idx, d), idx, d, True, "TopkBackward0", dim)
    return topk_result(v, i)


def _pick_position(input: Tensor, dim, keepdim: bool, pos_fn, node: str, result, name: str):
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        pos_fn(1, d)
        v, i = _picked(input, x.copy(), np.zeros((), np.int64), 0, keepdim, node, dim)
        return result(v, i)
    n = x.shape[d]
    if n == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    idx = pos_fn(n, d, x)  # the picked indices along d (kept, size 1)
    vals = np.take_along_axis(x, idx, d)
    if not keepdim:
        idx, vals = idx.squeeze(d), vals.squeeze(d)
    v, i = _picked(input, vals, idx, d, keepdim, node, dim)
    return result(v, i)


@op(variants=_SORT, batch=batch_along_dim(2, -1), overlap="partial")
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, keepdims=None):
    """The ``k``-th smallest value along ``dim`` (1-based) and its index."""
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "kthvalue")

    def pos(n, d, x=None):
        if not 1 <= k <= n:
            raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
        return k - 1 if x is None else _kth_indices(x, k - 1, d)  # PyTorch's index among ties
    return _pick_position(input, dim, keepdim, pos, "KthvalueBackward0", kthvalue_result, "kthvalue")


def _median_pos(ignore_nan: bool):
    def pos(n, d, x=None):
        if x is None:
            return 0
        order = np.argsort(x, axis=d, kind="stable")
        if not ignore_nan:
            # a NaN in the line makes the median NaN: sorted last, the first NaN is picked
            nans = np.isnan(x).sum(axis=d, keepdims=True) if x.dtype in FLOATING_NP else 0
            p = np.where(nans > 0, n - nans, (n - 1) // 2)
        else:
            valid = n - (np.isnan(x).sum(axis=d, keepdims=True) if x.dtype in FLOATING_NP else 0)
            p = np.where(valid > 0, (valid - 1) // 2, 0)
        p = np.broadcast_to(p, tuple(1 if i == d else s for i, s in enumerate(x.shape)))
        return np.take_along_axis(order, p.astype(np.int64), d)
    return pos


class MedianBackward0(Node):
    """median() of all elements: the gradient is shared evenly by the elements equal to the result."""
    saved_fields = (("self", 0), ("result", 1))

    def backward(self, g):
        x, y = self._unpacked_saved
        hit = (x == y) | (x.isnan() & y.isnan())
        return (where(hit, g / hit.sum(), 0.0),)


NanmedianBackward0 = type("NanmedianBackward0", (MedianBackward0,), {})


def _median_all(input: Tensor, ignore_nan: bool) -> Tensor:
    x = input._data.reshape(-1)
    if x.size == 0:
        return record(np.asarray(np.nan, dtype=x.dtype), MedianBackward0, (input,))
    s = np.sort(x, kind="stable")
    if ignore_nan:
        valid = s[~np.isnan(s)] if s.dtype in FLOATING_NP else s
        r = valid[(valid.size - 1) // 2] if valid.size else s[0]
    else:
        r = s[-1] if s.dtype in FLOATING_NP and np.isnan(s[-1]) else s[(s.size - 1) // 2]
    cls = NanmedianBackward0 if ignore_nan else MedianBackward0
    return record(np.asarray(r), cls, (input,), (input, OUT))


def _batch_median(op, input, dim=None, keepdim=False, *, keepdims=None):
    if dim is None:  # the median of the flattened sample
        return input._wrap(op(input._phys.reshape(input._bsz, -1), 1)[0])
    return batch_along_dim(1)(op, input, dim, _keepdim(keepdim, keepdims, op.__name__))


@op(variants=_SORT, batch=_batch_median)
def median(input: Tensor, dim=None, keepdim: bool = False, *, keepdims=None):
    """The lower median of all elements, or (values, indices) along ``dim``; NaN propagates."""
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "median")
    if dim is None:
        return _median_all(input, False)
    return _pick_position(input, dim, keepdim, _median_pos(False), "MedianBackward1", median_result, "median")


@op(variants=_SORT, batch=_batch_median)
def nanmedian(input: Tensor, dim=None, keepdim: bool = False, *, keepdims=None):
    """median ignoring NaN."""
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "nanmedian")
    if dim is None:
        return _median_all(input, True)
    return _pick_position(input, dim, keepdim, _median_pos(True), "NanmedianBackward1", nanmedian_result,
                          "nanmedian")


@op(variants=_SORT, batch=batch_along_dim(1, -1), overlap="partial")
def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, keepdims=None):
    """The most frequent value along ``dim`` (the smallest of equally frequent ones) and its last index."""
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "mode")
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        v, i = _picked(input, x.copy(), np.zeros((), np.int64), 0, True, "ModeBackward0", dim)
        return mode_result(v, i)
    xm = np.moveaxis(x, d, -1)
    if type(x) is MetaArray:  # a meta tensor: one value per line, none counted
        vals, idx = MetaArray(xm.shape[:-1], x.dtype), MetaArray(xm.shape[:-1], np.int64)
        if keepdim:
            vals, idx = np.expand_dims(vals, d), np.expand_dims(idx, d)
        return mode_result(*_picked(input, vals, idx, d, keepdim, "ModeBackward0", dim))
    lines = xm.reshape(-1, xm.shape[-1])
    vals = np.empty(lines.shape[0], x.dtype)
    idx = np.empty(lines.shape[0], np.int64)
    for r, line in enumerate(lines):
        u, counts = np.unique(line, return_counts=True)
        best = u[np.argmax(counts)]
        vals[r] = best
        idx[r] = np.flatnonzero(line == best)[-1]
    shape = xm.shape[:-1]
    vals, idx = vals.reshape(shape), idx.reshape(shape)
    if keepdim:
        vals, idx = np.expand_dims(vals, d), np.expand_dims(idx, d)
    v, i = _picked(input, vals, idx, d, keepdim, "ModeBackward0", dim)
    return mode_result(v, i)


class AminmaxBackward0(Node):
    saved_fields = (("dim", lambda n: None if n.dim_arg is None else u64(n.dim_arg)), ("keepdim", "keepdim"),
                    ("self", 0), ("min", 1), ("max", 2))

    def backward(self, g_min, g_max=None):
        x, lo, hi = self._unpacked_saved
        dims, keepdim = self.dims, self.keepdim
        out = None
        for g, y in ((g_min, lo), (g_max, hi)):
            if g is None:
                continue
            if not keepdim and dims:
                shape = tuple(1 if i in dims else s for i, s in enumerate(x._data.shape))
                g, y = g.reshape(shape), y.reshape(shape)
            hit = x == y
            # PyTorch's scale_grad_by_count, a product with the mask: a NaN extreme matches nothing, and its
            # row's share g / 0 times 0 is NaN throughout (amax's formula too)
            part = hit * (g / hit.sum(dim=dims, keepdim=True))
            out = part if out is None else out + part
        return (out,)


def _batch_aminmax(op, input, *, dim=None, keepdim=False, keepdims=None):
    keepdim = _keepdim(keepdim, keepdims, op.__name__)
    if dim is not None:
        return batch_along_dim(1)(op, input, dim=dim, keepdim=keepdim)
    lo, hi = op(input._phys.reshape(input._bsz, -1), dim=1)
    shape = (input._bsz,) + (1,) * input.dim() if keepdim else (input._bsz,)
    return aminmax_result(input._wrap(lo.reshape(shape)), input._wrap(hi.reshape(shape)))


@op(variants=_SORT, batch=_batch_aminmax, overlap="partial")
def aminmax(input: Tensor, *, dim=None, keepdim: bool = False, keepdims=None):
    """(amin, amax) in one call."""
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "aminmax")
    x = input._data
    dims = normalize_dims(dim, x.ndim)
    if dim is None and x.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    for d in dims:
        if x.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    lo = c_order(np.asarray(x.min(axis=dims, keepdims=keepdim)))
    hi = c_order(np.asarray(x.max(axis=dims, keepdims=keepdim)))
    return aminmax_result(*record((lo, hi), AminmaxBackward0, (input,), (input, OUT, OUT[1]), dims=dims,
                                  keepdim=keepdim, dim_arg=dim))
