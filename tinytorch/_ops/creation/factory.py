"""Tensor creation: ``tensor``, ``from_numpy``, ``zeros``, ``randn``, ... and ``*_like``; the spaced ones,
``arange`` / ``linspace`` / ``logspace`` (values as PyTorch's CPU kernels round them), ``scalar_tensor``,
and the layout-giving ``empty_strided`` / ``empty_permuted`` (uninitialised, zero-filled here)."""
from __future__ import annotations

import functools
import math
import threading
import warnings

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..._dtype import FLOATING_NP, LOWP_NP, NARROW_NP
from ..._meta_array import MetaArray, c_strides
from ... import _dtype_casts
from ..._quiet_fp import cast, loud, quiet
from ... import _dtype
from ..._size import _require_cpu, device as _device_cls
from ...autograd import engine as _engine, forward_ad as _forward_ad
from ...autograd.grad_mode import version_counter
from .._core.batching import first_only
from .._core.arguments import strided_only as _strided_only
from .._core.registry import op
from .._core.layout import laid_out, like_strides
from ...tensor import Size, Tensor, _make

_F16 = np.dtype(np.float16)


def into_out(res: Tensor, out: Tensor | None) -> Tensor:
    """A factory's result written into ``out`` (resized to the result's shape, as PyTorch's factories
    resize their ``out``), or the result itself."""
    if out is None:
        return res
    if out._data.shape != res._data.shape:
        out._data = np.empty(res._data.shape, dtype=out._data.dtype)
    np.copyto(out._data, res._data, casting="unsafe")
    version_counter(out)[0] += 1
    return out


def _with_out(factory):
    """``factory`` that also takes ``out=`` (see ``into_out``)."""
    @functools.wraps(factory)
    def with_out(*args, out=None, **kwargs):
        return into_out(factory(*args, **kwargs), out)
    return with_out


def _finish(arr: np.ndarray, requires_grad: bool) -> Tensor:
    t = _make(arr)
    if requires_grad:
        if (arr.dtype not in FLOATING_NP and arr.dtype.kind != "c"):  # the factories' wording, not requires_grad_()'s
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


_INT64_MAX = (1 << 63) - 1


class _Lazy(threading.local):
    on = False  # building a meta tensor (tinytorch/_meta.py): its values are never written


LAZY = _Lazy()


def _alloc(thunk, shape: tuple, npd) -> np.ndarray:
    """``thunk()``, the array of ``shape``; a size that cannot fit raises PyTorch's RuntimeError
    instead of numpy's MemoryError / ValueError (the check costs nothing until numpy fails)."""
    try:
        if LAZY.on:
            return MetaArray(shape, npd)  # a meta tensor's storage: its shape and dtype, no values
        a = thunk()
        if a.size == 0 and a.ndim > 1 and type(a) is np.ndarray:
            # numpy gives an empty array strides of 0 only; PyTorch's contiguous ones, kept by its views
            # (``empty(0, 3).t()`` has strides (1, 3))
            a = as_strided(a, a.shape, c_strides(a.shape, a.itemsize), writeable=True)
        return a
    except (MemoryError, ValueError) as e:
        numel = 1
        for n in shape:
            numel *= n
        nbytes = numel * np.dtype(npd).itemsize
        if nbytes > _INT64_MAX:
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}") from None
        if numel == 0 and "Maximum allowed" in str(e):  # PyTorch holds these; numpy cannot
            raise RuntimeError(f"tinytorch cannot create an empty tensor of size {list(shape)}: numpy "
                               f"refuses a dimension that large") from None
        if isinstance(e, MemoryError) or "too big" in str(e) or "Maximum allowed" in str(e):
            raise RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't "
                               f"allocate memory: you tried to allocate {nbytes} bytes. Error code 12 "
                               f"(Cannot allocate memory)") from None
        raise


def _size(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"expected a sequence of integers as the size, but got {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, size))}]")
        out.append(int(s))
    return tuple(out)


