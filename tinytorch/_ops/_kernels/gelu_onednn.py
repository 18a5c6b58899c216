"""The exact GELU on contiguous float32 arrays, computed as PyTorch computes it there.

PyTorch hands a contiguous float32 GELU (``approximate="none"``, more than one element) to oneDNN's
``eltwise_gelu_erf``, whose AVX2 kernel evaluates erf by Abramowitz and Stegun's formula 7.1.26
(erf(a) = 1 - t (p1 + p2 t + ... + p5 t^4) exp(-a^2), t = 1 / (1 + p a)) with its own float32 exp
(a degree-5 polynomial after the reduction by ln 2). The functions here follow those steps with the
same float32 constants, one in-place float32 numpy pass each. On a (16, 32, 256) input that costs
0.85 ms whatever the values, where the float64 erf they replace took 1.1 ms for N(0, 1/4) inputs,
1.4 ms for N(0, 1) and 3.3 ms for N(0, 4) (its erfc branch); and the results land on PyTorch's float32
values far more often. The kernel's fused multiply-adds are two float32 roundings here except the
last two, computed in float64 from exact products and rounded once: erf = 1 - (exp t) poly, and
S + S erf, where the cancellations would otherwise cost many ulps. Bit for bit with PyTorch on
(16, 32, 256) inputs of standard deviation 0.5 / 1 / 2 / 4: 72 / 77 / 86 / 92% of the values
(forward and gradient alike; with the last one alone exact it was 61 / 69 / 80 / 89%), and the
infinities, NaN, signed zeros and huge inputs exactly. Making the other fused multiply-adds exact
too (float64 products: about 80 us more each) would reach 100%; the Abramowitz-Stegun polynomial's
four are what the remaining differences come from. (Were every rounding of the float32 steps made
exact by emulation, the measured match was 100% in 400k samples: the steps are the kernel's.)

On CPUs with AVX-512 oneDNN takes a minimax polynomial instead; the values here then differ from
PyTorch's by about as much as the float64 erf did. Non-contiguous, float64, half and single-element
inputs keep the float64 erf (PyTorch's own kernel, with an erf accurate to about an ulp, runs there)."""
from __future__ import annotations

import numpy as np

from ..._quiet_fp import loud, quiet
from . import parallel

_F32 = np.float32


def _bits(u: int) -> np.float32:
    return np.array([u], dtype=np.uint32).view(_F32)[0]


# oneDNN's constants, as their float32 bit patterns
_ONE_OVER_SQRT_2 = _bits(0x3F3504F3)
_ONE_OVER_SQRT_PI = _bits(0x3F106EBA)
_AS_P = _bits(0x3EA7BA05)  # 0.3275911
_AS_POLY = (_bits(0x3F87DC22), _bits(0xBFBA00E3), _bits(0x3FB5F0E3), _bits(0xBE91A98E), _bits(0x3E827906))
_LOG2E = _bits(0x3FB8AA3B)
_LN2 = _bits(0x3F317218)
_LN_FLT_MIN = _bits(0xC2AEAC50)
_EXP_POLY = (_bits(0x3C07CFCE), _bits(0x3D2B9D0D), _bits(0x3E2AAD40), _bits(0x3EFFFEE3), _bits(0x3F7FFFFB), _F32(1))
_ONE, _HALF = _F32(1), _F32(0.5)
_NEG_LOG2E, _NEG_LN_FLT_MIN = -_LOG2E, -_LN_FLT_MIN
_SIGN_BIT = np.int32(-2 ** 31)


def _exp_negated_(q: np.ndarray, work: np.ndarray) -> np.ndarray:
    """oneDNN's float32 exp of z = -q for q >= 0, in place in ``q`` (``work``: a scratch array of q's
    shape): 2^n poly(r), n = floor(z log2 e + 1/2), r = z - n ln 2. The steps are the kernel's with z's
    sign folded into the constants (fl(-a) = -fl(a), so every rounding is the same), and 2^n added
    to y's exponent bits rather than multiplied in as 2 * 2^(n-1): the two differ only where 2^(n-1) is
    subnormal, exp(-q) < 2^-125, which every use here rounds away (erf is +-1 there, and the
    derivative's term below half an ulp)."""
    under = None
    if q.size and not q.max() <= _NEG_LN_FLT_MIN:  # some exp(-q) below FLT_MIN (or a NaN: check each)
        under = q > _NEG_LN_FLT_MIN
        np.minimum(q, _NEG_LN_FLT_MIN, out=q)  # NaN stays NaN
    n = np.multiply(q, _NEG_LOG2E, out=work)
    n += _HALF
    np.floor(n, out=n)
    exponent = n.astype(np.int32)
    exponent <<= 23  # n in the exponent field: added to y's bits, it multiplies y (in [0.7, 1.42]) by 2^n
    rr = np.multiply(n, _LN2, out=n)  # fl(n ln 2)
    rr += q  # fl(q + n ln 2) = -r
    y = np.multiply(rr, -_EXP_POLY[0], out=q)  # fl(P4 r)
    y += _EXP_POLY[1]
    for c in _EXP_POLY[2:]:
        y *= rr  # -fl(y r)
        np.subtract(c, y, out=y)  # fl(y r + c)
    bits = y.view(np.int32)
    bits += exponent
    if under is not None:
        y[under] = 0
    return y


