"""Special functions: erf, erfc, erfinv, lgamma, digamma, polygamma, logit (the other extra
elementwise functions are in ``unary.py``).

numpy has no erf or gamma functions, so they are computed here, vectorised, in float64:
- erf/erfc: Cephes' rational approximations (erf below 1, erfc on [1, 8) and beyond); relative error
  about 1e-16, a few 1e-14 for erfc at large x, where exp(-x^2) itself carries x^2 ulps.
- erfinv: Winitzki's closed-form guess (3 digits) refined by two Halley steps on erf (on erfc near +-1).
- lgamma: the Lanczos approximation (g = 7, 9 terms; relative error about 1e-15), reflection below 0.5.
- digamma/polygamma: the recurrence up to x >= 10 (digamma) or 15 + n, then the asymptotic series
  with Bernoulli numbers up to B14; digamma reflects below 0.
- gammainc (igamma, declared in gamma.py): the power series below x = a + 1, Lentz's continued fraction for
  the complement above; mvlgamma sums lgamma.
float32 inputs are computed in float64 and rounded, so they agree with PyTorch to about one ulp."""
from __future__ import annotations

import math

import numpy as np

from ..._meta_array import MetaArray
from ..._quiet_fp import cast, silent
from ...autograd.node import Node
from ...tensor import Tensor
from .._core.batching import pointwise
from .._core.pointwise import SparseValues, unary
from ..pointwise.arith import mul_scalar
from .._core.record import float_dtype, record
from .._core.registry import op
from .._core.tensor_iterator import kernel_laid_out
from .._core.util import as_array
from ..pointwise.compare import where
from ..pointwise.inplace import apply_inplace

_MATH = "function method inplace torch_inplace out"

_SQRT_PI = math.sqrt(math.pi)
_TWO_OVER_SQRT_PI = 2.0 / _SQRT_PI


# -- the numeric kernels (float64 in, float64 out) --------------------------------------------------
# Cephes' rational approximations (S. L. Moshier): erf on |x| < 1, erfc on [1, 8) and [8, inf)
_ERF_T = (9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3, 7.00332514112805075473E3,
          5.55923013010394962768E4)
_ERF_U = (1.0, 3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
          2.26290000613890934246E4, 4.92673942608635921086E4)
_ERFC_P = (2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0, 4.86371970985681366614E1,
           1.96520832956077098242E2, 5.26445194995477358631E2, 9.34528527171957607540E2, 1.02755188689515710272E3,
           5.57535335369399327526E2)
_ERFC_Q = (1.0, 1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
           9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3, 1.65666309194161350182E3,
           5.57535340817727675546E2)
_ERFC_R = (5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0, 6.16021097993053585195E0,
           7.40974269950448939160E0, 2.97886665372100240670E0)
_ERFC_S = (1.0, 2.26052863220117276590E0, 9.39603524938001434673E0, 1.20489539808096656605E1,
           1.70814450747565897222E1, 9.60896809063285878198E0, 3.36907645100081516050E0)


def _poly(coefs: tuple, x: np.ndarray) -> np.ndarray:
    """Horner's rule, highest power first."""
    out = np.full_like(x, coefs[0])
    for c in coefs[1:]:
        out = out * x + c
    return out


def _erf_parts(x: np.ndarray):
    """(erf(|x|), erfc(|x|)), each computed where it is accurate."""
    a = np.abs(x)
    erf_a = np.empty_like(a)
    erfc_a = np.empty_like(a)
    small = a < 1.0
    s = a[small]
    z = s * s
    e = s * _poly(_ERF_T, z) / _poly(_ERF_U, z)
    erf_a[small], erfc_a[small] = e, 1.0 - e
    for mask, num, den in ((~small & (a < 8.0), _ERFC_P, _ERFC_Q), (a >= 8.0, _ERFC_R, _ERFC_S)):
        b = a[mask]
        with np.errstate(all="ignore"):
            c = np.exp(-b * b) * _poly(num, b) / _poly(den, b)
        c = np.where(np.isinf(b), 0.0, c)
        erfc_a[mask], erf_a[mask] = c, 1.0 - c
    nan = np.isnan(a)
    erf_a[nan] = erfc_a[nan] = np.nan
    return erf_a, erfc_a


