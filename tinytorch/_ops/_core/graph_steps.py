"""What a graph capture shows in place of an op's step: registered by the capture, bound while one runs.

PyTorch's tracers (make_fx, export, torch.compile, jit.trace) see the operators its dispatcher runs: GELU's
gradient is the one operator ``aten.gelu_backward``, where tinytorch's node computes the formula in tensor ops or
on arrays. The op files never ask whether a capture runs; the capture package says what it shows instead
(``tinytorch/fx/experimental/_graph_steps.py``, beside its other rules), in one of two forms:

- ``backward(NodeClass)``: ``fn(node, *grads)``, the node's gradients as the capture records them, or None
  where the node's own backward is what PyTorch's graph shows too;
- ``step(module, name)``: a step an op file calls by a module-level name (``scatter_gather._zeros_scatter``),
  as ``fn(step, *args, **kwargs)``: ``step`` is the op file's own, for the capture to call, wrap or replace
  (``within_ops=True``: inside the op being recorded too, for what the graph shows beside that op's node:
  ``inplace._on_copy``, the copy an in-place op's node keeps, a clone in PyTorch's graph).

Nothing is bound until a capture starts (``bind``, called by ``_capture.capturing`` in fx/experimental), so the op
files run as written, at no cost. While any capture runs, each registered function stands where what it replaces
stood and acts only where ``capturing()`` holds (this thread records, and not inside an op being recorded); elsewhere
(another thread, an op's own inner calls) what it replaced runs. ``unbind`` puts everything back when the last
capture ends. This is the second layer's mechanism (``paths.py``: PyTorch's CPU paths registered from
``tinytorch/_cpu``) used by the capture: the idea of an op in its file, what a transformation needs registered
onto it from the transformation's side."""
from __future__ import annotations

from dataclasses import dataclass

from .registry import CAPTURE, capturing

__all__ = ["STEPS", "Step", "backward", "step", "bind", "unbind"]


@dataclass
class Step:
    """One registration: the class or module whose attribute ``name`` the capture replaces, and by what."""
    owner: object
    name: str   # "backward" for a node class
    fn: object
    kind: str   # "backward", "step" or "step_within" (inside a recorded op too)
    saved: object = None  # while bound: what ``owner.__dict__`` held there (_ABSENT: it was inherited)

    @property
    def where(self) -> str:
        code = getattr(self.fn, "__code__", None)
        return f"{self.fn.__module__}:{code.co_firstlineno}" if code else self.fn.__module__


STEPS: list = []
_ABSENT = object()


def backward(node_cls):
    """Register the decorated ``fn(node, *grads)`` as ``node_cls``'s backward while a capture records."""
    def register(fn):
        STEPS.append(Step(node_cls, "backward", fn, "backward"))
        return fn
    return register


def step(module, name: str, *, within_ops: bool = False):
    """Register the decorated ``fn(step, *args, **kwargs)`` as ``module.<name>`` while a capture records;
    ``within_ops``: wherever a capture runs, inside an op being recorded too (a step of the recorded op itself,
    which its graph shows beside the op's node: an in-place op's copy of its input); ``fn`` then asks whether
    this thread records."""
    getattr(module, name)  # (a misspelt step fails here, at import, not at the first capture)

    def register(fn):
        STEPS.append(Step(module, name, fn, "step_within" if within_ops else "step"))
        return fn
    return register


def _as_backward(fn, before):
    def backward(self, *grads):
        if capturing():
            out = fn(self, *grads)
            if out is not None:
                return out
        return before(self, *grads)
    backward.__wrapped__ = before
    return backward


def _as_step(fn, before):
    def run(*args, **kwargs):
        if capturing():
            return fn(before, *args, **kwargs)
        return before(*args, **kwargs)
    run.__wrapped__ = before
    return run


def _as_step_within(fn, before):
    def run(*args, **kwargs):
        if CAPTURE[0] is not None:  # a capture runs (fn asks whether this thread records), inside an op or not
            return fn(before, *args, **kwargs)
        return before(*args, **kwargs)
    run.__wrapped__ = before
    return run


def bind() -> None:
    """Put every registered function in place (the first capture starts)."""
    for s in STEPS:
        s.saved = vars(s.owner).get(s.name, _ABSENT)
        before = getattr(s.owner, s.name)
        wrap = {"backward": _as_backward, "step": _as_step, "step_within": _as_step_within}[s.kind]
        setattr(s.owner, s.name, wrap(s.fn, before))


def unbind() -> None:
    """Put back what every registered function replaced (the last capture ended)."""
    for s in reversed(STEPS):
        if s.saved is _ABSENT:
            delattr(s.owner, s.name)
        else:
            setattr(s.owner, s.name, s.saved)
        s.saved = None
