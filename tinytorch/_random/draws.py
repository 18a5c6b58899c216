"""Every other distribution, drawn as PyTorch's CPU kernels draw it (element by element in fill
order, each element taking the same 32- or 64-bit words), but vectorised."""
from __future__ import annotations

import math

import numpy as np

from .._dtype import BF16_NP, FLOATING_NP, FROM_NP
from .._ops._kernels import parallel
from .fpmath import F32, F64, U64, fma32, fma64, libm_log, libm_log1p

_DIGITS = {np.dtype(np.float16): 11, np.dtype(np.float32): 24, np.dtype(np.float64): 53}
if BF16_NP is not None:
    _DIGITS[BF16_NP] = 8


def uniform_values(eng, n: int, npd: np.dtype, low: float, high: float) -> np.ndarray:
    """U(low, high): ``x * (to - from) + from`` with one rounding, ``from``/``to`` cast to the dtype; a
    value that rounds up to ``to`` becomes ``from``, as in PyTorch, so the range stays half-open."""
    if npd == np.float64:
        x = eng.float64_uniform(n)
        lo, hi = F64(low), F64(high)
        if lo == 0 and hi == 1:
            return x
        out = fma64(x, hi - lo, lo)
    elif npd == np.float32:
        lo, hi = F32(low), F32(high)
        if lo == 0 and hi == 1:
            return eng.float32_uniform(n)
        out = _uniform_f32(eng, n, lo, hi)
        if _fma32_scalar(F32(1 - 2.0 ** -24), hi - lo, lo) < hi:
            return out  # not even the largest uniform reaches `to`
    elif npd == np.float16 or npd == BF16_NP:
        # float uniforms and float bounds (the accumulation type), rounded to half/bfloat16 at the end
        x = eng.float32_uniform(n)
        out = fma32(x, F32(high) - F32(low), F32(low)).astype(npd)
        lo, hi = npd.type(low), npd.type(high)
    else:
        if npd in FLOATING_NP:  # float8: PyTorch's dispatch refuses before its bounds check
            raise NotImplementedError(f'"check_uniform_bounds" not implemented for '
                                      f'\'{FROM_NP[npd]._scalar}\'')
        raise RuntimeError(f'"check_uniform_bounds" not implemented for \'{_torch_name(npd)}\'')
    out[out == hi] = lo
    return out


def _exponent(v) -> int:
    return math.frexp(float(v))[1] if v else -10 ** 6


def _fma32_scalar(x, r, lo):
    return fma32(np.array([x], F32), r, lo)[0]


_CHUNK = 1 << 15  # elements per pass: the temporaries stay in cache and are reused, not faulted in


def _uniform_f32(eng, n: int, lo, hi) -> np.ndarray:
    """float32 ``fma(k * 2**-24, to - from, from)`` for 24-bit k. The product k * (r * 2**-24) is
    exact in double; when the exponents of r and from are close (as for symmetric bounds) the
    double sum is exact too and one rounding to float32 is the fused result, otherwise fma32's tie
    check runs."""
    r = hi - lo
    if not (lo == 0 or (r and max(_exponent(r), _exponent(lo)) - min(_exponent(r) - 48, _exponent(lo) - 24) <= 52)):
        x = eng.float32_uniform(n)
        return fma32(x, r, lo)
    out = np.empty(n, F32)
    scale, shift = F64(r) * 2.0 ** -24, F64(lo)
    p = np.empty(min(n, _CHUNK), F64)
    for start in range(0, n, _CHUNK):
        k = eng.u32(min(_CHUNK, n - start))
        np.bitwise_and(k, np.uint32(0xFFFFFF), out=k)
        q = p[: k.size]
        np.multiply(k.view(np.int32), scale, out=q, dtype=F64)
        np.add(q, shift, out=out[start:start + k.size], casting="unsafe")
    return out


def double_uniform(eng, n: int) -> np.ndarray:
    return eng.float64_uniform(n)


