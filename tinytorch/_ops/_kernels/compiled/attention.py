"""scaled_dot_product_attention's elementwise steps around its GEMMs (``_ops/nn/attention.py``, and the flash
kernel's gradient in ``_kernels/flash_attention.py``), fused: each numpy pass over the (rows, keys) scores is a
loop over a row here, in the same precision and order, so the same floats. The exponential and the row sums
stay numpy's and BLAS's (their floats are theirs)."""
from __future__ import annotations

import numpy as np
from numba import float32, float64, types

from ._common import jit, readonly


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
        top = sr[0]
        for j in range(1, n):
            v = sr[j]
            top = v if (v > top or v != v) and top == top else top
        m[r] = top


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
