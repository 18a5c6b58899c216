"""``a + alpha * b`` with one rounding, as PyTorch's CPU ``add(a, b, alpha=)`` computes it.

PyTorch's CPU add kernel evaluates ``a + alpha * b`` as a fused multiply-add (vector ``fmadd``, and
its scalar tail compiled to FMA too), ``alpha`` first cast to the tensors' dtype. numpy has no FMA
ufunc; rounding the product and then the sum disagrees with PyTorch in the last bit on a large share
of elements (about a quarter of float32 values when ``alpha * b`` is comparable to ``a``).

float32: the product of two float32 values is exact in float64, so ``a + alpha * b`` computed in
float64 and rounded to float32 is PyTorch's value, except where the float64 sum's own rounding lands
exactly on a float32 halfway point (double rounding: none in 2e8 random SGD-like updates, but easy to
construct, e.g. -1 + 2.5 * -1e30); such sums are found by their bits and nudged.

float64: ``_random/fpmath.py``'s ``fma64_into`` (Veltkamp/Dekker product, TwoSum, round-to-odd): the
correctly rounded result, halfway cases included, except for products in the subnormal range; a
non-finite or huge intermediate falls back to the two-rounding value.

Both take several numpy passes per element. Where numpy ships OpenBLAS, its ``saxpy``/``daxpy``
(called through ctypes) does the same in one pass with FMA, but only in its vector body: its tail
(``n % 32`` float32 elements on Haswell) and its kernels for CPUs without FMA round twice. So it is used
only after a self-check against the numpy computation above passes, only on stretches of whole
1024-element blocks, and at most 8192 elements a call (OpenBLAS splits longer vectors between threads,
each part with its own tail; one call when OpenBLAS runs one thread); the rest of each array goes
through numpy. A broadcast ``b`` is first copied out to the result's shape (one pass of numpy's, where the
emulation would take several in float64), so that it takes the BLAS too.

Not every element of PyTorch's result is fused, though: where ``other`` is constant along the inner loop (a
0-d tensor, a Python number, or broadcast along the last dims), the scalar tail of each call of its loop
rounds the product first at some places (``twice_rounded``)."""
from __future__ import annotations

import numpy as np

from ..._meta_array import MetaArray
from ..._random.fpmath import fma64_into  # the float64 FMA emulation (shared with the random kernels)
from . import parallel
from .._core.tensor_iterator import dim_order, inner_loop, row_calls
from .openblas import address as _address, openblas_library, openblas_routines

__all__ = ["addcmul_into", "fma32_into", "muladd", "muladd_into", "plus_scaled_into", "round_twice_at", "twice_rounded"]

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_INF = float("inf")
# elements per block: the float64 temporaries of one block stay in the cache between the passes
_BLOCK = 16384


def _scratch(n: int, dtype, scratch: dict | None, slot: int = 0) -> np.ndarray:
    if scratch is None:
        return np.empty(n, dtype)
    key = ("muladd", slot, dtype)
    buf = scratch.get(key)
    if buf is None or buf.size < n:
        buf = scratch[key] = np.empty(max(n, 1), dtype)
    return buf[:n]


def _f64_block(a: np.ndarray, b: np.ndarray, alpha, out: np.ndarray, t: list) -> None:
    """out = fl(a + alpha * b) for float64 arrays broadcast to ``out`` (``alpha`` a float or another
    array); ``t``: five scratch arrays of ``out``'s shape. The emulated FMA is fpmath's, shared with
    the random kernels and arange/linspace."""
    fma64_into(out, b, alpha, a, t)


_MIDPOINT = np.iinfo(np.int64).min  # a float64 halfway between two float32s: its low 29 bits are 1 << 28


