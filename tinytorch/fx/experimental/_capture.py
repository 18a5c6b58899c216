"""The graph capture that ``make_fx``, ``torch.export``, ``torch.jit.trace``/``script`` and ``torch.compile`` share:
run a program once and record every op it runs as an fx graph of PyTorch's ATen operators
(``torch.ops.aten.mul.Tensor``, ``aten.addmm.default``...), and watch what the program reads from its tensors into
Python. Each of them builds its own recording on ``Recording`` and its own answer to a read on ``Reads``, as
siblings; none builds on another's.

How it works, in four pieces:
  1. **One hook at the op declarations.** Every declared op's public function (``_ops/_core/registry.py``) asks
     ``CAPTURE[0]`` first; while no capture runs that is None and the ask is one flag test. While one runs it holds
     this module's per-thread state ``_THREAD``, whose ``hook`` is the recording function in the capturing thread
     (None elsewhere). Methods and operators (``x * y``, ``x.relu()``) are the ops' own functions on ``Tensor``
     with nothing to ask, so for the capture's length ``_methods`` (the registry's ``MethodSwap``) puts a recording
     wrapper in their place, as the profiler does.
  2. **The op runs, then is written down.** ``_run`` clears the thread's hook (the ops an op calls inside are
     its own business), runs the op, and hands the call to its rule (``_aten_rules.py``), which adds the ATen node(s)
     PyTorch's dispatcher would have shown: ``F.linear`` on a 2-d input becomes ``t`` then ``addmm``. Tensors are
     known by identity: ``Recording.nodes`` maps each tensor met so far to the node that made it (a placeholder
     for an input); a tensor it does not know (a module's weight read inside the program) becomes an attribute of
     the graph module (``_param_constant0``, ``_tensor_constant0``).
  3. **What the program reads.** A tensor's value read into Python (``x.item()``, ``if x.sum() > 0``) or its size
     (``x.shape``, ``len(x)``) is told to the capture's ``Reads`` (``watching``), in the program's own code only
     (an op reading its operands is the op's business): jit.trace warns, script and export refuse, torch.compile
     breaks the graph or pins the shapes.
  4. **The graph becomes a module.** ``GraphModule`` (``tinytorch/fx``) writes its ``forward`` as Python, whose
     calls ``torch.ops.aten.<op>.<overload>`` run tinytorch's ops again.

``make_fx`` (``proxy_tensor.py``) records below autograd, as PyTorch's dispatcher shows the ops; ``torch.export``,
``jit`` and ``torch.compile`` record one level up (``predispatch``: the ops as the Python API called them,
``aten.linear.default``)."""
from __future__ import annotations

import contextlib
import inspect
import operator
import os
import sys
import threading
import traceback

import numpy as np

from ... import _meta
from ..._ops.creation import factory as _factory
from ..._ops._core.members import strided as _strided
from ..._ops.shape.conversions import preserve_format as _preserve
from ..._op_namespace import ops
from ..._ops._core import graph_steps as _graph_steps, paths as _paths, registry as _registry
from ..._ops._core.registry import REGISTRY
from ..._symbolic import _Symbolic, concrete, has_symbols
from ...autograd import engine as _engine
from ...autograd.engine import _ones_seed
from ...autograd.grad_mode import _State
from ...autograd.node import _SavedOutput
from ...nn.parameter import Parameter
from ...tensor import Tensor, _make, register_attribute
from .. import graph as _graph
from ..graph import Graph
from . import _aten_rules, _graph_steps as _capture_steps  # noqa: F401 (registers the capture's steps)

__all__ = ["Recording", "Reads", "capturing", "paused", "watching", "PACKAGE"]


