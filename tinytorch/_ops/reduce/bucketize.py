"""Lookups in sorted boundaries and membership: ``searchsorted``, ``bucketize``, ``isin``. Their results
are indices or masks, so they record no graph (as in PyTorch)."""
from __future__ import annotations

import numpy as np

from ..._dtype import FLOATING_NP
from ...tensor import Tensor, _make
from .._core.registry import op
from .._core.util import as_array


def _values(v):
    return (v._data, True) if isinstance(v, Tensor) else (np.asarray(v), False)


def _has_nan(a: np.ndarray) -> bool:
    return a.dtype in FLOATING_NP and bool(np.isnan(a).any())


def _search(seq: np.ndarray, values: np.ndarray, right: bool, sorter) -> np.ndarray:
    if _has_nan(seq) or _has_nan(values):
        return _bisect_as_pytorch(seq, values, right, sorter)
    side = "right" if right else "left"
    if seq.ndim <= 1:
        return np.searchsorted(seq, values, side=side, sorter=sorter)
    rows = int(np.prod(seq.shape[:-1]))
    if rows == 0 or values.size == 0:
        return np.zeros(values.shape, dtype=np.int64)
    flat_seq = seq.reshape(rows, seq.shape[-1])
    flat_val = values.reshape(flat_seq.shape[0], -1)
    flat_sorter = None if sorter is None else sorter.reshape(flat_seq.shape[0], -1)
    rows = [np.searchsorted(s, v, side=side, sorter=None if flat_sorter is None else flat_sorter[i])
            for i, (s, v) in enumerate(zip(flat_seq, flat_val))]
    return np.stack(rows).reshape(values.shape)


def _bisect_as_pytorch(seq: np.ndarray, values: np.ndarray, right: bool, sorter) -> np.ndarray:
    """PyTorch's binary search, step for step, for every value at once. It moves right while the middle
    boundary is not >= the value (not > with ``right``); a comparison with NaN is false, so a NaN boundary
    sends every search right and a NaN value goes past every boundary. Where NaNs are in play numpy's
    search (which sorts NaN last and bisects otherwise) lands elsewhere, so the steps are replayed."""
    n = seq.shape[-1]
    if n == 0 or values.size == 0:
        return np.zeros(values.shape, np.int64)
    lines = seq.reshape(-1, n)
    order = None if sorter is None else sorter.reshape(-1, n)
    line = np.zeros(values.shape, np.int64) if seq.ndim <= 1 else \
        np.arange(lines.shape[0]).reshape(seq.shape[:-1] + (1,)) + np.zeros(values.shape, np.int64)
    start = np.zeros(values.shape, np.int64)
    end = np.full(values.shape, n, np.int64)
    with np.errstate(invalid="ignore"):
        while (active := start < end).any():
            mid = start + (end - start) // 2
            at = np.minimum(mid, n - 1)  # finished searches may point one past the end
            boundary = lines[line, at if order is None else order[line, at]]
            go_right = ~(boundary > values) if right else ~(boundary >= values)
            start = np.where(active & go_right, mid + 1, start)
            end = np.where(active & ~go_right, mid, end)
    return start


@op(variants="function out")
def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False, side=None,
                 sorter=None) -> Tensor:
    """For each value of ``input``, the index in ``sorted_sequence`` (along its last dim) where it would
    be inserted to keep it sorted: before equal values, or after them with ``right``/``side='right'``."""
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if side == "left" and right:
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                           "while right was True")
    seq = sorted_sequence._data
    values, is_tensor = _values(input)
    if seq.ndim > 1 and (not is_tensor or values.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            f"boundaries tensor and input value tensor must match, but we got boundaries tensor {list(seq.shape)} "
            f"and input value tensor {list(values.shape)}")
    order = None if sorter is None else sorter._data
    out = _search(seq, values, right or side == "right", order)
    return _make(as_array(out, dtype=np.int32 if out_int32 else np.int64))


@op(variants="function out")
def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket of each value given 1-d sorted ``boundaries`` (``searchsorted`` with the operands swapped)."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    values, _ = _values(input)
    out = _search(boundaries._data, values, right, None)
    return _make(as_array(out, dtype=np.int32 if out_int32 else np.int64))


@op(variants="function out")
def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element of ``elements`` occurs in ``test_elements`` (negated with ``invert``)."""
    a, _ = _values(elements)
    b, _ = _values(test_elements)
    return _make(as_array(np.isin(a, b, invert=invert)))