def _horner(coefs: tuple, x: np.ndarray) -> np.ndarray:
    """``_poly`` with the same operations in the same order, in place on one buffer."""
    out = x * coefs[0]
    out += coefs[1]
    for c in coefs[2:]:
        out *= x
        out += c
    return out


def _erfc_from_one(b: np.ndarray) -> np.ndarray:
    """erfc(b) for b >= 1 (or NaN), by the same formulas as ``_erf_parts``."""
    with np.errstate(all="ignore"):
        c = np.exp(-b * b)
        c *= _horner(_ERFC_P, b)
        c /= _horner(_ERFC_Q, b)
        large = ~(b < 8.0)  # NaN included: the mid-range formula already gives NaN for it
        if large.any():
            bl = b[large]
            c_large = np.exp(-bl * bl) * _poly(_ERFC_R, bl) / _poly(_ERFC_S, bl)
            c[large] = np.where(np.isinf(bl), 0.0, c_large)
    return c


@silent
def erf_np(x: np.ndarray) -> np.ndarray:
    """erf, each element by the same formula as ``_erf_parts``. The small-argument formula runs over the
    whole array (cheaper than gathering the elements below 1 and scattering them back); the elements at
    or above 1 are gathered when they are few, else their formula runs over the whole array too. (Silent:
    at +-inf the small-argument formula's inf / inf is NaN, which the large-argument one replaces.)"""
    if type(x) is MetaArray:  # a meta tensor: the result's shape, C-ordered as below; no element counted
        return MetaArray(x.shape, x.dtype)
    a = np.abs(x, order="C")  # C order, whatever x's strides: the scatter below writes through a flat view
    z = a * a
    e = a * _horner(_ERF_T, z)
    e /= _horner(_ERF_U, z)
    big = ~(a < 1.0)
    n_big = int(np.count_nonzero(big))
    if n_big * 4 > a.size:
        e = np.where(big, 1.0 - _erfc_from_one(a), e)
    elif n_big:
        idx = np.flatnonzero(big)
        flat = e.reshape(-1)  # e is a fresh C-contiguous array: a view
        flat[idx] = 1.0 - _erfc_from_one(a.reshape(-1)[idx])
    return np.copysign(e, x)


def erfc_np(x: np.ndarray) -> np.ndarray:
    e, c = _erf_parts(x)
    return np.where(x >= 0, c, 1.0 + e)


def erfinv_np(x: np.ndarray) -> np.ndarray:
    a = np.abs(x)
    with np.errstate(all="ignore"):
        ln = np.log1p(-a * a)
        k = 0.147
        t = 2.0 / (math.pi * k) + ln / 2.0
        y = np.sqrt(np.sqrt(t * t - ln / k) - t)
        tail = a > 0.5
        one_minus = 1.0 - a  # exact for a in [0.5, 1]
        for _ in range(2):
            e, c = _erf_parts(y)
            dfdy = _TWO_OVER_SQRT_PI * np.exp(-y * y)
            # near 1, solve erfc(y) = 1 - a: the residual keeps its digits there
            step = np.where(tail, c - one_minus, e - a) / dfdy * np.where(tail, -1.0, 1.0)
            y = y - step / (1.0 + y * step)  # Halley's step: erf'' = -2y erf'
        y = np.where(np.isfinite(y), y, np.sqrt(-np.log(one_minus)))
        y = np.where(a == 1, np.inf, np.where(a > 1, np.nan, y))
        y = np.where(a == 0, 0.0, y)
    return np.copysign(y, x)


_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)