class _Thread(threading.local):
    hook = None         # the recording function while this thread captures (None inside an op being recorded)
    recording = None    # this thread's Recording
    first_arg = None    # the first argument of the op being recorded (an in-place op's tensor)
    reads = None        # the Reads told of what the program in this thread reads from its tensors (watching)

    def unhooked(self, fn, args, kwargs):
        """``fn(*args, **kwargs)`` with this thread's recording off (the ops a recorded call runs are not its nodes)."""
        hook, self.hook = self.hook, None
        try:
            return fn(*args, **kwargs)
        finally:
            self.hook = hook

    def op(self, overload, args, kwargs):
        """A ``torch.ops.<ns>.<op>`` operator (``tinytorch.library``) called while capturing: one node."""
        out = self.unhooked(overload, args, kwargs)
        self.recording.record_op(overload, args, kwargs, out)
        return out

    def saved_copy(self, original: Tensor, copy: Tensor) -> None:
        """An in-place op's node keeps ``copy``, ``original``'s value before the write: PyTorch's graph clones
        the original self there (not in export's pre-dispatch graph, which records the in-place call only)."""
        rec = self.recording
        if rec is not None and not rec.predispatch and original is self.first_arg:  # (not an op's own helper)
            rec.bind(copy, rec.call("clone.default", original))

    def aten(self, name: str, fn, args, kwargs):
        """An ATen operator tinytorch declares for its graphs (``registry.aten_only(..., recorded=True)``, a
        backward formula's own operator): one node ``aten.<name>.default``, the ops inside it unrecorded."""
        if _registry.META_ON[0]:  # fake or meta operands: run as the declared ops run on them (on zeros where the
            # code reads values)
            out = self.unhooked(_meta._meta_call, (fn, name, False, args, kwargs), {})
        else:
            out = self.unhooked(fn, args, kwargs)
        self.recording.record_aten(f"{name}.default", args, kwargs, out)
        return out


_THREAD = _Thread()
_active = [0]           # captures running, in all threads
_lock = threading.Lock()


