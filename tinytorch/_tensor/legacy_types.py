"""Legacy tensor types: ``tinytorch.FloatTensor([1, 2])``, ``isinstance(t, tinytorch.LongTensor)``,
``t.type(tinytorch.DoubleTensor)`` and ``set_default_tensor_type``, as in PyTorch.

Each legacy type is a class whose metaclass makes ``isinstance`` ask the tensor's dtype (PyTorch's
``torch.tensortype``); calling it builds a plain ``Tensor`` of that dtype."""
from __future__ import annotations

import warnings

from .. import _dtype
from ..tensor import Tensor, _make, legacy_array, register_attribute


class tensortype(type):
    """The metaclass of the legacy types: ``isinstance(t, FloatTensor)`` is true for a float32 CPU tensor."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __subclasscheck__(cls, sub) -> bool:
        return type.__subclasscheck__(cls, sub)

    def __repr__(cls) -> str:
        return f"<class 'tinytorch.{cls.__name__}'>"

    def __call__(cls, *args, device=None, **kwargs):
        if kwargs:
            raise TypeError(f"new() received an invalid combination of arguments - got unexpected keyword "
                            f"argument(s) {', '.join(sorted(kwargs))}")
        if device is not None and str(device) != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {device} was passed")
        d = cls.dtype
        if len(args) == 1 and isinstance(args[0], Tensor):
            src = args[0]
            if src.dtype is not d:
                raise TypeError(f"expected {d._scalar} (got {src.dtype._scalar})")
            return src.detach()  # an alias of the same storage, as PyTorch's
        return _make(legacy_array(d.np, args))


def _new(self: Tensor, *args, device=None, **kwargs):
    """``t.new(...)``: the legacy constructor of ``t``'s type (sizes: uninitialised; a sequence: its data)."""
    return BY_LEGACY[self.dtype._legacy](*args, device=device, **kwargs)


register_attribute("new", _new)


def _legacy_type(d: _dtype.dtype):
    cls = tensortype(d._legacy, (), {"dtype": d, "is_cuda": False, "is_sparse": False,
                                     "__module__": "tinytorch", "__doc__": f"Legacy constructor for {d!r} tensors."})
    return cls


BY_LEGACY = {d._legacy: _legacy_type(d) for d in _dtype.ALL}
FloatTensor = BY_LEGACY["FloatTensor"]
DoubleTensor = BY_LEGACY["DoubleTensor"]
HalfTensor = BY_LEGACY["HalfTensor"]
LongTensor = BY_LEGACY["LongTensor"]
IntTensor = BY_LEGACY["IntTensor"]
ShortTensor = BY_LEGACY["ShortTensor"]
CharTensor = BY_LEGACY["CharTensor"]
ByteTensor = BY_LEGACY["ByteTensor"]
BoolTensor = BY_LEGACY["BoolTensor"]


def dtype_of(t) -> _dtype.dtype:
    """The dtype a legacy type (class or ``'tinytorch.FloatTensor'``/``'torch.FloatTensor'`` name) stands for."""
    if isinstance(t, tensortype):
        return t.dtype
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module not in ("torch", "tinytorch") or name not in BY_LEGACY:
            raise ValueError(f"invalid type: {t!r}")
        return BY_LEGACY[name].dtype
    raise TypeError(f"invalid type: {t!r}")


def set_default_tensor_type(t) -> None:
    """Deprecated in PyTorch 2.1 (it warns): make a floating legacy type's dtype the default dtype."""
    warnings.warn("tinytorch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "tinytorch.set_default_dtype() and tinytorch.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
    if isinstance(t, str) and t.rpartition(".")[0] not in ("torch", "tinytorch"):
        raise ModuleNotFoundError(f"No module named '{t.rpartition('.')[0] or t}'")
    d = dtype_of(t)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(d)