def _np_dtype(dtype, default=None) -> np.dtype:
    if dtype is None:
        return (default or _dtype.get_default_dtype()).np
    return _dtype.to_np(dtype)


def _unwrap(data):
    """Nested lists/tuples that may hold tensors, as plain Python numbers."""
    if isinstance(data, Tensor):
        return data._data.tolist()
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def _leaf_dtype(data):
    """PyTorch's inferred dtype of a nested sequence holding tensors or numpy scalars: their dtypes promoted
    with those of the Python numbers (bool, int64, the default float); None when there is nothing typed."""
    found, typed, stack = None, False, [data]
    while stack:
        d = stack.pop()
        if isinstance(d, (list, tuple)):
            stack.extend(d)
            continue
        if isinstance(d, Tensor):
            dt, typed = d.dtype, True
        elif isinstance(d, np.generic) and d.dtype in _dtype.FROM_NP:
            dt, typed = _dtype.FROM_NP[d.dtype], True
        elif isinstance(d, bool):
            dt = _dtype.bool_
        elif isinstance(d, int):
            dt = _dtype.int64
        elif isinstance(d, float):
            dt = _dtype.get_default_dtype()
        elif isinstance(d, complex):
            dt = _dtype.FROM_NP[_dtype.default_complex_np()]
        else:
            return None
        found = dt if found is None else _dtype.FROM_NP[_dtype.PROMOTE[found.np, dt.np]]
    return found if typed else None


def _infer_array(data, exact: bool = False) -> np.ndarray:
    """``data`` as an array of PyTorch's inferred dtype; ``exact`` keeps Python floats in double, for
    an explicit dtype to convert from (float64 data must not pass through float32)."""
    if isinstance(data, np.ndarray):
        if data.dtype not in _dtype.FROM_NP:
            raise TypeError(f"can't convert np.ndarray of type numpy.{data.dtype}. The only supported types are: "
                            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")
        return np.array(data, copy=True)
    if isinstance(data, np.generic):
        return np.array(data)
    if type(data) is list and data and type(data[0]) is float and all(type(v) is float for v in data):
        # the common flat list of Python floats: numpy rounds each double straight to the default dtype,
        # the same values as through float64, without the walk for typed leaves
        if exact:
            return np.array(data, dtype=np.float64)
        token = quiet()  # 1e39 is inf in float32, silently (PyTorch); numpy's cast would warn
        try:
            return np.array(data, dtype=_dtype.get_default_dtype().np)
        finally:
            loud(token)
    if type(data) is list and data and type(data[0]) is int and all(type(v) is int for v in data):
        return np.array(data, dtype=np.int64)  # the flat list of Python ints (token ids): no walk either
    if isinstance(data, (list, tuple)):
        typed = _leaf_dtype(data)
        if typed is not None:
            token = quiet()
            try:
                return np.array(_unwrap(data), dtype=None if exact and (typed.is_floating_point or typed.is_complex)
                                else typed.np)
            finally:
                loud(token)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    try:
        arr = np.array(data)
    except ValueError:
        _explain_bad_data(data)
        raise
    kind = arr.dtype.kind
    if kind == "f":
        return arr if exact else cast(arr, _dtype.get_default_dtype().np, copy=False)
    if kind in "iu":
        if arr.dtype != np.int64:
            try:
                return arr.astype(np.int64)
            except OverflowError:
                raise RuntimeError("Overflow when unpacking long") from None
        return arr
    if kind == "b":
        return arr
    if kind == "O" and arr.size and all(isinstance(v, (int, float, bool)) for v in arr.reshape(-1)):
        return arr.astype(np.float64 if any(isinstance(v, float) for v in arr.reshape(-1)) else np.int64)
    if kind in "US":
        raise TypeError(f"new(): invalid data type '{type(np.array(data).reshape(-1)[0].item()).__name__}'")
    if kind == "c":
        return arr if exact else cast(arr, _dtype.default_complex_np(), copy=False)
    _explain_bad_data(data)
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _explain_bad_data(data) -> None:
    """Raise PyTorch's error for data numpy could not make a regular array of: an unknown element,
    a ragged nesting, or a sequence where a number belongs."""
    leaves, stack = [], [data]
    while stack:
        d = stack.pop()
        if isinstance(d, (list, tuple)):
            stack.extend(d)
        elif isinstance(d, str):
            raise TypeError("new(): invalid data type 'str'")
        elif not isinstance(d, (bool, int, float, np.generic, Tensor)):
            raise RuntimeError(f"Could not infer dtype of {type(d).__name__}")
        else:
            leaves.append(d)
    sizes, seq = [], data
    while isinstance(seq, (list, tuple)):
        sizes.append(len(seq))
        if not seq:
            break
        seq = seq[0]
    floating = any(isinstance(v, float) for v in leaves)
    stack = [(data, 0)]
    while stack:
        seq, dim = stack.pop()
        if dim == len(sizes):
            if isinstance(seq, (list, tuple)):
                name = type(seq).__name__
                raise TypeError(f"must be real number, not {name}" if floating
                                else f"'{name}' object cannot be interpreted as an integer")
            continue
        if not isinstance(seq, (list, tuple)):
            raise TypeError("not a sequence")
        if len(seq) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})")
        stack.extend((s, dim + 1) for s in reversed(seq))