def _erf_parts(s: np.ndarray):
    """(erf(s / sqrt 2), exp(-s^2 / 2)) by oneDNN's formula, both float32. Its last fused multiply-add,
    1 - (exp t) poly, is one rounding of the exact float64 product; the sign is the kernel's: erf's bits
    xor s's sign bit."""
    x = np.multiply(s, _ONE_OVER_SQRT_2)
    t = np.abs(x)
    t *= _AS_P
    t += _ONE
    np.divide(_ONE, t, out=t)
    q = np.multiply(x, x, out=x)
    work = np.empty_like(t)
    _exp_negated_(q, work)
    poly = np.multiply(t, _AS_POLY[0], out=work)
    poly += _AS_POLY[1]
    for c in _AS_POLY[2:]:
        poly *= t
        poly += c
    t *= q  # exp(-x^2) t, rounded, as the kernel's product before the fused multiply-add
    wide = t.astype(np.float64)
    wide *= poly.astype(np.float64)  # exact: two float32 factors (both widened first: numpy's mixed loop is slower)
    erf = t
    np.subtract(1.0, wide, out=erf, casting="same_kind")  # one rounding, the kernel's fused multiply-add
    sign = np.bitwise_and(s.view(np.int32), _SIGN_BIT, out=work.view(np.int32))
    np.bitwise_xor(erf.view(np.int32), sign, out=erf.view(np.int32))
    return erf, q, wide


def gelu_forward(s: np.ndarray):
    """(gelu(s), erf(s / sqrt 2), exp(-s^2 / 2)) for a float32 array; the last two serve the backward.
    Infinities and NaNs pass silently, as in PyTorch (numpy would warn at x^2's overflow). A large array
    is cut across threads (every step is element by element: the same floats)."""
    if s.size >= 2 * parallel.GRAIN and s.ndim and parallel.get_num_threads() > 1:
        outs = tuple(np.empty(s.shape, _F32) for _ in range(3))

        def part(a, b):
            for whole, piece in zip(outs, _gelu_forward(s[a:b])):
                whole[a:b] = piece

        parallel.parallel_for(s.shape[0], part, grain=max(1, parallel.GRAIN * s.shape[0] // s.size))
        return outs
    return _gelu_forward(s)


def _gelu_forward(s: np.ndarray):
    token = quiet()
    try:
        erf, q, wide = _erf_parts(s)
        np.copyto(wide, erf)
        wide += 1.0
        wide *= s
        wide *= 0.5  # S (1 + erf), S = s / 2: the kernel's S + S erf, exact in float64, rounded once
        out = wide.astype(_F32)
        out += _F32(0)  # -0 to +0: (1 + erf) S is -0 where S + S erf = S - S is +0
    finally:
        loud(token)
    return out, erf, q


def gelu_backward(grad: np.ndarray, s: np.ndarray, erf: np.ndarray, q: np.ndarray) -> np.ndarray:
    """grad * (1/2 + s / sqrt(2 pi) exp(-s^2 / 2) + erf / 2), the kernel's order of operations (a large
    array cut across threads, element by element the same)."""
    if (s.size >= parallel.SPLIT_FROM and s.ndim and grad.shape == s.shape
            and parallel.get_num_threads() > 1):
        out = np.empty(s.shape, s.dtype)  # the product is computed in place in s's dtype

        def part(a, b):
            out[a:b] = _gelu_backward(grad[a:b], s[a:b], erf[a:b], q[a:b])

        parallel.parallel_for(s.shape[0], part, grain=max(1, parallel.ELEMENTWISE_GRAIN * s.shape[0] // s.size))
        return out
    return _gelu_backward(grad, s, erf, q)


def _gelu_backward(grad: np.ndarray, s: np.ndarray, erf: np.ndarray, q: np.ndarray) -> np.ndarray:
    d = s * _ONE_OVER_SQRT_2
    d *= _ONE_OVER_SQRT_PI
    d *= q
    d += _HALF
    d += erf * _HALF  # erf / 2 is exact, so this add is the kernel's fused multiply-add
    d *= grad
    return d
