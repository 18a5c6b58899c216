"""Window functions: ``torch.hann_window`` and its kin (``periodic=``), each a formula in float64 numpy
cast to the requested dtype (PyTorch computes in that dtype: the two agree to its rounding); and
``torch.signal.windows`` (cosine sums such as Hann, Hamming, Blackman and Nuttall; Bartlett's
triangle; the exponential, Gaussian and Kaiser windows), each an expression in ``linspace`` and
pointwise ops evaluated in the requested float dtype as PyTorch's own Python definitions are;
``sym=False`` gives the periodic window (one sample of a window one longer)."""
from __future__ import annotations

import math

import numpy as np

from ... import _dtype
from ..._dtype import cpp_name
from ...tensor import Tensor, _make
from .._core.registry import op
from .._core.util import as_array
from ..creation.factory import ones
from ..creation.factory import arange, linspace


_FACTORY = "a factory"


# -- torch.*_window ------------------------------------------------------------------------------------
def _options(dt) -> str:
    """PyTorch's TensorOptions text in the window functions' dtype error."""
    return (f"TensorOptions(dtype={cpp_name(dt)}, device=cpu, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")


def _window(name: str, length: int, periodic: bool, formula, dtype, requires_grad: bool) -> Tensor:
    dt = _dtype.get_default_dtype() if dtype is None else dtype
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {_options(dt)}")
    if length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={length}")
    if length <= 1:
        values = np.ones(length)
    else:
        n = length + 1 if periodic else length  # a periodic window is the symmetric one a point longer, cut
        values = formula(np.arange(n, dtype=np.float64), n)[:length]
    out = _make(values.astype(dt.np))
    if requires_grad:
        out.requires_grad_(True)
    return out


def _cosine_sum(coefficients):
    def formula(k, n):
        z = 2 * math.pi * k / (n - 1)
        return sum(c * np.cos(i * z) * (-1) ** i for i, c in enumerate(coefficients))
    return formula


@op(variants="function", no_batch=_FACTORY)
def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """0.5 - 0.5 cos(2 pi k / (N - 1))."""
    return _window("hann_window", window_length, periodic, _cosine_sum((0.5, 0.5)), dtype, requires_grad)


@op(variants="function", no_batch=_FACTORY)
def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:
    """alpha - beta cos(2 pi k / (N - 1))."""
    return _window("hamming_window", window_length, periodic, _cosine_sum((alpha, beta)), dtype, requires_grad)


@op(variants="function", no_batch=_FACTORY)
def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))."""
    return _window("blackman_window", window_length, periodic, _cosine_sum((0.42, 0.5, 0.08)), dtype, requires_grad)


@op(variants="function", no_batch=_FACTORY)
def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """The triangle 1 - |2k / (N - 1) - 1|."""
    return _window("bartlett_window", window_length, periodic, lambda k, n: 1 - np.abs(2 * k / (n - 1) - 1), dtype,
                   requires_grad)


@op(variants="function", no_batch=_FACTORY)
def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, layout=None,
                  device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta)."""
    def formula(k, n):
        r = np.clip(2 * k / (n - 1) - 1, -1, 1)
        return np.i0(beta * np.sqrt(1 - r * r)) / np.i0(beta)
    return _window("kaiser_window", window_length, periodic, formula, dtype, requires_grad)


# -- torch.signal.windows ----------------------------------------------------------------------------


# -- torch.signal.windows ----------------------------------------------------------------------------
def _check(name: str, M: int, dtype) -> None:
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    dt = dtype or _dtype.get_default_dtype()
    if not dt.is_floating_point:
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dt}")  # str(dtype), as PyTorch formats it


def _short(M: int, dtype, requires_grad: bool):
    """The window of length 0 or 1, or None for a longer one."""
    if M == 0:
        return _finish(_make(np.empty((0,), (dtype or _dtype.get_default_dtype()).np)), requires_grad)
    if M == 1:
        return _finish(ones(1, dtype=dtype), requires_grad)
    return None


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    return t.requires_grad_(True) if requires_grad else t


