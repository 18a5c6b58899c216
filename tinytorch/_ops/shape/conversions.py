"""Copies and casts (PyTorch's TensorConversions): clone, contiguous, detach, ``to`` and the dtype
shorthands (``float()``, ``long()``, ...), ``type_as``; and the memory formats clone/contiguous take."""
from __future__ import annotations

import warnings

import numpy as np

from ..._dtype import C32_NP, FLOATING_NP, INEXACT_NP, NARROW_NP
from ... import _dtype_casts
from ..._quiet_fp import cast as quiet_cast
from ... import _dtype
from ...autograd.node import Node, elem_strides
from ...autograd.forward_ad import _out_dtype
from ...autograd.grad_mode import version_counter
from ...tensor import Tensor, _make, _new
from .._core.batching import first_only, level_of
from .._core.record import record
from .._core.layout import (channels_last, channels_last_3d, contiguous_format, laid_out,  # noqa: F401
                            preserve_format, strides_for)
from .._core.registry import aten_only, op
from ..creation import factory
from ..._size import _require_cpu, device as Device
from ... import _meta_data
from ..._meta_array import MetaArray
from .shape import CloneBackward0


def _copy_as(x: np.ndarray, fmt) -> np.ndarray:
    """A copy of ``x`` laid out as memory format ``fmt`` asks (``layout.strides_for``)."""
    return laid_out(x, strides_for(x, fmt))


@op(variants="function method", batch=first_only)
def clone(input: Tensor, *, memory_format=None) -> Tensor:
    """A copy with its own storage; gradients flow through."""
    return record(_copy_as(input._data, memory_format), CloneBackward0, (input,))


@op(variants="method", batch=first_only)
def contiguous(input: Tensor, *, memory_format=contiguous_format) -> Tensor:
    """Self when already laid out as ``memory_format``, else a copy that is."""
    x = input._data
    if memory_format is contiguous_format or memory_format is None:
        if x.flags.c_contiguous:
            return input
    elif memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    else:
        _copy_as(x[(slice(0, 0),) * x.ndim], memory_format)  # the format's own checks (rank)
        if input.is_contiguous(memory_format=memory_format):  # as PyTorch's, size-1 dims not counted
            return input
    return record(_copy_as(x, memory_format), CloneBackward0, (input,))


def detach_(self: Tensor) -> Tensor:
    """Cut this tensor from the graph in place; it becomes a leaf."""
    if self._base is not None and self._base._requires_grad:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
            "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
            "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
            "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
    self.grad_fn = None
    self._requires_grad = False
    self._output_nr = 0
    return self


@op(variants="function method inplace torch_inplace", inplace=detach_, batch=first_only)
def detach(input: Tensor) -> Tensor:
    """A tensor sharing storage and version counter, cut from the graph."""
    t = _new(Tensor)
    t._data = input._data
    t._vc = version_counter(input)
    return t


# -- casts ------------------------------------------------------------------------------------------
_COMPLEX_NP = frozenset((np.dtype(np.complex64), np.dtype(np.complex128), C32_NP))


class ToCopyBackward0(Node):
    def backward(self, g):
        if g._data.dtype in _COMPLEX_NP and self.in_dtype not in _COMPLEX_NP:
            g = g.real  # a real input's gradient is the real part (PyTorch)
        return (g.to(self.in_dtype),)

    def jvp(self, t):
        return t.to(_out_dtype(self))  # PyTorch's formula: _to_copy(self_t, dtype)


def to_dtype(input: Tensor, dt, copy: bool = False) -> Tensor:
    npd = _dtype.to_np(dt)
    x = input._data
    if npd == x.dtype and not copy:
        return input
    if npd in NARROW_NP or x.dtype in NARROW_NP:
        return _to_narrow(input, x, npd)
    if x.dtype.kind == "c" and npd.kind != "c":
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
        x = x.real
    if x.dtype in FLOATING_NP and (npd.kind in "iu" or (npd in FLOATING_NP and npd.itemsize < x.dtype.itemsize)):
        out = quiet_cast(x, npd)  # NaN, inf and out-of-range values convert without numpy's warning, as in PyTorch
    else:
        out = x.astype(npd)
    if not x.flags.c_contiguous or 1 in x.shape:  # (a C-ordered input's cast is C-ordered: nothing to do)
        out = _kept_layout(input._data, out)  # numpy's order "K" is close to it, not its size-1 dims' strides
    if npd not in INEXACT_NP and input._requires_grad:
        return _make(out)  # integer results never require grad
    return record(out, ToCopyBackward0, (input,), in_dtype=x.dtype)


