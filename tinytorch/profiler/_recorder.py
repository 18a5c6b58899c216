"""The recorder behind ``profile``: while a profile records in a thread, every op the thread calls becomes a
``FunctionEvent`` under PyTorch's ATen name, with its input shapes and the nested ATen calls PyTorch's dispatcher
makes for it (``_aten.py``).

Ops reach the recorder two ways, and nothing is patched while no profile records:
  - a public function (``torch.X``, ``F.X``, ``torch.linalg.X``...) asks the registry's hook
    (``registry.bind_profiler``) when ``_Active.profiler`` is set and its thread's ``_State.recorder`` is not None;
  - methods and operators (``x.relu_()``, ``out += y``) are the ops' own implementations on ``Tensor``, with no
    wrapper to ask: while any profile records, ``instrument`` puts a recording wrapper in their place (the other
    threads' calls go straight through it) and ``restore`` puts them back when the last profile stops.

While an op runs, its thread's recorder is None: the ops it calls inside are its own business, and the rows PyTorch
shows for them (``aten::convolution`` under ``aten::conv2d``) come from the op's entry in ``_aten.RULES``."""
from __future__ import annotations

import threading
import time

from .._ops._core import registry as _registry
from ..autograd.grad_mode import _Active, _State
from ..autograd.profiler_util import FunctionEvent
from . import _aten


class Recorder:
    """One thread's recording for one profile: its events in the order they started, the ranges still open."""

    def __init__(self, record_shapes: bool):
        self.record_shapes = record_shapes
        self.t0 = time.perf_counter_ns()
        self.thread = threading.get_ident()
        self.events: list = []
        self.open: list = []

    def now_us(self) -> float:
        return (time.perf_counter_ns() - self.t0) / 1e3

    def begin(self, name, shapes=None, user: bool = False) -> FunctionEvent:
        """Open a range now, inside the innermost one still open."""
        start = self.now_us()
        event = self._event(name, shapes, user, start, start, self.open[-1] if self.open else None)
        self.open.append(event)
        return event

    def _event(self, name, shapes, user, start, end, parent) -> FunctionEvent:
        event = FunctionEvent(len(self.events) + 1, name, self.thread, start, end, shapes, user)
        if parent is not None:
            event.cpu_parent = parent
            parent.cpu_children.append(event)
        self.events.append(event)
        return event

    def end(self, event: FunctionEvent, end: float | None = None) -> None:
        event.time_range.end = self.now_us() if end is None else end
        if self.open and self.open[-1] is event:
            self.open.pop()
        elif event in self.open:  # a record_function left out of order
            self.open.remove(event)

    def add_calls(self, nodes, parent, start: float, end: float) -> None:
        """The nested ATen calls (``_aten`` nodes) of an op that ran as one computation, within [start, end]: a
        node that computes spans the range, the others (allocations, views) take no time, at its start."""
        spanned = False
        for name, shapes, children, computes in nodes:
            computes = computes and not spanned  # one computation: only one row of each level carries its time
            spanned = spanned or computes
            event = self._event(name, shapes if self.record_shapes else [], False, start, end if computes else start,
                                parent)
            self.add_calls(children, event, start, end if computes else start)


def run(recorder: Recorder, fn, decl, spelling: str, args, kwargs):
    """``fn(*args, **kwargs)``, recorded as the op ``decl`` called by ``spelling``."""
    event = recorder.begin(None)
    _State.recorder = None
    try:
        out = fn(*args, **kwargs)
    except BaseException:
        _State.recorder = recorder
        recorder.end(event)
        event.name = _aten.base_name(decl, spelling)
        raise
    recorder.end(event)
    try:
        call = _aten.describe(decl, spelling, args, kwargs, out)
    finally:
        _State.recorder = recorder
    if call is None:  # a call PyTorch answers before its dispatcher (x.contiguous() of a contiguous x)
        recorder.events.remove(event)
        if event.cpu_parent is not None:
            event.cpu_parent.cpu_children.remove(event)
        return out
    event.name, shapes, children = call[0], call[1], call[2]
    event.input_shapes = shapes if recorder.record_shapes else []
    end = event.time_range.end
    recorder.add_calls(children, event, event.time_range.start, end)
    if len(call) > 3:  # calls PyTorch makes after this one, beside it
        recorder.add_calls(call[3], event.cpu_parent, end, end)
    return out


def _public_hook(public, decl, args, kwargs):
    return run(_State.recorder, public, decl, decl.name, args, kwargs)


_registry.bind_profiler(_public_hook)

def _recording_method(decl, spelling: str, fn):
    def method(*args, **kwargs):
        recorder = _State.recorder
        if recorder is None:
            return fn(*args, **kwargs)
        return run(recorder, fn, decl, spelling, args, kwargs)

    method.__name__, method.__qualname__, method.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    method.__wrapped__ = fn
    return method


_methods = _registry.MethodSwap(_recording_method)  # the Tensor spellings, wrapped while profiles record


def instrument() -> None:
    """Swap every declared op's Tensor spellings for recording wrappers (once, for the first profile)."""
    if not _methods.swapped:
        _methods.on()


def restore() -> None:
    _methods.off()


def start(recorder: Recorder) -> None:
    if _State.recorder is not None:
        raise RuntimeError("Can't profile: a profiler is already enabled on this thread")
    if not _Active.profiler:
        instrument()
    _Active.count("profiler", 1)
    _State.recorder = recorder


def stop(recorder: Recorder) -> None:
    if _State.recorder is not recorder:
        return
    _State.recorder = None
    _Active.count("profiler", -1)
    if not _Active.profiler:
        restore()
