"""``tinytorch._dynamo``: the machinery behind ``torch.compile``, one idea per file:

  - ``capture.py``: the first call runs the program eagerly while the op-level recording writes its graph,
    noting what a graph cannot hold (graph breaks);
  - ``guards.py``: when a captured graph may be replayed for a new call;
  - ``compiled_function.py``: the one ``CompiledFunctionBackward`` node a replayed call's results hang from;
  - ``eval_frame.py``: the compiled callable's cache of guarded graphs, recompiles and their limit, ``disable``
    and ``OptimizedModule``;
  - ``train_step.py``: a whole training step compiled: ``backward()``, ``opt.step()`` and ``zero_grad()`` kept as
    calls each replay makes again around the graph;
  - ``debugging.py``: ``explain``.

Also the names scripts touch on their first lines (``torch._dynamo.config.suppress_errors = True``,
``torch._dynamo.reset()``, ``torch._dynamo.is_compiling()``)."""
from __future__ import annotations

from . import config, eval_frame, exc, utils  # noqa: F401
from .capture import CAPTURING as _CAPTURING
from .backends import list_backends, register_backend  # noqa: F401
from .debugging import explain  # noqa: F401
from .eval_frame import OptimizedModule, disable  # noqa: F401

__all__ = ["allow_in_graph", "assume_constant_result", "config", "disable", "disallow_in_graph", "explain",
           "graph_break", "is_compiling", "list_backends", "register_backend", "mark_dynamic", "mark_static",
           "maybe_mark_dynamic", "optimize", "reset", "OptimizedModule"]


def reset() -> None:
    """Forget every compiled callable's captured graphs: each captures again at its next call."""
    eval_frame.reset_caches()


def is_compiling() -> bool:
    """True while a compiled program is being captured (its first call), as PyTorch's answers while tracing."""
    return _CAPTURING.capture is not None


def graph_break() -> None:
    """A graph break where it is called: the compiled call runs eagerly (``fullgraph=True`` raises)."""
    cap = _CAPTURING.capture
    if cap is not None:
        cap.graph_break("Call to `torch._dynamo.graph_break()`", "graph_break")


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def mark_dynamic(t, index, *, hint_override=None, min=None, max=None, specialize_on=None) -> None:  # noqa: A002  (PyTorch's names)
    """A hint for the compiler's shape specialisation: accepted; guards decide sizes (``guards.py``)."""


def maybe_mark_dynamic(t, index) -> None:
    """See ``mark_dynamic``."""


def mark_static(t, index=None) -> None:
    """See ``mark_dynamic``."""


def disallow_in_graph(fn):
    return fn


def optimize(backend="inductor", *, nopython: bool = False, guard_export_fn=None, guard_fail_fn=None,
             disable: bool = False, dynamic=None):
    """``torch._dynamo.optimize(backend)``: a decorator compiling as ``torch.compile`` does."""
    def decorate(fn):
        if disable:
            return fn
        return eval_frame.compile(fn, fullgraph=nopython, dynamic=dynamic, backend=backend)
    return decorate
