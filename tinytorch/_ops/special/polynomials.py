"""The orthogonal polynomials of ``torch.special`` (Chebyshev T/U/V/W and their shifted forms, Hermite
H/He, Laguerre L, Legendre P), evaluated at ``x`` for degree ``n`` (a tensor or a number; a fractional
degree is truncated, a negative one gives 0), numpy-only.

As PyTorch: the three-term recurrence, the closed forms at x = +-1 (and x = 0 for Laguerre), and for
Chebyshev polynomials of high degree inside (-1, 1) the trigonometric form (T_n(cos t) = cos(n t),
...), which keeps its digits where the recurrence loses them. Each step of the recurrence is
computed in float64 and rounded to the input's dtype, as PyTorch's fused multiply-adds do: a float32
recurrence loses digits at high degree, and PyTorch's values are those, not float64's rounded.
PyTorch does not differentiate them: the result never requires grad."""
from __future__ import annotations

import numpy as np

from ...tensor import _make
from .._core.batching import pointwise
from .._core.registry import op
from .._core.util import as_array, loop_count
from .xlogy import _float_pair


def _recurrence(x, n, p0, p1, step, dtype):
    """P_n(x) for every element: ``step(k, x, P_k, P_{k-1})`` gives P_{k+1}, rounded to ``dtype``
    each step (each step is one fused multiply-add in PyTorch's kernel)."""
    def rnd(v):
        return v.astype(dtype).astype(np.float64)
    out = np.where(n == 0, p0, np.where(n == 1, p1, 0.0))
    top = loop_count(n.max(initial=0))
    prev, cur = p0, p1
    for k in range(1, top):
        prev, cur = cur, rnd(step(k, x, cur, prev, rnd))
        out = np.where(n == k + 1, cur, out)
    return out


def _cheb(first):
    return lambda x: (np.ones_like(x), first(x))


# step(k, x, P_k, P_{k-1}, r) -> P_{k+1} in float64, ``r`` rounding to the input's dtype where
# PyTorch's kernel rounds: its steps are fused multiply-adds whose addend was rounded on its own
_BASE = {
    "t": (_cheb(lambda x: x), lambda k, x, c, p, r: 2 * x * c - p),
    "u": (_cheb(lambda x: 2 * x), lambda k, x, c, p, r: 2 * x * c - p),
    "v": (_cheb(lambda x: 2 * x - 1), lambda k, x, c, p, r: 2 * x * c - p),
    "w": (_cheb(lambda x: 2 * x + 1), lambda k, x, c, p, r: 2 * x * c - p),
    "h": (_cheb(lambda x: 2 * x), lambda k, x, c, p, r: 2 * x * c - r(2 * k * p)),
    "he": (_cheb(lambda x: x), lambda k, x, c, p, r: x * c - r(k * p)),
    "l": (_cheb(lambda x: 1 - x), lambda k, x, c, p, r: r(r(2 * k + r(1 - x)) * c - r(k * p)) / (k + 1)),
    "p": (_cheb(lambda x: x), lambda k, x, c, p, r: r(r((2 * k + 1) * x) * c - r(k * p)) / (k + 1)),
}


def _trig(kind, x, n, dtype):
    """The Chebyshev closed forms at x = cos(t), t in (0, pi), in the input's dtype as PyTorch's."""
    x = x.astype(dtype)
    n = n.astype(dtype)
    t = np.arccos(np.clip(x, -1, 1))
    if kind == "t":
        return np.cos(n * t)
    if kind == "u":
        return np.sin((n + 1) * t) / np.sin(t)
    if kind == "v":
        return np.cos((n + 0.5) * t) / np.cos(t / 2)
    return np.sin((n + 0.5) * t) / np.sin(t / 2)


def _edges(kind, x, n, out):
    """The values at x = +-1 (and Laguerre's at 0), where PyTorch returns them exactly."""
    even = n % 2 == 0
    plus, minus = x == 1, x == -1
    if kind in ("t", "p"):
        out = np.where(plus, 1.0, np.where(minus, np.where(even, 1.0, -1.0), out))
    elif kind == "u":
        out = np.where(plus, n + 1.0, np.where(minus, np.where(even, n + 1.0, -(n + 1.0)), out))
    elif kind == "v":
        out = np.where(plus, 1.0, np.where(minus, np.where(even, 2 * n + 1.0, -(2 * n + 1.0)), out))
    elif kind == "w":
        out = np.where(plus, 2 * n + 1.0, np.where(minus, np.where(even, 1.0, -1.0), out))
    elif kind == "l":
        out = np.where(x == 0, 1.0, out)
    return out


def _evaluate(kind, x, n):
    n = np.trunc(np.nan_to_num(n, nan=-1.0, posinf=-1.0, neginf=-1.0)).astype(np.int64)
    x, n = np.broadcast_arrays(x, n)
    dtype = x.dtype
    x = x.astype(np.float64)
    first, step = _BASE[kind]
    p0, p1 = (p.astype(dtype).astype(np.float64) for p in first(x))
    with np.errstate(all="ignore"):
        out = _recurrence(x, np.maximum(n, 0), p0, p1, step, dtype)
        if kind in ("t", "u", "v", "w"):
            inside = (np.abs(x) < 1) & (n > (6 if kind == "t" else 8))
            if inside.any():
                out = np.where(inside, _trig(kind, x, n, dtype).astype(np.float64), out)
        out = _edges(kind, x, n, out)
    return np.where(n < 0, 0.0, out)


def _polynomial(name: str, kind: str, shifted: bool = False):
    def fn(input, n):
        _, _, x, nn = _float_pair(input, n)
        dt = np.result_type(x, nn)
        x = x.astype(dt)
        if shifted:
            x = 2 * x - 1
        return _make(as_array(_evaluate(kind, x, nn.astype(np.float64))).astype(dt))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.special.{name}(x, n) (not differentiable, as in PyTorch)."
    return op(f"special.{name}", variants="function out", batch=pointwise)(fn)


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", "t")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", "u")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", "v")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", "w")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t", "t", True)
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u", "u", True)
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v", "v", True)
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w", "w", True)
hermite_polynomial_h = _polynomial("hermite_polynomial_h", "h")
hermite_polynomial_he = _polynomial("hermite_polynomial_he", "he")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", "l")
legendre_polynomial_p = _polynomial("legendre_polynomial_p", "p")