class Recording:
    """One capture: the graph being built and the tensor -> node map that connects its nodes. make_fx and export
    record with it as it is; jit and torch.compile each build their own on it (``python_indexing``)."""

    # indexing kept as Python's ``x[key]`` and ``x[key] = value`` (``operator.getitem`` and ``setitem`` nodes
    # running tinytorch's indexing again), where the ATen rules have no decomposition: jit's and torch.compile's
    python_indexing = False

    def __init__(self, predispatch: bool = False):
        self.graph = Graph()
        self.predispatch = predispatch
        self.nodes: dict = {}      # id(tensor) -> the node that stands for it
        self.held: list = []       # the tensors in ``nodes``, kept alive so that no other tensor takes their id
        self.constants: dict = {}  # attribute name -> tensor, for the get_attr nodes of unknown tensors
        self.constant_name = None  # export: names a module's parameters and buffers (see tinytorch/export)
        self.calling = None        # the function or method the program called for the op being recorded
        # export's run_decompositions: the ops outside PyTorch's core ATen opset written as its decompositions
        # write them (``t`` as ``permute``, ``squeeze`` as ``squeeze.dims``, ``sum()`` as ``sum.dim_IntList``)
        self.core_aten = False
        self.fake_mode = None      # make_fx's fake tracing: a real tensor's value shown as its fake
        # id(array) -> (array, its detach node), for the outputs a node saved: a backward run in the capture
        # unpacks them as new tensors over the same array, shown as PyTorch shows them (a detach of the detach)
        self.saved_outputs: dict = {}
        self.by_storage: dict = {}  # id of a recorded tensor's array -> (the array, its node)
        self.in_backward = 0          # autograd's engine runs inside the captured program (autograd.grad, backward)
        self.in_composite = 0         # an ATen C++ composite's parts are recording (_aten_rules.Parts.cpp)
        self.strict_backward = False  # make_fx: a gradient computed below the ops refuses instead of freezing
        self.unbacked = None          # export: the values read from tensors as symbols (export/_unbacked.py)
        self.scattered = None         # export's run_decompositions: a view whose write it scatters into the base
        self.metadata_checks = False  # export: each ``to`` as called, after an ``_assert_tensor_metadata`` of its input

    def accumulating_backward(self, args: tuple, kwargs: dict) -> bool:
        """``backward()`` ran inside the captured program (the engine's ``_execute(*args, **kwargs)``): the
        gradients it accumulates into ``.grad`` are written below the ops, so no graph holds them. make_fx
        refuses; torch.compile's capture keeps it as a call to make again at each replay (True: its ops are not
        recorded) or breaks the graph there."""
        if self.strict_backward:
            raise NotImplementedError(
                "make_fx cannot trace backward(): the gradients it accumulates into .grad are not recorded; "
                "compute them with torch.autograd.grad inside the traced function")
        return False

    # -- tensors and nodes --
    def bind(self, t: Tensor, node) -> None:
        self.nodes[id(t)] = node
        self.held.append(t)
        self.by_storage[id(t._data)] = (t._data, node)
        if self.fake_mode is not None and not t._meta:  # a real tensor read by a fake trace: its fake
            node.meta["val"] = self.fake_mode.from_tensor(t)
        else:  # (a Parameter's value, as a plain tensor)
            node.meta["val"] = t if type(t) is Tensor or t._meta else _make(t._data)

    def node(self, value):
        """The graph argument for ``value``: a tensor's node, the same for the tensors inside a list."""
        if isinstance(value, Tensor):
            node = self.nodes.get(id(value))
            if node is None:
                saved = self.saved_outputs.get(id(value._data))
                if saved is not None and saved[0] is value._data:  # a backward's unpacked saved output
                    node = self.graph.create_node("call_function", ops.aten.detach.default, (saved[1],),
                                                  name="detach")
                    self.bind(value, node)
                    return node
                held = self.by_storage.get(id(value._data)) if self.in_backward else None
                if held is not None and held[0] is value._data:
                    # in a backward, another Tensor object on a recorded tensor's very array: a saved value the
                    # formula unpacked anew (PyTorch's proxy sits on the shared TensorImpl, so its tracer sees
                    # one); outside a backward such a tensor (``x.data``) stays what it is: not x's node
                    self.nodes[id(value)] = held[1]
                    self.held.append(value)
                    return held[1]
                return self._constant(value)
            return node
        if isinstance(value, (_graph.Node, _Symbolic)):
            return value if isinstance(value, _graph.Node) else value.node
        if isinstance(value, list):
            return [self.node(v) for v in value]
        if isinstance(value, tuple):  # a named tuple of results (max's values, indices) as a plain one
            return tuple(self.node(v) for v in value)
        return value

    def _constant(self, t: Tensor):
        if self.in_backward and self.strict_backward and not isinstance(t, Parameter):
            raise NotImplementedError(
                "make_fx cannot trace this backward: a gradient formula on its path computed a tensor on arrays, "
                "below the ops the capture records, so the graph would hold its value as a constant (make_fx of "
                "autograd.grad traces pointwise ops and reductions; see docs/graphs.md)")
        name = self.constant_name(t) if self.constant_name is not None else None
        if name is None:
            kind = "_param_constant" if isinstance(t, Parameter) else "_tensor_constant"
            name = f"{kind}{sum(1 for n in self.constants if n.startswith(kind))}"
        self.constants[name] = t
        node = self.graph.create_node("get_attr", name)
        self.bind(t, node)
        return node

    # -- ATen nodes --
    def call(self, overload: str, *args, **kwargs):
        """Add ``torch.ops.aten.<overload>(*args, **kwargs)`` (the arguments PyTorch shows, tensors as their
        nodes), named after the operator as make_fx names it."""
        if self.core_aten:  # PyTorch's core ATen decompositions of the ops outside that opset
            if overload == "t.default":
                overload, args = "permute.default", (args[0], [1, 0])
            elif overload == "detach.default":  # (autograd is no part of the core opset)
                overload = "alias.default"
            elif overload == "transpose.int":  # (the dims swapped in the identity permutation)
                perm = list(range(args[0].dim()))
                i, j = (d % max(len(perm), 1) for d in args[1:3])
                perm[i], perm[j] = perm[j], perm[i]
                overload, args = ("permute.default", (args[0], perm)) if i != j else ("alias.default", (args[0],))
            elif overload == "squeeze.dim":
                overload, args = "squeeze.dims", (args[0], [args[1]])
            elif overload == "squeeze.default":
                overload, args = "squeeze.dims", (args[0], list(range(args[0].dim())))
            elif overload == "sum.default":
                overload, args = "sum.dim_IntList", (args[0], [])
            elif overload.startswith(("clamp_min.", "clamp_max.")):  # clamp with the other bound None
                bounds = (args[1],) if overload[6:9] == "min" else (None, args[1])
                overload, args = "clamp." + overload.partition(".")[2], (args[0], *bounds)
            else:
                overload, args, kwargs = self._filled_core(overload, args, kwargs)
        args, kwargs = _aten_rules.shown(overload, args, kwargs)
        return self.graph.create_node("call_function", self.target(overload), self.node(args),
                                      {k: self.node(v) for k, v in kwargs.items()},
                                      name=self.graph._target_to_str(overload.partition(".")[0]))

    @staticmethod
    def target(overload: str):
        """``torch.ops.aten.<overload>`` (``"add.Tensor"``): a node's target."""
        packet, _, name = overload.partition(".")
        return getattr(getattr(ops.aten, packet), name)

    def _filled_core(self, overload: str, args: tuple, kwargs: dict) -> tuple:
        """PyTorch's core decompositions of the fills: ``zeros_like``/``ones_like`` as ``full_like`` (in the tensor's
        own layout unless told), ``empty_like`` of a contiguous tensor as ``empty_permuted`` with its options
        written out, ``zero_``/``fill_`` (a number) functionalised as ``full_like`` and ``copy_``/``fill_`` (a tensor)
        as ``copy``, whose node stands for the tensor from then on (``export/_decompose.py`` functionalises the
        other in-place operators). A write into a tensor that shares memory with another the graph holds (a view, or a
        base with views) stays in place: its value reaches the other through that memory, which a new node would
        not (PyTorch scatters it back into the base; export's run_decompositions does for the views it knows,
        ``scattered``)."""
        if overload in ("zeros_like.default", "ones_like.default"):
            kwargs = {**kwargs, "memory_format": kwargs.get("memory_format") or _preserve}
            return "full_like.default", (args[0], 0 if overload[0] == "z" else 1) + tuple(args[1:]), kwargs
        if overload == "empty_like.default" and args[0].is_contiguous() and kwargs.get("memory_format") is None:
            x = args[0]
            options = {"dtype": kwargs.get("dtype") or x.dtype, "layout": _strided, "device": x.device,
                       "pin_memory": kwargs.get("pin_memory", False)}
            return "empty_permuted.default", (list(x.shape), list(range(x.dim()))), options
        if overload in ("zero_.default", "fill_.Scalar") and not self._shares_memory(args[0]):
            if overload == "zero_.default":  # (zero_ is a fill in the tensor's own layout; fill_ names none)
                return "full_like.default", (args[0], 0), {"pin_memory": False, "memory_format": _preserve}
            return "full_like.default", (args[0], args[1]), {"pin_memory": False}
        if overload in ("copy_.default", "fill_.Tensor") and not self._shares_memory(args[0]):
            return "copy.default", (args[0], args[1]), {}  # (a fill with a 0-d tensor: a copy of it)
        return overload, args, kwargs

    def _shares_memory(self, t: Tensor) -> bool:
        if t is self.scattered:  # (export/_decompose.py scatters this write into the view's base itself)
            return False
        data = t._data
        return any(h is not t and isinstance(h, Tensor) and np.may_share_memory(h._data, data) for h in self.held)

    def items(self, node, n: int) -> list:
        """``node[0]``, ..., ``node[n - 1]``: the getitem nodes of an op with several results."""
        return [self.graph.create_node("call_function", operator.getitem, (node, i)) for i in range(n)]

    def record_op(self, overload, args, kwargs, out) -> None:
        """Write down a call of a library operator (a custom op) as it was made."""
        node = self.graph.create_node("call_function", overload, self.node(args),
                                      {k: self.node(v) for k, v in kwargs.items()},
                                      name=self.graph._target_to_str(overload._packet._name))
        self._bind_results(out, node)

    def record_aten(self, overload: str, args, kwargs, out) -> None:
        """Write down a call of the ATen operator ``overload`` with the arguments it was given."""
        self._bind_results(out, self.call(overload, *args, **kwargs))

    def _bind_results(self, out, node) -> None:
        """``out``'s tensors as ``node``'s value, or as its getitems where it returned several."""
        if isinstance(out, (tuple, list)):
            for t, item in zip(out, self.items(node, len(out))):
                if isinstance(t, Tensor):
                    self.bind(t, item)
        elif isinstance(out, Tensor):
            self.bind(out, node)

    def record(self, decl, spelling: str | None, args, kwargs, out, stack: str | None) -> None:
        """Write down the call of ``decl`` (by the Tensor attribute ``spelling``; None: its public function) made
        with ``args`` and ``kwargs``, which returned ``out``."""
        if self.python_indexing and not kwargs:
            if decl.name == "getitem" and isinstance(out, Tensor):
                self.bind(out, self.graph.create_node("call_function", operator.getitem, self.node(tuple(args))))
                return
            if decl.name == "setitem":
                self.graph.create_node("call_function", operator.setitem, self.node(tuple(args)))
                return
        fn = decl.method if decl.method is not None and spelling in decl.variants else _reference(decl)
        spelling = spelling or decl.name
        inplace = spelling in decl.idunders or (spelling.endswith("_") and not spelling.endswith("__"))
        if spelling in decl.rdunders and decl.name not in ("add", "mul"):
            args = (args[1], args[0])  # 2 - x is x.__rsub__(2): sub(2, x)
        try:
            bound = _aten_rules.Args(getattr(fn, "__wrapped__", fn), args, kwargs)
        except TypeError:
            bound = _aten_rules.Args(None, args, kwargs)
        name = _aten_rules.aten_name(decl.name.rstrip("_") if inplace else decl.name, decl.namespace)
        last = self.graph._root._prev  # (the graph's last node before this call's)
        if inplace and decl.name.endswith("_") and "aten" in decl.rules:  # an in-place op with a rule (selu_)
            node = decl.rules["aten"](self, f"{name}_", bound, out)
        elif inplace:
            overload = _inplace_overload(name, decl, bound, self.in_composite)
            if overload == "Scalar" and name in _ARITHMETIC:
                node = self.call(f"{name}_.Scalar", bound.self, bound.arg(1))
            elif _aten_rules.schema(f"{name}_.{overload}") is None and _aten_rules.schema(f"{name}.{overload}"):
                # the arguments matched by name to the out-of-place operator's, which the in-place one takes
                # (addcmul_'s value, div_'s rounding_mode)
                node = _aten_rules._by_schema(f"{name}.{overload}", f"{name}_.{overload}")(self, name, bound, out)
            else:
                node = self.call(f"{name}_.{overload}", *bound.positional(), **bound.keywords())
        else:
            node = _aten_rules.rule_for(decl)(self, name, bound, out)
        if node is None:
            return
        if stack is not None:  # every operator the call made comes from the user's line (an index's view steps)
            made = last._next
            while made is not self.graph._root:
                if made.op == "call_function":
                    made.meta.setdefault("stack_trace", stack)
                made = made._next
        if isinstance(out, tuple):
            items = node if isinstance(node, (list, tuple)) else self.items(node, len(out))
            for t, item in zip(out, items):
                if isinstance(t, Tensor):
                    self.bind(t, item)
                if stack is not None and isinstance(item, _graph.Node):  # (the results' getitems: the call's line)
                    item.meta.setdefault("stack_trace", stack)
            return
        if isinstance(out, Tensor):
            if inplace:  # the op wrote into its first argument: from here on it is this node's value
                self.nodes[id(out)] = node
                self.by_storage[id(out._data)] = (out._data, node)
                node.meta["val"] = out
                if not self.predispatch and _saves_own_output(out):  # (relu_'s node saves the written tensor)
                    self.saved_output(out, node)
                return
            self.bind(out, node)
            if not self.predispatch and _saves_own_output(out):
                self.saved_output(out, node)

    def saved_output(self, out: Tensor, node) -> None:
        """``out`` (the value of ``node``) is saved by its autograd node: PyTorch's tracer shows a ``detach`` of it,
        and a backward that unpacks it a detach of that detach (``node`` above)."""
        detach = self.graph.create_node("call_function", ops.aten.detach.default, (node,), name="detach")
        self.saved_outputs[id(out._data)] = (out._data, detach)


