"""Sums that numpy makes one call per row for, in one loop each and in numpy's order:

- a sum over an array's leading dims (a bias's gradient: ``g.sum(0)``): each kept element summed down the rows
  one after another, starting from +0.0, which is the order numpy's axis-0 reduction of a C-contiguous array
  takes when at least two elements are kept (it then loops over the kept row inside, the rows outside; with one
  element kept it sums pairwise instead, and the path does not come here);
- rows added into a zero table at their indices (an embedding's gradient, the backward of ``t[idx]``): each
  table row 0 + rows[i0] + rows[i1] + ... in the order of the indices, as ``np.add.at`` adds them."""
from __future__ import annotations

from numba import float32, float64, types

from ._common import jit, readonly


def _sum_sig(t):
    return types.void(readonly(t, 2), t[::1])


@jit([_sum_sig(float32), _sum_sig(float64)])
def leading_sum_into(x, out):
    """out[j] = ((0 + x[0, j]) + x[1, j]) + ... for the rows of a C-contiguous (R, C) array."""
    rows, n = x.shape
    for j in range(n):
        out[j] = 0.0
    for r in range(rows):
        row = x[r]
        for j in range(n):
            out[j] += row[j]


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
