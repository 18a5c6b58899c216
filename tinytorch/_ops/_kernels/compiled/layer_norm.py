"""layer_norm over the last dim of a C-contiguous float32/float64 array, forward and the backward without a
graph of the gradient, fused: the formulas of ``_ops/nn/norm.py`` (``_moments`` and ``layer_norm`` on arrays,
``_layer_norm_grads``) in their precisions, called from ``tinytorch/_cpu/norm.py``, with
numpy's orders: each row's statistics are numpy's pairwise sums (``np.add.reduce`` along a contiguous last
axis), the parameter gradients sum the rows one after another (an axis-0 reduction of a C-contiguous
array with two or more columns)."""
from __future__ import annotations

import numpy as np
from numba import float32, float64, int64, types

from ._common import jit, like, readonly, row_sum


def _forward_sig(t):
    m, v, rm, rv = t[:, ::1], t[::1], readonly(t, 2), readonly(t, 1)
    return types.void(rm, rv, rv, float64, m, m, v, v)


def _input_grad_sig(t):
    m, rm, rv = t[:, ::1], readonly(t, 2), readonly(t, 1)
    return types.void(rm, rm, rv, rv, m)


def _param_grads_sig(t):
    v, rm = t[::1], readonly(t, 2)
    return types.void(rm, rm, v, v, int64, int64)


@jit([_forward_sig(float32), _forward_sig(float64)])
def forward_into(x, w, b, eps, out, xhat, means, invstd):
    """out, xhat, the mean and invstd (R,) of rows ``x`` (R, C), written into the arrays given; an empty ``w``
    or ``b`` stands for None. Each row on its own: a run of rows is computed alike on any thread."""
    rows, c = x.shape
    zero = like(x[0, 0], 0.0)
    one = like(zero, 1.0)
    count = like(zero, c)
    eps_t = like(zero, eps)
    sq = np.empty(c, x.dtype)
    for r in range(rows):
        xr, hr = x[r], xhat[r]
        mean = row_sum(xr, 0, c, 1) / count
        means[r] = mean
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


@jit([_input_grad_sig(float32), _input_grad_sig(float64)])
def input_grad_into(gd, xhat, invstd, w, gx):
    """The input gradient of rows (R, C), C >= 2, written into ``gx``; an empty ``w`` stands for None. Each
    row on its own, as the forward."""
    rows, c = gd.shape
    count = like(gd[0, 0], c)
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


@jit([_param_grads_sig(float32), _param_grads_sig(float64)])
def param_grads_into(gd, xhat, gw, gb, lo, hi):
    """Columns ``lo:hi`` of the weight and bias gradients (C,) of rows (R, C): each column summed down the
    rows one after another, so a run of columns is summed alike on any thread. An empty ``gw`` or ``gb``
    is not asked for."""
    rows = gd.shape[0]
    zero = like(gd[0, 0], 0.0)
    need_w, need_b = gw.size > 0, gb.size > 0
    n = hi - lo
    # (indices from 0 into slices: numba then knows them non-negative and the loops vectorise)
    gws, gbs = gw[lo:hi] if need_w else gw, gb[lo:hi] if need_b else gb
    for j in range(gws.size):
        gws[j] = zero
    for j in range(gbs.size):
        gbs[j] = zero
    for r in range(rows):  # each column's sum runs down the rows in order
        gr, hr = gd[r, lo:hi], xhat[r, lo:hi]
        if need_w:
            for j in range(n):
                gws[j] += gr[j] * hr[j]
        if need_b:
            for j in range(n):
                gbs[j] += gr[j]
