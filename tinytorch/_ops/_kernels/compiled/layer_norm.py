"""layer_norm over the last dim of a C-contiguous float32/float64 array, forward and the backward without a
graph of the gradient, fused: the formulas of ``_ops/nn/norm.py`` (``_moments`` and ``layer_norm`` on arrays,
``_layer_norm_grads``) in their precisions, called from ``tinytorch/_cpu/norm.py``, with
numpy's orders: each row's statistics are numpy's pairwise sums (``np.add.reduce`` along a contiguous last
axis), the parameter gradients sum the rows one after another (an axis-0 reduction of a C-contiguous
array with two or more columns).

``pytorch_forward_into`` is the float32 forward of PyTorch's CPU kernel instead (ATen's AVX2 LayerNorm:
``RowwiseMoments``: Welford's update on 8 float32 lanes over chunks of 16 vectors, the chunks merged in a
binary cascade, the leftover elements, then the lanes; then the fused scale and shift) one row at a time, each
multiply-add ``llvm.fma``. It has no numpy twin: without numba float32 takes the reference's steps."""
from __future__ import annotations

import numpy as np
from numba import float32, float64, int64, njit, types

from ._common import fma, jit, like, readonly, row_sum


def _forward_sig(t):
    m, v, rm, rv = t[:, ::1], t[::1], readonly(t, 2), readonly(t, 1)
    return types.void(rm, rv, rv, float64, m, m, v, v)


def _input_grad_sig(t):
    m, rm, rv = t[:, ::1], readonly(t, 2), readonly(t, 1)
    return types.void(rm, rm, rv, rv, rv, m)


def _param_grads_sig(t):
    v, rm, rv = t[::1], readonly(t, 2), readonly(t, 1)
    return types.void(rm, rm, rv, rv, v, v, int64, int64)


@jit([_forward_sig(float64)])
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
def input_grad_into(gd, x, mean, invstd, w, gx):
    """The input gradient of rows (R, C), C >= 2, written into ``gx``; an empty ``w`` stands for None. ``x``
    holds the normalised rows, or with ``mean`` given (not empty) the input's rows, each normalised on the
    way as ``(x - mean) * invstd`` (numpy's two roundings: native_layer_norm_backward's operands). Each row on
    its own, as the forward."""
    rows, c = gd.shape
    count = like(gd[0, 0], c)
    made = mean.size > 0
    prod = np.empty(c, gd.dtype)
    h = np.empty(c, gd.dtype)
    for r in range(rows):
        g_hat, xr = gx[r], x[r]  # g_hat first, in the row of the result
        inv = invstd[r]
        m = mean[r] if made else inv
        for j in range(c):
            hj = (xr[j] - m) * inv if made else xr[j]
            h[j] = hj
            g = gd[r, j] * w[j] if w.size else gd[r, j]
            g_hat[j] = g
            prod[j] = g * hj
        m1 = row_sum(prod, 0, c, 1) / count
        m0 = row_sum(g_hat, 0, c, 1) / count
        for j in range(c):
            g_hat[j] = ((g_hat[j] - m0) - h[j] * m1) * inv


@jit([_param_grads_sig(float32), _param_grads_sig(float64)])
def param_grads_into(gd, x, mean, invstd, gw, gb, lo, hi):
    """Columns ``lo:hi`` of the weight and bias gradients (C,) of rows (R, C): each column summed down the
    rows one after another, so a run of columns is summed alike on any thread. An empty ``gw`` or ``gb``
    is not asked for; ``x``, ``mean`` and ``invstd`` as ``input_grad_into``'s."""
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
    made = mean.size > 0
    for r in range(rows):  # each column's sum runs down the rows in order
        gr, xr = gd[r, lo:hi], x[r, lo:hi]
        if need_w:
            inv = invstd[r]
            m = mean[r] if made else inv
            for j in range(n):
                gws[j] += gr[j] * ((xr[j] - m) * inv if made else xr[j])
        if need_b:
            for j in range(n):
                gbs[j] += gr[j]


# -- PyTorch's float32 kernel ----------------------------------------------------------------------
_LANES = 8  # float32 lanes of the 32-byte vector RowwiseMoments runs on
_CHUNK = 16  # vectors a chunk's Welford loop takes before its moments join the cascade
_STEP = np.array([np.float32(1) / np.float32(j + 1) for j in range(_CHUNK)], np.float32)  # 1 / (j + 1), rounded once
_F0 = np.float32(0)
_F1 = np.float32(1)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _welford(v, step, mean, m2):
    """One Welford step of a lane: (mean, m2) after ``v``, ``step`` = 1 / (its count) rounded."""
    delta = v - mean
    mean = fma(step, delta, mean)
    return mean, fma(delta, v - mean, m2)


@jit([types.int64(types.int64, float32[::1], float32[::1], types.int64, float32[::1], float32[::1])])
def _add_moments(n_add, m1_add, m2_add, n, m1, m2):
    """AddMomentsVec: the moments of a part of ``n_add`` vectors a lane (``m1_add``, ``m2_add``, 8 lanes)
    joined into those of one of ``n`` (``m1``, ``m2``, updated); returns the joined count."""
    total = n + n_add
    c = _F0 if total == 0 else np.float32(n_add) / np.float32(total)
    f_n = np.float32(n)
    for lane in range(_LANES):
        delta = m1_add[lane] - m1[lane]
        c_delta = c * delta
        m0_delta = delta * f_n
        m1[lane] = m1[lane] + c_delta
        m2[lane] = fma(m0_delta, c_delta, m2[lane] + m2_add[lane])
    return total