def _fix_midpoints(r: np.ndarray, a: np.ndarray, exact_product, tmp: np.ndarray) -> None:
    """Undo double rounding in ``r = fl64(a + p)`` (float32 ``a``, ``p`` a product of two float32s, exact
    in float64): where ``r`` lies exactly halfway between two float32s but the exact sum does not, move
    ``r`` one float64 step towards the exact sum, so that rounding to float32 goes the way a single
    rounding would. ``exact_product(idx)``: ``p`` at those indices; ``tmp``: float64 scratch of ``r``'s
    length. (Results in float32's subnormal range are not checked.)"""
    bits = tmp.view(np.int64)
    np.left_shift(r.view(np.int64), 35, out=bits)
    # shifted left by 35, a midpoint's bits are 1 followed by zeros: the least int64 there is
    if bits.min() != _MIDPOINT:
        return
    idx = np.flatnonzero(bits == _MIDPOINT)
    prod = exact_product(idx)
    aa = a[idx].astype(np.float64)
    s = r[idx]
    # the exact error of s = fl(aa + prod) (TwoSum)
    bv = s - aa
    err = (aa - (s - bv)) + (prod - bv)
    inexact = err != 0
    r[idx[inexact]] = np.nextafter(s[inexact], np.where(err[inexact] > 0, np.inf, -np.inf))


def _at(v, idx: np.ndarray, shape: tuple) -> np.ndarray:
    """The elements at flat indices ``idx`` of ``v`` broadcast to ``shape``."""
    if np.ndim(v) == 0:
        return np.broadcast_to(v, idx.shape)
    if v.shape == shape and v.flags.c_contiguous:
        return v.reshape(-1)[idx]
    return np.broadcast_to(v, shape)[np.unravel_index(idx, shape)]


def fma32_into(out: np.ndarray, a, b, c, p: np.ndarray, bits: np.ndarray, exact_ties: bool = False) -> None:
    """``out[...] = a * b + c`` rounded once, for float32 values (arrays, float32 scalars, or float64 arrays
    holding float32 values) broadcast to ``out``, which may be one of them: the product exact in float64,
    one float64 sum, double rounding undone as ``_fix_midpoints`` does (the same floats as
    ``addcmul_into``). ``p``, ``bits``: C-contiguous float64 and int64 scratch of ``out``'s shape. For
    callers that run many small multiply-adds: no checks, no allocations, numpy's warnings left to them.

    ``exact_ties``: the caller knows that a float64 sum on a float32 halfway point is exact, so there is
    nothing to undo: where ``c`` is 0 (the sum is the product), or where each ``a * b`` has no more than
    float32's 24 significant bits (a power-of-two factor): a float64 sum of two such values that is not
    exact has its addends more than 28 binades apart, so it lies less than a 16th of a float32 step from
    the larger, a value on the float32 grid, whose nearest halfway points are a quarter step away or more."""
    np.multiply(a, b, out=p, dtype=_F64)  # exact: 24-bit by 24-bit significands
    np.add(p, c, out=p)
    if exact_ties:
        np.copyto(out, p, casting="same_kind")
        return
    np.left_shift(p.view(np.int64), 35, out=bits)
    if p.size and bits.min() == _MIDPOINT:  # sums on a float32 halfway point: the fix on those alone
        shape, idx = p.shape, np.flatnonzero(bits == _MIDPOINT)
        a_at, b_at, c_at = (_at(v, idx, shape) for v in (a, b, c))
        r = p.reshape(-1)[idx]
        _fix_midpoints(r, c_at, lambda i: a_at[i].astype(np.float64) * b_at[i], np.empty_like(r))
        p.reshape(-1)[idx] = r
    np.copyto(out, p, casting="same_kind")


def _addcmul_f32_blocked(of: np.ndarray, af: np.ndarray, bf: np.ndarray, cf: np.ndarray, value: float,
                         scratch: dict | None) -> None:
    """addcmul_into for 1-d float32 arrays of one length, block by block in float64 scratch."""
    n = of.size
    m = min(n, _BLOCK)
    v32 = np.float32(value)
    t, u = _scratch(m, _F64, scratch), _scratch(m, _F64, scratch, 1)
    w = _scratch(m, _F32, scratch, 2)
    for i in range(0, n, _BLOCK):
        j = min(i + _BLOCK, n)
        tb, ub, wb, ab, cb = t[:j - i], u[:j - i], w[:j - i], af[i:j], cf[i:j]
        np.multiply(bf[i:j], v32, out=wb)  # value * t1, rounded as PyTorch does
        np.copyto(tb, wb)
        np.copyto(ub, cb)
        np.multiply(tb, ub, out=tb)  # exact
        np.copyto(ub, ab)
        np.add(tb, ub, out=tb)
        _fix_midpoints(tb, ab, lambda idx: wb[idx].astype(np.float64) * cb[idx], ub)
        np.copyto(of[i:j], tb, casting="same_kind")


