"""Special and extra elementwise functions: erf, erfc, erfinv, lgamma, digamma, polygamma, logit,
hyperbolic and inverse trigonometric functions, round(decimals), frac, nan_to_num, signbit, isclose;
binary atan2, hypot, lerp, logaddexp; bitwise_not, shifts, logical_xor.

numpy has no erf or gamma functions, so they are computed here, vectorised, in float64:
- erf/erfc: Cephes' rational approximations (erf below 1, erfc on [1, 8) and beyond); relative error
  about 1e-16, a few 1e-14 for erfc at large x, where exp(-x^2) itself carries x^2 ulps.
- erfinv: Winitzki's closed-form guess (3 digits) refined by two Halley steps on erf (on erfc near +-1).
- lgamma: the Lanczos approximation (g = 7, 9 terms; relative error about 1e-15), reflection below 0.5.
- digamma/polygamma: the recurrence up to x >= 10 (digamma) or 15 + n, then the asymptotic series
  with Bernoulli numbers up to B14; digamma reflects below 0.
float32 inputs are computed in float64 and rounded, so they agree with PyTorch to about one ulp."""
from __future__ import annotations

import math

import numpy as np

from ..autograd.node import Node
from ..tensor import Tensor, _make
from ._record import OUT, float_dtype, legacy_name, record
from ._util import binary_operands, fit_grad, meta
from .unary import _unary

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


def erf_np(x: np.ndarray) -> np.ndarray:
    e, _ = _erf_parts(x)
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


def polygamma_np(n: int, x: np.ndarray) -> np.ndarray:
    if n == 0:
        return digamma_np(x)
    sign = 1.0 if n % 2 == 1 else -1.0  # (-1)^(n+1)
    fact = math.factorial(n)
    with np.errstate(all="ignore"):
        x, acc = _shift_up(x, 15.0 + n, lambda v: sign * fact / v ** (n + 1))
        s = math.factorial(n - 1) / x ** n + fact / (2 * x ** (n + 1))
        for k, b in enumerate(_BERNOULLI, start=1):
            s = s + b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) / x ** (2 * k + n)
        return acc + sign * s


def _in64(fn):
    """Run a float64 kernel on any float array and give the result back in the input's dtype."""
    def run(x):
        return fn(x.astype(np.float64)).astype(x.dtype)
    return run


# -- nodes and ops ---------------------------------------------------------------------------------
class ErfBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * _TWO_OVER_SQRT_PI * (-(x * x)).exp(),)


class ErfcBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * -_TWO_OVER_SQRT_PI * (-(x * x)).exp(),)


class ErfinvBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return (g * (_SQRT_PI / 2) * (y * y).exp(),)


class LgammaBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * x.digamma(),)


class DigammaBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * polygamma(1, x),)


class PolygammaBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * polygamma(self.n + 1, x),)


erf = _unary(ErfBackward0, _in64(erf_np), "in")
erfc = _unary(ErfcBackward0, _in64(erfc_np), "in")
erfinv = _unary(ErfinvBackward0, _in64(erfinv_np), "out")
lgamma = _unary(LgammaBackward0, _in64(lgamma_np), "in")
digamma = _unary(DigammaBackward0, _in64(digamma_np), "in")


def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = float_dtype(input._data)
    out = polygamma_np(int(n), x.astype(np.float64)).astype(x.dtype)
    return record(out, PolygammaBackward0, (input,), (input,), n=int(n))


class SinhBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * x.cosh(),)


class CoshBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * x.sinh(),)


class AsinBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * (1 - x * x).rsqrt(),)


class AcosBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * -(1 - x * x).rsqrt(),)


class AtanBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g / (1 + x * x),)


class TanBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return (g * (1 + y * y),)


class AsinhBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * (x * x + 1).rsqrt(),)


class AcoshBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * (x * x - 1).rsqrt(),)


class AtanhBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g / (1 - x * x),)


sinh = _unary(SinhBackward0, np.sinh, "in")
cosh = _unary(CoshBackward0, np.cosh, "in")
asin = _unary(AsinBackward0, np.arcsin, "in")
acos = _unary(AcosBackward0, np.arccos, "in")
atan = _unary(AtanBackward0, np.arctan, "in")
tan = _unary(TanBackward0, np.tan, "out")
asinh = _unary(AsinhBackward0, np.arcsinh, "in")
acosh = _unary(AcoshBackward0, np.arccosh, "in")
atanh = _unary(AtanhBackward0, np.arctanh, "in")


