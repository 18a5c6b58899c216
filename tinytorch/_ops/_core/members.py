"""Tensor members that are not ops: memory (``storage_offset``, ``itemsize``, ``nbytes``, ``layout``,
``storage``), membership, the layouts (the sparse ones: ``_ops/sparse``), subclasses (``as_subclass`` and the
``__torch_function__`` hook) and legacy ``__setstate__``."""
from __future__ import annotations

import numbers
import types

from ... import storage as _storage
from ..._dtype import named_constants
from ...autograd import forward_ad
from ...autograd.grad_mode import _Active
from ...autograd.node import Node
from .arguments import parsed_method, renamed
from .record import record
from .torch_function import add_routed, dispatch as _dispatch, subclass_among
from ...tensor import Tensor, register_attribute


layout = named_constants("layout", "A tensor layout: strided (dense), or sparse COO / CSR (``_ops/sparse``); the "
                                   "others are names only.")

strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")

def _contains(self: Tensor, element) -> bool:
    if isinstance(element, (Tensor, numbers.Number)):
        return bool((element == self).any().item())
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")


class AliasBackward0(Node):
    """The identity: an alias shares everything with its input."""

    def backward(self, g):
        return (g,)

    def jvp(self, t):
        return t


class CppFunction(Node):
    """The node of PyTorch's ``_fw_primal`` view, through which a forward-grad formula reads a dual tensor's
    primal (an identity: ``torch::autograd::Identity``)."""

    def backward(self, g):
        return (g,)

    def jvp(self, t):
        return None  # the primal view carries no tangent

    def name(self) -> str:
        return "torch::autograd::Identity"


def _primal_view(t: Tensor, jvp: bool) -> Tensor:
    """A forward formula's view of ``t``'s primal: PyTorch's identity node, an alias inside ``torch.func.jvp``
    (functorch unwraps its level's tensor there)."""
    return record(t._data.view(), AliasBackward0 if jvp else CppFunction, (t,), view_of=t)


forward_ad.bind_primal_view(_primal_view)


# -- subclasses ------------------------------------------------------------------------------------------
# protocol methods that return no tensor (or must not be re-dispatched): left as Tensor's
_NOT_WRAPPED = frozenset({
    "__init__", "__new__", "__init_subclass__", "__torch_function__", "__reduce_ex__", "__reduce__",
    "__deepcopy__", "__setstate__", "__getstate__", "__hash__", "__len__", "__bool__", "__float__", "__int__",
    "__index__", "__complex__", "__array__", "__format__", "__repr__", "__str__", "__getattribute__",
    "__getattr__", "__setattr__", "__delattr__", "__class__", "__dir__", "__sizeof__", "__subclasshook__",
    "__array_priority__", "__dlpack__", "__dlpack_device__", "__contains__", "as_subclass", "numpy", "tolist",
    "item", "data_ptr", "size", "dim", "stride", "numel", "element_size", "storage", "untyped_storage",
    "storage_offset", "is_contiguous", "is_floating_point", "is_complex", "backward", "register_hook", "type",
    "_edge", "_scalar", "get_device", "requires_grad_", "retain_grad", "__setitem__", "__iter__", "__eq__",
    "__ne__"})


