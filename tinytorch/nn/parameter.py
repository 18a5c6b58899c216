"""``Parameter`` (a leaf tensor that a Module registers as learnable) and ``Buffer``."""
from __future__ import annotations

import numpy as np

from .._dtype import FLOATING_NP, get_default_dtype, to_np
from .._tensor.printing import parameter_repr
from ..autograd.grad_mode import NO_VERSION, _State, version_counter
from .._meta_data import dataless
from ..tensor import Tensor, _new


def _alias(cls, data: Tensor | None) -> Tensor:
    """A new ``cls`` instance viewing ``data``'s storage and version counter, cut from any graph."""
    t = _new(cls)
    if data is None:
        t._data = np.empty((0,), dtype=np.float32)
        t._vc = [0]
    else:
        if not isinstance(data, Tensor):
            raise TypeError(f"expected a Tensor as the data of a {cls.__name__}, got {type(data).__name__}")
        t._data = data._data
        t._vc = version_counter(data)
        if data._meta:
            t._meta = True
    return t


class _ParameterMeta(type):
    # a user's tensor subclass made a parameter stays of its class, marked (as PyTorch marks it)
    def __instancecheck__(cls, instance) -> bool:
        return super().__instancecheck__(instance) or (cls is Parameter and isinstance(instance, Tensor)
                                                       and getattr(instance, "_is_param", False))


def _user_subclass(data) -> bool:
    """A tensor subclass of the program's own (not tinytorch's: sparse, quantized... tensors are PyTorch's Tensor)."""
    return isinstance(data, Tensor) and not type(data).__module__.startswith("tinytorch")


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A tensor that is a module parameter: a leaf sharing ``data``'s storage, requiring grad by default."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if cls is Parameter and _user_subclass(data):
            # PyTorch's path for custom tensors: the subclass's own detach (its __torch_function__ or
            # __torch_dispatch__ sees it), marked as a parameter
            t = data.detach().requires_grad_(requires_grad)
            if type(t) is not type(data):
                raise RuntimeError(f"Creating a Parameter from an instance of type {type(data).__name__} requires "
                                   "that detach() returns an instance of the same type, but return type "
                                   f"{type(t).__name__} was found instead. To use the type as a Parameter, please "
                                   "correct the detach() semantics defined by its __torch_dispatch__() "
                                   "implementation.")
            t._is_param = True
            return t
        p = _alias(cls, data)
        if requires_grad and (p._data.dtype not in FLOATING_NP and p._data.dtype.kind != "c"):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        if requires_grad:
            if p._vc is NO_VERSION and not _State.inference:
                raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not "
                                   "allowed.")
        p._requires_grad = bool(requires_grad)
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        # Tensor.__init__ is the legacy constructor; __new__ already did everything
        pass

    def __repr__(self) -> str:
        return parameter_repr(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        # as PyTorch: the copy is a fresh parameter; its .grad is not copied
        new = _new(type(self))
        new._data = dataless(self._data) if self._meta else self._data.copy()
        new._vc = [0]
        new._requires_grad = self._requires_grad
        if self._meta:
            new._meta = True
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data, self._requires_grad))


def _rebuild_parameter(data: np.ndarray, requires_grad: bool) -> Parameter:
    p = _new(Parameter)
    p._data = data if data.flags.writeable else data.copy()
    p._vc = [0]
    p._requires_grad = requires_grad
    return p


class _BufferMeta(type):
    # tensors made by Buffer(...) are plain tensors carrying a mark, as in PyTorch
    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    """Marks a tensor as a buffer: assigning it to a Module attribute registers it with ``persistent``."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        t = _alias(Tensor, data)
        t._is_buffer = True
        t.persistent = persistent
        return t


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (lazy modules): ``materialize`` gives it
    one and turns it into its ``cls_to_become``."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give this tensor ``shape`` (uninitialised values) and its final class."""
        np_dtype = self._data.dtype if dtype is None else to_np(dtype)
        self._data = np.empty(tuple(shape), dtype=np_dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def to(self, *args, **kwargs):
        # a dtype change keeps the tensor lazy (its dtype is what ``materialize`` will use)
        moved = Tensor.to(self, *args, **kwargs)
        if moved is not self:
            self._data = moved._data
        return self

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, protocol):
        return (type(self), (self._requires_grad,))


def _uninitialized(cls, requires_grad: bool, dtype):
    t = _new(cls)
    t._data = np.empty((0,), dtype=to_np(dtype if dtype is not None else get_default_dtype()))
    t._vc = [0]
    t._requires_grad = bool(requires_grad)
    return t


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter of a lazy module, materialised on the module's first call."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, dtype)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module, materialised on the module's first call."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, dtype)

    def __init__(self, requires_grad: bool = False, device=None, dtype=None) -> None:
        pass


def is_lazy(param) -> bool:
    """Whether ``param`` is an uninitialised (lazy) parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)
