"""Exact arithmetic the random kernels need and numpy lacks: fused multiply-adds and glibc's
double log / log1p / sin / cos (the float32 normal kernel has its own, in ``avx2_normal``).

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
# differ from glibc in the last bit for a fraction of inputs, so log1p goes through Python's math
# module (which is glibc's) element by element; sin and cos use numpy when a check at first use
# finds it bit-identical to glibc here. log rounds an extended-precision logarithm instead (below).
# glibc's log is within 0.519 ulp of the true value (its documented bound; 0.5176 measured on 2e7
# values), x87's logl within 2**-10 ulp of a double. So where the extended result lies more than
# _LOG_UNSURE / 2048 ulp from a rounding boundary of doubles, glibc returns its nearest double; the
# few others (about 6%) go through math.log. The 11 extended bits below a double's last place say
# where the extended result lies between two doubles.
_LOG_UNSURE = 62  # 0.03 ulp, in 2**-11 ulp
_X87 = np.finfo(np.longdouble).nmant == 63 and np.dtype(np.longdouble).itemsize == 16 \
    and np.little_endian


def libm_log(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, F64)
    if not _X87:
        return _math_log(x)
    shape, x = x.shape, x.reshape(-1)
    with np.errstate(all="ignore"):
        yl = np.log(x.astype(np.longdouble))
    y = yl.astype(F64)
    # the 64-bit significand is the first word of each 16-byte x87 value
    low = np.bitwise_and(yl.view(U64)[::2], U64(0x7FF)).astype(np.int16)
    low -= 1024
    unsure = np.abs(low) <= _LOG_UNSURE
    unsure |= ~np.isfinite(y)  # inf, nan and x <= 0: math.log decides (and raises as glibc's caller)
    if unsure.any():
        idx = np.flatnonzero(unsure)
        y[idx] = _math_log(x[idx])
    return y.reshape(shape)


def _math_log(x: np.ndarray) -> np.ndarray:
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
