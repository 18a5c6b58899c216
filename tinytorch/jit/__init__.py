"""``tinytorch.jit``: there is no TorchScript here. ``script`` and ``trace`` return the function or
module they are given, unchanged, so ``@torch.jit.script`` code runs eagerly with the same results;
``ignore``/``unused``/``export`` mark nothing. ``save``/``load`` of a compiled program cannot work and
raise."""
from __future__ import annotations

import builtins
import warnings

__all__ = ["script", "trace", "trace_module", "ignore", "unused", "export", "is_scripting", "is_tracing",
           "interface", "Final", "annotate", "fork", "wait", "freeze", "optimize_for_inference", "save", "load",
           "ScriptModule", "ScriptFunction", "Attribute", "isinstance"]

_UNSUPPORTED = "tinytorch has no TorchScript: {} needs a compiled program; use tinytorch.save/tinytorch.load"


class ScriptModule:
    """Never produced: ``script`` returns the module itself. Defined so ``isinstance`` checks work."""


class ScriptFunction:
    """Never produced: ``script`` returns the function itself."""


def script(obj=None, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """Returns ``obj`` unchanged (it runs eagerly); warns as PyTorch 2.13 does."""
    warnings.warn("`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=2)
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace: bool = True, check_inputs=None,
          check_tolerance: float = 1e-5, strict: bool = True, _force_outplace: bool = False,
          _module_class=None, _compilation_unit=None, example_kwarg_inputs=None, _store_inputs: bool = True):
    """Returns ``func`` unchanged: no graph is recorded, so data-dependent control flow keeps working."""
    warnings.warn("`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=2)
    return func


def trace_module(mod, inputs, *args, **kwargs):
    return mod


def ignore(drop=False, **kwargs):
    """``@ignore`` or ``@ignore(drop=True)``: the function stays as it is."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def is_scripting() -> bool:
    return False


def is_tracing() -> bool:
    return False


def annotate(the_type, the_value):
    return the_value


class Attribute:
    def __new__(cls, value, type=None):  # noqa: A002 - PyTorch's name
        return value


def isinstance(obj, target_type) -> bool:  # noqa: A001 - torch.jit.isinstance
    return builtins.isinstance(obj, target_type)


class _Future:
    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value


def fork(func, *args, **kwargs):
    """Runs ``func`` now; ``wait`` returns its result."""
    return _Future(func(*args, **kwargs))


def wait(future):
    return future.wait()


def freeze(mod, preserved_attrs=None, optimize_numerics: bool = True):
    return mod


def optimize_for_inference(mod, other_methods=None):
    return mod


def save(m, f, _extra_files=None):
    raise RuntimeError(_UNSUPPORTED.format("jit.save"))


def load(f, map_location=None, _extra_files=None, _restore_shapes: bool = False):
    raise RuntimeError(_UNSUPPORTED.format("jit.load"))


from typing import Final  # noqa: E402,F401  (a typing marker, as in torch.jit)


def _script_if_tracing(fn):
    """``fn`` itself: scripted only under a TorchScript tracer, which tinytorch does not have."""
    return fn


def _overload(func):
    """TorchScript overload declarations: the last definition (the implementation) is what runs."""
    return func


def _overload_method(func):
    return func


def _unwrap_optional(x):
    return x


from . import annotations  # noqa: E402,F401
