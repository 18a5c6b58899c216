"""The adjoint of indexing: zeros of a shape with values added (or written) at a key, as the backward
of ``t[key]`` and of the scatter/gather family needs (``index_zeros_put``), with the row sums of an
embedding's gradient in index order (``_add_rows_at``)."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.node import Node
from ...tensor import Tensor
from .._core.record import record


class IndexPutBackward0(Node):
    def backward(self, g):
        return (g[self.key],)


def _is_row_index(idx, src: np.ndarray, shape: tuple) -> bool:
    """Whether ``idx`` is one 1-d integer array picking whole rows of ``shape`` for floating ``src`` (an
    embedding's gradient); bool and integer sums keep add.at (a reduction would widen them), and so do
    rows of one element (the reduction's axis would then be the inner one, summed pairwise)."""
    return (isinstance(idx, np.ndarray) and idx.ndim == 1 and idx.dtype.kind in "iu" and idx.size > 1
            and src.dtype.kind in "fc" and src.shape == idx.shape + tuple(shape[1:]) and len(shape) >= 2
            and shape[0] > 0 and math.prod(shape[1:]) > 1)


def _add_rows_at(out: np.ndarray, idx: np.ndarray, rows: np.ndarray) -> bool:
    """``np.add.at(out, (idx,), rows)`` for zeros ``out``, with the same floats: each output row is
    0 + rows[i0] + rows[i1] + ... in the order of the indices (PyTorch's CPU embedding backward adds
    them so too). The repeats of each index (a stable sort groups them) are laid out zero-padded along
    a leading rank axis, and a reduction over it adds its slices one after the other, so the order is
    kept; ``add.at``'s unbuffered element-by-element loop costs 3-5x more at an embedding's
    sizes. False (nothing written) where a few indices repeat far more than the rest: the padded
    layout would then be many times the rows' size, and for a few thousand elements or fewer, where
    ``add.at`` costs less than the sort (makemore's 96 rows of 10: 14 us against 42)."""
    if rows.size < 4096:
        return False
    if idx.min() < 0:
        idx = np.where(idx < 0, idx + out.shape[0], idx)
    # a stable sort's permutation is unique: 16-bit keys (numpy radix-sorts them) give it 3x faster
    order = np.argsort(idx.astype(np.int16) if out.shape[0] <= 32767 else idx, kind="stable")
    sorted_idx = idx[order]
    first = np.empty(sorted_idx.shape, dtype=bool)
    first[0] = True
    np.not_equal(sorted_idx[1:], sorted_idx[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    group = np.cumsum(first) - 1
    rank = np.arange(sorted_idx.size) - starts[group]
    width = int(rank.max()) + 1
    if starts.size * width > 4 * sorted_idx.size + 64:
        return False
    # rank-major (width, groups, ...): the reduction adds whole contiguous (groups, ...) slabs one after
    # the other, and each row goes to its place in one scatter (no gather through the sort order)
    padded = np.zeros((width * starts.size,) + rows.shape[1:], dtype=rows.dtype)
    place = np.empty_like(rank)
    place[order] = rank * starts.size + group
    padded[place] = rows
    padded = padded.reshape((width, starts.size) + rows.shape[1:])
    out[sorted_idx[starts]] += np.add.reduce(padded, axis=0)  # 0 + the sum, as add.at starts from 0
    return True


def index_zeros_put(shape: tuple, key: tuple, src: Tensor, accumulate: bool) -> Tensor:
    """Zeros of ``shape`` with ``src`` added at ``key`` (the adjoint of indexing)."""
    out = np.zeros_like(src._data, shape=shape)  # (a meta src: a meta result)
    if accumulate:
        whole_rows = len(key) == 1 and _is_row_index(key[0], src._data, shape)
        if not (whole_rows and _add_rows_at(out, key[0], src._data)):
            np.add.at(out, key, src._data)
    else:
        out[key] = src._data
    return record(out, IndexPutBackward0, (src,), key=key)
