"""The regularised lower incomplete gamma function P(a, x) (``torch.special.gammainc``), for
``Gamma.cdf``: differentiable in x (the gamma density); PyTorch has no derivative in a either."""
from __future__ import annotations

import math

import numpy as np

import tinytorch as torch

from .utils import broadcast_tensors

__all__ = ["gammainc"]

_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _p_series(a, x):
    # x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n)), for x < a + 1
    term = np.ones_like(x) / a
    total = term.copy()
    ap = a.copy()
    for _ in range(500):
        ap = ap + 1
        term = term * x / ap
        total = total + term
        if np.all(np.abs(term) <= np.abs(total) * 1e-17):
            break
    return total * np.exp(-x + a * np.log(x) - _lgamma(a))


def _q_fraction(a, x):
    # Lentz's continued fraction for Q(a, x) = 1 - P(a, x), for x >= a + 1
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(x, 1 / tiny)
    d = 1 / b
    h = d.copy()
    for i in range(1, 500):
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
    return np.exp(-x + a * np.log(x) - _lgamma(a)) * h


def _gammainc(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    a, x = np.broadcast_arrays(a.astype(np.float64), x.astype(np.float64))
    out = np.zeros(a.shape)
    with np.errstate(all="ignore"):
        pos = x > 0
        small = pos & (x < a + 1)
        large = pos & ~small
        if small.any():
            out[small] = _p_series(a[small], x[small])
        if large.any():
            out[large] = 1 - _q_fraction(a[large], x[large])
        out[np.isinf(x) & (x > 0)] = 1.0
        out[np.isnan(a) | np.isnan(x) | (a < 0) | (x < 0)] = np.nan
    return out


class _GammaInc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, x):
        dtype = np.result_type(a.detach().numpy().dtype, x.detach().numpy().dtype)
        ctx.save_for_backward(a, x)
        return torch.from_numpy(_gammainc(a.detach().numpy(), x.detach().numpy()).astype(dtype))

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise RuntimeError("the derivative for 'igamma: input' is not implemented.")
        density = torch.exp(-x + (a - 1) * torch.log(x) - torch.lgamma(a))
        return None, grad * density


def gammainc(a, x):
    return _GammaInc.apply(*broadcast_tensors(a, x))