def _pytorch_forward_sig():
    m, v, rm, rv = float32[:, ::1], float32[::1], readonly(float32, 2), readonly(float32, 1)
    return types.void(rm, rv, rv, float64, m, m, v, v)


@jit([_pytorch_forward_sig()])
def pytorch_forward_into(x, w, b, eps, out, xhat, means, rstds):
    """out = fma((x - mean) * rstd, w, b), xhat = (x - mean) * rstd, the mean and rstd (R,) of float32 rows
    ``x`` (R, N), as PyTorch's float32 LayerNorm kernel computes them; an empty ``w`` or ``b`` stands for
    None (no weight: ``fma(x - mean, rstd, b)``). Each row on its own: a run of rows is computed alike on
    any thread."""
    rows, size = x.shape
    n = size // _LANES  # whole vectors a row
    chunks = (n + _CHUNK - 1) // _CHUNK
    depth = 1
    if chunks > 2:  # the cascade's levels: the bit length of chunks - 1
        depth, rest = 0, chunks - 1
        while rest:
            depth += 1
            rest >>= 1
    counts = np.zeros(depth, np.int64)
    m1s = np.zeros((depth, _LANES), np.float32)
    m2s = np.zeros((depth, _LANES), np.float32)
    m1 = np.zeros(_LANES, np.float32)
    m2 = np.zeros(_LANES, np.float32)
    eps32 = np.float32(eps)
    f_size = np.float32(size)
    has_w, has_b = w.size > 0, b.size > 0
    # AddMoments' weights as the lanes join the leftover elements' moments, the same for every row: the
    # count joined so far and c = n / (that count + n)
    lane_c = np.empty(_LANES, np.float32)
    lane_count = np.empty(_LANES, np.float32)
    count = size - n * _LANES
    for lane in range(_LANES):
        total = count + n
        lane_c[lane] = _F0 if total == 0 else np.float32(n) / np.float32(total)
        lane_count[lane] = np.float32(count)
        count = total
    for r in range(rows):
        xr = x[r]
        counts[:] = 0
        m1s[:] = _F0
        m2s[:] = _F0
        for i in range(chunks):  # Welford on the lanes, chunk by chunk, each into the cascade
            count = min(_CHUNK, n - i * _CHUNK)
            a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = _F0  # the 8 lanes' means and m2s, in registers
            q0 = q1 = q2 = q3 = q4 = q5 = q6 = q7 = _F0
            for j in range(count):
                step = _STEP[j]
                p = (i * _CHUNK + j) * _LANES
                xv = xr[p:p + _LANES]  # (constant indices into a slice: no negative-index checks)
                a0, q0 = _welford(xv[0], step, a0, q0)
                a1, q1 = _welford(xv[1], step, a1, q1)
                a2, q2 = _welford(xv[2], step, a2, q2)
                a3, q3 = _welford(xv[3], step, a3, q3)
                a4, q4 = _welford(xv[4], step, a4, q4)
                a5, q5 = _welford(xv[5], step, a5, q5)
                a6, q6 = _welford(xv[6], step, a6, q6)
                a7, q7 = _welford(xv[7], step, a7, q7)
            m1[0], m1[1], m1[2], m1[3], m1[4], m1[5], m1[6], m1[7] = a0, a1, a2, a3, a4, a5, a6, a7
            m2[0], m2[1], m2[2], m2[3], m2[4], m2[5], m2[6], m2[7] = q0, q1, q2, q3, q4, q5, q6, q7
            counts[0] = _add_moments(count, m1, m2, counts[0], m1s[0], m2s[0])
            mask, level = i + 1, 1
            while level < depth and mask & 1 == 0:  # a completed pair climbs one level
                counts[level] = _add_moments(counts[level - 1], m1s[level - 1], m2s[level - 1], counts[level],
                                             m1s[level], m2s[level])
                counts[level - 1] = 0
                m1s[level - 1] = _F0
                m2s[level - 1] = _F0
                mask >>= 1
                level += 1
        for level in range(1, depth):
            counts[0] = _add_moments(counts[level], m1s[level], m2s[level], counts[0], m1s[0], m2s[0])
        count, mean, var = 0, _F0, _F0  # var: the sum of squared deviations until the end
        for k in range(n * _LANES, size):  # the leftover elements, one by one
            v = xr[k]
            delta = v - mean
            count += 1
            mean = mean + delta / np.float32(count)
            var = var + delta * (v - mean)
        for lane in range(_LANES):  # AddMoments: the lanes into those, in order
            c = lane_c[lane]
            delta = m1s[0, lane] - mean
            mean = fma(c, delta, mean)
            var = var + fma(delta * delta * c, lane_count[lane], m2s[0, lane])
        var = var / f_size
        rstd = _F1 / np.sqrt(var + eps32)
        means[r] = mean
        rstds[r] = rstd
        hr, orow = xhat[r], out[r]
        for k in range(size):
            t = (xr[k] - mean) * rstd
            hr[k] = t
            if has_w:
                orow[k] = fma(t, w[k], b[k] if has_b else _F0)
            elif has_b:
                orow[k] = fma(xr[k] - mean, rstd, b[k])
            else:
                orow[k] = t
