"""``tinytorch.jit``: there is no TorchScript here. ``trace`` records a program as an fx graph and ``script``
traces a function or module at each new input signature (``_trace.py``). A traced program's ``.graph``,
``.inlined_graph`` and ``.code`` print PyTorch's TorchScript text, rebuilt from that recording (``_ir.py``; what
it cannot print as PyTorch does it refuses); a scripted program's ``.graph`` and ``.code`` print what PyTorch's
compiler makes of its source, for straight-line code (``_script_ir.py``; refused outside that subset).
``save``/``load`` write and read traced programs in tinytorch's own file (``_serialization.py``).
``ignore``/``unused``/``export`` mark nothing; ``is_scripting()`` is False (scripted code runs as Python)."""
from __future__ import annotations

import builtins

__all__ = ["script", "trace", "trace_module", "ignore", "unused", "export", "is_scripting", "is_tracing",
           "interface", "Final", "annotate", "fork", "wait", "freeze", "optimize_for_inference", "save", "load",
           "ScriptModule", "ScriptFunction", "Attribute", "isinstance"]

import importlib  # noqa: E402
import sys  # noqa: E402

# loaded on first use (``_trace`` builds on fx and nn, which the package's first lines do not need yet)
_LAZY = {**{name: "._trace" for name in ("RecursiveScriptModule", "ScriptFunction", "ScriptModule",
                                         "TopLevelTracedModule", "TracedModule", "TracerWarning",
                                         "TracingCheckError", "script", "trace", "trace_module")},
         "save": "._serialization", "load": "._serialization", "Future": "..futures"}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


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
    """True while ``torch.jit.trace`` records the program calling it."""
    trace_module = sys.modules.get(f"{__name__}._trace")
    if trace_module is None:
        return False
    reads = trace_module._capture._THREAD.reads
    return isinstance(reads, trace_module._Reads) and reads.refuse_values is None


def annotate(the_type, the_value):
    return the_value


class Attribute:
    __module__ = "tinytorch.jit._script"  # PyTorch's module for it

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