def _to_narrow(input: Tensor, x: np.ndarray, npd: np.dtype) -> Tensor:
    """``to_dtype`` where the source or the target is a float8 or complex32 dtype (_dtype_casts)."""
    if (x.dtype.kind == "c" or x.dtype == C32_NP) and not (npd.kind == "c" or npd == C32_NP):
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=4)
    if npd == C32_NP:
        _dtype_casts.warn_complex32()
    out = _kept_layout(x, _dtype_casts.convert(x, npd))
    if npd not in INEXACT_NP and input._requires_grad:
        return _make(out)
    return record(out, ToCopyBackward0, (input,), in_dtype=x.dtype)


def _kept_layout(x, out):
    """``out``, a C-ordered cast of ``x``, laid out as PyTorch's cast lays it (preserve_format: ``x``'s layout)."""
    strides = strides_for(x, None)
    return out if strides is None or strides == elem_strides(out.shape, out.strides, out.itemsize, False) else \
        laid_out(out, strides)


def _to_rule(op, input, *args, **kwargs):
    # ``to(other)`` takes only other's dtype, so a batched ``other`` is as good as its dtype
    args = tuple(a.dtype if isinstance(a, Tensor) else a for a in args)
    return first_only(op, input, *args, **kwargs)


_TO_KEYWORDS = frozenset({"dtype", "copy", "non_blocking", "memory_format", "device"})
_PYTHON_TYPES = (float, int, bool, complex)  # dtypes as PyTorch reads them (float is float64)


def _to_args(args: tuple, kwargs: dict):
    """(device, dtype, copy, memory_format) from PyTorch's three signatures of ``to``:
    (dtype, non_blocking, copy), (device, dtype, non_blocking, copy) and (other, non_blocking, copy)."""
    dtype = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    fmt = kwargs.get("memory_format")
    device = kwargs.get("device")
    if kwargs and not _TO_KEYWORDS.issuperset(kwargs):
        raise TypeError(f"to() got an unexpected keyword argument '{next(k for k in kwargs if k not in _TO_KEYWORDS)}'")
    rest = list(args)
    if rest and isinstance(rest[0], _dtype.dtype):
        dtype = rest.pop(0)
    elif rest and isinstance(rest[0], np.dtype):
        dtype = _dtype.FROM_NP[rest.pop(0)]  # backward formulas cast gradients back with numpy dtypes
    elif rest and isinstance(rest[0], Tensor):
        dtype = rest.pop(0).dtype
    elif rest and type(rest[0]) is type and rest[0] in _PYTHON_TYPES:
        dtype = rest.pop(0)
    elif rest and not isinstance(rest[0], bool):
        device = rest.pop(0)
        if rest and (rest[0] is None or isinstance(rest[0], (_dtype.dtype, np.dtype)) or
                     (type(rest[0]) is type and rest[0] in _PYTHON_TYPES)):
            d = rest.pop(0)
            dtype = _dtype.FROM_NP[d] if isinstance(d, np.dtype) else d if d is not None else dtype
    if dtype is not None and type(dtype) is not _dtype.dtype:
        if not isinstance(dtype, np.dtype) and not (type(dtype) is type and dtype in _PYTHON_TYPES):
            raise TypeError(_to_refused(args, kwargs))
        dtype = _dtype.FROM_NP[_dtype.to_np(dtype)]
    if len(rest) > 2 or not all(isinstance(b, bool) for b in rest):
        raise TypeError(_to_refused(args, kwargs))
    if len(rest) == 2:
        copy = rest[1]
    return device, dtype, copy, fmt


