"""What the compiled kernels share: numba's import, LLVM's fused multiply-add, a cast to an array's float
type, numpy's pairwise sum (the order ``np.add.reduce`` sums a contiguous row in), and oneDNN's float32
logistic (the sigmoid of PyTorch's oneDNN LSTM)."""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["bits_float", "float_bits", "fma", "jit", "like", "pairwise", "readonly", "row_max", "row_sum", "sigmoid_onednn"]


def jit(signatures):
    """numba's ``njit`` for the given signatures, compiled at import (a failure there is the caller's
    fallback to numpy) and cached on disk; no fast-math, so every operation rounds as written."""
    return njit(signatures, cache=True, nogil=True, error_model="numpy")


def readonly(dtype, ndim: int, layout: str = "C"):
    """The numba type of an array argument only read: it takes read-only arrays (a tensor over a read-only
    buffer, a broadcast gradient) as well as writable ones."""
    return types.Array(dtype, ndim, layout, readonly=True)


@intrinsic
def fma(typingctx, a, b, c):
    """a * b + c with one rounding (``llvm.fma``: the hardware's instruction, or libm's exact fma)."""
    if not (isinstance(a, types.Float) and a == b == c):
        return None

    def codegen(context, builder, signature, args):
        lty = context.get_value_type(signature.return_type)
        name = "llvm.fma.f32" if a.bitwidth == 32 else "llvm.fma.f64"
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(lty, [lty, lty, lty]), name)
        return builder.call(fn, args)

    return a(a, b, c), codegen


@intrinsic
def like(typingctx, model, value):
    """``value`` converted to ``model``'s float type, rounded to nearest (numpy's ``astype``)."""
    if not isinstance(model, types.Float):
        return None

    def codegen(context, builder, signature, args):
        return context.cast(builder, args[1], signature.args[1], signature.return_type)

    return model(model, value), codegen


@njit(cache=True, nogil=True, inline="always")
def _block(a, lo, n, stride):
    """numpy's pairwise sum of at most 128 terms: plain below 8, else eight running sums. Inlined into its
    callers: a call of it costs more than a short row's sum."""
    if n < 8:
        res = like(a[lo], 0.0)
        for i in range(n):
            res += a[lo + i * stride]
        return res
    r0 = a[lo]
    r1 = a[lo + stride]
    r2 = a[lo + 2 * stride]
    r3 = a[lo + 3 * stride]
    r4 = a[lo + 4 * stride]
    r5 = a[lo + 5 * stride]
    r6 = a[lo + 6 * stride]
    r7 = a[lo + 7 * stride]
    m = n - n % 8
    i = 8
    while i < m:
        p = lo + i * stride
        r0 += a[p]
        r1 += a[p + stride]
        r2 += a[p + 2 * stride]
        r3 += a[p + 3 * stride]
        r4 += a[p + 4 * stride]
        r5 += a[p + 5 * stride]
        r6 += a[p + 6 * stride]
        r7 += a[p + 7 * stride]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i * stride]
        i += 1
    return res


@njit(cache=True, nogil=True)
def pairwise(a, lo, n, stride):
    """numpy's pairwise sum of ``a[lo], a[lo + stride], ...`` (n terms, 1-d ``a``): blocks of at most 128
    terms (``_block``), halves above, split at a multiple of 8 (numpy's ``pairwise_sum``, in the array's
    precision). numpy recurses; this walks the same tree with explicit stacks (a recursive function does
    not load back from numba's cache)."""
    if n <= 128:
        return _block(a, lo, n, stride)
    starts = np.empty(64, np.int64)
    sizes = np.empty(64, np.int64)
    stages = np.empty(64, np.int64)
    values = np.empty(64, a.dtype)
    starts[0], sizes[0], stages[0] = lo, n, 0
    top, held = 1, 0
    while top:
        s, m, stage = starts[top - 1], sizes[top - 1], stages[top - 1]
        if m <= 128:
            values[held] = _block(a, s, m, stride)
            held += 1
            top -= 1
            continue
        half = m // 2
        half -= half % 8
        if stage == 0:  # the left half first
            stages[top - 1] = 1
            starts[top], sizes[top], stages[top] = s, half, 0
            top += 1
        elif stage == 1:  # then the right half
            stages[top - 1] = 2
            starts[top], sizes[top], stages[top] = s + half * stride, m - half, 0
            top += 1
        else:  # both done: their sum
            values[held - 2] = values[held - 2] + values[held - 1]
            held -= 1
            top -= 1
    return values[0]