def addcmul_into(out: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray, value: float,
                 scratch: dict | None = None) -> None:
    """``out[...] = a + (value * b) * c`` as PyTorch's CPU ``addcmul`` (``value * b`` rounded in the
    dtype, then one fused rounding), for float32 or float64 arrays broadcast to ``out``; other dtypes
    round each step. A meta ``out`` (``np.empty_like`` of a meta operand) is written nowhere: nothing to compute."""
    if type(out) is MetaArray:
        return
    dt = out.dtype
    if (dt != _F32 and dt != _F64) or a.dtype != dt or b.dtype != dt or c.dtype != dt:
        t = np.multiply(b, value, out=np.empty(out.shape, out.dtype))
        np.multiply(t, c, out=t)
        np.add(a, t, out=out)
        return
    shape = out.shape
    if dt == _F64:
        with np.errstate(all="ignore"):
            bv = np.multiply(b, float(value), out=np.empty(shape, _F64))
            r = np.empty(shape, _F64)
            _f64_block(a, bv, np.broadcast_to(c, shape), r, [np.empty(shape, _F64) for _ in range(5)])
        out[...] = r
        return
    if (a.shape == shape and b.shape == shape and c.shape == shape and out.flags.c_contiguous
            and a.flags.c_contiguous and b.flags.c_contiguous and c.flags.c_contiguous):
        with np.errstate(all="ignore"):
            _addcmul_f32_blocked(out.reshape(-1), a.reshape(-1), b.reshape(-1), c.reshape(-1), value, scratch)
        return
    with np.errstate(all="ignore"):
        bv = np.multiply(b, np.float32(value), out=np.empty(shape, _F32))
        r = np.multiply(bv, c, out=np.empty(shape, _F64), dtype=_F64)  # exact
        np.add(r, a, out=r)
        af, bvf, cf = (np.broadcast_to(x, shape).reshape(-1) for x in (a, bv, c))
        _fix_midpoints(r.reshape(-1), af, lambda idx: bvf[idx].astype(np.float64) * cf[idx], np.empty(r.size, _F64))
        np.copyto(out, r, casting="same_kind")


# -- OpenBLAS axpy ------------------------------------------------------------------------------------
_BLAS_UNIT = 1024  # the BLAS calls cover whole multiples of this; every kernel's unroll divides it
_BLAS_CALL = 8192  # at most this many elements a call: single-threaded (OpenBLAS threads above 10000)
_axpy: dict | None = None  # dtype -> the checked ctypes function, filled on first use


def _find_axpy() -> dict:
    """numpy's bundled OpenBLAS ``?axpy`` functions, by dtype (empty where there is none), and its thread
    count query."""
    global _threads
    import ctypes  # here, not at import: only the first float32/float64 add with alpha pays for it

    found = openblas_routines("saxpy", "daxpy",
                              lambda index, real: [index, real, ctypes.c_void_p, index, ctypes.c_void_p, index])
    if found:
        lib = openblas_library()
        for symbol in ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads",
                       "openblas_get_num_threads64_", "openblas_get_num_threads"):
            threads = getattr(lib, symbol, None)
            if threads is not None:
                threads.restype, threads.argtypes = ctypes.c_int, []
                _threads = threads
                break
    return found




def _threads() -> int:
    """OpenBLAS's thread count (replaced by its ``get_num_threads`` when _find_axpy finds one; without
    it, assume several)."""
    return 2