def _reference(decl):
    """The op's own function as its file declares it (a CPU path bound in its place may name its parameters
    otherwise): the rules read the call's arguments by PyTorch's parameter names."""
    return _paths._REFERENCES.get(decl.qualname if decl.namespace else _key(decl), decl.impl)


def _key(decl) -> str:
    return next((k for k, d in REGISTRY.items() if d is decl), decl.name)


_ARITHMETIC = ("add", "sub", "mul", "div")


def _inplace_overload(name: str, decl, bound, in_composite: int = 0) -> str:
    if in_composite and name in _ARITHMETIC and not isinstance(bound.arg(1), Tensor) and bound.get("alpha", 1) == 1:
        return "Scalar"  # C++'s ``t.add_(eps)``: a Scalar overload (Python's binding wraps the number: .Tensor)
    at = decl.rules.get("scalar_at")  # (_aten_rules.scalar_overload) e.g. masked_fill_.Scalar or .Tensor, by the value
    if at is not None:
        return "Tensor" if isinstance(bound.arg(at), Tensor) else "Scalar"
    if name == "div" and bound.get("rounding_mode") is not None:
        return "Tensor_mode"
    if name in ("clamp", "clamp_min", "clamp_max"):  # clamp_min_(Tensor, Scalar) is the default overload
        return _aten_rules.bound_overload(bound)
    return "Tensor" if name in _ARITHMETIC else "default"


