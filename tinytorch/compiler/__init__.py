"""``tinytorch.compiler``: ``torch.compile`` and its switches, over the machinery in ``tinytorch/_dynamo``. Like
``_dynamo``, it loads on first use (``tinytorch.compile`` is found here then)."""
from __future__ import annotations

import contextlib

from .. import _dynamo
from .._dynamo.capture import CAPTURING as _CAPTURING
from .._dynamo.eval_frame import compile  # noqa: F401

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "is_exporting", "reset", "allow_in_graph",
           "assume_constant_result", "set_stance", "list_backends", "set_default_backend", "get_default_backend",
           "cudagraph_mark_step_begin"]

def is_compiling() -> bool:
    """True while a compiled program is being captured (its first call runs the program under capture), or
    while torch.export runs one."""
    return _CAPTURING.capture is not None or is_exporting()


def is_exporting() -> bool:
    """True while ``torch.export.export`` runs the program to record it."""
    import sys

    export = sys.modules.get(f"{__package__.rpartition('.')[0]}.export")
    return export is not None and export.EXPORTING.depth > 0


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """The backend names ``torch.compile`` accepts (``torch._dynamo.list_backends``)."""
    return _dynamo.list_backends(exclude_tags)


def set_default_backend(backend) -> None:
    """The backend ``torch.compile`` uses when given none (None: ``"inductor"`` again)."""
    _dynamo.backends.set_default(backend)


def get_default_backend():
    """The backend ``torch.compile`` uses when given none (``"inductor"`` unless set)."""
    return _dynamo.backends.default()


def cudagraph_mark_step_begin() -> None:
    """Marks the start of a step for CUDA graphs; tinytorch runs on the CPU, where nothing is recorded."""


is_dynamo_compiling = is_compiling


def disable(fn=None, recursive: bool = True, *, reason=None):
    """``fn`` run eagerly, even when a compiled program calls it (``tinytorch/_dynamo/eval_frame.py``)."""
    return _dynamo.disable(fn, recursive, reason=reason)


def reset() -> None:
    """Forget every captured graph (as ``torch._dynamo.reset()``)."""
    _dynamo.reset()


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def set_stance(stance: str = "default", *, skip_guard_eval_unsafe: bool = False, force_backend=None):
    """Accepted and ignored; usable as a decorator or context manager."""
    return contextlib.nullcontext()
