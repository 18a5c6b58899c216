"""Exact arithmetic the random kernels need and numpy lacks: fused multiply-adds and glibc's
double log / log1p / sin / cos (the float32 normal kernel has its own, in ``tinytorch/_cpu/avx2_normal.py``).

PyTorch's kernels were compiled with fused multiply-adds (some written out, some contracted by the
compiler), so a plain ``a * b + c`` in numpy rounds twice where PyTorch rounds once and the bits
differ. Both FMAs below are exact:

- float32: a float32 product is exact in float64, so ``a*b + c`` in float64 rounds once; the second
  rounding to float32 can only go wrong when that float64 sum lands exactly on a float32 tie,
  which is detected from its bits and resolved with the exact error of the sum.
- float64: exact product and sums (Dekker, TwoSum) in place on caller-given scratch (``fma64_into``,
  which ``_ops/_kernels/muladd.py`` uses block by block), with Boldo and Melquiond's round-to-odd emulation
  for the rare results where the last rounding is a tie."""
from __future__ import annotations

import math

import numpy as np

F32, F64, U64 = np.float32, np.float64, np.uint64
_TIE_MASK, _TIE = U64((1 << 29) - 1), U64(1 << 28)  # float64 bits below float32's last place


def fma32(a, b, c) -> np.ndarray:
    """float32 ``a*b + c`` with a single rounding (a, b, c float32 arrays or scalars)."""
    # widened before the ufunc: a mixed-dtype ufunc with a casting ``dtype=`` runs several times slower (both exact)
    p = np.multiply(np.asarray(a, F64), np.asarray(b, F64))
    s = np.add(p, np.asarray(c, F64))
    out = s.astype(F32)
    tie = (s.view(U64) & _TIE_MASK) == _TIE
    if tie.any():
        at = np.flatnonzero(tie)  # one flat index array: the few ties, picked from flat views
        ss = s.reshape(-1)[at]
        err = _two_sum_err(_flat_at(p, s.shape, at), _flat_at(np.asarray(c, F64), s.shape, at), ss)
        # the exact sum lies off the tie, on err's side: step towards it before rounding
        nudged = np.nextafter(ss, np.where(err > 0, np.inf, -np.inf))
        out.reshape(-1)[at] = np.where(err != 0, nudged, ss).astype(F32)
    return out


def _flat_at(v: np.ndarray, shape: tuple, at: np.ndarray) -> np.ndarray:
    """``v`` broadcast to ``shape``, at the flat positions ``at``."""
    if v.ndim == 0:
        return np.full(at.shape, v)
    if v.shape == shape:
        return v.reshape(-1)[at]
    return np.broadcast_to(v, shape)[np.unravel_index(at, shape)]


def _two_sum_err(a, b, s):
    bb = s - a
    return (a - (s - bb)) + (b - bb)


_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's constant: x = hi + lo, each with at most 26 significant bits
_SPLIT_LIMIT = 2.0 ** 996  # above this, _SPLIT * x may overflow


def _split(a):
    t = _SPLIT * a
    hi = t - (t - a)
    return hi, a - hi


def _bool_over(x: np.ndarray) -> np.ndarray | None:
    """A bool array over the first bytes of 1-d float64 scratch ``x`` (free by then); None (numpy
    allocates one) for other shapes."""
    return x.view(np.bool_)[:x.size] if x.ndim == 1 else None


