"""scaled_dot_product_attention's elementwise steps around its GEMMs (``_ops/nn/attention.py``, and the flash
kernel's gradient in ``_kernels/flash_attention.py``), fused: each numpy pass over the (rows, keys) scores is a
loop over a row here, in the same precision and order, so the same floats. The exponential and the row sums
stay numpy's and BLAS's (their floats are theirs)."""
from __future__ import annotations

import numpy as np
from numba import float32, float64, njit, types

from ._common import jit, readonly


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _row_max(a, n):
    """The maximum of ``a[:n]`` (n >= 1), NaN where one is NaN: eight running maxima (one chain of compares
    waits on the previous one; a maximum does not depend on the order), then the rest."""
    nan = False
    top = a[0]
    if n >= 8:
        t0, t1, t2, t3, t4, t5, t6, t7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
        m8 = n - n % 8
        for i in range(8, m8, 8):
            v0, v1, v2, v3, v4, v5, v6, v7 = a[i], a[i + 1], a[i + 2], a[i + 3], a[i + 4], a[i + 5], a[i + 6], a[i + 7]
            t0 = v0 if v0 > t0 else t0
            t1 = v1 if v1 > t1 else t1
            t2 = v2 if v2 > t2 else t2
            t3 = v3 if v3 > t3 else t3
            t4 = v4 if v4 > t4 else t4
            t5 = v5 if v5 > t5 else t5
            t6 = v6 if v6 > t6 else t6
            t7 = v7 if v7 > t7 else t7
        t0 = t1 if t1 > t0 else t0
        t2 = t3 if t3 > t2 else t2
        t4 = t5 if t5 > t4 else t4
        t6 = t7 if t7 > t6 else t6
        t0 = t2 if t2 > t0 else t0
        t4 = t6 if t6 > t4 else t4
        top = t4 if t4 > t0 else t0
        start = m8
    else:
        start = 1
    for j in range(start, n):
        v = a[j]
        top = v if v > top else top
    for j in range(n):  # (NaN compares false above: looked for apart)
        nan |= a[j] != a[j]
    return a[0] - a[0] + np.nan if nan else top


def _scores_sig(t):
    return types.void(t[:, ::1], t, readonly(t, 2), t[::1])


@jit([_scores_sig(float32), _scores_sig(float64)])
def scores_into(s, scale, bias, m):
    """Rows ``s`` (R, S) in place: s * scale, then + the bias row ``r % L`` of ``bias`` (L, S) where it is not
    empty (the additive mask broadcast over the leading dims), two roundings as numpy's two passes; each row's
    maximum into ``m`` (R,), NaN where the row holds one (as ``np.max``)."""
    rows, n = s.shape
    period = bias.shape[0]
    has_bias = bias.size > 0
    for r in range(rows):
        sr = s[r]
        if has_bias:
            br = bias[r % period]
            for j in range(n):
                sr[j] = sr[j] * scale + br[j]  # (no fast-math: the product is rounded before the sum)
        else:
            for j in range(n):
                sr[j] = sr[j] * scale
        m[r] = _row_max(sr, n)



def _probs_sig(t):
    return types.void(t[:, ::1], readonly(t, 1), readonly(t, 2), t[:, ::1])


@jit([_probs_sig(float32), _probs_sig(float64)])
def probs_products_into(p, sums, dp, prod):
    """The flash backward's first elementwise steps on rows (R, S): the exponentials ``p`` divided by their row
    sums in place (the weights), and ``prod`` = dp * p, the terms of each row's sum."""
    rows, n = p.shape
    for r in range(rows):
        pr, dr, out = p[r], dp[r], prod[r]
        d = sums[r]
        for j in range(n):
            w = pr[j] / d
            pr[j] = w
            out[j] = dr[j] * w


def _ds_sig(t):
    return types.void(t[:, ::1], readonly(t, 1), readonly(t, 2))


@jit([_ds_sig(float32), _ds_sig(float64)])
def score_grads_into(dp, rows_sum, p):
    """ds = (dp - rowsum(dp p)) * p on rows (R, S), in place in ``dp``: numpy's subtraction, then its product."""
    rows, n = dp.shape
    for r in range(rows):
        dr, pr = dp[r], p[r]
        c = rows_sum[r]
        for j in range(n):
            dr[j] = (dr[j] - c) * pr[j]