def _lgamma_pos(x: np.ndarray) -> np.ndarray:
    """lgamma for x >= 0.5 (Lanczos, in log form so large x never overflows)."""
    z = x - 1.0
    s = np.full_like(z, _LANCZOS[0])
    for i in range(1, 9):
        s = s + _LANCZOS[i] / (z + i)
    t = z + 7.5
    return 0.5 * math.log(2 * math.pi) + (z + 0.5) * np.log(t) - t + np.log(s)


def _sinpi_abs(x: np.ndarray) -> np.ndarray:
    return np.abs(np.sin(math.pi * (x - np.round(x))))


def lgamma_np(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        hi = x >= 0.5
        out = np.empty_like(x)
        out[hi] = _lgamma_pos(x[hi])
        lo = x[~hi]
        out[~hi] = np.log(math.pi / _sinpi_abs(lo)) - _lgamma_pos(1.0 - lo)
        out = np.where((x <= 0) & (x == np.floor(x)), np.inf, out)
        out = np.where(np.isinf(x), np.inf, out)
        out = np.where((x == 1) | (x == 2), 0.0, out)  # the exact zeros of lgamma
    return out


def _shift_up(x: np.ndarray, limit: float, term):
    """Apply the recurrence until every x >= limit; ``term(x)`` is what each step adds to the result."""
    acc = np.zeros_like(x)
    x = x.copy()
    while True:
        low = x < limit
        if not low.any():
            return x, acc
        acc = acc + np.where(low, term(np.where(low, x, 1.0)), 0.0)
        x = np.where(low, x + 1.0, x)


_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)  # B2, B4, ..., B14


def _digamma_pos(x: np.ndarray) -> np.ndarray:
    x, acc = _shift_up(x, 10.0, lambda v: -1.0 / v)
    inv2 = 1.0 / (x * x)
    series = np.zeros_like(x)
    p = np.ones_like(x)
    for k, b in enumerate(_BERNOULLI, start=1):
        p = p * inv2
        series = series + b / (2 * k) * p
    return acc + np.log(x) - 0.5 / x - series


def digamma_np(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        out = np.empty_like(x)
        pos = x > 0
        out[pos] = _digamma_pos(x[pos])
        neg = x[~pos]
        # reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
        out[~pos] = _digamma_pos(1.0 - neg) - math.pi / np.tan(math.pi * (neg - np.round(neg)))
        out = np.where((x < 0) & (x == np.floor(x)), np.nan, out)
        out = np.where(x == 0, -np.copysign(np.inf, x), out)
        out = np.where(x == np.inf, np.inf, out)
    return out


def trigamma_np(x: np.ndarray) -> np.ndarray:
    """polygamma(1, x) as PyTorch's CPU kernel computes it, in the input's own precision (float32 in
    float32): the reflection pi^2 / sin^2(pi x) below 1/2, six steps of the recurrence, then three
    terms of the asymptotic series. digamma's gradient is this function, so its float32 rounding
    (large near the poles) is PyTorch's."""
    x = as_array(x).copy()
    dt = x.dtype.type
    pi = dt(math.pi)
    with np.errstate(all="ignore"):
        reflect = x < dt(0.5)
        sin_pi_x = np.sin(pi * x)
        result = np.where(reflect, -(pi * pi) / (sin_pi_x * sin_pi_x), dt(0))
        x = np.where(reflect, dt(1) - x, x)
        for _ in range(6):
            result = result + dt(1) / (x * x)
            x = x + dt(1)
        ixx = dt(1) / (x * x)
        series = dt(1) + dt(1) / (dt(2) * x) + ixx * (dt(1 / 6) - ixx * (dt(1 / 30) - ixx * dt(1 / 42)))
        result = result + series / x
        return np.where(reflect, -result, result)


def polygamma_np(n: int, x: np.ndarray) -> np.ndarray:
    if n == 0:
        return digamma_np(x)
    sign = 1.0 if n % 2 == 1 else -1.0  # (-1)^(n+1)
    fact = math.factorial(n)
    with np.errstate(all="ignore"):
        # PyTorch's values where the series has none (its Hurwitz zeta's): a pole at every integer
        # x <= 0 (-inf and -0 included), n! (-1)^(n+1) inf; NaN at +inf and NaN. Those elements stay
        # out of the recurrence, which would never lift -inf (or -1e30, where x + 1 == x) to the limit.
        pole = (x <= 0) & (x == np.floor(x))
        undefined = np.isnan(x) | (x == np.inf)
        x, acc = _shift_up(np.where(pole | undefined, 1.0, x), 15.0 + n, lambda v: sign * fact / v ** (n + 1))
        s = math.factorial(n - 1) / x ** n + fact / (2 * x ** (n + 1))
        for k, b in enumerate(_BERNOULLI, start=1):
            s = s + b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) / x ** (2 * k + n)
        return np.where(pole, sign * np.inf, np.where(undefined, np.nan, acc + sign * s))


