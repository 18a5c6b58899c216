"""More factories: ``logspace`` (powers of a base at evenly spaced exponents), ``scalar_tensor``, and
the layout-giving ``empty_strided`` / ``empty_permuted`` (uninitialised, zero-filled here)."""
from __future__ import annotations

import numpy as np

from ._dtype import FLOATING_NP, LOWP_NP
from ._size import _require_cpu
from .factory import _finish, _np_dtype, _with_out
from .ops._registry import op
from .tensor import Tensor

_strided = np.lib.stride_tricks.as_strided


def _number(v):
    return v.item() if isinstance(v, Tensor) else v


def _complex_power(base: float, z: complex) -> complex:
    """A real base to a complex power as C++'s std::pow(double, complex) computes it: polar form for a
    positive base (its signed zeros included)."""
    if base > 0:
        rho, theta = base ** z.real, z.imag * np.log(base)
        return complex(rho * np.cos(theta), rho * np.sin(theta))
    return complex(np.power(np.complex128(base), np.complex128(z)))


@op(variants="function out", own_out=True)
@_with_out
def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """``base ** e`` for ``steps`` exponents ``e`` evenly spaced from ``start`` to ``end``."""
    if device is not None:
        _require_cpu(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end, base = _number(start), _number(end), _number(base)
    npd = _np_dtype(dtype)
    i = np.arange(steps)
    first = i < steps // 2
    with np.errstate(all="ignore"):
        if steps == 1:  # PyTorch: base ** start in double (complex double), before any cast
            arr = np.full(1, _complex_power(float(base), complex(start)) if npd.kind == "c" else
                          np.power(float(base), float(start)))
        elif npd.kind == "c":
            # PyTorch's complex kernel works in the output dtype throughout: the step, each exponent
            # (counted up from start for the first half, down from end for the second) and the power
            c = npd.type
            s, e = c(start), c(end)
            step = (e - s) / c(steps - 1)
            k = i.astype(npd)
            arr = np.exp(np.where(first, s + step * k, e - step * (c(steps - 1) - k)) * np.log(c(base)))
        else:
            # PyTorch's real kernel: start and end are cast to the output dtype and subtracted there; the
            # step, the exponents and the power are double (half and bfloat16 round through float)
            s, e = np.array([start, end]).astype(npd) if npd in FLOATING_NP else \
                np.array([int(start), int(end)]).astype(npd)
            step = float(npd.type(e - s)) / (steps - 1)
            arr = np.power(float(base), np.where(first, float(s) + step * i, float(e) - step * (steps - 1 - i)))
            if npd in LOWP_NP:
                arr = arr.astype(np.float32)
    return _finish(arr.astype(npd), requires_grad)


@op(variants="function")
def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding ``s`` (of the default float dtype unless ``dtype`` says otherwise)."""
    if device is not None:
        _require_cpu(device)
    npd = _np_dtype(dtype)
    return _finish(np.asarray(_number(s), dtype=npd).reshape(()), requires_grad)


def _layout(shape: tuple, strides: tuple, npd: np.dtype) -> np.ndarray:
    """A zero array of ``shape`` whose strides (in elements) are ``strides``."""
    need = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if 0 not in shape else 0
    buf = np.zeros(max(need, 0), dtype=npd)
    if not need:
        return np.zeros(shape, dtype=npd)
    return _strided(buf, shape, tuple(s * npd.itemsize for s in strides), writeable=True)


@op(variants="function")
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of ``size`` laid out with ``stride`` (zero-filled here)."""
    if device is not None:
        _require_cpu(device)
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    return _finish(_layout(size, stride, _np_dtype(dtype)), requires_grad)


@op(variants="function")
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of ``size`` whose dimensions lie in memory in the order
    ``physical_layout`` (outermost first)."""
    if device is not None:
        _require_cpu(device)
    size, order = tuple(int(s) for s in size), tuple(int(d) for d in physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; "
                           f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    strides = [0] * len(size)
    acc = 1
    for d in reversed(order):
        strides[d] = acc
        acc *= max(size[d], 1)
    return _finish(_layout(size, tuple(strides), _np_dtype(dtype)), requires_grad)


def _new_empty_strided(self: Tensor, size, stride, *, dtype=None, layout=None, device=None,
                       requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


@op(variants="method", method=_new_empty_strided)
def new_empty_strided(self: Tensor, size, stride, *, dtype=None, layout=None, device=None,
                      requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of ``size`` laid out with ``stride``, of ``self``'s dtype by default."""
    return _new_empty_strided(self, size, stride, dtype=dtype, device=device, requires_grad=requires_grad)