def _span(M: int, sym: bool) -> int:
    return M - 1 if sym else M


@op("signal.windows.exponential")
def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True, dtype=None,
                layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """exp(-|n - center| / tau)."""
    _check("exponential", M, dtype)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    short = _short(M, dtype, requires_grad)
    if short is not None:
        return short
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = linspace(-center, -center + (M - 1), M, dtype=dtype)
    return _finish((-k.abs() / tau).exp(), requires_grad)


@op("signal.windows.cosine")
def cosine(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """sin(pi (n + 1/2) / M)."""
    _check("cosine", M, dtype)
    short = _short(M, dtype, requires_grad)
    if short is not None:
        return short
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = linspace(0.5 * constant, (0.5 + (M - 1)) * constant, M, dtype=dtype)
    return _finish(k.sin(), requires_grad)


@op("signal.windows.gaussian")
def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """exp(-(n - center)^2 / (2 std^2))."""
    _check("gaussian", M, dtype)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    short = _short(M, dtype, requires_grad)
    if short is not None:
        return short
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = linspace(start * constant, (start + (M - 1)) * constant, M, dtype=dtype)
    return _finish((-k ** 2).exp(), requires_grad)


@op("signal.windows.kaiser")
def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)."""
    _check("kaiser", M, dtype)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    short = _short(M, dtype, requires_grad)
    if short is not None:
        return short
    b = _make(as_array(beta, (dtype or _dtype.get_default_dtype()).np))
    constant = 2.0 * beta / _span(M, sym)
    end = min(beta, -beta + (M - 1) * constant)
    k = linspace(-beta, end, M, dtype=dtype)
    return _finish((b * b - k ** 2).sqrt().i0() / b.i0(), requires_grad)


@op("signal.windows.bartlett")
def bartlett(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """The triangle 1 - |2n / (M - 1) - 1|."""
    _check("bartlett", M, dtype)
    short = _short(M, dtype, requires_grad)
    if short is not None:
        return short
    constant = 2 / _span(M, sym)
    k = linspace(-1, -1 + (M - 1) * constant, M, dtype=dtype)
    return _finish(1 - k.abs(), requires_grad)


@op("signal.windows.general_cosine")
def general_cosine(M: int, *, a, sym: bool = True, dtype=None, layout=None, device=None,
                   requires_grad: bool = False) -> Tensor:
    """sum_i (-1)^i a_i cos(2 pi i n / (M - 1))."""
    _check("general_cosine", M, dtype)
    if a is None:
        raise TypeError("Coefficients are required")
    if not isinstance(a, (list, tuple)):
        raise TypeError(f"Coefficients must be a list/tuple, got {type(a)}")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    short = _short(M, dtype, requires_grad)
    if short is not None:
        return short
    constant = 2 * math.pi / _span(M, sym)
    k = linspace(0, (M - 1) * constant, M, dtype=dtype)
    dt = (dtype or _dtype.get_default_dtype()).np
    coef = _make(as_array([(-1) ** i * w for i, w in enumerate(a)], dtype=dt))
    i = arange(len(a), dtype=dtype)
    return _finish((coef.unsqueeze(-1) * (i.unsqueeze(-1) * k).cos()).sum(0), requires_grad)


@op("signal.windows.general_hamming")
def general_hamming(M: int, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, requires_grad=requires_grad)


@op("signal.windows.hann")
def hann(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, requires_grad=requires_grad)


@op("signal.windows.hamming")
def hamming(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    return general_hamming(M, sym=sym, dtype=dtype, requires_grad=requires_grad)


@op("signal.windows.blackman")
def blackman(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, requires_grad=requires_grad)


@op("signal.windows.nuttall")
def nuttall(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
                          requires_grad=requires_grad)
