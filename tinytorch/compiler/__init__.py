"""``tinytorch.compiler``: no compiler runs here (tinytorch executes eagerly on numpy), so the
queries answer as PyTorch's eager mode does and the decorators return what they are given."""
from __future__ import annotations

import contextlib

from .._switches import compile  # noqa: F401

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "reset", "allow_in_graph",
           "assume_constant_result", "set_stance"]


def is_compiling() -> bool:
    """False: nothing is ever being traced by a compiler here."""
    return False


is_dynamo_compiling = is_compiling


def disable(fn=None, recursive: bool = True, *, reason=None):
    """Marks ``fn`` as not to be compiled: it already is not, so ``fn`` itself (or a decorator)."""
    if fn is None:
        return lambda f: f
    return fn


def reset() -> None:
    """Clears compilation caches: there are none."""


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def set_stance(stance: str = "default", *, skip_guard_eval_unsafe: bool = False, force_backend=None):
    """Accepted and ignored (eager execution has one stance); usable as a decorator or context manager."""
    return contextlib.nullcontext()
