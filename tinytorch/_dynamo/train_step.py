"""Whole training steps compiled: ``backward()``, ``optimizer.step()`` and ``zero_grad()`` inside a compiled program.

These three change tensors below the ops (the engine accumulates into ``.grad``, an optimizer writes its arrays in
place, ``zero_grad`` drops or zeroes ``.grad``), so no graph of ops can hold them. PyTorch's dynamo breaks the graph
at ``backward()`` and runs what follows as graphs of its own; here the capture keeps each of them as a *call*
(``StepCall``), in the order the program made them, and a replay runs:

  1. the ``zero_grad`` calls made before the first ``backward()`` or ``step()`` (they touch ``.grad`` only, which
     the forward does not read);
  2. the captured graph (replayed as any other, through the one ``CompiledFunctionBackward`` node), whose outputs
     include each ``backward()``'s loss;
  3. the other calls, in order: ``loss.backward()`` on the replayed loss (the backward plan run and ``.grad``
     accumulated as the engine does it, ``step_plan.py``), ``opt.step()``, ``zero_grad()``; a step ending
     ``backward``, plain SGD's ``step``, ``zero_grad`` runs the three as one backward plan that updates the weights
     (``step_plan.FusedSgd``).

Each optimizer or module is found anew at each call through the name the program reached it by (a global, a
closure variable, the compiled method's ``self``, an argument, or an attribute or item of one of those), guarded by
identity, so its state is its own at each step: a learning rate changed in ``param_groups``, its step count, its
momentum buffers. Every op runs with its own formula and path, so the losses, gradients and parameters are eager's,
bit for bit.

What a step may do for this (anything else breaks the graph: the call runs eagerly): ``backward()`` of a scalar
result with its implicit gradient (no ``gradient``, ``create_graph`` or ``inputs``); ``step()`` without a closure;
no op after the first ``backward()`` or ``step()`` (gradient clipping, a second forward read what those wrote)."""
from __future__ import annotations

from ..autograd.grad_mode import _State
from ..fx.experimental import _capture as _fx_capture
from ..nn.modules.module import Module
from .step_plan import backward_inline

__all__ = ["StepCall", "StepCalls", "watching"]

_BACKWARD = "Unsupported Tensor.backward() call"


class StepCall:
    """One call the program made below the ops: ``backward`` of the graph's output ``output``, or ``name``
    (``step``, ``zero_grad``) of the object ``read(leaves)`` gives, with ``args``."""

    def __init__(self, name: str, read=None, args: tuple = (), output: int | None = None, retain=None):
        self.name, self.read, self.args, self.output, self.retain = name, read, args, output, retain

    def run(self, leaves: list, outputs: list) -> None:
        if self.name == "backward":
            loss = outputs[self.output]
            if not backward_inline(loss, self.retain):  # (step_plan.py: the engine's walk of this graph, inline)
                loss.backward(retain_graph=self.retain)
        else:
            getattr(self.read(leaves), self.name)(*self.args)


class StepCalls:
    """The calls one capture met, and where it stood in the recording at each (see the module's docstring)."""

    def __init__(self, capture, fn, leaves: list, owner: Module | None, find):
        self.capture = capture
        self.fn, self.leaves, self.owner = fn, leaves, owner
        self.find = find  # find(obj, fn): (name, reader) of obj among fn's globals and closure (capture.find_named)
        self.calls: list = []   # (StepCall, ops recorded before it, the loss's node for a backward)
        self.seeds: list = []   # the recorded ones_like seeds of the backward() calls (no graph output reads them)
        self.guards: dict = {}  # id(object) -> (name, reader): the objects found through a name, guarded by identity

    # -- while the capture runs --
    def backward(self, args: tuple, kwargs: dict) -> bool:
        """The engine's ``_execute(*args, **kwargs)`` for a ``backward()``: kept as a call where it is a plain
        ``loss.backward()`` of a recorded loss, else a graph break."""
        rec = self.capture.rec
        edges, grads, retain, create = args[:4]
        seed = rec.nodes.get(id(grads[0])) if len(edges) == 1 and grads[0] is not None else None
        plain = (not create and kwargs.get("restrict") is None and not kwargs.get("user_grads")
                 and seed is not None and getattr(seed.target, "__name__", "") == "ones_like.default")
        if not plain:
            self.capture.graph_break(_BACKWARD, "backward")
            return False
        self.seeds.append(seed)
        self.calls.append((StepCall("backward", retain=retain), len(rec.calls), seed.args[0]))
        return True

    def watch(self, obj, name: str, run, args: tuple):
        """An optimizer's ``step``/``zero_grad`` or a module's ``zero_grad`` (``_State.step_watch``): run it,
        unrecorded, and keep it as a call. (``run`` None: a ``.grad`` assigned, a graph break.)"""
        if run is None:  # a tensor's .grad assigned by the program itself: no replay would assign it again
            self.capture.graph_break("a tensor's .grad assigned in the compiled program", "step")
            return None
        rec = self.capture.rec
        read = self._reader(obj)
        if read is None or (name == "step" and any(a is not None for a in args)):
            what = "an optimizer's step with a closure" if read is not None else \
                f"{type(obj).__name__}.{name} of an object the compiled program reached other than by a name"
            self.capture.graph_break(f"Unsupported call below the ops: {what}", "step")
        else:
            self.calls.append((StepCall(name, read, args), len(rec.calls), None))
        with _fx_capture.paused():  # what it runs inside (an optimizer's hooks) is its own: neither recorded nor kept
            return run()

    def _reader(self, obj):
        """``read(leaves)`` giving ``obj`` at a later call, or None where the program reached it by no name."""
        if obj is self.owner:
            return lambda leaves: self.owner
        for i, leaf in enumerate(self.leaves):
            if leaf is obj:  # an argument: the guard compares it with the captured one
                return lambda leaves, i=i: leaves[i]
        found = self.find(obj, self.fn)
        if found is None:
            return None
        name, read = found
        self.guards[id(obj)] = (name, read)
        return lambda leaves: read()

    # -- when the capture ends --
    def split(self, n_ops: int):
        """``(before, after)``: the calls to make before the graph and after it; None where an op was recorded
        after a backward or a step (a graph break is noted)."""
        first = next((k for k, (c, _, _) in enumerate(self.calls) if c.name != "zero_grad"), len(self.calls))
        if any(ops != n_ops for _, ops, _ in self.calls[first:]):
            self.capture.graph_break("an op after backward() or an optimizer's step() in the compiled program",
                                     "step")
            return None
        return [c for c, _, _ in self.calls[:first]], [c for c, _, _ in self.calls[first:]]


def watching(calls: StepCalls | None):
    """Set ``_State.step_watch`` to ``calls.watch`` for the capture (None: no capture of a step)."""
    _State.step_watch = calls.watch if calls is not None else None
