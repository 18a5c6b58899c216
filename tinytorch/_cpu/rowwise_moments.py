"""The steps of PyTorch's CPU LayerNorm forward on float32 rows, in the kernel's order, for layer_norm's
float32 CPU path (``norm.py``): each row's mean and variance by ATen's ``RowwiseMoments``, then
``(x - mean) * rstd`` scaled and shifted with one rounding. ``_ops/_kernels/compiled/layer_norm.py``'s
``pytorch_forward_into`` runs the same steps one row at a time (numba, the same floats); this numpy form
runs where numba does not.

``RowwiseMoments`` runs Welford's update on 8 float32 lanes (a 32-byte vector) over chunks of 16 vectors
(``m1 = fma(1 / (j + 1), x - m1, m1)``, ``m2 = fma(x - m1_old, x - m1, m2)``), merges each chunk into a
stack of partial moments that adds neighbours in a binary cascade (``m1 + c * delta``;
``fma(delta * m0, c * delta, m2 + m2_add)``), then the leftover elements one by one (``m1 += delta / k``,
``m2 += delta * (x - m1)``, rounded twice: fused, it misses PyTorch's bits on a share of rows) and the 8
lanes into those in order (``m1 = fma(c, delta, m1)``, ``m2 + fma(delta * delta * c, m0, m2_add)``); the
variance is ``m2 / N``, ``rstd = 1 / sqrt(var + eps)``. The output is ``fma((x - mean) * rstd, weight,
bias)`` (no weight: ``fma(x - mean, rstd, bias)``).

These are PyTorch's AVX2 build (its AVX-512 build registers no LayerNorm kernel and runs the AVX2 one),
whose fused multiply-adds are emulated exactly (``muladd.addcmul_into``). PyTorch's DEFAULT build runs the
same steps with each multiply-add rounded twice: there the values differ by an ulp now and then.

The rows are worked on together, one numpy pass per vector position, so a call costs about 6 passes per
8 elements of a row however many rows there are."""
from __future__ import annotations

import numpy as np

from .._quiet_fp import silent
from .._ops._kernels.muladd import addcmul_into

_F32 = np.float32
LANES = 8  # float32 lanes of the 32-byte vector RowwiseMoments runs on
CHUNK = 16  # vectors a chunk's Welford loop takes before its moments join the cascade
_STEP = [_F32(1) / _F32(j + 1) for j in range(CHUNK)]  # the chunk loop's 1 / (j + 1), rounded once


def _fma(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once (float32 operands broadcast together)."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    out = np.empty(shape, _F32)
    addcmul_into(out, np.asarray(c, _F32), np.asarray(a, _F32), np.asarray(b, _F32), 1.0)
    return out


def _merge_lanes(m0_add: int, m1_add, m2_add, m0: int, m1, m2) -> tuple:
    """AddMomentsVec: (count, mean, m2) of a part of ``m0_add`` vectors joined to one of ``m0``."""
    n = m0 + m0_add
    c = _F32(0) if n == 0 else _F32(m0_add) / _F32(n)
    delta = m1_add - m1
    c_delta = c * delta
    m0_delta = delta * _F32(m0)
    return n, m1 + c_delta, _fma(m0_delta, c_delta, m2 + m2_add)


def _merge_scalar(m0_add: int, m1_add, m2_add, m0: int, m1, m2) -> tuple:
    """AddMoments: the same join on one lane (the scalar code, compiled with its multiply-adds fused)."""
    n = m0 + m0_add
    c = _F32(0) if n == 0 else _F32(m0_add) / _F32(n)
    delta = m1_add - m1
    return n, _fma(c, delta, m1), m2 + _fma(delta * delta * c, _F32(m0), m2_add)


@silent  # rows holding inf or NaN: PyTorch's NaN statistics, without numpy's warnings
def rowwise_moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, biased variance) of each row of a 2-d float32 array, each of shape (rows,)."""
    rows, size = x.shape
    n = size // LANES  # whole vectors per row
    chunks = -(-n // CHUNK)
    depth = 1 if chunks <= 2 else int(chunks - 1).bit_length()
    zero = np.zeros((rows, LANES), _F32)
    stack = [(0, zero, zero) for _ in range(depth)]
    for i in range(chunks):
        count = min(CHUNK, n - i * CHUNK)
        m1 = m2 = zero
        for j in range(count):
            start = (i * CHUNK + j) * LANES
            v = x[:, start:start + LANES]
            delta = v - m1
            m1 = _fma(_STEP[j], delta, m1)
            m2 = _fma(delta, v - m1, m2)
        stack[0] = _merge_lanes(count, m1, m2, *stack[0])
        mask, level = i + 1, 1
        while level < depth and mask & 1 == 0:  # a completed pair climbs one level
            stack[level] = _merge_lanes(*stack[level - 1], *stack[level])
            stack[level - 1] = (0, zero, zero)
            mask >>= 1
            level += 1
    for level in range(1, depth):
        stack[0] = _merge_lanes(*stack[level], *stack[0])
    count, mean, m2 = 0, np.zeros(rows, _F32), np.zeros(rows, _F32)
    for k in range(n * LANES, size):  # the leftover elements, one by one
        v = x[:, k]
        delta = v - mean
        count += 1
        mean = mean + delta / _F32(count)
        m2 = m2 + delta * (v - mean)
    lane_m1, lane_m2 = stack[0][1], stack[0][2]
    for lane in range(LANES):
        count, mean, m2 = _merge_scalar(n, lane_m1[:, lane], lane_m2[:, lane], count, mean, m2)
    return mean, m2 / _F32(size)


@silent
def mean_rstd(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(mean, 1 / sqrt(var + eps)) of each row of a 2-d float32 array, as LayerNorm's kernel keeps them."""
    mean, var = rowwise_moments(x)
    return mean, _F32(1) / np.sqrt(var + _F32(eps))


@silent
def layer_norm_rows(x: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None,
                    eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(out, mean, rstd) of LayerNorm over the rows of a 2-d float32 array (``weight``/``bias`` float32 of a
    row's length, or None); mean and rstd of shape (rows,)."""
    mean, rstd = mean_rstd(x, eps)
    t = (x - mean[:, None]) * rstd[:, None]
    if weight is None:
        return (t if bias is None else _fma(x - mean[:, None], rstd[:, None], bias)), mean, rstd
    return _fma(t, weight, _F32(0) if bias is None else bias), mean, rstd
