"""``__torch_dispatch__`` for wrapper subclasses: ``torch.Tensor._make_wrapper_subclass(cls, size, dtype=...)``
makes a ``cls`` instance with a shape, dtype and device but no values of its own (the subclass keeps its payload in
its attributes), and the ops run on it reach ``cls.__torch_dispatch__(func, types, args, kwargs)`` with ``func``
the ATen overload PyTorch's dispatcher would hand it (``aten.detach.default``, ``aten._to_copy.default`` for a dtype
conversion, ``aten.<op>.default`` otherwise).

Where tinytorch meets such an op: methods and operators are the ops' implementations on ``Tensor``, so once the
first wrapper subclass exists every declared op's Tensor spelling is wrapped (as the profiler wraps them while it
records) to hand calls with a dispatching instance among their arguments to its class; the function spellings
(``torch.X``) and the tensors of the ops' own insides are not seen yet (op-level capture at the declarations is
where that belongs). The wrapper's own ``_data`` is a broadcast zero of its shape and dtype: no storage."""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._meta_data import is_meta_device, mark_meta
from .._op_namespace import ops as _ops
from .._ops._core.registry import REGISTRY, method_table
from .._ops._core.members import _prepare_subclass
from ..tensor import Tensor, _new, register_attribute

__all__ = ["is_traceable_wrapper_subclass"]

_CASTS = {"float": _dtype.float32, "double": _dtype.float64, "half": _dtype.float16, "bfloat16": _dtype.bfloat16,
          "long": _dtype.int64, "int": _dtype.int32, "short": _dtype.int16, "byte": _dtype.uint8, "char": _dtype.int8,
          "bool": _dtype.bool_, "cfloat": _dtype.complex64, "cdouble": _dtype.complex128}
_dispatching: set = set()  # the classes whose instances hand their ops to __torch_dispatch__
_wrapped: list = []        # the Tensor spellings wrapped once the first such class appeared


def is_traceable_wrapper_subclass(t) -> bool:
    """A wrapper subclass that tells how to flatten itself (``__tensor_flatten__``), as PyTorch asks of them."""
    return isinstance(t, Tensor) and type(t) is not Tensor and hasattr(t, "__tensor_flatten__") \
        and hasattr(type(t), "__tensor_unflatten__")


def _make_wrapper_subclass(cls, size, strides=None, storage_offset=None, memory_format=None, dtype=None,
                           layout=None, device=None, pin_memory: bool = False, requires_grad: bool = False,
                           dispatch_sizes_strides_policy=None, dispatch_device: bool = False,
                           dispatch_layout: bool = False, _extra_dispatch_keys=None, storage_size=None):
    """A ``cls`` instance of ``size`` and ``dtype`` holding no values (PyTorch's wrapper tensor)."""
    dtype = _dtype.get_default_dtype() if dtype is None else dtype
    t = _new(cls)
    t._data = np.broadcast_to(np.zeros((), dtype=_dtype.to_np(dtype)), tuple(int(n) for n in size))
    t._vc = [0]
    t._requires_grad = bool(requires_grad)
    if device is not None and is_meta_device(device):
        mark_meta(t)
    _dispatches(cls)
    return t


def _dispatches(cls: type) -> None:
    if cls in _dispatching:
        return
    if not hasattr(cls, "__torch_dispatch__"):
        raise RuntimeError(f"{cls.__name__} wraps no storage: it needs a __torch_dispatch__ for its ops")
    _prepare_subclass(cls)
    _dispatching.add(cls)
    if not _wrapped:
        for decl in list(REGISTRY.values()):
            for attr in method_table(decl):
                current = vars(Tensor).get(attr)
                if callable(current) and not isinstance(current, type):
                    _wrapped.append(attr)
                    register_attribute(attr, _dispatching_method(current, decl, attr))


def _overload(decl, spelling: str, args, kwargs) -> tuple:
    """(the ATen overload, args, kwargs) PyTorch's dispatcher hands a ``__torch_dispatch__`` for this call."""
    name = spelling.rstrip("_") if spelling.startswith("__i") else spelling
    if spelling in _CASTS or decl.name in ("to", "type_as"):
        target = _CASTS.get(spelling)
        if decl.name == "type_as":
            target = args[1].dtype
        elif decl.name == "to":
            target = kwargs.get("dtype") or next((a for a in args[1:] if isinstance(a, _dtype.dtype)), None)
        return _ops.aten._to_copy.default, (args[0],), ({} if target is None else {"dtype": target})
    if spelling.startswith("__"):
        name = decl.name + ("_" if spelling in decl.idunders else "")
    return getattr(_ops.aten, name).default, args, kwargs


def _dispatching_method(fn, decl, spelling: str):
    def method(*args, **kwargs):
        for a in args:
            cls = type(a)
            if cls in _dispatching:
                func, args2, kwargs2 = _overload(decl, spelling, args, kwargs)
                types = tuple({type(x) for x in args if type(x) in _dispatching})
                return cls.__torch_dispatch__(func, types, args2, kwargs2)
        return fn(*args, **kwargs)

    method.__name__, method.__qualname__, method.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    method.__wrapped__ = fn
    return method


register_attribute("_make_wrapper_subclass", staticmethod(_make_wrapper_subclass))