@op(variants="function")
def tensor(data, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (floats → float32, ints → int64, bools → bool)."""
    if device is not None:
        _require_cpu(device)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                      "or sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "tinytorch.tensor(sourceTensor).", UserWarning, stacklevel=2)
        arr = data._data.copy()
    else:
        arr = _infer_array(data, exact=dtype is not None)
    if dtype is not None:
        npd = _dtype.to_np(dtype)
        # 1e5 as float16 is inf, silently (PyTorch); float8 and complex32 round as PyTorch's casts do
        arr = cast(arr, npd, copy=False) if npd not in NARROW_NP else _narrow(arr, npd)
        if (npd == _F16 or npd == _dtype.C32_NP) and not isinstance(data, (np.ndarray, np.generic, Tensor)):
            _dtype_casts.canonical_half_nans(arr)  # Python numbers reach half through PyTorch's scalar code
    return _finish(arr, requires_grad)


def _narrow(arr: np.ndarray, npd: np.dtype) -> np.ndarray:
    """``arr`` as a float8 or complex32 array (PyTorch's roundings; its warning for a first complex32)."""
    if npd == _dtype.C32_NP:
        _dtype_casts.warn_complex32()
    return _dtype_casts.convert(arr, npd)


def _ones(shape: tuple, npd: np.dtype) -> np.ndarray:
    return np.ones(shape, dtype=npd) if npd not in NARROW_NP else _full(shape, 1, npd)


def _full(shape: tuple, value, npd: np.dtype) -> np.ndarray:
    """``np.full`` for every dtype: a float8 or complex32 fill value is rounded as PyTorch's casts round it
    (numpy would write a number into both of complex32's fields); a number the dtype cannot hold is PyTorch's
    error."""
    value = _dtype_casts.check_number(value, npd, lowp_checked=math.prod(shape) != 1)
    if npd in NARROW_NP:
        return _narrow(np.full(shape, value), npd)
    if npd == _F16 and value != value:  # a Python NaN reaches half through PyTorch's scalar code
        return _dtype_casts.canonical_half_nans(np.full(shape, value, dtype=npd))
    return np.full(shape, value, dtype=npd)


@op(variants="function")
def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Share memory with ``data`` when it already is a tensor or a numpy array of the right dtype."""
    if device is not None:
        _require_cpu(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and data.dtype in _dtype.FROM_NP:
        t = _make(data)
        return t if dtype is None else t.to(dtype)
    return tensor(data, dtype=dtype)


@op(variants="function")
def from_numpy(arr: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``arr``."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    if arr.dtype not in _dtype.FROM_NP:
        raise TypeError(f"can't convert np.ndarray of type numpy.{arr.dtype}. The only supported types are: "
                        "float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")
    return _make(arr)


@op(variants="function out", own_out=True)
@_with_out
def zeros(*size, dtype=None, device=None, layout=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor of zeros."""
    _strided_only(layout, pin_memory)
    if device is not None:
        _require_cpu(device)
    shape, npd = _size(size), _np_dtype(dtype)
    return _finish(_alloc(lambda: np.zeros(shape, dtype=npd), shape, npd), requires_grad)


@op(variants="function out", own_out=True)
@_with_out
def ones(*size, dtype=None, device=None, layout=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor of ones."""
    _strided_only(layout, pin_memory)
    if device is not None:
        _require_cpu(device)
    shape, npd = _size(size), _np_dtype(dtype)
    return _finish(_alloc(lambda: _ones(shape, npd), shape, npd), requires_grad)


@op(variants="function out", own_out=True)
@_with_out
def empty(*size, dtype=None, device=None,
          layout=None, requires_grad: bool = False, pin_memory: bool = False, memory_format=None) -> Tensor:
    """An uninitialised tensor (zero-filled here, for reproducibility)."""
    _strided_only(layout, pin_memory)
    if device is not None:
        _require_cpu(device)
    shape, npd = _size(size), _np_dtype(dtype)
    return _finish(_alloc(lambda: np.zeros(shape, dtype=npd), shape, npd), requires_grad)


def _scalar_dtype(value):
    if isinstance(value, bool):
        return _dtype.bool_
    if isinstance(value, int):
        return _dtype.int64
    if isinstance(value, complex):
        return _dtype.FROM_NP[_dtype.default_complex_np()]
    return _dtype.get_default_dtype()


@op(variants="function out", own_out=True)
@_with_out
def full(size, fill_value, *, dtype=None, device=None,
         layout=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor filled with ``fill_value`` (its dtype inferred from the value)."""
    _strided_only(layout, pin_memory)
    if device is not None:
        _require_cpu(device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    npd = _np_dtype(dtype, _scalar_dtype(fill_value))
    shape = _size((size,))
    return _finish(_alloc(lambda: _full(shape, fill_value, npd), shape, npd), requires_grad)


def _like(input: Tensor, dtype):
    return input._data.shape, (input._data.dtype if dtype is None else _dtype.to_np(dtype))


def _shaped_like(arr, input: Tensor, memory_format):
    """``arr`` (C-ordered, ``input``'s shape) laid out as ``memory_format`` asks, given ``input``'s layout:
    PyTorch's ``*_like`` factories keep a non-overlapping dense input's strides by default (``layout``); on meta
    tensors its decomposition's rule."""
    strides = like_strides(input._data, memory_format)
    return arr if strides is None else laid_out(arr, strides)


@op(variants="function", batch=first_only)
def zeros_like(input: Tensor, *, dtype=None, device=None,
               layout=None, requires_grad: bool = False, pin_memory: bool = False, memory_format=None) -> Tensor:
    _strided_only(layout, pin_memory)
    if device is not None:
        _require_cpu(device)
    shape, npd = _like(input, dtype)
    return _finish(_shaped_like(_alloc(lambda: np.zeros(shape, dtype=npd), shape, npd), input, memory_format),
                   requires_grad)


@op(variants="function", batch=first_only)
def ones_like(input: Tensor, *, dtype=None, device=None,
              layout=None, requires_grad: bool = False, pin_memory: bool = False, memory_format=None) -> Tensor:
    _strided_only(layout, pin_memory)
    if device is not None:
        _require_cpu(device)
    shape, npd = _like(input, dtype)
    return _finish(_shaped_like(_alloc(lambda: _ones(shape, npd), shape, npd), input, memory_format), requires_grad)


@op(variants="function", batch=first_only)
def empty_like(input: Tensor, *, dtype=None, device=None,
               layout=None, requires_grad: bool = False, pin_memory: bool = False, memory_format=None) -> Tensor:
    _strided_only(layout, pin_memory)
    if device is not None:
        _require_cpu(device)
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


@op(variants="function", batch=first_only)
def full_like(input: Tensor, fill_value, *, dtype=None, device=None,
              layout=None, requires_grad: bool = False, pin_memory: bool = False, memory_format=None) -> Tensor:
    _strided_only(layout, pin_memory)
    if device is not None:
        _require_cpu(device)
    shape, npd = _like(input, dtype)
    return _finish(_shaped_like(_alloc(lambda: _full(shape, fill_value, npd), shape, npd), input, memory_format),
                   requires_grad)


@op(variants="function out", own_out=True)
@_with_out
def eye(n: int, m: int | None = None, *, dtype=None, device=None,
        layout=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """The identity matrix (n x m)."""
    _strided_only(layout, pin_memory)
    if device is not None:
        _require_cpu(device)
    for k in (n, m):
        if k is not None and k < 0:
            raise RuntimeError(f"{'n' if k is n else 'm'} must be greater or equal to 0, got {k}")
    npd = _np_dtype(dtype)
    return _finish(_alloc(lambda: np.eye(n, n if m is None else m, dtype=npd), (n, n if m is None else m), npd),
                   requires_grad)


_engine.bind_empty_like(empty_like)  # AccumulateGrad copies a create_graph gradient through it (CopyBackwards)
_forward_ad.bind_zeros(zeros)  # the tangent rules' zeros


# -- the spaced factories (arange, linspace, logspace), scalar_tensor and the layout-giving ones -----
_strided = np.lib.stride_tricks.as_strided


_ARANGE_FORMS = "".join(f" * ({form}*, {opts}torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
                        "None, bool pin_memory = False, bool requires_grad = False)\n" for form, opts in (
                            ("Number end, ", "Tensor out = None, "), ("Number start, Number end, ", ""),
                            ("Number start, Number end, Number step = 1, ", "Tensor out = None, ")))


def _arange_refusal(positional: tuple, keywords: dict) -> TypeError:
    """PyTorch's TypeError for arguments none of arange's three forms takes (``arange(4, step=2)``)."""
    def kind(v) -> str:
        if isinstance(v, Tensor):
            return "Tensor"
        if isinstance(v, (_dtype.dtype, _device_cls)):
            return f"torch.{type(v).__name__}"
        return type(v).__name__
    got = [kind(v) for v in positional] + [f"{k}={kind(v)}" for k, v in sorted(keywords.items()) if v is not None]
    return TypeError(f"arange() received an invalid combination of arguments - got ({', '.join(got)}), but expected "
                     f"one of:\n{_ARANGE_FORMS}")


@op(variants="function out", own_out=True)
@_with_out
def arange(start=None, end=None, step=None, *, dtype=None, device=None, layout=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """Values from ``start`` up to (not including) ``end`` in steps of ``step``: ``arange(end)``,
    ``arange(start, end)`` or ``arange(start, end, step)`` (``end=`` alone names the first form's bound)."""
    if device is not None:
        _require_cpu(device)
    _strided_only(layout, pin_memory)
    if end is None or start is None:
        if start is None and end is not None and step is None:  # arange(end=n)
            start = end
        elif start is None or step is not None:
            raise _arange_refusal(() if start is None else (start,), {"step": step, "end": end, "dtype": dtype})
        start, end = 0, start
    if step is None:
        step = 1
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
    if npd == np.bool_ or npd in NARROW_NP:  # no arange kernel for them
        raise NotImplementedError(f'"arange_cpu" not implemented for \'{_dtype.FROM_NP[npd]._scalar}\'')
    n = _integer_arange_count(start, end, step, npd) if npd.kind in "iu" and is_float else \
        max(int(np.ceil((end - start) / step)), 0)

    def values():
        if npd.kind in "iu" and is_float:
            return _integer_arange(start, end, step, npd).astype(npd)
        if npd == np.float32 or npd == np.float64:
            return cast(_arange_like_pytorch(float(start), float(step), n, npd), npd)
        if is_float:
            return cast(start + np.arange(n, dtype=np.float64) * step, npd)
        return cast(np.arange(start, end, step), npd)

    # (a failed allocation names the result's bytes, as PyTorch's, whatever intermediate numpy asked for)
    return _finish(_alloc(values, (n,), npd), requires_grad)


def _integer_arange(start: float, end: float, step: float, npd: np.dtype) -> np.ndarray:
    """An integer arange from float bounds, as PyTorch computes it: the values are trunc(start) +
    i * trunc(step) in int64 (so a step under 1 repeats start); int64 also counts them in integers
    from the truncated bounds (a truncated step of 0 is then its ValueError), the other integer
    dtypes count ceil((end - start) / step) in double from the bounds as given."""
    return int(start) + np.arange(_integer_arange_count(start, end, step, npd), dtype=np.int64) * int(step)


def _integer_arange_count(start: float, end: float, step: float, npd: np.dtype) -> int:
    xs, xe, xst = int(start), int(end), int(step)  # C++'s double -> int64 conversion truncates
    if npd == np.int64:
        if xst == 0:
            raise ValueError("step must be nonzero")
        num = xe - xs + xst - (1 if xst > 0 else -1)
        n = abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1)  # C++'s truncating division
    else:
        n = int(np.ceil((end - start) / step))
    return max(n, 0)


# the kernels' arithmetic, each step a kernel path of tinytorch/_cpu/creation.py: PyTorch's FMA builds round
# ``a * b + c`` once, and its logspace calls glibc's pow
def _fma(a, b, c):
    """``a * b + c`` in float64, rounded twice."""
    with np.errstate(all="ignore"):
        return np.asarray(a, np.float64) * b + c


def _pow(base: float, x: np.ndarray) -> np.ndarray:
    """``base ** x`` elementwise in float64."""
    return np.power(base, x)


def _arange_like_pytorch(start: float, step: float, n: int, npd: np.dtype) -> np.ndarray:
    """PyTorch's CPU kernel, value for value: in blocks of two 32-byte vectors, each vector starts at
    start + step * i (rounded to the dtype) and adds j * step; the leftover tail is start + step * i;
    every product-and-sum is one multiply-add in double (``_fma``). Past 32768 elements PyTorch splits the
    range between threads, which moves the blocks; this matches its single-threaded result."""
    vec = 32 // npd.itemsize
    i = np.arange(n, dtype=np.float64)
    j = i % vec
    base = cast(_fma(np.full(n, step), i - j, np.full(n, start)), npd).astype(np.float64)  # inf past the range
    out = _fma(j, np.full(n, step), base)
    tail = n - n % (2 * vec)
    out[tail:] = _fma(np.full(n - tail, step), i[tail:], np.full(n - tail, start))
    return out


def _check_bounds(name: str, start, end) -> None:
    """PyTorch's tensor overloads take 0-d bounds only (its meta kernel, shared by both ops, words it shorter)."""
    dims = [(which, v.dim()) for which, v in (("start", start), ("end", end)) if isinstance(v, Tensor) and v.dim()]
    if dims and LAZY.on:
        raise RuntimeError("linspace only supports 0-dimensional start and end tensors")
    if dims:
        got = " and ".join(f"{which} with {n} dimension(s)" for which, n in dims)
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got {got}.")


@op(variants="function out", own_out=True, meta="tensor_bounds")
@_with_out
def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if device is not None:
        _require_cpu(device)
    _check_bounds("linspace", start, end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    npd = _np_dtype(dtype)
    if npd == np.bool_ and steps > 1:  # one step is a fill, no kernel
        raise NotImplementedError('"linspace_cpu" not implemented for \'Bool\'')
    if npd.kind in "iu" and not LAZY.on:  # an integer linspace starts from the bounds converted (truncated)
        start, end = int(float(start)), int(float(end))
    return _finish(_alloc(lambda: _linspace_values(start, end, steps, npd), (steps,), npd), requires_grad)


def _linspace_values(start, end, steps: int, npd: np.dtype) -> np.ndarray:
    if steps == 1:
        arr = np.array([start], dtype=np.float64)
    else:
        # PyTorch's kernel: the first half counted from start, the second back from end, each value one
        # multiply-add (``_fma``: one rounding on PyTorch's FMA builds); floating outputs
        # round the step to their own dtype first, integer ones keep it in double
        s, e = float(start), float(end)
        if npd in LOWP_NP:
            # half and bfloat16: PyTorch's loop computes in the output dtype, rounding after each operation
            s, e = npd.type(s), npd.type(e)
            step = npd.type(npd.type(e - s) / npd.type(steps - 1))
            i = np.arange(steps)
            k = np.where(i < steps // 2, i, steps - 1 - i).astype(npd)
            return np.where(i < steps // 2, s + step * k, e - step * k).astype(npd)
        if npd in FLOATING_NP:
            s, e = npd.type(s), npd.type(e)
            step = np.float64((e - s) / npd.type(steps - 1))
        else:
            step = (e - s) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        first = i < steps // 2
        arr = _fma(np.where(first, step, -step), np.where(first, i, steps - 1 - i),
                   np.where(first, np.float64(s), np.float64(e)))
    return arr.astype(npd)




def _number(v):
    return v.item() if isinstance(v, Tensor) else v


def _complex_power(base: float, z: complex) -> complex:
    """A real base to a complex power as C++'s std::pow(double, complex) computes it: polar form for a
    positive base (its signed zeros included)."""
    if base > 0:
        rho, theta = base ** z.real, z.imag * np.log(base)
        return complex(rho * np.cos(theta), rho * np.sin(theta))
    return complex(np.power(np.complex128(base), np.complex128(z)))


@op(variants="function out", own_out=True, meta="tensor_bounds")
@_with_out
def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """``base ** e`` for ``steps`` exponents ``e`` evenly spaced from ``start`` to ``end``."""
    if device is not None:
        _require_cpu(device)
    _check_bounds("logspace", start, end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if not LAZY.on:  # (a meta tensor's values are never read)
        start, end, base = _number(start), _number(end), _number(base)
    npd = _np_dtype(dtype)
    return _finish(_alloc(lambda: _logspace_values(start, end, steps, base, npd), (steps,), npd), requires_grad)


def _logspace_values(start, end, steps: int, base, npd: np.dtype) -> np.ndarray:
    i = np.arange(steps)
    first = i < steps // 2
    with np.errstate(all="ignore"):
        if steps == 1:  # PyTorch: base ** start in double (complex double), before any cast
            arr = np.full(1, _complex_power(float(base), complex(start)) if npd.kind == "c" else
                          _pow(float(base), np.array([float(start)]))[0])
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
            arr = _pow(float(base), np.where(first, float(s) + step * i, float(e) - step * (steps - 1 - i)))
            if npd in LOWP_NP:
                arr = arr.astype(np.float32)
    return arr.astype(npd)


@op(variants="function")
def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding ``s`` (of the default float dtype unless ``dtype`` says otherwise)."""
    if device is not None:
        _require_cpu(device)
    npd = _np_dtype(dtype)
    return _finish(np.asarray(_dtype_casts.check_number(_number(s), npd), dtype=npd).reshape(()), requires_grad)


def _layout(shape: tuple, strides: tuple, npd: np.dtype) -> np.ndarray:
    """A zero array of ``shape`` whose strides (in elements) are ``strides``."""
    if LAZY.on:
        return MetaArray(shape, npd, tuple(s * npd.itemsize for s in strides))
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
