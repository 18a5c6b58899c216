"""PyTorch's AVX2 float32 Box-Muller kernel (``normal_fill_16_AVX2``), emulated exactly in numpy.

Each block of 16 uniforms pairs lane j (u1 = 1 - u[j]) with lane j + 8 (u2):
``radius = sqrt(-2 * log(u1))``, ``theta = 2pi * u2``, then ``radius * cos`` and ``radius * sin``.
log and sincos are the float32 Cephes polynomials of ``avx_mathfun.h`` with the multiply-adds the
compiler fused. A fused float32 multiply-add is computed as a float64 product (exact: 24 x 24
bits) plus a float64 sum, rounded to float32. That second rounding is the fused result unless the
float64 sum was inexact and landed exactly on a float32 tie. Every fused step of log and sincos
is a function of one 24-bit uniform (u1 or u2), so all 2**24 inputs were run through each step:
none ever hits such a tie (``tests/random/test_random_kernel.py`` re-checks it, exhaustively with
``TINYTORCH_EXHAUSTIVE=1``), so the kernel rounds once more and checks nothing. Only the final
``fma(n, std, mean)``, whose inputs are the caller's, goes through the checked version.
The work runs in chunks with preallocated buffers, so the passes stay in cache and allocate
nothing."""
from __future__ import annotations

import math

import threading

import numpy as np

F32, F64, U64 = np.float32, np.float64, np.uint64
_TIE_MASK, _TIE = U64((1 << 29) - 1), U64(1 << 28)

# constants as 0-d arrays, which a ufunc takes faster than scalars; float64 twins for the constants
# that meet float64 operands (a mixed-type ufunc is slow)
def _c(v, dtype=F32):
    return np.array(v, dtype)