def _method_for(name: str, cls: type):
    def method(self, *args, **kwargs):
        plain = getattr(Tensor, name)  # looked up per call: autocast and the profiler swap Tensor's methods
        if _dispatch.depth:
            return plain(self, *args, **kwargs)
        return type(self).__torch_function__(plain, (type(self),), (self, *args), kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = getattr(Tensor, name).__doc__
    return method


def _prepare_subclass(cls: type) -> None:
    """Route the Tensor methods of ``cls`` through ``cls.__torch_function__`` (once per class), as
    PyTorch's dispatcher does for a subclass: results come back as ``cls`` by default. Subclasses made
    without ``as_subclass`` (``class P(Tensor)`` instances from ``_make``) keep Tensor's methods. The
    functions ``torch.X`` / ``F.X`` look for ``cls`` among their arguments from then on
    (``_ops/_core/torch_function.py``)."""
    if cls.__dict__.get("_tinytorch_routed"):
        return
    for name, value in vars(Tensor).items():
        if callable(value) and not isinstance(value, (type, staticmethod, classmethod)) and name not in _NOT_WRAPPED \
                and name not in cls.__dict__:
            setattr(cls, name, _method_for(name, cls))
    for name in _ROUTED_PROPERTIES:
        prop = vars(Tensor).get(name)
        if isinstance(prop, property) and name not in cls.__dict__:
            setattr(cls, name, _property_for(prop))
    cls._tinytorch_routed = True
    add_routed(cls)


# tensor-valued properties that PyTorch also routes through __torch_function__
_ROUTED_PROPERTIES = ("T", "mT", "H", "mH", "real", "imag", "data")


def _property_for(prop: property) -> property:
    def get(self):
        if _dispatch.depth:
            return prop.fget(self)
        return type(self).__torch_function__(prop.fget, (type(self),), (self,), {})
    return property(get, prop.fset, prop.fdel, prop.__doc__)


def _convert(ret, cls):
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        ret = as_subclass(ret, cls)
    if isinstance(ret, (tuple, list)):
        ret = type(ret)(_convert(r, cls) for r in ret) if not hasattr(ret, "_fields") \
            else type(ret)(*(_convert(r, cls) for r in ret))
    return ret


def _torch_function(cls, func, types, args=(), kwargs=None):
    """Call ``func`` with subclass dispatch turned off and give tensor results the class ``cls``
    (PyTorch's default; a subclass overrides it and calls ``super().__torch_function__``)."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    _dispatch.depth += 1
    try:
        ret = func(*args, **kwargs)
    finally:
        _dispatch.depth -= 1
    return _convert(ret, cls)


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """An alias of ``self`` (same memory and version counter; ``AliasBackward0`` when it requires grad)
    whose class is ``cls``; its Tensor methods then return ``cls`` instances."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        "Make sure your class inherits from Tensor.")
    out = record(self._data.view(), AliasBackward0, (self,), view_of=self)
    if cls is not Tensor:
        _prepare_subclass(cls)
        out.__class__ = cls
    return out


def module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """What ``load_state_dict`` swaps into the parameter ``self`` for the state_dict's ``other`` when
    ``tinytorch.__future__.set_swap_module_params_on_conversion(True)``: ``other`` detached with ``assign``,
    ``self`` updated from it otherwise; a subclass's ``__torch_function__`` sees the call (either argument)."""
    cls = subclass_among((self, other)) if _Active.subclasses else None
    if cls is not None:
        return cls.__torch_function__(Tensor.module_load, (cls,), (self, other), {"assign": assign})
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def _setstate(self: Tensor, state) -> None:
    """Legacy pickles: ``(data, requires_grad, _, hooks)`` of a Variable or ``(requires_grad, _, hooks)``."""
    if not self.is_leaf:
        raise RuntimeError("__setstate__ can be only called on leaf Tensors")
    if len(state) == 4:  # (storage, offset, size, stride): tinytorch tensors cannot be re-pointed at a storage
        raise NotImplementedError("tinytorch cannot restore a legacy (storage, offset, size, stride) tensor state")
    if len(state) == 5:
        self.data = state[0]
        state = (state[3], state[4], state[2])
    self.requires_grad, _, _ = state


register_attribute("storage_offset", renamed(_storage.storage_offset, "Tensor.storage_offset"))
register_attribute("storage", renamed(_storage.typed_storage, "Tensor.storage"))
register_attribute("untyped_storage", renamed(_storage.untyped_storage, "Tensor.untyped_storage"))
register_attribute("layout", property(lambda self: strided, doc="``tinytorch.strided`` (sparse tensors' classes say "
                                                                 "theirs)."))
register_attribute("is_sparse_csr", False)
register_attribute("itemsize", property(lambda self: self._data.itemsize, doc="Bytes per element."))
register_attribute("nbytes", property(lambda self: self._data.size * self._data.itemsize, doc="Bytes of the elements."))
register_attribute("__contains__", _contains)
register_attribute("as_subclass", as_subclass)
register_attribute("__torch_function__", classmethod(_torch_function))
register_attribute("__setstate__", _setstate)
register_attribute("module_load", renamed(module_load, "Tensor.module_load"))


def _hand_written_methods() -> None:
    """The methods written by hand in tensor.py and its ``_tensor`` files, as PyTorch has them: one it writes in
    C++ (marked ``@parsed``) reads its arguments as the ops' methods do (``x.size(axis=0)``, ``size()`` in its
    errors); one it writes in Python is ``Tensor.X`` in Python's errors, whichever class of ours defines it."""
    package = __name__.partition(".")[0]
    for cls in Tensor.__mro__:
        for name, fn in list(vars(cls).items()):
            if not isinstance(fn, types.FunctionType) or getattr(Tensor, name) is not fn or name.startswith("_") \
                    or not (fn.__module__ == package + ".tensor" or fn.__module__.startswith(package + "._tensor.")):
                continue
            made = parsed_method(fn, name) if getattr(fn, "parsed", False) else renamed(fn, f"Tensor.{name}")
            if made.__code__ is fn.__code__ and name == fn.__name__:  # only its name changes: in place
                fn.__qualname__ = made.__qualname__
            elif made is not fn:  # (an alias: ``ndimension = dim`` has a name of its own)
                register_attribute(name, made)


_hand_written_methods()
