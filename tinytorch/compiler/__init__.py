"""``tinytorch.compiler``: ``torch.compile`` and its switches, over the machinery in ``tinytorch/_dynamo``. Like
``_dynamo``, it loads on first use (``tinytorch.compile`` is found here then)."""
from __future__ import annotations

import contextlib

from .. import _dynamo
from .._dynamo.capture import CAPTURING as _CAPTURING
from .._dynamo.eval_frame import compile  # noqa: F401

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "reset", "allow_in_graph",
           "assume_constant_result", "set_stance"]

def is_compiling() -> bool:
    """True while a compiled program is being captured (its first call runs the program under capture)."""
    return _CAPTURING.capture is not None


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
