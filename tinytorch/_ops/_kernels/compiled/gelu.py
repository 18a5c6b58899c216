"""The exact GELU's float32 kernel of ``_kernels/gelu_onednn.py`` (oneDNN's ``eltwise_gelu_erf`` steps:
Abramowitz-Stegun's erf with oneDNN's own exp polynomial), one pass over the array instead of about 30
numpy passes: every step in the same precision and order with the same float32 constants (taken from that
module), so the same floats; the reference's two float64 steps are float32 fused multiply-adds here, which give
its floats on every float32 input. Pure arithmetic: no libm function is involved."""
from __future__ import annotations

import numpy as np
from numba import float32, types

from .. import gelu_onednn as _g
from ._common import bits_float, float_bits, fma, jit, readonly

_ONE_OVER_SQRT_2, _ONE_OVER_SQRT_PI = _g._ONE_OVER_SQRT_2, _g._ONE_OVER_SQRT_PI
_AS_P = _g._AS_P
_A0, _A1, _A2, _A3, _A4 = _g._AS_POLY
_NEG_LOG2E, _LN2, _NEG_LN_FLT_MIN = _g._NEG_LOG2E, _g._LN2, _g._NEG_LN_FLT_MIN
_NEG_E0, _E1, _E2, _E3, _E4, _E5 = -_g._EXP_POLY[0], *_g._EXP_POLY[1:]
_ONE, _HALF, _ZERO = _g._ONE, _g._HALF, np.float32(0)
_SIGN_BIT = np.int32(_g._SIGN_BIT)

_V, _R = float32[::1], readonly(float32, 1)


@jit([types.void(_R, _V, _V, _V)])
def forward_into(s, out, erf_out, exp_out):
    """gelu(s), erf(s / sqrt 2) and exp(-s^2 / 2) of a contiguous float32 array, as ``gelu_forward``, written
    into three arrays of its length (a part of a larger array, on one of the pool's threads)."""
    for k in range(s.size):
        sk = s[k]
        x = sk * _ONE_OVER_SQRT_2
        t = abs(x) * _AS_P + _ONE
        t = _ONE / t
        q = x * x
        # _exp_negated_: oneDNN's exp of -q
        under = q > _NEG_LN_FLT_MIN  # (selects, not branches: the loop vectorises)
        q = _NEG_LN_FLT_MIN if under else q
        e = np.floor(q * _NEG_LOG2E + _HALF)
        exponent = np.int32(np.int32(e) << np.int32(23))
        exponent = exponent if e == e else np.int32(0)  # numpy: NaN -> INT_MIN, shifted left by 23: 0
        rr = e * _LN2 + q
        y = rr * _NEG_E0 + _E1
        y = _E2 - y * rr
        y = _E3 - y * rr
        y = _E4 - y * rr
        y = _E5 - y * rr
        y = bits_float(np.int32(float_bits(y) + exponent))
        y = _ZERO if under else y
        # _erf_parts
        poly = t * _A0 + _A1
        poly = poly * t + _A2
        poly = poly * t + _A3
        poly = poly * t + _A4
        t = t * y
        # 1 - t poly, rounded once: the reference's float64 difference of the exact product, then float32,
        # is this fused multiply-add's float for every float32 input (compared on all 2^32 of them: no
        # float64 in the loop, which ran at half the speed)
        erf = fma(-t, poly, _ONE)
        erf = bits_float(np.int32(float_bits(erf) ^ (float_bits(sk) & _SIGN_BIT)))
        # gelu_forward: S (1 + erf), S = s / 2, rounded once (S + S erf, one fused multiply-add: the same
        # floats as the reference's float64 product, on all 2^32 inputs, NaNs included); -0 to +0
        half = sk * _HALF
        out[k] = fma(half, erf, half) + _ZERO
        erf_out[k] = erf
        exp_out[k] = y


@jit([types.void(_R, _R, _R, _R, _V)])
def backward_into(grad, s, erf, q, d):
    """grad * (1/2 + s / sqrt(2 pi) exp(-s^2 / 2) + erf / 2), as ``gelu_backward`` (contiguous arrays),
    written into ``d``."""
    for k in range(s.size):
        v = s[k] * _ONE_OVER_SQRT_2
        v = v * _ONE_OVER_SQRT_PI
        v = v * q[k]
        v = v + _HALF
        v = v + erf[k] * _HALF
        d[k] = v * grad[k]
