"""batch_norm's training forward and backward on a C-contiguous (N, C) float32/float64 array (BatchNorm1d's
common input), fused: the formulas of ``_ops/nn/batch_norm.py``'s ``_train_arrays`` and ``_centred_grads``,
step for step in their precisions, with numpy's order for the per-channel sums (an axis-0 reduction of a
C-contiguous array with two or more columns adds the rows one after another, starting from +0.0). About 24
numpy calls of the forward and 12 of the backward become one call each (``tinytorch/_cpu/batch_norm.py``)."""
from __future__ import annotations

import numpy as np
from numba import boolean, float32, float64, types

from ._common import jit, like, readonly


def _forward_sig(t):
    m, v, rm, rv = t[:, ::1], t[::1], readonly(t, 2), readonly(t, 1)
    return types.UniTuple(m, 4)(rm, rv, rv, v, v, float64, float64)


def _backward_sig(t):
    m, v, rm, rv = t[:, ::1], t[::1], readonly(t, 2), readonly(t, 1)
    return m(rm, rm, rm, rv, boolean, boolean, boolean, v, v)


@jit([_forward_sig(float32), _forward_sig(float64)])
def train_forward(x, w, b, rm, rv, momentum, eps):
    """(out, xc, invstd (1, C), mean (1, C)) of training batch_norm, updating ``rm``/``rv`` in place; an empty
    ``w``, ``b``, ``rm`` or ``rv`` stands for None. N >= 2, C >= 2."""
    n, c = x.shape
    zero = like(x[0, 0], 0.0)
    one = like(zero, 1.0)
    count = like(zero, n)
    mean = np.empty(c, x.dtype)
    for j in range(c):
        mean[j] = zero + x[0, j]
    for i in range(1, n):
        for j in range(c):
            mean[j] += x[i, j]
    for j in range(c):
        mean[j] /= count
    xc = np.empty((n, c), x.dtype)
    var_sum = np.empty(c, x.dtype)
    for j in range(c):
        var_sum[j] = zero
    for i in range(n):
        for j in range(c):
            d = x[i, j] - mean[j]
            xc[i, j] = d
            var_sum[j] += d * d
    invstd = np.empty((1, c), x.dtype)
    for j in range(c):
        wide = np.float64(var_sum[j] / count) + eps
        invstd[0, j] = like(zero, 1.0 / np.sqrt(wide))
    if rm.size:
        m = like(zero, momentum)
        keep = one - m
        for j in range(c):
            rm[j] = rm[j] * keep + mean[j] * m
    if rv.size:
        m = like(zero, momentum)
        keep = one - m
        mw = np.float64(m)
        below = like(zero, n - 1)
        for j in range(c):
            rv[j] = like(zero, np.float64(var_sum[j] / below) * mw + np.float64(rv[j] * keep))
    alpha = np.empty(c, x.dtype)
    beta = np.empty(c, x.dtype)
    for j in range(c):
        a = invstd[0, j] * w[j] if w.size else invstd[0, j]
        alpha[j] = a
        wide = np.float64(mean[j]) * np.float64(a)  # exact for float32 (PyTorch's fused multiply-add)
        beta[j] = like(zero, np.float64(b[j]) - wide if b.size else -wide)
    out = np.empty((n, c), x.dtype)
    for i in range(n):
        for j in range(c):
            out[i, j] = x[i, j] * alpha[j] + beta[j]
    return out, xc, invstd, mean.reshape(1, c)


@jit([_backward_sig(float32), _backward_sig(float64)])
def train_backward(gd, xc, invstd, w, need_x, need_w, need_b, gw, gb):
    """grad_input (empty when not asked for) from the forward's centred input and invstd (1, C); grad_weight and
    grad_bias written into ``gw`` and ``gb`` (each of C elements where asked for, else empty). The caller makes
    those two with numpy, so that they own their memory: a leaf's AccumulateGrad then keeps them as ``.grad``
    (an array numba allocates has a numba object as its base, and the engine copies such an array). An empty
    ``w`` stands for None."""
    n, c = gd.shape
    zero = like(gd[0, 0], 0.0)
    count = like(zero, n)
    total = gb if need_b else np.empty(c if need_x else 0, gd.dtype)
    dotp = np.empty(c if need_x or need_w else 0, gd.dtype)
    if total.size:
        for j in range(c):
            total[j] = zero
        for i in range(n):
            for j in range(c):
                total[j] += gd[i, j]
    if dotp.size:
        for j in range(c):
            dotp[j] = zero
        for i in range(n):
            for j in range(c):
                dotp[j] += xc[i, j] * gd[i, j]
    gx = np.empty((n if need_x else 0, c), gd.dtype)
    if need_x:
        k = np.empty(c, gd.dtype)
        shift = np.empty(c, gd.dtype)
        for j in range(c):
            s = invstd[0, j]
            k[j] = dotp[j] * s * s / count
            shift[j] = total[j] / count
        for i in range(n):
            for j in range(c):
                v = (gd[i, j] - shift[j] - xc[i, j] * k[j]) * invstd[0, j]
                gx[i, j] = v * w[j] if w.size else v
    if need_w:
        for j in range(c):
            gw[j] = dotp[j] * invstd[0, j]
    return gx