def _saves_own_output(out: Tensor) -> bool:
    """Whether autograd's node for ``out`` saved ``out`` itself (PyTorch's tracer then shows a ``detach`` of it)."""
    fn = out.grad_fn
    return fn is not None and any(type(s) is _SavedOutput for s in (getattr(fn, "_saved", None) or ()))


# -- the hook --------------------------------------------------------------------------------------------
# tinytorch's own files: those under the package's folder (a checkout's folder may be named tinytorch too)
PACKAGE = os.path.dirname(sys.modules["tinytorch"].__file__) + os.sep
_PACKAGE_MODULES = os.path.join(PACKAGE, "nn", "modules") + os.sep


def _user_stack() -> str | None:
    """The stack where the op was called, outside tinytorch's own machinery (its nn modules count as the user's,
    as PyTorch's export names ``torch/nn/modules/linear.py`` for a Linear's op)."""
    frames = [f for f in traceback.extract_stack()[:-3]
              if not f.filename.startswith(PACKAGE) or f.filename.startswith(_PACKAGE_MODULES)]
    if not frames:
        return None
    return "".join(traceback.format_list(frames[-1:]))


def _decomposed_call(when, fn, args, kwargs) -> bool:
    """Whether this call is one ATen decomposes (``_aten_rules.Parts.when``); arguments that do not bind are left to
    the op, which names what is wrong."""
    try:
        return when(_aten_rules.Args(getattr(fn, "__wrapped__", fn), args, kwargs))
    except TypeError:
        return False


