"""More factories: the spaced ones, ``arange`` / ``linspace`` / ``logspace`` (values as PyTorch's CPU kernels
round them), ``scalar_tensor``, and the layout-giving ``empty_strided`` / ``empty_permuted`` (uninitialised, zero-filled here)."""
from __future__ import annotations

import numpy as np

from . import _dtype
from ._dtype import FLOATING_NP, LOWP_NP
from ._numpy_compat import pow_f64  # glibc's pow where numpy 1.x's is SVML's
from ._size import _require_cpu
from ._random.fpmath import fma64 as _fma  # a * b + c with one rounding, as the kernels' FMA
from .factory import _finish, _np_dtype, _with_out
from .ops._registry import op
from .tensor import Tensor

_strided = np.lib.stride_tricks.as_strided


@op(variants="function out", own_out=True)
@_with_out
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Values from ``start`` up to (not including) ``end`` in steps of ``step``."""
    if device is not None:
        _require_cpu(device)
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (np.isfinite(start) and np.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    is_float = any(isinstance(v, float) for v in vals)
    npd = _np_dtype(dtype, _dtype.get_default_dtype() if is_float else _dtype.int64)
    if npd == np.bool_:
        raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
    if npd.kind in "iu" and is_float:
        arr = _integer_arange(start, end, step, npd)
        return _finish(arr.astype(npd), requires_grad)
    n = int(np.ceil((end - start) / step))
    if npd == np.float32 or npd == np.float64:
        arr = _arange_like_pytorch(float(start), float(step), n, npd)
    elif is_float:
        arr = start + np.arange(n, dtype=np.float64) * step
    else:
        arr = np.arange(start, end, step)
    return _finish(arr.astype(npd), requires_grad)


def _integer_arange(start: float, end: float, step: float, npd: np.dtype) -> np.ndarray:
    """An integer arange from float bounds, as PyTorch computes it: the values are trunc(start) +
    i * trunc(step) in int64 (so a step under 1 repeats start); int64 also counts them in integers
    from the truncated bounds (a truncated step of 0 is then its ValueError), the other integer
    dtypes count ceil((end - start) / step) in double from the bounds as given."""
    xs, xe, xst = int(start), int(end), int(step)  # C++'s double -> int64 conversion truncates
    if npd == np.int64:
        if xst == 0:
            raise ValueError("step must be nonzero")
        num = xe - xs + xst - (1 if xst > 0 else -1)
        n = abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1)  # C++'s truncating division
    else:
        n = int(np.ceil((end - start) / step))
    return xs + np.arange(max(n, 0), dtype=np.int64) * xst


def _arange_like_pytorch(start: float, step: float, n: int, npd: np.dtype) -> np.ndarray:
    """PyTorch's CPU kernel, value for value: in blocks of two 32-byte vectors, each vector starts at
    start + step * i (rounded to the dtype) and adds j * step; the leftover tail is start + step * i;
    every product-and-sum is one fused multiply-add in double. Past 32768 elements PyTorch splits the
    range between threads, which moves the blocks; this matches its single-threaded result."""
    vec = 32 // npd.itemsize
    i = np.arange(n, dtype=np.float64)
    j = i % vec
    base = _fma(np.full(n, step), i - j, np.full(n, start)).astype(npd).astype(np.float64)
    out = _fma(j, np.full(n, step), base)
    tail = n - n % (2 * vec)
    out[tail:] = _fma(np.full(n - tail, step), i[tail:], np.full(n - tail, start))
    return out


@op(variants="function out", own_out=True)
@_with_out
def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if device is not None:
        _require_cpu(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    npd = _np_dtype(dtype)
    if npd == np.bool_ and steps > 1:  # one step is a fill, no kernel
        raise NotImplementedError('"linspace_cpu" not implemented for \'Bool\'')
    if npd.kind in "iu":  # an integer linspace starts from the bounds converted (truncated) to integers
        start, end = int(float(start)), int(float(end))
    if steps == 1:
        arr = np.array([start], dtype=np.float64)
    else:
        # PyTorch's kernel: the first half counted from start, the second back from end, each value one
        # fused multiply-add (emulated exactly below, so results are bit-identical); floating outputs
        # round the step to their own dtype first, integer ones keep it in double
        s, e = float(start), float(end)
        if npd in LOWP_NP:
            # half and bfloat16: PyTorch's loop computes in the output dtype, rounding after each operation
            s, e = npd.type(s), npd.type(e)
            step = npd.type(npd.type(e - s) / npd.type(steps - 1))
            i = np.arange(steps)
            k = np.where(i < steps // 2, i, steps - 1 - i).astype(npd)
            arr = np.where(i < steps // 2, s + step * k, e - step * k)
            return _finish(arr.astype(npd), requires_grad)
        if npd in FLOATING_NP:
            s, e = npd.type(s), npd.type(e)
            step = np.float64((e - s) / npd.type(steps - 1))
        else:
            step = (e - s) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        first = i < steps // 2
        arr = _fma(np.where(first, step, -step), np.where(first, i, steps - 1 - i),
                   np.where(first, np.float64(s), np.float64(e)))
    return _finish(arr.astype(npd), requires_grad)




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
            arr = pow_f64(float(base), np.where(first, float(s) + step * i, float(e) - step * (steps - 1 - i)))
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
