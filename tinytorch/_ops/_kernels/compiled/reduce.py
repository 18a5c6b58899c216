"""A sum over an array's leading dims (a bias's gradient: ``g.sum(0)``) in one pass: each kept element summed
down the rows one after another, starting from +0.0, which is the order numpy's axis-0 reduction of a
C-contiguous array takes when at least two elements are kept (it then loops over the kept row inside, the
rows outside; with one element kept it sums pairwise instead, and the path does not come here). numpy makes
one inner-loop call per row, each with its own cost; here the rows run in one loop."""
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
