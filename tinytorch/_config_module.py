"""PyTorch's compiler settings modules (``torch._dynamo.config``, ``torch._inductor.config``): a module of named
settings with PyTorch's defaults, and ``patch`` to change some for a block or a function.

Reading a name the module does not hold is an AttributeError in PyTorch's words. Setting one is accepted and kept:
PyTorch has hundreds of settings more than tinytorch lists, and libraries set them before compiling; tinytorch's
compiler reads only the few its modules say, so the others change nothing either way.

``install(name)`` turns a module whose body bound the settings into such a module; ``section(qualname,
**defaults)`` makes a nested group (``torch._inductor.config.triton.cudagraphs``)."""
from __future__ import annotations

import __future__
import contextlib
import sys
import types

__all__ = ["install", "section"]

_UNSET = object()


def _missing(owner: str, name: str) -> AttributeError:
    if owner.startswith("tinytorch."):
        owner = "torch." + owner[len("tinytorch."):]  # PyTorch's text names its own module
    return AttributeError(f"{owner}.{name} does not exist")


class _Section:
    """A group of settings inside a config module (``triton``, ``cpp``)."""

    def __init__(self, qualname: str, defaults: dict):
        object.__setattr__(self, "_qualname", qualname)
        for k, v in defaults.items():
            object.__setattr__(self, k, v)

    def __getattr__(self, name):
        raise _missing(self._qualname, name)


def section(qualname: str, **defaults) -> _Section:
    return _Section(qualname, defaults)


class _Patch(contextlib.ContextDecorator):
    """The changes of ``patch``, applied on entry and undone on exit (or around each call of a function)."""

    def __init__(self, module, changes: dict):
        self.module, self.changes, self.saved = module, changes, []

    def __enter__(self):
        saved = []
        for name, value in self.changes.items():
            owner, last = self.module._owner_of(name)
            saved.append((owner, last, owner.__dict__.get(last, _UNSET)))
            setattr(owner, last, value)
        self.saved.append(saved)
        return self

    def __exit__(self, *exc):
        for owner, last, value in reversed(self.saved.pop()):
            if value is _UNSET:
                delattr(owner, last)
            else:
                setattr(owner, last, value)
        return False


class ConfigModule(types.ModuleType):
    def __getattr__(self, name):
        raise _missing(self.__name__, name)

    def _owner_of(self, dotted: str):
        """The object holding setting ``dotted`` (``"triton.cudagraphs"``) and its last name."""
        *parts, last = dotted.split(".")
        owner = self
        for part in parts:
            owner = getattr(owner, part)
        return owner, last

    def patch(self, arg1=None, arg2=None, **kwargs):
        """``with config.patch(name=value, ...)``, ``config.patch("a.b", value)``, ``config.patch({"a.b": value})``
        or ``@config.patch(...)``: the settings changed inside, restored after."""
        if arg1 is not None:
            if kwargs:
                raise AssertionError("cannot pass both positional and keyword arguments to patch")
            changes = {arg1: arg2} if isinstance(arg1, str) else dict(arg1)
        else:
            changes = kwargs
        return _Patch(self, changes)

    def get_config_copy(self) -> dict:
        """The settings' current values (the sections' as dicts)."""
        out = {}
        for name, value in vars(self).items():
            if (name.startswith("_") or callable(value) or isinstance(value, (types.ModuleType, __future__._Feature))):
                continue  # the module's functions, imports and ``from __future__`` names are no settings
            out[name] = dict((k, v) for k, v in vars(value).items() if not k.startswith("_")) if isinstance(
                value, _Section) else value
        return out


def install(name: str) -> None:
    """Make module ``name`` (whose body has run) a config module."""
    sys.modules[name].__class__ = ConfigModule
