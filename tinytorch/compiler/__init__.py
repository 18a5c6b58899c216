"""``tinytorch.compiler``: ``torch.compile`` and its switches. The machinery lives in ``tinytorch/_dynamo``, which
loads on the first compile; until then nothing is compiled, so the queries answer as eager mode does."""
from __future__ import annotations

import contextlib
import sys

from .._switches import compile  # noqa: F401

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "reset", "allow_in_graph",
           "assume_constant_result", "set_stance"]

_DYNAMO = __name__.rpartition(".")[0] + "._dynamo"


def is_compiling() -> bool:
    """True while a compiled program is being captured (its first call runs the program under capture)."""
    capture = sys.modules.get(_DYNAMO + ".capture")
    return capture is not None and capture.CAPTURING.capture is not None


is_dynamo_compiling = is_compiling


def disable(fn=None, recursive: bool = True, *, reason=None):
    """``fn`` run eagerly, even when a compiled program calls it (``tinytorch/_dynamo/eval_frame.py``)."""
    from .._dynamo import eval_frame  # the compiler's modules load on first use

    return eval_frame.disable(fn, recursive, reason=reason)


def reset() -> None:
    """Forget every captured graph (as ``torch._dynamo.reset()``)."""
    dynamo = sys.modules.get(_DYNAMO)
    if dynamo is not None:
        dynamo.reset()


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def set_stance(stance: str = "default", *, skip_guard_eval_unsafe: bool = False, force_backend=None):
    """Accepted and ignored; usable as a decorator or context manager."""
    return contextlib.nullcontext()