def fma64_into(out: np.ndarray, x: np.ndarray, y, c: np.ndarray, t: list) -> None:
    """``out[...] = x*y + c`` in float64 with a single rounding, in place: ``x`` and ``c`` float64
    arrays broadcastable to ``out``, ``y`` a float or such an array, ``t`` five
    C-contiguous float64 scratch arrays of ``out``'s shape (blocks small enough to stay in the cache
    between the passes are fastest); ``out`` must not share memory with the inputs. Run it under
    ``np.errstate(all="ignore")``: the splits of huge values overflow on the way to their fallback.

    The product is split into its rounded value ``uh`` and exact error ``ul`` (Veltkamp/Dekker), the sum
    ``c + uh`` into ``s`` and its exact error (Knuth's TwoSum), and ``s + (error + ul)`` rounded. The
    inner addition's rounding can only matter where the outer one is a tie (when ``c + uh`` is inexact,
    ``|error + ul|`` is at most 1.5 ulp of ``s``, and rounding is monotone, so the inner rounding never
    crosses a midpoint, only lands on one); so a tie's residual, a power of two, marks the few results
    that go through Boldo and Melquiond's round-to-odd emulation instead. Correctly rounded except
    where the product's error is not representable (products below about 2**-969). Non-finite or huge
    (above 2**996) operands, whose splits overflow, go through ``_fma64_outside``."""
    if out.ndim == 0:  # the steps below keep their masks in 1-d arrays
        fma64_into(out.reshape(1), x, y, c, [v.reshape(1) for v in t])
        return
    uh, hi, lo, s, e = t
    np.multiply(x, y, out=uh)
    # x = hi + lo exactly
    np.multiply(x, _SPLIT, out=hi)
    np.subtract(hi, x, out=lo)
    np.subtract(hi, lo, out=hi)
    np.subtract(x, hi, out=lo)
    yh, yl = _split(y if type(y) is np.ndarray else float(y))
    # ul = x*y - uh exactly: ((yh*hi - uh) + yh*lo + yl*hi) + yl*lo
    np.multiply(hi, yh, out=e)
    np.subtract(e, uh, out=e)
    np.multiply(lo, yh, out=s)
    np.add(e, s, out=e)
    np.multiply(hi, yl, out=s)
    np.add(e, s, out=e)
    np.multiply(lo, yl, out=s)
    np.add(e, s, out=lo)  # lo: ul
    # c + uh = s + error exactly (TwoSum)
    np.add(c, uh, out=s)
    np.subtract(s, c, out=hi)  # bb = s - c
    np.subtract(s, hi, out=e)
    np.subtract(c, e, out=e)  # c - (s - bb)
    np.subtract(uh, hi, out=hi)  # uh - bb
    np.add(e, hi, out=e)
    np.add(e, lo, out=e)  # error + ul, rounded
    np.add(s, e, out=out)
    # an exact sum keeps its sign (-0.0 + -0.0 is -0.0; adding a +0.0 error would make it +0.0)
    np.copyto(out, s, where=np.equal(e, 0.0, out=_bool_over(hi)))
    # the outer addition's residual, exact (Fast2Sum: |s| >= |e| or e is exact): a tie leaves a power of two
    np.subtract(out, s, out=uh)
    np.subtract(e, uh, out=uh)
    bits = lo.view(np.int64)
    np.bitwise_and(uh.view(np.int64), _SIGNIFICAND, out=bits)
    tie = np.equal(bits, 0, out=_bool_over(hi))
    np.logical_and(tie, np.not_equal(uh, 0.0, out=_bool_over(e)), out=tie)
    shape = out.shape
    if tie.any():
        idx = np.flatnonzero(tie)
        out.reshape(-1)[idx] = _fma64_odd(_take(x, shape, idx), _take(y, shape, idx), _take(c, shape, idx))
    big = np.abs(x) > _SPLIT_LIMIT
    if type(y) is np.ndarray:
        big = big | (np.abs(y) > _SPLIT_LIMIT)
    if not np.isfinite(out).all() or big.any():
        idx = np.flatnonzero(~np.isfinite(out) | big)
        out.reshape(-1)[idx] = _fma64_outside(_take(x, shape, idx), _take(y, shape, idx), _take(c, shape, idx))


_SIGNIFICAND = np.int64((1 << 52) - 1)


def _take(v, shape: tuple, idx: np.ndarray) -> np.ndarray:
    """Elements ``idx`` (flat, C order) of ``v`` broadcast to ``shape`` (a float: itself)."""
    if type(v) is not np.ndarray:
        return np.full(idx.size, v, F64)
    return np.broadcast_to(v, shape).reshape(-1)[idx] if v.shape != shape else v.reshape(-1)[idx]


def _fma64_odd(x: np.ndarray, y: np.ndarray, c: np.ndarray) -> np.ndarray:
    """x*y + c rounded once, for 1-d arrays of in-range operands: Boldo and Melquiond's emulation (exact
    product, exact sums, the two small errors added rounding to odd so that the last addition's
    rounding is the exact sum's)."""
    uh = x * y
    xh, xl = _split(x)
    yh, yl = _split(y)
    ul = ((xh * yh - uh) + xh * yl + xl * yh) + xl * yl
    th = c + ul
    tl = _two_sum_err(c, ul, th)
    vh = uh + th
    vl = _two_sum_err(uh, th, vh)
    z = vl + tl
    zerr = _two_sum_err(vl, tl, z)
    fix = ((z.view(U64) & U64(1)) == 0) & (zerr != 0)
    z = np.where(fix, np.nextafter(z, np.where(zerr > 0, np.inf, -np.inf)), z)
    out = vh + z
    # an exact zero takes the IEEE sum's sign (a zero sum of nonzero terms needs a representable product)
    return np.where(out == 0, uh + c, out)


