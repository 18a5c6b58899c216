"""layer_norm over the last dim of a C-contiguous float32/float64 array, forward and the backward without a
graph of the gradient, fused: the formulas of ``_ops/nn/norm.py`` (``_np_stats``, ``_layer_norm``,
``_grad_input_np`` and the parameter gradients of ``NativeLayerNormBackward0``) in their precisions, with
numpy's orders: each row's statistics are numpy's pairwise sums (``np.add.reduce`` along a contiguous last
axis), the parameter gradients sum the rows one after another (an axis-0 reduction of a C-contiguous
array with two or more columns)."""
from __future__ import annotations

import numpy as np
from numba import boolean, float32, float64, types

from ._common import jit, like, readonly, row_sum


def _forward_sig(t):
    m, v, rm, rv = t[:, ::1], t[::1], readonly(t, 2), readonly(t, 1)
    return types.Tuple((m, m, v))(rm, rv, rv, float64)


def _backward_sig(t):
    m, v, rm, rv = t[:, ::1], t[::1], readonly(t, 2), readonly(t, 1)
    return types.Tuple((m, v, v))(rm, rm, rv, rv, boolean, boolean, boolean)


@jit([_forward_sig(float32), _forward_sig(float64)])
def forward(x, w, b, eps):
    """(out, xhat, invstd (R,)) of rows ``x`` (R, C); an empty ``w`` or ``b`` stands for None."""
    rows, c = x.shape
    zero = like(x[0, 0], 0.0)
    one = like(zero, 1.0)
    count = like(zero, c)
    eps_t = like(zero, eps)
    out = np.empty((rows, c), x.dtype)
    xhat = np.empty((rows, c), x.dtype)
    invstd = np.empty(rows, x.dtype)
    sq = np.empty(c, x.dtype)
    for r in range(rows):
        xr, hr = x[r], xhat[r]
        mean = row_sum(xr, 0, c, 1) / count
        for j in range(c):
            d = xr[j] - mean
            hr[j] = d
            sq[j] = d * d
        var = row_sum(sq, 0, c, 1) / count
        inv = one / np.sqrt(var + eps_t)
        invstd[r] = inv
        orow = out[r]
        for j in range(c):
            h = hr[j] * inv
            hr[j] = h
            if w.size:
                h = h * w[j]
            if b.size:
                h = h + b[j]
            orow[j] = h
    return out, xhat, invstd


@jit([_backward_sig(float32), _backward_sig(float64)])
def backward(gd, xhat, invstd, w, need_x, need_w, need_b):
    """(grad_input, grad_weight, grad_bias) of rows (R, C), R >= 1, C >= 2; an empty ``w`` stands for
    None, and an array not asked for comes back empty."""
    rows, c = gd.shape
    zero = like(gd[0, 0], 0.0)
    count = like(zero, c)
    gx = np.empty((rows if need_x else 0, c), gd.dtype)
    if need_x:
        prod = np.empty(c, gd.dtype)
        for r in range(rows):
            g_hat, hr = gx[r], xhat[r]  # g_hat first, in the row of the result
            for j in range(c):
                g = gd[r, j] * w[j] if w.size else gd[r, j]
                g_hat[j] = g
                prod[j] = g * hr[j]
            m1 = row_sum(prod, 0, c, 1) / count
            m0 = row_sum(g_hat, 0, c, 1) / count
            inv = invstd[r]
            for j in range(c):
                g_hat[j] = ((g_hat[j] - m0) - hr[j] * m1) * inv
    gw = np.empty(c if need_w else 0, gd.dtype)
    gb = np.empty(c if need_b else 0, gd.dtype)
    for j in range(gw.size):
        gw[j] = zero
    for j in range(gb.size):
        gb[j] = zero
    if need_w or need_b:
        for r in range(rows):
            for j in range(c):
                g = gd[r, j]
                if need_w:
                    gw[j] += g * xhat[r, j]
                if need_b:
                    gb[j] += g
    return gx, gw, gb