@njit(cache=True, nogil=True, inline="always")
def row_sum(a, lo, n, stride):
    """``np.add.reduce`` of a contiguous (or evenly strided) row: its pairwise sum added to the reduction's
    start, +0.0 (so a row of negative zeros sums to +0.0, as in numpy). A row of at most 128 terms is one
    block, summed inline (the tree's walk, a call with its scratch arrays, costs several times that)."""
    if n <= 128:
        return like(a[lo], 0.0) + _block(a, lo, n, stride)
    return like(a[lo], 0.0) + pairwise(a, lo, n, stride)


@njit(cache=True, nogil=True, inline="always")
def _above(v, m):
    """max(v, m) without a branch; a NaN ``v`` leaves ``m`` (NaNs are counted apart)."""
    return v if v > m else m


@njit(cache=True, nogil=True, inline="always")
def row_max(row, c):
    """(the max of ``row[:c]``, whether it holds a NaN) for c >= 1. Eight running maxima over each group of eight:
    one running max waits on the compare before it at every element (and a branch on it mispredicts at each new
    max; numpy's reduceat on rows of tens of elements takes 3-4x the time); a max is the same value in any order,
    but for the sign of a zero among equal maxima (+0.0 or -0.0), which its callers' uses (x - max, then exp) do
    not see."""
    m = row[0]
    nan = m != m
    j = 1
    if c >= 9:
        m0, m1, m2, m3, m4, m5, m6, m7 = row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8]
        nan |= (m0 != m0) | (m1 != m1) | (m2 != m2) | (m3 != m3) | (m4 != m4) | (m5 != m5) | (m6 != m6) | (m7 != m7)
        j = 9
        while j + 8 <= c:
            v0, v1, v2, v3 = row[j], row[j + 1], row[j + 2], row[j + 3]
            v4, v5, v6, v7 = row[j + 4], row[j + 5], row[j + 6], row[j + 7]
            m0, m1, m2, m3 = _above(v0, m0), _above(v1, m1), _above(v2, m2), _above(v3, m3)
            m4, m5, m6, m7 = _above(v4, m4), _above(v5, m5), _above(v6, m6), _above(v7, m7)
            nan |= (v0 != v0) | (v1 != v1) | (v2 != v2) | (v3 != v3) | (v4 != v4) | (v5 != v5) | (v6 != v6) | (v7 != v7)
            j += 8
        m = _above(m, _above(_above(_above(m0, m1), _above(m2, m3)), _above(_above(m4, m5), _above(m6, m7))))
    while j < c:
        v = row[j]
        nan |= v != v
        m = _above(v, m)
        j += 1
    return m, nan


@intrinsic
def float_bits(typingctx, value):
    """The bits of a float32 as an int32 (a reinterpretation, as numpy's ``view``)."""
    if value != types.float32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return types.int32(value), codegen


@intrinsic
def bits_float(typingctx, value):
    """The float32 whose bits are the int32 ``value``."""
    if value != types.int32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(value), codegen


def _f32(bits: int) -> np.float32:
    return np.array([bits], np.uint32).view(np.float32)[0]


# oneDNN's float32 exp (its eltwise kernels' exp: the argument clamped to [ln FLT_MIN, ln FLT_MAX], the
# lower bound alone for the logistic's -|a|; reduced by ln 2 to r with n = floor(a log2 e + 1/2); a degree-5
# polynomial in r, times 2^(n-1), times 2), as the float32 bit patterns of its constants
_LOG2E, _LN2, _LN_MIN = _f32(0x3FB8AA3B), _f32(0x3F317218), _f32(0xC2AEAC50)
_P1, _P2, _P3, _P4, _P5 = (_f32(b) for b in (0x3F7FFFFB, 0x3EFFFEE3, 0x3E2AAD40, 0x3D2B9D0D, 0x3C07CFCE))
_HALF32, _TWO32, _ONE, _ZERO = np.float32(0.5), np.float32(2), np.float32(1), np.float32(0)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def sigmoid_onednn(a):
    """oneDNN's float32 logistic: e = exp(-|a|) by its exp's steps (each multiply-add one rounding, as its
    vfmadd), y = e / (e + 1), and 1 - y where a > 0 (a NaN gives the numpy path's +NaN)."""
    v = -abs(a)
    scale_zero = v < _LN_MIN  # exp below FLT_MIN: 0
    v = max(v, _LN_MIN)
    n = np.floor(v * _LOG2E + _HALF32)
    r = fma(-n, _LN2, v)
    scale = bits_float(np.int32((np.int32(n - _ONE) + np.int32(127)) << np.int32(23)))  # 2^(n-1)
    if scale_zero:
        scale = _ZERO
    p = fma(fma(fma(fma(fma(_P5, r, _P4), r, _P3), r, _P2), r, _P1), r, _ONE)
    e = p * scale * _TWO32
    y = e / (e + _ONE)
    if a > _ZERO:
        y = _ONE - y
    if a != a:
        y = abs(a)
    return y
