"""Rows added into a zero table at their indices (an embedding's gradient, the backward of ``t[idx]``), which numpy
makes one call per element or row for, in one loop and in numpy's order: each table row 0 + rows[i0] + rows[i1]
+ ... in the order of the indices, as ``np.add.at`` adds them; and each row's maximum of a C-contiguous array
(attention's scores), which ``np.maximum.reduceat`` gives one row at a time. (Sums over dims are PyTorch's cascade:
``cascade_sum.py``.)"""
from __future__ import annotations

from numba import boolean, float32, float64, types

from ._common import jit, readonly, row_max


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


def _row_max_sig(t):
    return boolean(readonly(t, 2), t[::1])


@jit([_row_max_sig(float32), _row_max_sig(float64)])
def row_max_into(x, out):
    """out[r] = the maximum of row ``r`` of ``x`` (R, N), N >= 1 (``_common.row_max``); True where a row holds a
    NaN (``out`` then unfinished: the caller takes numpy's maximum, whose NaN it is)."""
    for r in range(x.shape[0]):
        m, nan = row_max(x[r], x.shape[1])
        if nan:
            return True
        out[r] = m
    return False
