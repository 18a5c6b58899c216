"""Normal samples as PyTorch's CPU ``normal_`` makes them, for each of its three paths: which uniforms are
drawn, in which order, and how each pair becomes two normals (Box-Muller). The arithmetic here is plain numpy;
PyTorch's own (glibc's log/cos/sin, its fused multiply-adds, the AVX2 kernel's float32 Cephes polynomials)
is registered onto the named steps below from ``tinytorch/_cpu/random.py``.

- float32, 16 or more elements, contiguous: PyTorch's AVX2 kernel (also used on AVX-512 machines).
  All n uniforms are drawn first; each block of 16 pairs lane j (u1 = 1 - u[j]) with lane j + 8
  (u2) in a Box-Muller step written with float32 Cephes log / sincos; when 16 does not divide n,
  16 fresh uniforms overwrite the last 16 slots and that block is done again.
- float64, 16 or more elements, contiguous: the same blocks in double with libm.
- anything else: one double normal per element from two double uniforms, the sine half cached in
  the generator for the next element (also across calls)."""
from __future__ import annotations

import math

import numpy as np

F32, F64 = np.float32, np.float64
_TWO_PI = 2.0 * math.pi

# the steps' arithmetic (each a kernel path of tinytorch/_cpu/random.py)
_log, _log1p, _cos, _sin = np.log, np.log1p, np.cos, np.sin


def _scaled(z, std, mean):
    """``z * std + mean`` in float64, rounded twice (PyTorch's FMA builds round once)."""
    return z * std + mean


def _box_muller_f32(blocks: np.ndarray, mean, std, out=None) -> np.ndarray:
    """The normals of ``blocks`` (k x 2 x 8 float32 uniforms) as PyTorch's 16-lane float32 kernel pairs them:
    lane j of the first half (u1 = 1 - u) with lane j of the second (u2); radius * cos into the first half,
    radius * sin into the second, each times std plus mean. ``out`` may be ``blocks``."""
    radius = np.sqrt(np.float32(-2.0) * np.log(np.float32(1.0) - blocks[:, 0, :]))
    theta = blocks[:, 1, :] * np.float32(_TWO_PI)
    out = np.empty(blocks.shape, F32) if out is None else out
    out[:, 0, :] = radius * np.cos(theta) * std + mean
    out[:, 1, :] = radius * np.sin(theta) * std + mean
    return out


def normal_values(eng, n: int, npd: np.dtype, mean: float, std: float, contiguous: bool = True) -> np.ndarray:
    """``n`` samples of N(mean, std**2) of dtype ``npd``, in fill order."""
    if n >= 16 and contiguous and npd == np.float64:
        return _fill_f64(eng, n, float(mean), float(std))
    if n >= 16 and contiguous and npd == np.float32:
        return _fill_f32(eng, n, F32(mean), F32(std))
    if n >= 16 and contiguous:
        return _fill_f16(eng, n, F32(mean), F32(std)).astype(npd)
    z = scalar_normals(eng, n)
    if not (mean == 0.0 and std == 1.0):
        z = _scaled(z, float(std), float(mean))
    return z.astype(npd, copy=False)


def scalar_normals(eng, n: int) -> np.ndarray:
    """``n`` standard normals from ``at::normal_distribution<double>``, using and refilling the cache."""
    out = np.empty(n, F64)
    k = 0
    if n and eng.normal_valid:
        out[0] = eng.normal_y
        eng.normal_y, eng.normal_valid = 0.0, False
        k = 1
    m = n - k
    if m:
        pairs = (m + 1) // 2
        u = eng.float64_uniform(2 * pairs).reshape(pairs, 2)
        r = np.sqrt(-2.0 * _log1p(-u[:, 1]))
        theta = _TWO_PI * u[:, 0]
        both = np.empty((pairs, 2), F64)
        both[:, 0] = r * _cos(theta)
        both[:, 1] = r * _sin(theta)
        out[k:] = both.reshape(-1)[:m]
        if m % 2:
            eng.normal_y, eng.normal_valid = float(both[-1, 1]), True
    return out


def _fill_f32(eng, n: int, mean, std) -> np.ndarray:
    d = eng.float32_uniform(n)
    full = n // 16
    if full:
        head = d[: 16 * full].reshape(full, 2, 8)
        _box_muller_f32(head, mean, std, out=head)
    if n % 16:
        d[n - 16:] = _box_muller_f32(eng.float32_uniform(16).reshape(1, 2, 8), mean, std).reshape(-1)
    return d


def _fill_f16(eng, n: int, mean, std) -> np.ndarray:
    """float16's kernel: the float32 blocks, but the last block of a ragged size starts from the
    uniforms of the last n % 16 positions and draws only the 16 - n % 16 it lacks."""
    d = eng.float32_uniform(n)
    out = np.empty(n, F32)
    full, rest = divmod(n, 16)
    out[: 16 * full] = _box_muller_f32(d[: 16 * full].reshape(full, 2, 8), mean, std).reshape(-1)
    if rest:
        tail = np.concatenate([d[n - rest:], eng.float32_uniform(16 - rest)]).reshape(1, 2, 8)
        out[n - 16:] = _box_muller_f32(tail, mean, std).reshape(-1)
    return out


def _fill_f64(eng, n: int, mean: float, std: float) -> np.ndarray:
    d = eng.float64_uniform(n)
    full = n // 16
    if full:
        head = d[: 16 * full].reshape(full, 2, 8)
        # in chunks, so the temporaries stay in cache; each chunk is read before it is written
        for start in range(0, full, _CHUNK64):
            part = head[start:start + _CHUNK64]
            part[...] = _box_muller_f64(part, mean, std)
    if n % 16:
        d[n - 16:] = _box_muller_f64(eng.float64_uniform(16).reshape(1, 2, 8), mean, std).reshape(-1)
    return d


_CHUNK64 = 2048  # blocks of 16


def _box_muller_f64(blocks: np.ndarray, mean: float, std: float) -> np.ndarray:
    radius = _log(1.0 - blocks[:, 0, :])
    radius *= -2.0
    np.sqrt(radius, out=radius)
    theta = blocks[:, 1, :] * _TWO_PI
    out = np.empty(blocks.shape, F64)
    n1, n2 = out[:, 0, :], out[:, 1, :]
    np.multiply(radius, _cos(theta), out=n1)
    np.multiply(radius, _sin(theta), out=n2)
    if not (std == 1.0 and mean == 0.0):
        n1[...], n2[...] = _scaled(n1, std, mean), _scaled(n2, std, mean)
    return out