def _run(fn, decl, spelling: str, args, kwargs):
    rec = _THREAD.recording
    parts = decl.rules.get("parts")
    if parts is not None:
        if parts.python:
            return decl.impl(*args, **kwargs)  # it is its parts: the ops it calls record
        if not rec.predispatch and (parts.when is None or _decomposed_call(parts.when, fn, args, kwargs)):
            # its parts, below autograd
            rec.in_composite += parts.cpp  # (its numbers are C++ Scalars: add_.Scalar, mul.Scalar)
            try:
                return decl.impl(*args, **kwargs)
            finally:
                rec.in_composite -= parts.cpp
    _THREAD.first_arg = args[0] if args else None
    symbols = rec.unbacked is not None and has_symbols((args, kwargs))
    try:  # an export's unbacked symbols: the op runs on the example's numbers, the graph gets the symbols
        out = _THREAD.unhooked(fn, concrete(args) if symbols else args, concrete(kwargs) if symbols else kwargs)
    finally:
        _THREAD.first_arg = None
    rec.calling = fn  # (the spelling called: jit's recording tells torch.nn.functional's apart)
    rec.record(decl, spelling, args, kwargs, out, _user_stack() if rec.predispatch else None)
    return out


def _public_hook(public, decl, args, kwargs):
    return _run(public, decl, None, args, kwargs)


