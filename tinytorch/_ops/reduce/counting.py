"""Counting and finding: unique, unique_consecutive, bincount, histc, count_nonzero, nonzero_static, nonzero,
argwhere. Most have an output whose shape depends on the values, which vmap cannot batch."""
from __future__ import annotations

import builtins
import functools

import numpy as np

from ..._dtype import NARROW_NP, BF16_NP, FLOATING_NP
from ..._meta_array import MetaArray
from .._core import narrow_dtypes
from ...autograd.node import Node
from ...tensor import Tensor, _make, _wrap_dim
from .._core.batching import logical_dims
from .._core.record import legacy_name, record
from .._core.registry import op
from .._core.util import as_array, c_order, normalize_dims

_DYNAMIC = "its output's shape depends on the values (a dynamic shape)"


def _batch_count_nonzero(op, input, dim=None):
    dims = logical_dims(input, dim)
    return input._wrap(op(input._phys.unsqueeze(1), 1) if dims == () else op(input._phys, dims))


@op(variants="function method", batch=_batch_count_nonzero)
def count_nonzero(input: Tensor, dim=None) -> Tensor:
    """How many elements are not zero (int64)."""
    x = input._data
    dims = normalize_dims(dim, x.ndim)
    return _make(c_order(as_array((x != 0).sum(axis=dims), dtype=np.int64)))


class Unique2Backward0(Node):
    def backward(self, g):
        raise NotImplementedError("the derivative for '_unique2' is not implemented.")


class UniqueDimBackward0(Node):
    def backward(self, g):
        raise NotImplementedError("the derivative for 'unique_dim' is not implemented.")


class UniqueConsecutiveBackward0(Node):
    def backward(self, g):
        raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


def _pack(values, inverse, counts, return_inverse, return_counts):
    out = (values,)
    if return_inverse:
        out += (_make(as_array(inverse, dtype=np.int64)),)
    if return_counts:
        out += (_make(as_array(counts, dtype=np.int64)),)
    return out[0] if len(out) == 1 else out


def _refuse_complex(x: np.ndarray, kernel: str) -> None:
    if x.dtype.kind == "c":  # PyTorch's CPU unique kernels have no complex instantiation
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{legacy_name(x.dtype)}'")


def _has_nan(x: np.ndarray) -> bool:
    return x.dtype in FLOATING_NP and bool(np.isnan(x).any())


def _flag(args: tuple, kwargs: dict, name: str, index: int) -> bool:
    """A flag argument as PyTorch's ``boolean_dispatch`` reads it: by keyword, else at ``index`` of the positional
    arguments (which may not be the parameter's own position), else False."""
    if name in kwargs:
        return bool(kwargs[name])
    return index < len(args) and bool(args[index])


def _dispatched_name(prefix: str, inverse_at: int, counts_at: int):
    """The Python function PyTorch's ``torch.unique`` / ``torch.unique_consecutive`` calls for these arguments
    (``boolean_dispatch`` on ``return_inverse``, then ``return_counts``): the name its argument errors give."""
    def name(args: tuple, kwargs: dict) -> str:
        inverse = _flag(args, kwargs, "return_inverse", inverse_at)
        counts = _flag(args, kwargs, "return_counts", counts_at)
        what = ("inverse_and_counts" if counts else "inverse") if inverse else ("counts" if counts else "output")
        return f"{prefix}_return_{what}"
    return name


@op(variants="function method", no_batch=_DYNAMIC, python_method=True,
    python_function=_dispatched_name("", 2, 3), meta="data_dependent")
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim=None):
    """The distinct values (always sorted, as PyTorch on the CPU), with inverse indices and counts. A NaN
    equals nothing, so each NaN is a value of its own (after the numbers, in the input's order)."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "unique", "unique")
    x = input._data
    if dim is None:
        _refuse_complex(x, "unique")
        # numpy sorts bfloat16 NaNs among the numbers: float32 holds every bfloat16 exactly
        flat = x.reshape(-1).astype(np.float32) if x.dtype == BF16_NP else x.reshape(-1)
        u, inv, cnt = np.unique(flat, return_inverse=True, return_counts=True, equal_nan=False)
        values = record(u.astype(x.dtype, copy=False), Unique2Backward0, (input,))
        return _pack(values, inv.reshape(x.shape), cnt, return_inverse, return_counts)
    if not hasattr(dim, "__index__"):  # PyTorch's parser of unique_dim's int argument
        raise TypeError(f"unique_dim(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")
    _refuse_complex(x, "unique_dim")
    d = _wrap_dim(dim, x.ndim)
    if _has_nan(x):
        u, inv, cnt = _unique_slices_with_nan(x, d)
    else:
        u, inv, cnt = np.unique(x, return_inverse=True, return_counts=True, axis=d)
    values = record(u, UniqueDimBackward0, (input,))
    return _pack(values, inv.reshape(-1), cnt, return_inverse, return_counts)


def _unique_slices_with_nan(x: np.ndarray, d: int):
    """unique along ``d`` where the slices hold NaNs, as PyTorch's CPU kernel does it: the slices sorted by a
    lexicographic ``<`` (where a NaN is neither below nor above anything, so the next element decides), then
    runs of equal slices merged (slices with a NaN equal nothing). PyTorch sorts with std::sort, an insertion
    sort up to 16 slices, replayed here step for step; past that its tie order among NaN slices is not replayed
    (a stable sort with the same comparison), so such slices may come in another order than PyTorch's."""
    rows = np.moveaxis(x, d, 0).reshape(x.shape[d], -1)

    def less(a, b):
        for lhs, rhs in zip(rows[a], rows[b]):
            if lhs < rhs:
                return True
            if lhs > rhs:
                return False
        return False

    if rows.shape[0] <= 16:
        order = _insertion_sort(list(range(rows.shape[0])), less)
    else:
        order = builtins.sorted(range(rows.shape[0]), key=functools.cmp_to_key(lambda a, b: -less(a, b) or less(b, a)))
    ranked = rows[order]
    new = np.ones(len(order), bool)
    new[1:] = ~(ranked[1:] == ranked[:-1]).all(axis=1)  # NaN != NaN: a slice with one starts a run
    inv = np.empty(len(order), np.int64)
    inv[order] = np.cumsum(new) - 1
    counts = np.diff(np.append(np.flatnonzero(new), len(order)))
    return np.take(x, np.asarray(order)[new], axis=d), inv, counts


