"""The samplers PyTorch's distributions reach through native kernels (``_standard_gamma``,
``_sample_dirichlet``, ``binomial``; ``Tensor.cauchy_`` and ``tinytorch.poisson`` are ops), run as PyTorch's CPU kernels
run them: element by element in memory order, each element drawing 53-bit uniforms and cached
Box-Muller normals from the generator, with the same rejection loops, so a seed gives PyTorch's
values. The loops are scalar Python (``math`` is the C library's libm, as in the kernels)."""
from __future__ import annotations

import math

import numpy as np

import tinytorch as torch

from .._random.scalar_draws import _each, _Stream  # noqa: F401
from ._beta_grad import _digamma, dirichlet_grad

__all__ = ["standard_gamma", "sample_dirichlet", "binomial"]

_F32 = np.float32
_ONE_THIRD_F = float(_F32(1.0) / _F32(3.0))  # the float literal 1.0f / 3.0f
_C0331_F = float(_F32(0.0331))


def _values(t):
    return np.ascontiguousarray(t.detach().numpy())


def _gamma_one(st, alpha: float, single: bool) -> float:
    """Marsaglia-Tsang with the boost for alpha < 1; ``single`` does the float arithmetic of a
    float32 alpha (the kernel's ``scalar_t``) where the kernel does it."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(_F32(1.0) / _F32(alpha)) if single else 1.0 / alpha
        scale *= math.pow(1 - st.uniform(), inv)
        alpha = float(_F32(alpha) + _F32(1.0)) if single else alpha + 1.0
    d = float(_F32(alpha) - _F32(_ONE_THIRD_F)) if single else alpha - _ONE_THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = st.normal()
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - st.uniform()
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


class _StandardGamma(torch.autograd.Function):
    @staticmethod
    def forward(ctx, alpha):
        a = _values(alpha)
        tiny = np.finfo(a.dtype).tiny
        out = _each(_gamma_one, a.astype(np.float64).ravel().tolist(), a.dtype == np.float32)
        out = np.maximum(out.astype(a.dtype), tiny).reshape(a.shape)
        result = torch.from_numpy(out)
        ctx.save_for_backward(alpha, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        alpha, result = ctx.saved_tensors
        dx = standard_gamma_grad(_values(alpha), _values(result))
        return grad * torch.from_numpy(dx)


def standard_gamma(alpha):
    """``torch._standard_gamma``: Gamma(alpha, 1) draws, with the implicit reparameterised gradient."""
    return _StandardGamma.apply(alpha)


# the bivariate rational approximation of d x / d alpha in (log(x / alpha), log(alpha)) (PyTorch's fit)
_GAMMA_GRAD_COEF = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
     -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
     0.00085092367, -1.5247877e-07]])


def standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``-(d cdf / d alpha) / pdf`` at Gamma(alpha) draws x: a Taylor series for x < 0.8, Rice's
    saddle-point expansion for alpha > 8, a rational fit otherwise (PyTorch's three regimes)."""
    out_dtype = np.result_type(alpha, x)
    a, xs = np.broadcast_arrays(alpha.astype(np.float64), x.astype(np.float64))
    out = np.empty(a.shape, np.float64)
    with np.errstate(all="ignore"):
        # small x
        numer, denom = np.ones_like(a), a.copy()
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-xs / i)
            denom = denom + 1
            series1 = series1 + numer / denom
            series2 = series2 + numer / (denom * denom)
        pow_x_alpha = np.power(xs, a)
        pdf = np.power(xs, a - 1) * np.exp(-xs)
        cdf = pow_x_alpha * series1
        cdf_alpha = (np.log(xs) - _digamma(a)) * cdf - pow_x_alpha * series2
        small = -cdf_alpha / pdf
        small = np.where(np.isnan(small), 0.0, small)
        # large alpha, near the mode
        n1 = 1 + 24 * a * (1 + 12 * a)
        n2 = 1440 * (a * a) + 6 * xs * (53 - 120 * xs) - 65 * xs * xs / a + a * (107 + 3600 * xs)
        near = n1 * n2 / (1244160 * (a * a) * (a * a))
        # large alpha, in the tails
        den = np.sqrt(8 * a)
        term2 = den / (a - xs)
        term3 = np.power(xs - a - a * np.log(xs / a), -1.5)
        term23 = np.where(xs < a, term2 - term3, term2 + term3)
        term1 = np.log(xs / a) * term23 - np.sqrt(2 / a) * (a + xs) / ((a - xs) * (a - xs))
        stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
        tails = -stirling * (xs * term1) / den
        # otherwise
        u, v = np.log(xs / a), np.log(a)
        cv = [_GAMMA_GRAD_COEF[0, i] + u * (_GAMMA_GRAD_COEF[1, i] + u * _GAMMA_GRAD_COEF[2, i]) for i in range(8)]
        p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
        q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
        rational = np.exp(p / q)
    is_small = xs < 0.8
    big = ~is_small & (a > 8.0)
    is_near = big & (0.9 * a <= xs) & (xs <= 1.1 * a)
    out[:] = rational
    out[big] = tails[big]
    out[is_near] = near[is_near]
    out[is_small] = small[is_small]
    return out.astype(out_dtype)