_NARROW_FLOATS = (np.dtype(np.float32), np.dtype(np.float16), BF16_NP)


def int_from_to(eng, n: int, npd: np.dtype, low: int, span: int) -> np.ndarray:
    """``(word % span) + low`` per element, one word per element: a 64-bit word when the span is 2**28 or
    more (PyTorch keeps the modulo's bias small so) and the dtype is an integer type or float64, or when
    it is 2**32 or more for float32; else a 32-bit word."""
    if npd in _NARROW_FLOATS:
        wide = span >= (1 << 32) and npd == np.float32
    else:
        wide = span >= (1 << 28)
    words = eng.u64(n) if wide else eng.u32(n)
    vals = np.remainder(words, U64(span), dtype=U64)  # uint64 for 32-bit words too (numpy 1.x kept uint32)
    vals += U64(low % (1 << 64))
    return vals.view(np.int64).astype(npd)


def int_full(eng, n: int, npd: np.dtype) -> np.ndarray:
    """``random_()`` with no bounds: PyTorch's per-dtype range."""
    if npd == np.bool_:
        return (eng.u32(n) & U64(1)).astype(np.bool_)
    if npd == np.int64:
        return (eng.u64(n) % U64(1 << 63)).astype(np.int64)
    if npd == np.float64:
        return (eng.u64(n) % U64((1 << 53) + 1)).astype(F64)
    if npd in FLOATING_NP:
        return (eng.u32(n) % U64((1 << _DIGITS[npd]) + 1)).astype(npd)
    return (eng.u32(n) % U64(int(np.iinfo(npd).max) + 1)).astype(npd)


def digits(npd: np.dtype) -> int:
    """The mantissa bits of a floating dtype, the implicit one included (float32: 24)."""
    return _DIGITS[npd]


def dtype_upper(npd: np.dtype) -> int:
    """The largest value ``random_(from)`` may reach: 2**digits for floats, the maximum for integers."""
    if npd in FLOATING_NP:
        return 1 << _DIGITS[npd]
    if npd == np.bool_:
        return 1
    return int(np.iinfo(npd).max)


def bernoulli_scalar(eng, n: int, p: float) -> np.ndarray:
    """``u < p`` with a double uniform (one 64-bit draw) per element. The uniform is m 2^-53 (m the
    draw's low 53 bits), exactly, so for p in [0, 1] ``u < p`` is ``m < ceil(p 2^53)``: compared as
    integers, without the two float64 passes that would form u."""
    p = float(p)
    if not 0.0 <= p <= 1.0:  # NaN and out-of-range p: the float comparison's answer
        return eng.float64_uniform(n) < p
    bound = math.ceil(p * 2.0 ** 53)
    drawn = eng.below53_compiled(n, bound)  # the draws and comparisons in one pass, where it runs
    if drawn is not None:
        return drawn
    w = eng.u64(n)  # the draws themselves are one stream, drawn in order
    if n >= parallel.SPLIT_FROM:  # the comparisons, element by element, across threads
        return parallel.elementwise(_low53_below, np.empty(n, np.bool_), w, U64(bound))
    w &= U64((1 << 53) - 1)
    return w < U64(bound)


def _low53_below(w: np.ndarray, bound, out: np.ndarray) -> None:
    np.bitwise_and(w, U64((1 << 53) - 1), out=w)
    np.less(w, bound, out=out)


def bernoulli_tensor(eng, p: np.ndarray) -> np.ndarray:
    """``u < p[i]``: a float uniform (one 32-bit draw) for float32 p, a double one for float64 p."""
    if p.dtype == np.float64:
        return eng.float64_uniform(p.size) < p.reshape(-1)
    return eng.float32_uniform(p.size) < p.reshape(-1).astype(F32)


def exponential_values(eng, n: int, lambd: float) -> np.ndarray:
    """``(-1 / lambd) * log1p(-u)`` in double."""
    return (-1.0 / lambd) * libm_log1p(-eng.float64_uniform(n))