def _blas_body(y: np.ndarray, x: np.ndarray, alpha: float, fn) -> int:
    """y[:m] += alpha * x[:m] by ``fn`` for the longest whole-block prefix ``m``; returns ``m``. Long
    stretches are cut at whole blocks across tinytorch's threads (each element is computed by the same
    vector body, whichever call covers it)."""
    m = y.size - y.size % _BLAS_UNIT
    if m >= parallel.SPLIT_FROM and parallel.get_num_threads() > 1:
        blocks = m // _BLAS_UNIT
        unit = _BLAS_UNIT
        py, px = _address(y), _address(x)  # contiguous arrays (any number of dims): element addresses
        step = y.itemsize * unit

        def part(b0, b1):
            # one BLAS thread inside a part (run's blas=True): one call for the whole part
            fn((b1 - b0) * unit, alpha, px + b0 * step, 1, py + b0 * step, 1)

        parallel.parallel_for(blocks, part, grain=max(1, parallel.ELEMENTWISE_GRAIN // unit), blas=True)
        return m
    if m <= _BLAS_CALL or _threads() == 1:
        # one thread runs the whole stretch as one vector body (the common case: every ctypes call
        # costs a microsecond or two, 49 of them for a 784x512 weight)
        if m:
            fn(m, alpha, _address(x), 1, _address(y), 1)
    else:
        py, px, step = _address(y), _address(x), y.itemsize * _BLAS_CALL
        for i in range(0, m, _BLAS_CALL):
            fn(min(_BLAS_CALL, m - i), alpha, px, 1, py, 1)
            px += step
            py += step
    return m


def _blas_padded(y: np.ndarray, x: np.ndarray, alpha: float, fn, scratch: dict | None) -> None:
    """y += alpha * x for fewer than _BLAS_UNIT elements, through zero-padded block-sized copies (the
    BLAS's own tail would round twice)."""
    key = ("muladd-pad", y.dtype)
    pads = scratch.get(key) if scratch is not None else None
    if pads is None:  # (one buffer for both: an allocation and an address lookup are most of a small call's cost)
        both = np.zeros(2 * _BLAS_UNIT, y.dtype)
        ptr = _address(both)
        pads = (both[:_BLAS_UNIT], both[_BLAS_UNIT:], ptr, ptr + _BLAS_UNIT * both.itemsize)
        if scratch is not None:
            scratch[key] = pads
    py, px, ptr_y, ptr_x = pads
    n = y.size
    py[:n] = y
    px[:n] = x
    fn(_BLAS_UNIT, alpha, ptr_x, 1, ptr_y, 1)
    y[...] = py[:n]


def _blas_axpy(y: np.ndarray, x: np.ndarray, alpha: float, fn, scratch: dict | None) -> None:
    """y += alpha * x (1-d, one length and dtype) by ``fn``: whole blocks in place, the rest padded."""
    m = _blas_body(y, x, alpha, fn)
    if m < y.size:
        _blas_padded(y[m:], x[m:], alpha, fn, scratch)


def _checked_axpy() -> dict:
    """The ``?axpy`` functions whose results on a test of random values (aligned and not, FMA and
    two roundings disagreeing on about a quarter of them) equal the numpy computation's bit for bit."""
    global _axpy
    if _axpy is None:
        good = {}
        rng = np.random.default_rng(0)
        for dt, fn in _find_axpy().items():
            ok = True
            for offset, n in ((0, 37), (1, _BLAS_UNIT + 5), (3, 3 * _BLAS_CALL + _BLAS_UNIT + 37), (0, _BLAS_CALL)):
                a = rng.standard_normal(n + offset).astype(dt)[offset:]
                b = rng.standard_normal(n + offset).astype(dt)[offset:]
                for alpha in (-0.37, 1.7e-3):
                    want = np.empty_like(a)
                    with np.errstate(all="ignore"):
                        _blocked(want, a, b, alpha, None)
                    got = a.copy()
                    _blas_axpy(got, b, alpha, fn, None)
                    ok = ok and np.array_equal(got.view(np.uint8), want.view(np.uint8))
            if ok:
                good[dt] = fn
        _axpy = good
    return _axpy


def muladd_into(out: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float,
                scratch: dict | None = None) -> bool:
    """``out[...] = a + alpha * b`` with one rounding, ``alpha`` first rounded to the arrays' dtype, for
    float32/float64 arrays of one dtype, ``a`` and ``b`` broadcastable to ``out`` (``out`` may be ``a``
    or ``b``). Returns False, writing nothing, for any other dtype (the caller rounds its own way)."""
    dt = out.dtype
    if dt != _F32 and dt != _F64 or a.dtype != dt or b.dtype != dt:
        return False
    whole = (a.shape == out.shape and b.shape == out.shape and out.flags.c_contiguous
             and a.flags.c_contiguous and b.flags.c_contiguous)
    # the BLAS skips alpha == 0, which must still give a + 0 * b (nan for an infinite b)
    if out.flags.c_contiguous and alpha != 0 and -_INF < alpha < _INF:
        fn = (_axpy if _axpy is not None else _checked_axpy()).get(dt)
        if fn is not None:
            x = b
            if not (b.shape == out.shape and b.flags.c_contiguous) or (out is not a and np.may_share_memory(out, b)):
                # a broadcast or strided b (or one that out overlaps) laid out as out first: one copy, a pass of
                # numpy's, where its emulation below would take several in float64
                x = _scratch(out.size, dt, scratch, 7).reshape(out.shape)
                np.copyto(x, b)
            if out is not a:
                np.copyto(out, a)  # (a broadcast a too)
            _blas_axpy(out.reshape(-1), x.reshape(-1), alpha, fn, scratch)
            return True
    with np.errstate(all="ignore"):
        if whole:
            _blocked(out.reshape(-1), a.reshape(-1), b.reshape(-1), alpha, scratch)
        elif dt == _F32:
            shape = out.shape
            alpha64 = np.float64(np.float32(alpha))
            r = np.add(a, np.multiply(b, alpha64, dtype=_F64), dtype=_F64)
            bf = np.broadcast_to(b, shape).reshape(-1)
            _fix_midpoints(r.reshape(-1), np.broadcast_to(a, shape).reshape(-1),
                           lambda idx: bf[idx].astype(np.float64) * alpha64, np.empty(r.size, _F64))
            np.copyto(out, r, casting="same_kind")
        else:
            shape = out.shape
            r = np.empty(shape, _F64)
            _f64_block(a, b, float(alpha), r, [np.empty(shape, _F64) for _ in range(5)])
            out[...] = r
    return True


def _blocked(of: np.ndarray, af: np.ndarray, bf: np.ndarray, alpha: float, scratch: dict | None) -> None:
    """muladd_into by numpy's passes for 1-d arrays of one length, block by block."""
    n = of.size
    m = min(n, _BLOCK)
    if of.dtype == _F32:
        # explicit casts into float64 scratch: numpy's mixed-dtype loops (buffered casts) cost more
        alpha64 = np.float64(np.float32(alpha))
        t, u = _scratch(m, _F64, scratch), _scratch(m, _F64, scratch, 1)
        for i in range(0, n, _BLOCK):
            j = min(i + _BLOCK, n)
            tb, ub = t[:j - i], u[:j - i]
            np.copyto(tb, bf[i:j])
            np.multiply(tb, alpha64, out=tb)  # exact: 24-bit by 24-bit significands
            np.copyto(ub, af[i:j])
            np.add(tb, ub, out=tb)
            _fix_midpoints(tb, af[i:j], lambda idx: bf[i:j][idx].astype(np.float64) * alpha64, ub)
            np.copyto(of[i:j], tb, casting="same_kind")
    else:
        alpha = float(alpha)
        ts = [_scratch(m, _F64, scratch, k) for k in range(1, 6)]
        r = _scratch(m, _F64, scratch, 6)
        for i in range(0, n, _BLOCK):
            j = min(i + _BLOCK, n)
            k = j - i
            rr = r[:k]
            _f64_block(af[i:j], bf[i:j], alpha, rr, [x[:k] for x in ts])
            of[i:j] = rr


def muladd(a, b, alpha: float, dtype: np.dtype):
    """A new array ``a + alpha * b`` (broadcast, in ``dtype``) with one rounding where ``dtype`` is
    float32 or float64; None for other dtypes. ``a`` and ``b``: arrays (or scalars) of ``dtype``."""
    if dtype != _F32 and dtype != _F64:
        return None
    a = np.asarray(a, dtype)
    b = np.asarray(b, dtype)
    out = np.empty(a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape), dtype)
    muladd_into(out, a, b, alpha)
    return out


def plus_scaled_into(out: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float,
                     scratch: dict | None = None) -> np.ndarray:
    """``out[...] = a + alpha * b`` as PyTorch's CPU ``add(a, b, alpha=)``: ``muladd_into`` for
    float32/float64, numpy's product then sum for other dtypes; returns ``out``."""
    if not muladd_into(out, a, b, alpha, scratch):
        np.add(a, np.multiply(b, alpha, out=np.empty_like(b)), out=out)
    return out


# -- where PyTorch's add rounds twice ------------------------------------------------------------------
def _tail_lanes(m: int, itemsize: int) -> tuple:
    """``(lo, hi)``: the elements of one call of ``m`` elements that PyTorch's add kernel rounds twice when
    ``other`` is its stride-0 operand. ``vectorized_loop`` takes two vectors a step with ``fmadd`` (one
    rounding); the last ``m mod 2 vectors`` go to the scalar ``self + alpha * other``, a loop GCC compiled
    with FMA contraction and vectorised itself. Its vector parts hoist the loop-invariant ``alpha * other``
    (rounded) out of the loop; its scalar ones fuse. Measured, the AVX2 and AVX512 builds alike: whole
    64-byte blocks fused; of the rest, the first element fused, then as many 16-byte vectors as fit after it
    rounded twice, the last few fused. (Two vectors are 64 or 128 bytes, so the rest is ``m mod 64 bytes``.)"""
    rest = m % (64 // itemsize)
    lane = 16 // itemsize
    start = m - rest + 1
    return start, start + (rest - 1) // lane * lane if rest else start


def _spread_strides(x, shape: tuple, itemsize: int) -> list:
    """The strides (in elements) of ``x`` (an array or a number) broadcast to ``shape``: 0 where broadcast."""
    if type(x) is not np.ndarray or not x.ndim:
        return [0] * len(shape)
    lead = len(shape) - x.ndim
    return [0] * lead + [0 if n == 1 and shape[lead + i] != 1 else st // itemsize
                         for i, (n, st) in enumerate(zip(x.shape, x.strides))]


def twice_rounded(shape: tuple, a, b, itemsize: int, threads: int):
    """The flat (C-order) indices into ``a + alpha * b``'s result (``a``, ``b`` arrays or numbers broadcast to
    ``shape``) that PyTorch's ``add``/``sub`` kernel on its AVX2/AVX512 builds rounds twice, ``alpha * b``
    first; None where it fuses every element. That happens only where TensorIterator's inner loop
    (``tensor_iterator``) finds ``a`` contiguous and ``b`` of stride 0 there (the vector loop with ``other``
    as its scalar: ``_tail_lanes``); a stride-0 ``a``, contiguous operands and strided ones (the scalar loop
    throughout, ``b`` read each time) are fused everywhere. ``threads``: PyTorch's thread count."""
    if not shape:
        return None
    strides = [_spread_strides(a, shape, itemsize), _spread_strides(b, shape, itemsize)]
    perm = dim_order(shape, strides)
    size, (sa, sb) = inner_loop(shape, perm, strides)
    if sa != 1 or sb != 0:
        return None
    numel = 1
    for n in shape:
        numel *= n
    found = []
    for start, length, count in row_calls(numel, size, threads):
        lo, hi = _tail_lanes(length, itemsize)
        if hi > lo:
            lanes = np.arange(start + lo, start + hi)
            found.append(lanes if count == 1 else (np.arange(0, count * length, length)[:, None] + lanes).ravel())
    if not found:
        return None
    walk = found[0] if len(found) == 1 else np.concatenate(found)
    slow_first = perm[::-1]
    if slow_first == sorted(slow_first):  # the walk is the result's C order
        return walk
    index = [0] * len(shape)
    for d, i in zip(slow_first, np.unravel_index(walk, [shape[d] for d in slow_first])):
        index[d] = i
    return np.ravel_multi_index(index, shape)


def round_twice_at(out: np.ndarray, a, b, alpha, idx: np.ndarray) -> None:
    """``out.flat[idx] = a + alpha * b`` there, the product rounded first (``a``, ``b``: arrays of ``out``'s
    dtype or numbers, broadcast to its shape; ``out`` C-contiguous)."""
    dt = out.dtype

    def at(x):
        if type(x) is not np.ndarray or not x.ndim:
            return dt.type(x)
        if x.shape == out.shape and x.flags.c_contiguous:
            return x.reshape(-1)[idx]
        return np.broadcast_to(x, out.shape)[np.unravel_index(idx, out.shape)]

    out.reshape(-1)[idx] = at(a) + at(b) * dt.type(alpha)