_LOG_P = [_c(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                          1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                          3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = _c(-2.12194440e-4), _c(0.693359375)
_SQRTHF = _c(0.707106781186547524)
_SQRTHF_BITS, _ONE_BITS = _SQRTHF.view(np.int32), _c(1).view(np.int32)
_SIGN = _c(-(2 ** 31), np.int32)
_DP = [_c(-0.78515625), _c(-2.4187564849853515625e-4), _c(-3.77489497744594108e-8)]
_SIN_P = [_c(-1.9515295891E-4), _c(8.3321608736E-3), _c(-1.6666654611E-1)]
_COS_P = [_c(2.443315711809948E-005), _c(-1.388731625493765E-003), _c(4.166664568298827E-002)]
_FOPI = _c(1.27323954473516)
_TWO_PI = _c(2.0 * math.pi)
_ONE, _HALF_F, _MHALF64, _MTWO = _c(1), _c(0.5), _c(-0.5, F64), _c(-2)
_I = {v: _c(v, np.int32) for v in (1, 2, 23, 29, 30, 31, 127, 0x7FFFFF, ~1)}
_LOG_P64, _SIN_P64, _COS_P64 = ([v.astype(F64) for v in p] for p in (_LOG_P, _SIN_P, _COS_P))
_DP2_64 = _DP[2].astype(F64)
_CHUNK = 4096  # blocks of 16 per pass: 32768 lanes, under 3 MB of buffers in all (measured best)


class _Buffers:
    def __init__(self, k: int) -> None:
        shape = (k, 8)
        for name in ("u1", "e", "x", "z", "y", "t", "r", "th", "c", "s"):
            setattr(self, name, np.empty(shape, F32))
        for name in ("p", "q", "a64"):  # a64: a float64 copy of an operand used several times
            setattr(self, name, np.empty(shape, F64))
        self.i = np.empty(shape, np.int32)
        self.j = np.empty(shape, np.int32)
        self.m = np.empty(shape, np.int32)
        self.w = np.empty(shape, U64)
        self.b = np.empty(shape, bool)


_PER_THREAD = threading.local()  # each thread's working arrays: two threads drawing at once must not share


def _buffers(k: int) -> _Buffers:
    cache = getattr(_PER_THREAD, "buffers", None)
    if cache is None:
        cache = _PER_THREAD.buffers = {}
    buf = cache.get(k)
    if buf is None:
        if len(cache) > 4:
            cache.clear()
        buf = cache[k] = _Buffers(k)
    return buf


def _fma_exact(a, b, c, out, bf: _Buffers) -> None:
    """out = float32 fused a*b + c, where the float64 sum is known never to be an inexact tie."""
    # direct casts into float64 buffers, then float64 ufuncs: faster than mixed-type ufuncs,
    # which cast through numpy's buffered iterator
    b64 = _as64(b, bf.q)
    np.multiply(_as64(a, bf.p), b64, out=bf.p)
    np.add(bf.p, b64 if c is b else _as64(c, bf.q), out=bf.p)  # sin's fma(s, x, x) reuses x's copy
    np.copyto(out, bf.p, casting="unsafe")


def _as64(v, buf):
    if isinstance(v, np.ndarray) and v.ndim and v.dtype != F64:
        np.copyto(buf, v)
        return buf
    return v


def _fma(a, b, c, out, bf: _Buffers) -> None:
    """out = float32 fused a*b + c (a or b may be a scalar, c a scalar or a buffer)."""
    np.multiply(a, b, out=bf.p, dtype=F64)
    np.add(bf.p, c, out=bf.q, dtype=F64)
    np.copyto(out, bf.q, casting="unsafe")
    np.bitwise_and(bf.q.view(U64), _TIE_MASK, out=bf.w)
    np.equal(bf.w, _TIE, out=bf.b)
    if bf.b.any():
        idx = np.flatnonzero(bf.b)
        p = bf.p.reshape(-1)[idx]
        s = bf.q.reshape(-1)[idx]
        cc = c.reshape(-1)[idx].astype(F64) if isinstance(c, np.ndarray) else F64(c)
        back = s - p
        err = (p - (s - back)) + (cc - back)
        nudged = np.nextafter(s, np.where(err > 0, np.inf, -np.inf))
        out.reshape(-1)[idx] = np.where(err != 0, nudged, s).astype(F32)


def _log(u1, out, bf: _Buffers) -> None:
    """out = log256_ps(u1) for u1 in (0, 1]."""
    bits = u1.view(np.int32)
    # The kernel splits u1 into a mantissa m in [0.5, 1) and e = exponent + 1, then where
    # m < SQRTHF takes e - 1 and x = (m - 1) + m = 2m - 1 (exact), else x = m - 1. Adding
    # 1.0's bits minus SQRTHF's carries into the exponent exactly when m >= SQRTHF, so one
    # integer add gives both branches: the mantissa bits then rebuild m or 2m around SQRTHF.
    ix = bf.i
    np.add(bits, _ONE_BITS - _SQRTHF_BITS, out=ix)
    np.right_shift(ix, _I[23], out=bf.m)
    np.subtract(bf.m, _I[127], out=bf.m)
    np.copyto(bf.e, bf.m, casting="unsafe")
    np.bitwise_and(ix, _I[0x7FFFFF], out=ix)
    np.add(ix, _SQRTHF_BITS, out=ix)
    np.subtract(ix.view(F32), _ONE, out=bf.x)
    x, y = bf.x, out
    np.multiply(x, x, out=bf.z)
    x64 = bf.a64
    np.copyto(x64, x)
    _fma_exact(x64, _LOG_P64[0], _LOG_P64[1], y, bf)
    for p in _LOG_P64[2:]:
        _fma_exact(y, x64, p, y, bf)
    np.multiply(y, x, out=y)
    np.multiply(bf.e, _LOG_Q1, out=bf.t)
    _fma_exact(y, bf.z, bf.t, y, bf)
    np.multiply(bf.z, _HALF_F, out=bf.t)
    np.subtract(y, bf.t, out=y)
    np.add(x, y, out=x)
    # e * Q2 is exact in float32 (|e| <= 25 times 9 significant bits): one float32 add rounds once
    np.multiply(bf.e, _LOG_Q2, out=bf.t)
    np.add(bf.t, x, out=out)


def _sincos(theta, sin, cos, bf: _Buffers) -> None:
    """sin, cos = sincos256_ps(theta) for theta >= 0."""
    np.multiply(theta, _FOPI, out=bf.t)
    np.copyto(bf.j, bf.t, casting="unsafe")  # truncation, as cvttps
    np.add(bf.j, _I[1], out=bf.j)
    np.bitwise_and(bf.j, _I[~1], out=bf.j)
    yf = bf.e
    np.copyto(yf, bf.j)
    x = bf.x
    # j <= 8 times DP0 or DP1 (8 and 11 significant bits) is exact in float32, so those two fused
    # steps are a float32 product and one rounding float32 add; DP2 has all 24 bits
    np.multiply(yf, _DP[0], out=x)
    np.add(x, theta, out=x)
    np.multiply(yf, _DP[1], out=bf.z)
    np.add(x, bf.z, out=x)
    _fma_exact(yf, _DP2_64, x, x, bf)
    z, c, s = bf.z, bf.c, bf.s
    np.multiply(x, x, out=z)
    z64 = bf.a64
    np.copyto(z64, z)
    _fma_exact(z64, _COS_P64[0], _COS_P64[1], c, bf)
    _fma_exact(c, z64, _COS_P64[2], c, bf)
    np.multiply(c, z, out=c)
    # -z/2 in float64 is the kernel's float32 -z/2 (exact in both: over all 2**24 inputs z is 0 or
    # above 2**-53, far from float32's subnormals), so it goes in without a float32 pass and a copy
    np.multiply(z64, _MHALF64, out=bf.q)
    _fma_exact(c, z64, bf.q, c, bf)
    np.add(c, _ONE, out=c)
    _fma_exact(z64, _SIN_P64[0], _SIN_P64[1], s, bf)
    _fma_exact(s, z64, _SIN_P64[2], s, bf)
    np.multiply(s, z, out=s)
    _fma_exact(s, x, x, s, bf)
    # the kernel's bit operations: where j & 2 the polynomials swap, then sign bits are xor-ed in
    # (j & 4 for the sine; ~(j - 2) & 4, which is (j + 2) & 4 for an even j, for the cosine)
    j, i, m = bf.j, bf.i, bf.m
    np.left_shift(j, _I[30], out=m)
    np.right_shift(m, _I[31], out=m)  # all ones where j & 2
    cb, sb, sin_b, cos_b = c.view(np.int32), s.view(np.int32), sin.view(np.int32), cos.view(np.int32)
    np.bitwise_xor(sb, cb, out=i)
    np.bitwise_and(i, m, out=i)
    np.bitwise_xor(sb, i, out=sin_b)
    np.bitwise_xor(cb, i, out=cos_b)
    np.left_shift(j, _I[29], out=i)
    np.bitwise_and(i, _SIGN, out=i)
    np.bitwise_xor(sin_b, i, out=sin_b)
    np.add(j, _I[2], out=i)
    np.left_shift(i, _I[29], out=i)
    np.bitwise_and(i, _SIGN, out=i)
    np.bitwise_xor(cos_b, i, out=cos_b)


def box_muller(blocks: np.ndarray, mean, std, out=None) -> np.ndarray:
    """The normals of ``blocks`` (k x 2 x 8 float32 uniforms), as ``normal_fill_16_AVX2`` writes them;
    ``out`` may be ``blocks`` itself (each chunk is read before it is written)."""
    k = blocks.shape[0]
    out = np.empty(blocks.shape, F32) if out is None else out
    # mixed float32/float64 ufuncs cast through numpy's buffers: one buffer per chunk is faster
    old_bufsize = np.setbufsize(max(8192, 16 * min(k, _CHUNK)))
    try:
        _run(blocks, out, mean, std)
    finally:
        np.setbufsize(old_bufsize)
    return out


_HALF = np.dtype((np.void, 32))  # one half-block of 8 float32 lanes, moved as a single item


def _run(blocks, out, mean, std) -> None:
    k = blocks.shape[0]
    trivial = std == 1 and mean == 0
    # a ufunc over a (k, 8) half-block view loops 8 lanes at a time; copying the halves as 32-byte
    # items to and from contiguous buffers is much faster
    src = np.ascontiguousarray(blocks).view(_HALF)[:, :, 0]
    dst_all = out.view(_HALF)[:, :, 0]
    for start in range(0, k, _CHUNK):
        stop = min(k, start + _CHUNK)
        bf = _buffers(stop - start)
        half = bf.u1.view(_HALF)[:, 0]
        np.copyto(half, src[start:stop, 0])
        np.subtract(_ONE, bf.u1, out=bf.u1)
        _log(bf.u1, bf.r, bf)
        np.multiply(bf.r, _MTWO, out=bf.r)
        np.sqrt(bf.r, out=bf.r)
        np.copyto(bf.th.view(_HALF)[:, 0], src[start:stop, 1])
        np.multiply(bf.th, _TWO_PI, out=bf.th)
        sin, cos = bf.u1, bf.y  # free again: log is done with them
        _sincos(bf.th, sin, cos, bf)
        dst = dst_all[start:stop]
        for lanes, col in ((cos, 0), (sin, 1)):
            np.multiply(bf.r, lanes, out=lanes)
            if not trivial:
                _fma(lanes, std, mean, bf.th, bf)
                lanes = bf.th
            np.copyto(dst[:, col], lanes.view(_HALF)[:, 0])
