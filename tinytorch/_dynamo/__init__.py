"""``tinytorch._dynamo``: the names of PyTorch's graph compiler that scripts touch on their first lines
(``torch._dynamo.config.suppress_errors = True``, ``torch._dynamo.reset()``, ``@torch._dynamo.disable``,
``torch._dynamo.is_compiling()``). tinytorch runs every op eagerly on numpy and compiles nothing, so the
settings are kept and change nothing, the decorators return what they are given, and ``is_compiling``
answers as PyTorch's eager mode does."""
from __future__ import annotations

from ..compiler import allow_in_graph, assume_constant_result, is_compiling, reset  # noqa: F401
from . import config, eval_frame, utils  # noqa: F401
from .eval_frame import OptimizedModule  # noqa: F401

__all__ = ["allow_in_graph", "assume_constant_result", "config", "disable", "disallow_in_graph", "explain",
           "graph_break", "is_compiling", "list_backends", "mark_dynamic", "mark_static", "maybe_mark_dynamic",
           "optimize", "reset", "OptimizedModule"]


def disable(fn=None, recursive: bool = True, *, reason=None, wrapping: bool = True):
    """``torch._dynamo.disable``: ``fn`` (or, called without it, a decorator) unchanged: nothing is compiled."""
    if fn is None:
        return lambda f: f
    return fn


def graph_break() -> None:
    """A graph break: eager code has no graph to break."""


def mark_dynamic(t, index, *, hint_override=None, min=None, max=None, specialize_on=None) -> None:  # noqa: A002  (PyTorch's names)
    """A hint for the compiler's shape specialisation: nothing to specialise here."""


def maybe_mark_dynamic(t, index) -> None:
    """See ``mark_dynamic``."""


def mark_static(t, index=None) -> None:
    """See ``mark_dynamic``."""


def disallow_in_graph(fn):
    return fn


def optimize(backend="inductor", *, nopython: bool = False, guard_export_fn=None, guard_fail_fn=None,
             disable: bool = False, dynamic=None):
    """``torch._dynamo.optimize(backend)``: a decorator that compiles nothing (``fn`` runs eagerly)."""
    def decorate(fn):
        return fn
    return decorate


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """The compiler backends available: none, as no compiler runs here."""
    return []


def explain(fn, *args, **kwargs):
    raise NotImplementedError("tinytorch._dynamo.explain: tinytorch runs eagerly and traces no graph to explain")