def _fma64_outside(x: np.ndarray, y: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``fma64_into`` where a split or the rounded product overflows. For finite nonzero factors, powers
    of two move from the larger to the smaller (exact; the product and ``c`` are unchanged), and a
    product still near the top of the range is fused scaled down with ``c`` and scaled back (exact but
    for an addend whose low bits then fall below 2**-1074, where only a tie could depend on them); a
    result that overflows there is the two-rounding infinity. With an inf or nan operand, or a zero
    factor, the two-rounding value is the FMA's, except that an infinite ``c`` wins over a finite
    product that overflowed."""
    out = np.where(np.isinf(c) & np.isfinite(x) & np.isfinite(y), c, x * y + c)
    fuse = np.isfinite(x) & np.isfinite(y) & np.isfinite(c) & (x != 0) & (y != 0)
    if fuse.any():
        xs, ys, cs = x[fuse], y[fuse], c[fuse]
        ex, ey = np.frexp(xs)[1], np.frexp(ys)[1]
        k = (ex - ey) // 2
        xs, ys = np.ldexp(xs, -k), np.ldexp(ys, k)
        scale = np.maximum(ex + ey - 1000, 0)
        xs, cs = np.ldexp(xs, -scale), np.ldexp(cs, -scale)
        r = _fma64_odd(xs, ys, cs)
        r = np.where(np.isfinite(r), r, xs * ys + cs)
        out[fuse] = np.ldexp(r, scale)
    return out


def fma64(a, b, c) -> np.ndarray:
    """float64 ``a*b + c`` with a single rounding (``fma64_into`` on new arrays); a numpy scalar when
    all three are scalars."""
    a, b, c = (np.asarray(v, F64) for v in (a, b, c))
    if a.ndim == 0 and b.ndim:
        a, b = b, a
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    out = np.empty(shape, F64)
    with np.errstate(all="ignore"):
        fma64_into(out, a, b if b.ndim else float(b), c, [np.empty(shape, F64) for _ in range(5)])
    return out if shape else out[()]


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


# -- glibc's double exp / tan / pow ----------------------------------------------------------------------
# The same choice for the scalar loops of log_normal_ (exp), cauchy_ (tan) and logspace (pow): numpy's
# AVX-512 kernels of these (SVML's on numpy 2) differ from glibc in the last bit for some inputs, its
# kernels without AVX-512 are glibc's. A check at first use on this machine picks numpy where it gives
# glibc's bits, Python's math module (glibc's) element by element otherwise.
_NUMPY_IS_LIBM: dict = {}


def _numpy_is_libm(name: str) -> bool:
    ok = _NUMPY_IS_LIBM.get(name)
    if ok is None:
        rs = np.random.RandomState(12345)
        if name == "pow":
            probe = rs.uniform(-30, 30, 4096)
            ok = all(np.array_equal(np.power(b, probe), np.array([math.pow(b, v) for v in probe.tolist()]))
                     for b in (10.0, 2.0, 3.5, 0.7))
        else:
            probe = rs.uniform(-20, 20, 4096) if name == "exp" else rs.uniform(-1.6, 1.6, 4096)
            ok = np.array_equal(getattr(np, name)(probe), np.array([getattr(math, name)(v) for v in probe.tolist()]))
        ok = _NUMPY_IS_LIBM[name] = bool(ok)
    return ok


def _by_element(fn, x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, F64)
    return np.fromiter(map(fn, x.ravel().tolist()), F64, x.size).reshape(x.shape)


def _c_semantics(fn):
    """``fn`` (a math function) with C's results where Python raises: inf for an overflow, and numpy's
    scalar (C) result for a domain error (pow of a negative base, of 0 to a negative power)."""
    def one(*args):
        try:
            return fn(*args)
        except OverflowError:
            return math.inf
        except ValueError:
            with np.errstate(all="ignore"):
                return float(getattr(np, {"pow": "power"}.get(fn.__name__, fn.__name__))(*map(F64, args)))
    return one


def libm_exp(x: np.ndarray) -> np.ndarray:
    if _numpy_is_libm("exp"):
        return np.exp(x)
    return _by_element(_c_semantics(math.exp), x)


def libm_tan(x: np.ndarray) -> np.ndarray:
    if _numpy_is_libm("tan"):
        return np.tan(x)
    return _by_element(_c_semantics(math.tan), x)


def libm_pow(base: float, x: np.ndarray) -> np.ndarray:
    """glibc's pow(base, x), ``base`` a float."""
    if _numpy_is_libm("pow"):
        return np.power(base, x)
    pow_ = _c_semantics(math.pow)
    return _by_element(lambda v: pow_(base, v), x)
