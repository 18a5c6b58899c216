"""Window functions: ``torch.hann_window`` and its kin (``periodic=``); ``torch.signal.windows``' forms
(``sym=``) are in ``_ops/fft/signal_windows.py``. Each is a formula in float64 numpy, cast to the requested dtype
(PyTorch computes in that dtype: the two agree to its rounding)."""
from __future__ import annotations

import math

import numpy as np

from ... import _dtype
from ...tensor import _CPP_NAMES, Tensor, _make
from .._core.registry import op

_FACTORY = "a factory"


# -- torch.*_window ------------------------------------------------------------------------------------
def _options(dt) -> str:
    """PyTorch's TensorOptions text in the window functions' dtype error."""
    return (f"TensorOptions(dtype={_CPP_NAMES.get(dt.name, dt.name)}, device=cpu, layout=Strided (default), "
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