def _gammainc_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    # P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n)), for x < a + 1
    term = 1.0 / a
    total = term.copy()
    ap = a.copy()
    for _ in range(1000):
        ap = ap + 1
        term = term * x / ap
        total = total + term
        if np.all(np.abs(term) <= np.abs(total) * 1e-17):
            break
    return total * np.exp(-x + a * np.log(x) - lgamma_np(a))


def _gammaincc_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    # Q(a, x) = 1 - P(a, x) by Lentz's continued fraction, for x >= a + 1
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(x, 1 / tiny)
    d = 1 / b
    h = d.copy()
    for i in range(1, 1000):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1) <= 1e-16):
            break
    return np.exp(-x + a * np.log(x) - lgamma_np(a)) * h


def gammainc_np(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularised lower incomplete gamma function P(a, x), with PyTorch's edge values."""
    out = np.full_like(a, np.nan, np.float64)
    with np.errstate(all="ignore"):
        inner = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
        small = inner & (x < a + 1)
        large = inner & ~small
        if small.any():
            out[small] = _gammainc_series(a[small], x[small])
        if large.any():
            out[large] = 1 - _gammaincc_fraction(a[large], x[large])
        out[(x == 0) & (a > 0)] = 0.0
        out[(a == 0) & (x > 0)] = 1.0
        out[np.isposinf(x) & (a > 0) & np.isfinite(a)] = 1.0
        out[np.isposinf(a) & (x >= 0) & np.isfinite(x)] = 0.0
    return out


def _in64(fn):
    """Run a float64 kernel on any float array and give the result back in the input's dtype."""
    def run(x):
        return fn(x.astype(np.float64)).astype(x.dtype)
    return run


# -- the ops ---------------------------------------------------------------------------------------
erf = unary("erf", _in64(erf_np), lambda g, x, y: mul_scalar((-(x ** 2)).exp(), _TWO_OVER_SQRT_PI) * g, variants=_MATH,
            extra=("special.erf",), sparse=SparseValues("exp", csr=False), narrow_kernel="erf_vml_cpu")
erfc = unary("erfc", _in64(erfc_np), lambda g, x, y: g * -_TWO_OVER_SQRT_PI * (-(x * x)).exp(), variants=_MATH,
             extra=("special.erfc",), narrow_kernel="erfc_vml_cpu")
# PyTorch saves the input and recomputes erfinv in the backward (ErfinvBackward0 has _saved_self)
erfinv = unary("erfinv", _in64(erfinv_np), lambda g, x, y: mul_scalar(x.erfinv().pow(2).exp(), _SQRT_PI / 2) * g,
               variants="function method inplace out", extra=("special.erfinv",), sparse=SparseValues("exp", csr=False),
               narrow_kernel="erfinv_vml_cpu")
lgamma = unary("lgamma", _in64(lgamma_np), lambda g, x, y: g * x.digamma(), variants="function method inplace out",
               extra=("special.gammaln",), narrow_kernel="lgamma_vml_cpu")
digamma = unary("digamma", _in64(digamma_np), lambda g, x, y: g * polygamma(1, x),
                variants="function method inplace out", extra=("special.digamma", "special.psi"),
                narrow_kernel="digamma_vml_cpu")


class PolygammaBackward0(Node):
    saved_fields = (("n", "n"), ("self", 0))

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (g * polygamma(self.n + 1, x),)


def _polygamma_method(self, n):
    return polygamma(n, self)


def _polygamma_(self, n):
    return apply_inplace(self, _polygamma_method, n)


def _polygamma_rule(op, n, input):
    return pointwise(lambda x: op(n, x), input)


@op(variants="function method inplace out", method=_polygamma_method, inplace=_polygamma_, batch=_polygamma_rule,
    extra=("special.polygamma",))
def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = float_dtype(input._data)
    if n == 1 and x.dtype in (np.float32, np.float64):
        out = trigamma_np(x)
    elif n == 1 and x.dtype.itemsize == 2:  # float16, bfloat16: PyTorch computes in float32, rounds once
        out = cast(trigamma_np(x.astype(np.float32)), x.dtype)
    else:
        out = cast(polygamma_np(int(n), x.astype(np.float64)), x.dtype)
    return record(out, PolygammaBackward0, (input,), (input,), n=int(n))


class LogitBackward0(Node):
    saved_fields = (("eps", "eps"), ("self", 0))

    def backward(self, g):
        (x,) = self._unpacked_saved
        grad = g / (x * (1 - x))
        # PyTorch's vectorized logit_backward keeps the formula only inside the domain: without eps (or with
        # eps < 0) NaN outside [0, 1] (the formula's slope of log|p / (1 - p)| there would be finite), with
        # eps, 0 outside [eps, 1 - eps], a NaN input included (its scalar loop, run only past the last whole
        # block of 16 elements, 32 on AVX-512, gives NaN there: a difference that tinytorch does not emulate)
        # (laid out as PyTorch's logit_backward(grad_output, self) kernel: ordered by the gradient first)
        if self.eps is None or self.eps < 0:
            return (kernel_laid_out(where((x >= 0) & (x <= 1), grad, math.nan), g, x),)
        return (kernel_laid_out(where((x >= self.eps) & (x <= 1 - self.eps), grad, 0.0), g, x),)


@op(variants=_MATH, batch=pointwise, extra=("special.logit",))
def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """log(p / (1 - p)); with ``eps``, p is first clamped to [eps, 1 - eps]."""
    x = float_dtype(input._data)
    z = x if eps is None else np.clip(x, eps, 1 - eps)
    with np.errstate(all="ignore"):
        out = np.log(z / (1 - z)).astype(x.dtype)
    return record(out, LogitBackward0, (input,), (input,), eps=eps)


class MvlgammaBackward0(Node):
    saved_fields = (("p", "p"), ("self", 0))

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (g * sum(digamma(x - 0.5 * i) for i in range(self.p)),)


def _mvlgamma_(self, p):
    return apply_inplace(self, mvlgamma, p)


@op(variants="function method inplace out", inplace=_mvlgamma_, batch=pointwise,
    extra=("special.multigammaln",), overlap="unchecked")
def mvlgamma(input: Tensor, p: int) -> Tensor:
    """log of the multivariate gamma function: sum_i lgamma(x - i/2) + p(p-1)/4 log(pi)."""
    # PyTorch's only checks (its old "All elements must be greater than (p-1)/2" is gone): outside that domain,
    # and at inf and NaN, the sum of lgammas gives what it gives
    if input._data.dtype == np.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = float_dtype(input._data)
    x64 = x.astype(np.float64)
    out = sum(lgamma_np(x64 - 0.5 * i) for i in range(p)) + p * (p - 1) / 4 * math.log(math.pi)
    return record(as_array(out).astype(x.dtype), MvlgammaBackward0, (input,), (input,), p=int(p))
