"""Rows added into a zero table at their indices (an embedding's gradient, the backward of ``t[idx]``), which numpy
makes one call per element or row for, in one loop and in numpy's order: each table row 0 + rows[i0] + rows[i1]
+ ... in the order of the indices, as ``np.add.at`` adds them. (Sums over dims are PyTorch's cascade:
``cascade_sum.py``.)"""
from __future__ import annotations

from numba import float32, float64, types

from ._common import jit, readonly


def _rows_sig(t):
    return types.void(t[:, ::1], readonly(types.int64, 1), readonly(t, 2))


@jit([_rows_sig(float32), _rows_sig(float64)])
def add_rows_at(out, idx, rows):
    """out[idx[i]] += rows[i] for i in order (``idx`` in range, negative ones counted from the end)."""
    n = out.shape[0]
    for i in range(idx.size):
        k = idx[i]
        if k < 0:
            k += n
        dst, src = out[k], rows[i]
        for j in range(dst.size):
            dst[j] += src[j]
