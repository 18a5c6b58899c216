"""The float32 sigmoid and tanh of PyTorch's CPU build, as its LSTM cell computes its gates. ATen's sigmoid is
``1 / (1 + exp(0 - x))`` with ``Vectorized<float>::exp``: SLEEF's 1-ulp ``expf`` (``Sleef_expf16_u10`` on the AVX512
path, the same steps 8 lanes wide on AVX2), built with FMA; ``exp`` below is each of SLEEF's vector operations rounded
to float32 as it rounds them (``fma32`` for the fused ones), so ``sigmoid`` is PyTorch's bit for bit on those paths.
ATen's loops run the vector formula on whole pairs of vectors and the scalar one (glibc's ``expf``) on the rest of
each inner loop, and everywhere on its DEFAULT path. tanh: see ``tanh``.

The dynamically quantized LSTM uses them: a gate's output feeds the next step's quantization, where one rounding
apart can flip a quantized value."""
from __future__ import annotations

import numpy as np

from .._ops._kernels.cpu_level import pytorch_level
from .fbgemm import fma32

_F = np.float32
_R_LN2 = _F(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U, _L2L = _F(0.693145751953125), _F(1.428606765330187045e-06)


def _pow2i(q: np.ndarray) -> np.ndarray:
    """2**q for q in float32's normal exponents, made from its bits as SLEEF makes it."""
    return ((q.astype(np.int64) + 127) << 23).astype(np.uint32).view(_F)


def _ldexp2(d: np.ndarray, q: np.ndarray) -> np.ndarray:
    half = q >> 1
    return (d * _pow2i(half)).astype(_F) * _pow2i(q - half)


def _rint(x: np.ndarray) -> np.ndarray:
    """cvtps2dq: round half to even, INT_MIN for NaN and out of range."""
    with np.errstate(invalid="ignore"):
        out = np.rint(x)
        bad = ~(np.abs(out) < 2.0 ** 31)
        return np.where(bad, -2 ** 31, out).astype(np.int64)


def _fms(x, y, z):  # SLEEF's vfmapn: x * y - z, fused
    return fma32(x, y, -np.asarray(z, _F))


def _fnma(x, y, z):  # SLEEF's vfmanp: -x * y + z, fused
    return fma32(-np.asarray(x, _F), y, z)


def exp(d: np.ndarray) -> np.ndarray:
    """SLEEF's ``xexpf`` (u10)."""
    d = np.asarray(d, _F)
    with np.errstate(all="ignore"):
        q = _rint(d * _R_LN2)
        qf = q.astype(_F)
        s = fma32(qf, -_L2U, d)
        s = fma32(qf, -_L2L, s)
        u = np.full_like(d, _F(0.000198527617612853646278381))
        for c in (0.00139304355252534151077271, 0.00833336077630519866943359, 0.0416664853692054748535156,
                  0.166666671633720397949219, 0.5):
            u = fma32(u, s, _F(c))
        u = _F(1.0) + fma32(s * s, u, s)
        u = _ldexp2(u, q)
        u = np.where(d < _F(-104), _F(0.0), u)
        return np.where(_F(100) < d, _F(np.inf), u).astype(_F)


def _block() -> int:
    """How many elements ATen's vectorised loop takes at a time (two vectors): 32 floats on its AVX512 path, 16 on
    AVX2, none on DEFAULT (every element through the scalar function). PyTorch takes the CPU's widest path unless
    ``ATEN_CPU_CAPABILITY`` names another; numpy's detection of the CPU stands in for PyTorch's."""
    return {"AVX512": 32, "AVX2": 16}.get(pytorch_level(), 0)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """ATen's float32 sigmoid of each row of ``x`` (one inner loop of its kernel each): the row's leading multiple
    of the block takes the vector formula ``1 / (1 + exp(0 - x))`` with SLEEF's exp, the rest the scalar one
    ``1 / (1 + expf(-x))`` with glibc's expf (correctly rounded here through float64)."""
    x = np.asarray(x, _F)
    n = x.shape[-1]
    block = _block()
    vector = n // block * block if block else 0
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        out[..., :vector] = _F(1.0) / (_F(1.0) + exp(_F(0.0) - x[..., :vector]))
        tail = x[..., vector:]
        out[..., vector:] = _F(1.0) / (_F(1.0) + np.exp(-tail.astype(np.float64)).astype(_F))
    return out


def tanh(x: np.ndarray) -> np.ndarray:
    """tanh correctly rounded to float32. ATen's float32 tanh is MKL's ``vsTanh`` (high accuracy) where PyTorch is
    built with MKL, which is not public; it gives the correctly rounded value except where the exact one lies
    within about 1/200 ulp of a rounding midpoint (about 1 value in 2,000 here: there the two differ by an ulp)."""
    with np.errstate(all="ignore"):
        return np.tanh(np.asarray(x, _F).astype(np.float64)).astype(_F)