def _recording_method(decl, spelling: str, fn):
    def method(*args, **kwargs):
        if _THREAD.hook is None:
            return fn(*args, **kwargs)
        return _run(fn, decl, spelling, args, kwargs)
    method.__name__, method.__qualname__, method.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    method.__wrapped__ = fn
    return method


_methods = _registry.MethodSwap(_recording_method)  # the Tensor spellings, wrapped while captures run


def _recorded_seed(out):
    """backward()'s implicit seed in the capturing thread: ``ones_like(out)``, recorded (the engine's plain one
    elsewhere)."""
    if _THREAD.hook is None:
        return _ones_seed(out)
    return _factory.ones_like(out, memory_format=_preserve)


_paused: list = []  # the backward paths (nodes' array backwards) set aside while captures run


def _backward_paths(off: bool) -> None:
    """A backward that runs inside a capture (``autograd.grad`` in the traced program) must run each node's
    formula and sum gradients with the tinytorch ops the capture records; a path registered as a node's backward
    or as a step of the engine (``_ops/_core/paths.py``) computes on arrays, unseen. Those paths step aside while
    any capture runs, and come back after."""
    if off:
        _paused[:] = [p for paths in _paths.PATHS.values() for p in reversed(paths)
                      if p.kind == "backward" or p.target.startswith("engine.")]
        for p in _paused:
            p.undo()
    else:
        for p in reversed(_paused):
            p.redo()
        _paused.clear()


def _watched_backward(*args, **kwargs):
    """The engine's run (``_execute``) while this thread captures (``_State.backward_watch``): noted in the
    recording, which may keep it whole as a call of its own (a ``loss.backward()`` in torch.compile's capture)."""
    rec = _THREAD.recording
    # paused (a call kept whole), or inside an op being recorded (no hook): an op's own autograd.grad (a formula
    # that differentiates what it recomputes: the rnn layer's reference gradient) is the op's business
    if rec is None or _THREAD.hook is None:
        return _engine._execute(*args, **kwargs)
    if kwargs.get("accumulate", True) and rec.accumulating_backward(args, kwargs):
        with paused():  # the recording keeps this backward as a call of its own: its ops unrecorded
            return _engine._execute(*args, **kwargs)
    rec.in_backward += 1
    try:
        captured = _engine._execute(*args, **kwargs)
        if rec.strict_backward and captured:  # autograd.grad's results: each made by a recorded op
            for g in captured.values():
                if isinstance(g, Tensor) and id(g) not in rec.nodes:
                    rec._constant(g)  # refuses (in_backward)
        return captured
    finally:
        rec.in_backward -= 1


@contextlib.contextmanager
def paused():
    """The capture running in this thread records nothing while the block runs, nor watches the calls below the
    ops (``_State.step_watch``): a call it keeps whole, to make again at each replay (a hook an optimizer's
    step or a backward runs is part of that call)."""
    rec, hook, watch = _THREAD.recording, _THREAD.hook, _State.step_watch
    _THREAD.recording = _THREAD.hook = _State.step_watch = None
    try:
        yield
    finally:
        _THREAD.recording, _THREAD.hook, _State.step_watch = rec, hook, watch