class LogitBackward0(Node):
    def backward(self, g):
        from .arith import where
        (x,) = self.saved_tensors
        grad = g / (x * (1 - x))
        if self.eps is None:
            return (grad,)
        return (where((x < self.eps) | (x > 1 - self.eps), 0.0, grad),)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """log(p / (1 - p)); with ``eps``, p is first clamped to [eps, 1 - eps]."""
    x = float_dtype(input._data)
    z = x if eps is None else np.clip(x, eps, 1 - eps)
    with np.errstate(all="ignore"):
        out = np.log(z / (1 - z)).astype(x.dtype)
    return record(out, LogitBackward0, (input,), (input,), eps=eps)


class RoundBackward1(Node):
    def backward(self, g):
        return (g * 0,)


def round(input: Tensor, *, decimals: int = 0, out=None) -> Tensor:
    """Round half to even; with ``decimals``, to that many decimal places (negative: tens, hundreds...)."""
    from .unary import round as round0
    if decimals == 0:
        return round0(input)
    x = input._data
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{legacy_name(x.dtype)}'")
    p = x.dtype.type(10.0 ** abs(decimals))
    r = np.rint(x * p) / p if decimals > 0 else np.rint(x / p) * p
    return record(r.astype(x.dtype), RoundBackward1, (input,))


class FracBackward0(Node):
    def backward(self, g):
        return (g,)


def frac(input: Tensor, *, out=None) -> Tensor:
    """x - trunc(x)."""
    x = input._data
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"frac_cpu\" not implemented for '{legacy_name(x.dtype)}'")
    return record(x - np.trunc(x), FracBackward0, (input,))


class NanToNumBackward0(Node):
    def backward(self, g):
        from .arith import where
        (x,) = self.saved_tensors
        return (where(x.isfinite(), g, 0.0),)


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None, *,
               out=None) -> Tensor:
    """NaN, +inf and -inf replaced (by 0 and the dtype's largest and lowest finite values by default)."""
    x = input._data
    if x.dtype.kind != "f":
        return _make(x.copy())
    fi = np.finfo(x.dtype)
    r = np.nan_to_num(x, nan=nan, posinf=fi.max if posinf is None else posinf,
                      neginf=fi.min if neginf is None else neginf)
    return record(r, NanToNumBackward0, (input,), (input,))


def signbit(input: Tensor, *, out=None) -> Tensor:
    """True where the sign bit is set (-0.0 included)."""
    return _make(np.asarray(np.signbit(input._data)))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other| elementwise (equal infinities count as close)."""
    a, b = input._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"{legacy_name(a.dtype)} did not match {legacy_name(b.dtype)}")
    with np.errstate(all="ignore"):
        if a.dtype.kind == "b":
            return _make(np.asarray(a == b))
        if a.dtype.kind != "f":
            close = np.abs(a.astype(np.float64) - b) <= atol + rtol * np.abs(b.astype(np.float64))
        else:
            close = (a == b) | (np.isfinite(a) & np.isfinite(b) &
                                (np.abs(a - b) <= a.dtype.type(atol) + a.dtype.type(rtol) * np.abs(b)))
            if equal_nan:
                close |= np.isnan(a) & np.isnan(b)
    return _make(np.asarray(close))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when every pair of elements is close (``isclose``)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


# -- binary ----------------------------------------------------------------------------------------
def _float_binary(a, b, name: str, allow_int: bool):
    ta, tb, ad, bd = binary_operands(a, b)
    if ad.dtype.kind != "f":
        if not allow_int:
            raise NotImplementedError(f"\"{name}\" not implemented for '{legacy_name(ad.dtype)}'")
        from .._dtype import get_default_dtype
        ad, bd = ad.astype(get_default_dtype().np), bd.astype(get_default_dtype().np)
    return ta, tb, ad, bd


def _binary(node_cls, a, b, out, saved_fn):
    ta, tb = (a if isinstance(a, Tensor) else None), (b if isinstance(b, Tensor) else None)
    return record(out, node_cls, (ta, tb), saved_fn(ta, tb), a_meta=meta(ta, out), b_meta=meta(tb, out),
                  need_a=ta is not None and ta._requires_grad, need_b=tb is not None and tb._requires_grad)


def _pair(self, ga, gb):
    return (fit_grad(ga, self.a_meta) if self.need_a else None,
            fit_grad(gb, self.b_meta) if self.need_b else None)


def _t(v, like: Tensor):
    return v if isinstance(v, Tensor) else _make(np.asarray(v, dtype=like._data.dtype))


class Atan2Backward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        d = a * a + b * b
        return _pair(self, g * b / d, g * -a / d)


def atan2(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The angle of (other, input): atan(input / other) in the right quadrant."""
    ta, tb, ad, bd = _float_binary(input, other, "atan2", True)
    return _binary(Atan2Backward0, input, other, np.arctan2(ad, bd), lambda x, y: (x, y))


