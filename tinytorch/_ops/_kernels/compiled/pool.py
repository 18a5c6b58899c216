"""max_pool2d's most common windows, 2x2 with stride 2 and no dilation, in one pass: each window's maximum
and its first (row-major) argmax's offset from the window's corner, as ``_ops/nn/pool.py``'s numpy path
(``_max_separable``) gives them: a maximum is exact, ties keep the earlier tap (so of -0.0 and +0.0 the
first one's sign), and any NaN among the taps is reported for the numpy path's general rule to take over."""
from __future__ import annotations

from numba import float32, float64, int64, types

from ._common import jit, readonly


def _max_sig(t):
    return types.boolean(readonly(t, 3), int64, t[:, :, ::1], int64[:, :, ::1])


@jit([_max_sig(float32), _max_sig(float64)])
def max_2x2(xp, w, vals, local):
    """vals and local (planes, Ho, Wo) of the (padded) planes ``xp``: the taps' offsets are 0, 1, w and w + 1
    (``w``: the width of the unpadded input, as the numpy path counts them). True where a tap was NaN (then
    vals and local are not to be used)."""
    planes, ho, wo = vals.shape
    nan = False
    for p in range(planes):
        for i in range(ho):
            top = xp[p, 2 * i]
            bottom = xp[p, 2 * i + 1]
            v_row = vals[p, i]
            l_row = local[p, i]
            for j in range(wo):
                a, b = top[2 * j], top[2 * j + 1]
                c, d = bottom[2 * j], bottom[2 * j + 1]
                best, arg = a, 0
                gt = b > best  # strict: a tie keeps the earlier tap
                best, arg = (b, 1) if gt else (best, arg)
                gt = c > best
                best, arg = (c, w) if gt else (best, arg)
                gt = d > best
                best, arg = (d, w + 1) if gt else (best, arg)
                v_row[j] = best
                l_row[j] = arg
                nan |= (a != a) | (b != b) | (c != c) | (d != d)
    return nan