@contextlib.contextmanager
def capturing(rec: Recording):
    """Record the ops this thread runs into ``rec`` while the block runs."""
    if _THREAD.recording is not None:
        raise RuntimeError("a graph capture is already running in this thread")
    with _lock:
        if not _active[0]:
            _methods.on()
            _registry.CAPTURE[0] = _THREAD
            _backward_paths(off=True)
            _graph_steps.bind()  # the ops' steps as the capture shows them (_graph_steps.py)
        _active[0] += 1
    _THREAD.recording, _THREAD.hook = rec, _public_hook
    _State.array_backward, _State.backward_watch, _State.backward_seed = False, _watched_backward, _recorded_seed
    try:
        yield rec
    finally:
        _THREAD.recording = _THREAD.hook = None
        _State.array_backward, _State.backward_watch, _State.backward_seed = True, None, None
        with _lock:
            _active[0] -= 1
            if not _active[0]:
                _registry.CAPTURE[0] = None
                _graph_steps.unbind()
                _backward_paths(off=False)
                _methods.off()




# -- what the program reads from its tensors --------------------------------------------------------------
# Tensor's conversions to Python values (PyTorch's word for each in jit's warning) and its size reads. They are
# wrapped while a watch runs in some thread; the wrappers act only in the watching thread (``_THREAD.reads``) and
# only in the program's own code (an op reading its operands' values is the op's business: the capture's hook is
# off inside ops). Why wrappers swapped in, not a thread-local asked inside each method: that test (a hook
# slot) costs 7-13 ns a call on every eager read (``x.shape`` 5%, ``x.numel()`` 17%, ``x.item()`` 6%), more than
# the eager hot path allows; the wrappers cost nothing while no capture runs.
_VALUES = {"__bool__": "boolean", "__float__": "float", "__int__": "integer", "__index__": "index",
           "item": "number", "tolist": "list", "numpy": "NumPy array"}
_SIZES = ("size", "__len__", "numel", "shape", "__iter__")  # iterating unbinds the first dim's size


class Reads:
    """What one capture does when the program reads its tensors into Python: ``read_value`` is told of a value
    read (jit.trace warns, script and export refuse, torch.compile breaks the graph); ``sizes`` notes that a size
    was read (the graph holds it as a constant)."""

    def __init__(self):
        self.sizes = False

    def read_value(self, what: str) -> None:
        """The program converts a tensor to a Python ``what`` (``"boolean"``, ``"number"``, ``"list"``...)."""

    def size_read(self, t) -> None:
        """The program read ``t``'s sizes."""
        self.sizes = True

    def made_value(self, t, what: str):
        """The value the program gets for ``t``'s conversion to a Python ``what``, made here (``torch.export``'s
        unbacked symbols); None: the conversion runs as it is."""
        return None


_watchers = [0]
_originals: dict = {}


def _in_program() -> bool:
    return _THREAD.reads is not None and _THREAD.hook is not None


def _value_read(fn, what: str):
    def read(self, *args, **kwargs):
        if _in_program():
            made = _THREAD.reads.made_value(self, what)
            if made is not None:
                return made
            _THREAD.reads.read_value(what)
        return fn(self, *args, **kwargs)
    read.__name__, read.__qualname__, read.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    return read


def _size_read(fn):
    def read(self, *args, **kwargs):
        if _in_program():
            _THREAD.reads.size_read(self)
        return fn(self, *args, **kwargs)
    read.__name__, read.__qualname__, read.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    return read


@contextlib.contextmanager
def watching(reads: Reads):
    """Tell ``reads`` of the tensor reads the program running in this thread makes while the block runs."""
    with _lock:
        if not _watchers[0]:
            for name, what in _VALUES.items():
                _originals[name] = getattr(Tensor, name)
                register_attribute(name, _value_read(_originals[name], what))
            for name in _SIZES:
                _originals[name] = inspect.getattr_static(Tensor, name)
                if isinstance(_originals[name], property):
                    register_attribute(name, property(_size_read(_originals[name].fget)))
                else:
                    register_attribute(name, _size_read(_originals[name]))
        _watchers[0] += 1
    outer, _THREAD.reads = _THREAD.reads, reads
    try:
        yield reads
    finally:
        _THREAD.reads = outer
        with _lock:
            _watchers[0] -= 1
            if not _watchers[0]:
                for name, original in _originals.items():
                    register_attribute(name, original)
                _originals.clear()
