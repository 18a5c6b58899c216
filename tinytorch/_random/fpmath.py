"""Exact arithmetic the random kernels need and numpy lacks: fused multiply-adds, the float32
Cephes log / sincos of PyTorch's AVX2 normal kernel, and glibc's double log / log1p.

PyTorch's kernels were compiled with fused multiply-adds (some written out, some contracted by the
compiler), so a plain ``a * b + c`` in numpy rounds twice where PyTorch rounds once and the bits
differ. Both FMAs below are exact:

- float32: a float32 product is exact in float64, so ``a*b + c`` in float64 rounds once; the second
  rounding to float32 can only go wrong when that float64 sum lands exactly on a float32 tie,
  which is detected from its bits and resolved with the exact error of the sum.
- float64: Boldo and Melquiond's emulation (exact product, exact sums, one round-to-odd addition)."""
from __future__ import annotations

import math

import numpy as np

F32, F64, U64 = np.float32, np.float64, np.uint64
_TIE_MASK, _TIE = U64((1 << 29) - 1), U64(1 << 28)  # float64 bits below float32's last place


def fma32(a, b, c) -> np.ndarray:
    """float32 ``a*b + c`` with a single rounding (a, b, c float32 arrays or scalars)."""
    p = np.multiply(a, b, dtype=F64)
    s = np.add(p, c, dtype=F64)
    out = s.astype(F32)
    tie = (s.view(U64) & _TIE_MASK) == _TIE
    if tie.any():
        idx = np.nonzero(tie)
        pp = p[idx] if np.ndim(p) else np.broadcast_to(p, s.shape)[idx]
        cc = np.broadcast_to(np.asarray(c, F64), s.shape)[idx]
        err = _two_sum_err(pp, cc, s[idx])
        # the exact sum lies off the tie, on err's side: step towards it before rounding
        nudged = np.nextafter(s[idx], np.where(err > 0, np.inf, -np.inf))
        out[idx] = np.where(err != 0, nudged, s[idx]).astype(F32)
    return out


def _two_sum_err(a, b, s):
    bb = s - a
    return (a - (s - bb)) + (b - bb)


def _split(a):
    t = 134217729.0 * a
    hi = t - (t - a)
    return hi, a - hi


def fma64(a, b, c) -> np.ndarray:
    """float64 ``a*b + c`` with a single rounding (Boldo-Melquiond)."""
    a, b, c = (np.asarray(v, F64) for v in (a, b, c))
    uh = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    ul = ((ah * bh - uh) + ah * bl + al * bh) + al * bl
    th = c + ul
    tl = _two_sum_err(c, ul, th)
    vh = uh + th
    vl = _two_sum_err(uh, th, vh)
    # vl + tl rounded to odd: a sticky last bit, so the final rounding is the correct one
    z = vl + tl
    zerr = _two_sum_err(vl, tl, z)
    even = (z.view(U64) & U64(1)) == 0
    fix = even & (zerr != 0)
    if fix.any():
        z = np.where(fix, np.nextafter(z, np.where(zerr > 0, np.inf, -np.inf)), z)
    return vh + z


# -- glibc's double log and log1p ---------------------------------------------------------------------
# PyTorch calls glibc's log / log1p / sin / cos. numpy's own SIMD versions (used on AVX-512 machines)
# differ from glibc in the last bit for a fraction of inputs, so log and log1p go through Python's
# math module (which is glibc's) element by element; sin and cos use numpy when a check at first
# use finds it bit-identical to glibc here.
def libm_log(x: np.ndarray) -> np.ndarray:
    return np.fromiter(map(math.log, x.ravel().tolist()), F64, x.size).reshape(x.shape)


def libm_log1p(x: np.ndarray) -> np.ndarray:
    return np.fromiter(map(math.log1p, x.ravel().tolist()), F64, x.size).reshape(x.shape)


_TRIG_OK = None


def _numpy_trig_is_libm() -> bool:
    global _TRIG_OK
    if _TRIG_OK is None:
        probe = np.random.RandomState(12345).random_sample(4096) * (2 * math.pi)
        _TRIG_OK = bool(np.array_equal(np.cos(probe), np.array([math.cos(v) for v in probe]))
                        and np.array_equal(np.sin(probe), np.array([math.sin(v) for v in probe])))
    return _TRIG_OK


def libm_cos(x: np.ndarray) -> np.ndarray:
    if _numpy_trig_is_libm():
        return np.cos(x)
    return np.fromiter(map(math.cos, x.ravel().tolist()), F64, x.size).reshape(x.shape)


def libm_sin(x: np.ndarray) -> np.ndarray:
    if _numpy_trig_is_libm():
        return np.sin(x)
    return np.fromiter(map(math.sin, x.ravel().tolist()), F64, x.size).reshape(x.shape)


# -- the float32 Cephes polynomials of PyTorch's AVX2 kernel, with the compiler's contractions ---------
_LOG_P = [F32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                           1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                           3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = F32(-2.12194440e-4), F32(0.693359375)
_SQRTHF = F32(0.707106781186547524)
_DP = [F32(-0.78515625), F32(-2.4187564849853515625e-4), F32(-3.77489497744594108e-8)]
_SIN_P = [F32(-1.9515295891E-4), F32(8.3321608736E-3), F32(-1.6666654611E-1)]
_COS_P = [F32(2.443315711809948E-005), F32(-1.388731625493765E-003), F32(4.166664568298827E-002)]
_FOPI = F32(1.27323954473516)


def cephes_log(u: np.ndarray) -> np.ndarray:
    """log of positive, normal float32 values, as ``log256_ps`` computes it."""
    bits = u.view(np.int32)
    e = ((bits >> 23) - 126).astype(F32)  # exponent + 1, as the kernel counts it
    m = ((bits & np.int32(~0x7F800000)) | np.int32(0x3F000000)).view(F32)  # mantissa in [0.5, 1)
    low = m < _SQRTHF
    x = (m - F32(1)) + np.where(low, m, F32(0))
    e = e - low.astype(F32)
    z = x * x
    y = fma32(_LOG_P[0], x, _LOG_P[1])
    for p in _LOG_P[2:]:
        y = fma32(y, x, p)
    y = y * x
    y = fma32(y, z, e * _LOG_Q1)
    y = y - z * F32(0.5)
    return fma32(e, _LOG_Q2, x + y)


def cephes_sincos(theta: np.ndarray):
    """(sin, cos) of non-negative float32 values, as ``sincos256_ps`` computes them."""
    j = (theta * _FOPI).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(F32)
    x = fma32(y, _DP[0], theta)
    x = fma32(y, _DP[1], x)
    x = fma32(y, _DP[2], x)
    sin_neg = (j & 4) != 0
    cos_neg = (~(j - 2) & 4) != 0
    first = (j & 2) == 0
    z = x * x
    c = fma32(_COS_P[0], z, _COS_P[1])
    c = fma32(c, z, _COS_P[2])
    c = c * z
    c = fma32(c, z, -(z * F32(0.5))) + F32(1)
    s = fma32(_SIN_P[0], z, _SIN_P[1])
    s = fma32(s, z, _SIN_P[2])
    s = s * z
    s = fma32(s, x, x)
    sin = np.where(first, s, c)
    cos = np.where(first, c, s)
    return np.where(sin_neg, -sin, sin), np.where(cos_neg, -cos, cos)