class _Dirichlet(torch.autograd.Function):
    """Dirichlet draws as normalised double-precision gammas (PyTorch's ``_sample_dirichlet``),
    differentiated as PyTorch's ``_Dirichlet`` (through ``_dirichlet_grad``)."""

    @staticmethod
    def forward(ctx, concentration):
        a = _values(concentration)
        g = _each(_gamma_one, a.astype(np.float64).ravel().tolist(), False)
        g = np.maximum(g, np.finfo(np.float64).tiny).reshape(a.shape)
        x = (g / g.sum(-1, keepdims=True)).astype(a.dtype)
        x = np.minimum(np.nextafter(a.dtype.type(1), a.dtype.type(0)), np.maximum(np.finfo(a.dtype).tiny, x))
        result = torch.from_numpy(x)
        ctx.save_for_backward(result, concentration)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, concentration = ctx.saved_tensors
        a = _values(concentration)
        total = np.broadcast_to(a.sum(-1, keepdims=True), a.shape)
        dx = torch.from_numpy(dirichlet_grad(_values(x), a, total))
        return dx * (grad - (x * grad).sum(-1, keepdim=True))


def sample_dirichlet(concentration):
    return _Dirichlet.apply(concentration)


_TAIL = [0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287]


def _stirling_tail(k: float) -> float:
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _inversion(st, count, prob, s) -> float:
    geom_sum, num_geom = 0.0, 0
    logprob = s(math.log1p(-prob))
    while True:
        geom = math.ceil(math.log(st.uniform()) / logprob)
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom += 1


def _btrs(st, count, prob, s) -> float:
    """Hoermann's BTRS, with the kernel's float (``s``) and double arithmetic."""
    stddev = s(math.sqrt(s(s(count * prob) * s(1 - prob))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = s(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = s(prob / s(1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(s(s(count + 1) * prob))
    while True:
        u = st.uniform() - 0.5
        v = st.uniform()
        us = 0.5 - abs(u)
        k = s(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        ck1 = s(s(count - k) + 1)
        upper = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + s(count + 1) * math.log((count - m + 1) / ck1)
                 + (k + 0.5) * math.log(r * ck1 / s(k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m)
                 - _stirling_tail(k) - _stirling_tail(s(count - k)))
        if v <= upper:
            return k


def _binomial_one(st, count, prob, s) -> float:
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if s(count * prob) >= 10.0:
            return _btrs(st, count, prob, s)
        return _inversion(st, count, prob, s)
    if prob > 0.5:
        q = s(1.0 - prob)
        if s(count * q) >= 10.0:
            return s(count - _btrs(st, count, q, s))
        return s(count - _inversion(st, count, q, s))
    return math.nan


def binomial(count, prob):
    """``torch.binomial``: one draw per element (no gradient)."""
    c, p = np.broadcast_arrays(_values(count), _values(prob))
    s = (lambda v: float(_F32(v))) if c.dtype == np.float32 else float
    pairs = list(zip(c.ravel().tolist(), p.ravel().tolist()))
    out = _each(lambda st, nq: _binomial_one(st, s(nq[0]), s(nq[1]), s), pairs)
    return torch.from_numpy(out.astype(c.dtype).reshape(c.shape))