def _insertion_sort(items: list, less) -> list:
    """libstdc++'s std::__insertion_sort with the comparison ``less`` (the order it leaves matters where
    ``less`` is not a strict weak order, as a comparison with NaNs is not)."""
    for i in range(1, len(items)):
        val = items[i]
        if less(val, items[0]):
            items[1:i + 1] = items[0:i]
            items[0] = val
            continue
        j = i - 1
        while less(val, items[j]):
            items[j + 1] = items[j]
            j -= 1
        items[j + 1] = val
    return items


@op(variants="function method", no_batch=_DYNAMIC, python_method=True,
    python_function=_dispatched_name("_consecutive", 2, 1), meta="data_dependent")  # (PyTorch's indices)
def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """Collapse runs of equal consecutive values (slices along ``dim``)."""
    x = input._data
    _refuse_complex(x, "unique")
    if dim is None:
        flat = x.reshape(-1)
        new = np.ones(flat.shape[0], bool)
        new[1:] = flat[1:] != flat[:-1]
        values = flat[new]
        inv = (np.cumsum(new) - 1).reshape(x.shape)
    else:
        d = _wrap_dim(dim, x.ndim)
        if x.size == 0 and x.shape[d] != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        xm = np.moveaxis(x, d, 0).reshape(x.shape[d], x.size // x.shape[d] if x.shape[d] else 0)
        new = np.ones(xm.shape[0], bool)
        new[1:] = (xm[1:] != xm[:-1]).any(axis=1)
        values = np.compress(new, x, axis=d)
        inv = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, new.shape[0]))
    return _pack(record(values, UniqueConsecutiveBackward0, (input,)), inv, counts, return_inverse, return_counts)


@op(variants="function method", no_batch=_DYNAMIC, meta="data_dependent")
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each non-negative integer occurs (weighted sums with ``weights``)."""
    x = input._data
    if x.dtype in FLOATING_NP:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{legacy_name(x.dtype)}'")
    if x.ndim != 1 or (x.size and x.min() < 0) or x.dtype == np.bool_:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _make(np.bincount(x, minlength=minlength).astype(np.int64))
    w = weights._data
    dt = w.dtype if w.dtype in FLOATING_NP else np.dtype(np.float64)
    return _make(np.bincount(x, weights=w, minlength=minlength).astype(dt))


@op(variants="function method out")
def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """Histogram of ``bins`` equal bins over [min, max] (the data's range when both are 0)."""
    x = input._data
    if x.dtype not in FLOATING_NP:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{legacy_name(x.dtype)}'")
    if type(x) is MetaArray:  # ``bins`` counts, whatever the values
        return _make(MetaArray((bins,), x.dtype))
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    kept = x[(x >= lo) & (x <= hi)]
    if x.dtype == BF16_NP:  # numpy 2 bins bfloat16 with a float range in float64; numpy 1.x finds no common type
        kept = kept.astype(np.float64)
    h, _ = np.histogram(kept, bins=bins, range=(lo, hi))
    return _make(h.astype(x.dtype))


@op(variants="function method out", no_batch=_DYNAMIC, meta="data_dependent")
def nonzero(input: Tensor, *, as_tuple: bool = False):
    """Indices of the non-zero elements: an (n, ndim) int64 tensor, or one index tensor per dim."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "nonzero_count_cpu", None)
    x = input._data
    if x.ndim == 0:
        n = int(x != 0)
        if as_tuple:
            return (_make(np.zeros(n, np.int64)),)
        return _make(np.zeros((n, 0), np.int64))
    nz = np.nonzero(x)
    if as_tuple:
        return tuple(_make(a.astype(np.int64)) for a in nz)
    return _make(np.stack(nz, axis=1).astype(np.int64))


@op(variants="function method")
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero`` with exactly ``size`` rows: truncated, or padded with ``fill_value``."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got {size}")
    if type(input._data) is MetaArray:  # ``size`` rows, laid out as PyTorch's meta kernel lays them out
        return _make(MetaArray((size, input._data.ndim), np.int64, (8, 8 * size)))
    found = nonzero(input)._data[:size]
    pad = np.full((size - found.shape[0], found.shape[1]), fill_value, dtype=np.int64)
    return _make(np.concatenate([found, pad]) if pad.size or not found.size else found.copy())


@op(variants="function method", no_batch=_DYNAMIC, meta="data_dependent")
def argwhere(input: Tensor) -> Tensor:
    """``nonzero(input)``."""
    return nonzero(input)