def geometric_values(eng, n: int, p: float) -> np.ndarray:
    """``ceil(log(u) / log1p(-p))`` in double."""
    return np.ceil(libm_log(eng.float64_uniform(n)) / libm_log1p(np.array([-p]))[0])


def randperm_values(eng, n: int) -> np.ndarray:
    """PyTorch's Fisher-Yates: for i in 0..n-2 swap r[i] with r[i + random() % (n - i)].

    The n - 1 swaps are resolved without a loop over them: position i is final after step i, and
    before that a position changes only as a swap target. So the value a step i moves into place
    is the value its target held just before; that is its target's original index unless an earlier
    step targeted the same position, in which case it is what that step's own position held before
    its step, which follows the same rule, so chains of such steps are collapsed by pointer jumping."""
    if n >= (1 << 32) // 20:
        raise NotImplementedError("randperm for n >= 2**32 / 20 (PyTorch's inside-out variant) is not implemented")
    if n <= 1:
        return np.zeros(n, np.int64)
    steps = n - 1
    i32 = np.int32 if n < (1 << 31) else np.int64  # half the memory traffic of int64 indices
    idx = np.arange(steps, dtype=i32)
    target = idx + (eng.u32(steps) % np.arange(n, 1, -1, dtype=np.uint32)).astype(i32)
    # steps grouped by target, in step order within a group (a radix sort when targets fit 16 bits)
    if n <= 1 << 16:
        order = np.argsort(target.astype(np.uint16), kind="stable").astype(i32)
    else:
        order = np.argsort(target.astype(np.int64) * steps + idx).astype(i32)
    st = target[order]
    same = st[1:] == st[:-1]
    pred = np.full(steps, -1, i32)  # the previous step with the same target
    pred[order[1:][same]] = order[:-1][same]
    last = np.full(n, -1, i32)  # the last step targeting each position
    ends = np.ones(steps, bool)
    ends[:-1] = ~same
    last[st[ends]] = order[ends]
    # the step that last wrote position k before step k ran (k's own self-swap does not count)
    positions = np.arange(n, dtype=i32)
    selfswap = last == positions
    parent = last
    parent[selfswap] = pred[last[selfswap]]
    # held[k] = value at position k just before step k: the root of k's parent chain
    root = np.where(parent < 0, positions, parent)
    while True:
        nxt = root[root]
        if np.array_equal(nxt, root):
            break
        root = nxt
    out = np.empty(n, np.int64)
    has = pred >= 0
    out[:steps] = np.where(has, root[np.where(has, pred, 0)], target)
    out[steps] = root[steps]
    return out


def multinomial_values(eng, p: np.ndarray, num_samples: int, replacement: bool) -> np.ndarray:
    """Samples for each row of the 2-d ``p`` (rows x categories), PyTorch's two algorithms."""
    rows, cats = p.shape
    if not replacement or num_samples == 1:
        # p / q with q ~ Exp(1) in p's dtype, then the largest num_samples (argmax for one)
        q = exponential_values(eng, p.size, 1.0).astype(p.dtype).reshape(p.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            key = p / q
        if num_samples == 1:
            return np.argmax(key, axis=1)[:, None].astype(np.int64)
        return np.argsort(-key, axis=1, kind="stable")[:, :num_samples].astype(np.int64)
    cum = np.cumsum(p, axis=1, dtype=p.dtype)
    total = cum[:, -1:].copy()
    cum = cum / total
    cum[:, -1] = 1
    u = eng.float64_uniform(rows * num_samples).reshape(rows, num_samples)
    out = np.empty((rows, num_samples), np.int64)
    for r in range(rows):  # one searchsorted per distribution, vectorised over its samples
        out[r] = np.searchsorted(cum[r].astype(F64), u[r], side="left")
    return out


def _torch_name(npd: np.dtype) -> str:
    return {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
            "int64": "Long"}.get(npd.name, npd.name)