def _to_refused(args: tuple, kwargs: dict) -> str:
    """PyTorch's argument parser's refusal of a ``to`` call: the types it got, and to's signatures."""
    def name(a) -> str:
        if isinstance(a, Tensor):
            return "Tensor"
        return f"{pkg}.{type(a).__name__}" if isinstance(a, (_dtype.dtype, Device)) else type(a).__name__
    pkg = _dtype.SHOWN_AS[0]
    # the keywords last given first, as PyTorch's parser lists them
    given = [name(a) for a in args] + [f"{k}={name(v)}" for k, v in reversed(kwargs.items())]
    got = ", ".join(given) + (", " if kwargs and not args else "")
    tail = f"bool non_blocking = False, bool copy = False, *, {pkg}.memory_format memory_format = None)\n"
    return (f"to() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            f" * ({pkg}.device device = None, {pkg}.dtype dtype = None, {tail}"
            f" * ({pkg}.dtype dtype, {tail} * (Tensor tensor, {tail}")


@op(variants="method", batch=_to_rule)
def to(input: Tensor, *args, **kwargs) -> Tensor:
    """Cast to a dtype (device arguments must be the CPU); ``to(other)`` takes other's dtype."""
    device, dtype, copy, fmt = _to_args(args, kwargs)
    if device is not None:
        if _meta_data.is_meta_device(device):
            return _to_meta(input, dtype)
        _require_cpu(device)
        if input._meta:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if dtype is not None and (_dtype.to_np(dtype) != input._data.dtype or copy):
        out = to_dtype(input, dtype, copy=copy)
        if fmt is not None and fmt is not preserve_format and out is not input:
            out._data = _copy_as(out._data, fmt)  # a fresh result: lay it out as asked
        return out
    if copy:
        return clone(input, memory_format=fmt)
    if fmt is not None and fmt is not preserve_format:
        return contiguous(input, memory_format=fmt)
    return input


@aten_only("_to_copy")
def _to_copy(input: Tensor, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking: bool = False,
             memory_format=None) -> Tensor:
    """``aten._to_copy``: the copy ``to`` makes (always a new tensor), what a ``__torch_dispatch__`` subclass sees
    for a conversion."""
    return to(input, device=device, dtype=dtype, copy=True, memory_format=memory_format)


def _to_meta(input: Tensor, dtype) -> Tensor:
    """``t.to("meta")``: a meta copy of ``t``'s shape, strides and (new) dtype, written nowhere, with the
    ``ToCopyBackward0`` PyTorch records; a meta ``t`` of that dtype is itself."""
    npd = input._data.dtype if dtype is None else _dtype.to_np(dtype)
    if input._meta and npd == input._data.dtype:
        return input
    x = input._data
    if input._meta:
        out = _meta_data.dataless(x, npd)
    else:  # PyTorch's copy to meta lays out as preserve_format does (a gapped or expanded tensor's copy is dense)
        strides = strides_for(x, None)
        out = MetaArray(x.shape, npd) if strides is None else \
            MetaArray(x.shape, npd, tuple(s * npd.itemsize for s in strides))
    if npd not in INEXACT_NP and input._requires_grad:
        res = _make(out)
    else:
        res = record(out, ToCopyBackward0, (input,), in_dtype=input._data.dtype)
    return _meta_data.mark_meta(res)


def _cast(name: str, dt):
    def cast(input: Tensor, memory_format=preserve_format) -> Tensor:
        out = to_dtype(input, dt)
        if memory_format is not None and memory_format is not preserve_format and out is not input:
            out._data = _copy_as(out._data, memory_format)  # a fresh result: lay it out as asked
        return out
    cast.__name__ = cast.__qualname__ = name
    cast.__doc__ = f"``self.to({dt})``."
    return op(name, variants="method", batch=first_only)(cast)


# Tensor.float(), .double(), ...: declared only (module names would shadow the builtins)
for _name, _dt in (("float", _dtype.float32), ("double", _dtype.float64), ("half", _dtype.float16),
                   ("bfloat16", _dtype.bfloat16), ("long", _dtype.int64), ("int", _dtype.int32),
                   ("short", _dtype.int16), ("byte", _dtype.uint8), ("char", _dtype.int8), ("bool", _dtype.bool_),
                   ("cfloat", _dtype.complex64), ("cdouble", _dtype.complex128), ("chalf", _dtype.complex32)):
    _cast(_name, _dt)
del _name, _dt


def _type_as_rule(op, input, other):
    if level_of((input,)) is None:  # only ``other`` is batched: its dtype is all that is read
        return op.__wrapped__(input, other)
    return input._wrap(to_dtype(input._phys, other.dtype))


@op(variants="method", batch=_type_as_rule)
def type_as(input: Tensor, other: Tensor) -> Tensor:
    """``self.to(other.dtype)``."""
    return to_dtype(input, other.dtype)


# -- constructors relative to an existing tensor (its dtype by default) -------------------------------
def _unbatched(op, input, *args, **kwargs):
    # the result depends on the batched tensor's dtype alone: one plain tensor for every sample
    return op(input._phys, *args, **kwargs)


@op(variants="method", batch=_unbatched)
def new_tensor(input: Tensor, data, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return factory.tensor(data, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


def _new_factory(name: str):
    # the factory's other keywords (size=, layout=, pin_memory=, fill_value=) go through to it as given
    def new(input: Tensor, *size, dtype=None, device=None, requires_grad: bool = False, **kwargs) -> Tensor:
        return getattr(factory, name)(*size, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad,
                                      **kwargs)
    new.__name__ = new.__qualname__ = "new_" + name
    new.__doc__ = f"``tinytorch.{name}(...)`` with this tensor's dtype unless another is given."
    return op("new_" + name, variants="method", batch=_unbatched)(new)


new_zeros = _new_factory("zeros")
new_ones = _new_factory("ones")
new_empty = _new_factory("empty")


@op(variants="method", batch=_unbatched)
def new_full(input: Tensor, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False,
             **kwargs) -> Tensor:
    """``tinytorch.full(size, fill_value)`` with this tensor's dtype unless another is given (``size`` a sequence:
    PyTorch takes no sizes one by one here)."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    return factory.full(size, fill_value, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad,
                        **kwargs)
