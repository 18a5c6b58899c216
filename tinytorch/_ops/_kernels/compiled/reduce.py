"""Rows added into a zero table at their indices (an embedding's gradient, the backward of ``t[idx]``), which numpy
makes one call per element or row for, in one loop and in numpy's order: each table row 0 + rows[i0] + rows[i1]
+ ... in the order of the indices, as ``np.add.at`` adds them; and each row's maximum of a C-contiguous array
(attention's scores), which ``np.maximum.reduceat`` gives one row at a time. (Sums over dims are PyTorch's cascade:
``cascade_sum.py``.)"""
from __future__ import annotations

from numba import boolean, float32, float64, types

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


def _row_max_sig(t):
    return boolean(readonly(t, 2), t[::1])


@jit([_row_max_sig(float32), _row_max_sig(float64)])
def row_max_into(x, out):
    """out[r] = the maximum of row ``r`` of ``x`` (R, N), N >= 1; True where a row holds a NaN (``out`` then
    unfinished: the caller takes numpy's maximum, whose NaN it is). Eight running maxima a row, then the rest:
    one chain of compares waits on the one before (numpy's reduceat on rows of tens of elements: 3-4x the
    time). A maximum does not depend on the order of its compares; a zero's sign may (+0.0 or -0.0 among
    equal maxima), which the scores' uses of it (s - max, then exp; max == -inf) do not see."""
    rows, n = x.shape
    m8 = n - n % 8
    nan = False
    for r in range(rows):
        a = x[r]
        for j in range(n):  # (NaN compares false below: looked for apart, a vectorised pass)
            nan |= a[j] != a[j]
        top = a[0]
        if m8:
            t0, t1, t2, t3, t4, t5, t6, t7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
            for i in range(8, m8, 8):
                v = a[i:i + 8]  # (constant indices into a slice: no negative-index checks)
                t0 = v[0] if v[0] > t0 else t0
                t1 = v[1] if v[1] > t1 else t1
                t2 = v[2] if v[2] > t2 else t2
                t3 = v[3] if v[3] > t3 else t3
                t4 = v[4] if v[4] > t4 else t4
                t5 = v[5] if v[5] > t5 else t5
                t6 = v[6] if v[6] > t6 else t6
                t7 = v[7] if v[7] > t7 else t7
            t0 = t1 if t1 > t0 else t0
            t2 = t3 if t3 > t2 else t2
            t4 = t5 if t5 > t4 else t4
            t6 = t7 if t7 > t6 else t6
            t0 = t2 if t2 > t0 else t0
            t4 = t6 if t6 > t4 else t4
            top = t4 if t4 > t0 else t0
        for j in range(m8, n):
            v1 = a[j]
            top = v1 if v1 > top else top
        out[r] = top
    return nan