class HypotBackward0(Node):
    def backward(self, g):
        a, b, y = self.saved_tensors
        return _pair(self, g * a / y, g * b / y)


def hypot(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """sqrt(input^2 + other^2) without overflow."""
    ta, tb, ad, bd = _float_binary(input, other, "hypot_cpu", False)
    return _binary(HypotBackward0, input, other, np.hypot(ad, bd), lambda x, y: (x, y, OUT))


class LogaddexpBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return _pair(self, g * (a - b).sigmoid(), g * (b - a).sigmoid())


def logaddexp(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """log(exp(input) + exp(other)), computed stably."""
    ta, tb, ad, bd = _float_binary(input, other, "logaddexp_cpu", False)
    return _binary(LogaddexpBackward0, input, other, np.logaddexp(ad, bd), lambda x, y: (x, y))


class Logaddexp2Backward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return _pair(self, g * ((a - b) * math.log(2)).sigmoid(), g * ((b - a) * math.log(2)).sigmoid())


def logaddexp2(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """log2(2^input + 2^other)."""
    ta, tb, ad, bd = _float_binary(input, other, "logaddexp2_cpu", False)
    return _binary(Logaddexp2Backward0, input, other, np.logaddexp2(ad, bd), lambda x, y: (x, y))


class LerpBackward0(Node):
    def backward(self, g):
        return _pair(self, g * (1 - self.weight), g * self.weight)


class LerpBackward1(Node):
    def backward(self, g):
        start, end, w = self.saved_tensors
        ga = fit_grad(g * (1 - w), self.a_meta) if self.need_a else None
        gb = fit_grad(g * w, self.b_meta) if self.need_b else None
        gw = fit_grad(g * (end - start), self.w_meta) if self.need_w else None
        return ga, gb, gw


def lerp(input: Tensor, end: Tensor, weight, *, out=None) -> Tensor:
    """input + weight * (end - input)."""
    if input._data.dtype.kind != "f":
        name = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{name}\" not implemented for '{legacy_name(input._data.dtype)}'")
    if input._data.dtype != end._data.dtype:
        raise RuntimeError(f"expected dtype {input.dtype} for `end` but got dtype {end.dtype}")
    ta, tb, ad, bd = binary_operands(input, end)
    if not isinstance(weight, Tensor):
        w = float(weight)
        r = ad + w * (bd - ad)
        r = np.asarray(r, dtype=ad.dtype)
        return record(r, LerpBackward0, (input, end), weight=w, a_meta=meta(input, r), b_meta=meta(end, r),
                      need_a=input._requires_grad, need_b=end._requires_grad)
    wd = weight._data.astype(ad.dtype)
    r = np.asarray(ad + wd * (bd - ad))
    return record(r, LerpBackward1, (input, end, weight), (input, end, weight), a_meta=meta(input, r),
                  b_meta=meta(end, r), w_meta=meta(weight, r), need_a=input._requires_grad,
                  need_b=end._requires_grad, need_w=weight._requires_grad)


# -- bitwise and logical -----------------------------------------------------------------------------
def _int_only(x: np.ndarray, name: str) -> None:
    if x.dtype.kind == "f":
        raise NotImplementedError(f"\"{name}\" not implemented for '{legacy_name(x.dtype)}'")


def bitwise_not(input: Tensor, *, out=None) -> Tensor:
    """~input for integer and bool tensors."""
    _int_only(input._data, "bitwise_not_cpu")
    return _make(np.asarray(~input._data))


def bitwise_left_shift(input, other, *, out=None) -> Tensor:
    _, _, a, b = binary_operands(input, other)
    _int_only(a, "lshift_cpu")
    return _make(np.asarray(np.left_shift(a, b)))


def bitwise_right_shift(input, other, *, out=None) -> Tensor:
    _, _, a, b = binary_operands(input, other)
    _int_only(a, "rshift_cpu")
    return _make(np.asarray(np.right_shift(a, b)))


def logical_xor(input, other, *, out=None) -> Tensor:
    a = input._data if isinstance(input, Tensor) else input
    b = other._data if isinstance(other, Tensor) else other
    return _make(np.asarray(np.logical_xor(a, b)))
