"""``torch.overrides``: the ``__torch_function__`` protocol's helpers, as libraries call them.

``has_torch_function`` and ``handle_torch_function`` work as in PyTorch: a function written in Python that
takes tensors asks whether one of its arguments (a Tensor subclass or any object with
``__torch_function__``) wants the call, and hands it over. ``TorchFunctionMode`` exists so that
libraries can subclass it at import (Lightning's ``_EmptyInit``), but entering one refuses: tinytorch has no
mode stack that every ``torch.*`` call consults, and a mode that silently saw nothing would lie.
The tables PyTorch builds of every overridable function refuse too (``get_overridable_functions``...)."""
from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable

from ._C import _disabled_torch_function_impl
from ._ops._core.torch_function import dispatch as _dispatch
from . import fft, linalg, special
from .nn import functional as _functional
from .nn.parameter import Parameter
from .tensor import Tensor

_TENSOR_DEFAULT = Tensor.__torch_function__.__func__

__all__ = ["get_ignored_functions", "get_overridable_functions", "get_testing_overrides", "handle_torch_function",
           "has_torch_function", "resolve_name", "is_tensor_like", "is_tensor_method_or_property",
           "wrap_torch_function", "enable_reentrant_dispatch", "redispatch_function"]

_NO_MODES = ("tinytorch has no torch-function modes: a TorchFunctionMode would have to see every torch.* call, "
             "and tinytorch's ops only look for Tensor subclasses among their arguments")
_NO_TABLES = "tinytorch keeps no table of {} (PyTorch builds it from its C++ bindings)"


def _overrides(arg) -> bool:
    """Whether ``arg`` takes part in ``__torch_function__`` dispatch: any object but a plain Tensor whose class
    has a ``__torch_function__`` other than ``_disabled_torch_function_impl`` (Parameter's), so a Tensor
    subclass with Tensor's default counts, as in PyTorch."""
    cls = type(arg)
    if cls is Tensor:
        return False
    fn = getattr(cls, "__torch_function__", None)
    if fn is None:
        return False
    fn = getattr(fn, "__func__", fn)
    # PyTorch's Parameter sets ``__torch_function__ = _disabled_torch_function_impl``; tinytorch's keeps
    # Tensor's default, which has the same effect on a Parameter
    return fn is not _disabled_torch_function_impl and not (issubclass(cls, Parameter) and fn is _TENSOR_DEFAULT)


def has_torch_function(relevant_args: Iterable) -> bool:
    """True when one of ``relevant_args`` overrides ``__torch_function__`` (and dispatch is not turned off,
    as inside ``torch._C.DisableTorchFunctionSubclass``)."""
    return not _dispatch.depth and any(_overrides(a) for a in relevant_args)


def has_torch_function_unary(arg) -> bool:
    return has_torch_function((arg,))


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


def _overloaded_args(relevant_args: Iterable) -> list:
    """The arguments that override, one per type, a subclass before its parents (PyTorch's order)."""
    out: list = []
    seen: set = set()
    for arg in relevant_args:
        cls = type(arg)
        if cls in seen or not _overrides(arg):
            continue
        seen.add(cls)
        index = len(out)
        for i, other in enumerate(out):
            if issubclass(cls, type(other)):
                index = i
                break
        out.insert(index, arg)
    return out


def handle_torch_function(public_api: Callable, relevant_args: Iterable, *args, **kwargs):
    """Call ``__torch_function__`` on the overriding arguments in turn until one answers something other
    than ``NotImplemented``; TypeError when none does."""
    overloaded = _overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = resolve_name(public_api) or getattr(public_api, "__name__", repr(public_api))
    raise TypeError(f"no implementation found for '{name}' on types that implement __torch_function__: "
                    f"{[type(a) for a in overloaded]}")


def wrap_torch_function(dispatcher: Callable):
    """Decorator: the wrapped function hands its call to ``__torch_function__`` when ``dispatcher(*args,
    **kwargs)`` names an overriding argument."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


def is_tensor_like(inp) -> bool:
    """A Tensor, or an object whose class defines ``__torch_function__``."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def is_tensor_method_or_property(func: Callable) -> bool:
    """Whether ``func`` is one of Tensor's methods or properties (``Tensor.add``, ``Tensor.grad.__get__``)."""
    name = getattr(func, "__name__", None)
    if name is None:
        return False
    attr = Tensor.__dict__.get(name)
    return attr is func or (isinstance(attr, property) and func in (attr.fget, attr.fset, attr.fdel))


def resolve_name(f: Callable) -> str | None:
    """The name PyTorch gives ``f`` (``torch.add``, ``torch.Tensor.add``, ``torch.nn.functional.relu``), or None
    for a function that is not tinytorch's."""
    if is_tensor_method_or_property(f):
        name = f.__name__
        attr = Tensor.__dict__.get(name)
        if isinstance(attr, property):
            return f"torch.Tensor.{name}." + ("__get__" if f is attr.fget else "__set__" if f is attr.fset
                                               else "__delete__")
        return f"torch.Tensor.{name}"
    name = getattr(f, "__name__", None)
    for module, prefix in _NAMESPACES():
        if name is not None and getattr(module, name, None) is f:
            return f"{prefix}.{name}"
    return None


def _NAMESPACES():
    return ((sys.modules[__package__], "torch"), (_functional, "torch.nn.functional"), (linalg, "torch.linalg"),
            (special, "torch.special"), (fft, "torch.fft"))


def enable_reentrant_dispatch():
    raise NotImplementedError("tinytorch has no dispatcher to re-enter: torch.overrides.enable_reentrant_dispatch")


def redispatch_function(*args, **kwargs):
    raise NotImplementedError("tinytorch has no dispatch keys to redispatch to: torch.overrides.redispatch_function")


def get_ignored_functions():
    raise NotImplementedError(_NO_TABLES.format("the functions that ignore __torch_function__"))


def get_overridable_functions():
    raise NotImplementedError(_NO_TABLES.format("overridable functions"))


def get_testing_overrides():
    raise NotImplementedError(_NO_TABLES.format("dummy overrides"))


def get_default_nowrap_functions() -> set:
    """The Tensor attribute getters whose results a ``__torch_function__`` leaves unwrapped (PyTorch's: ``_base``,
    ``grad``, ``_grad``, those of them that are descriptors on tinytorch's Tensor)."""
    found = (getattr(Tensor, name, None) for name in ("_base", "grad", "_grad"))
    return {d.__get__ for d in found if hasattr(d, "__get__") and hasattr(d, "__set__")}


def _get_current_function_mode():
    """None: no torch-function mode is ever active on tinytorch."""
    return None


def _get_current_function_mode_stack() -> list:
    return []


class TorchFunctionMode:
    """PyTorch's base class of torch-function modes. Subclassing it works; entering a mode raises
    NotImplementedError (see the module's docstring)."""

    def __init__(self, *args, **kwargs):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError()

    def __enter__(self):
        raise NotImplementedError(f"{type(self).__name__}: {_NO_MODES}")

    def __exit__(self, *exc):
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        raise NotImplementedError(f"{cls.__name__}.push: {_NO_MODES}")


class BaseTorchFunctionMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
