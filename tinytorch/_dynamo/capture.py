"""Capture: run a compiled program once, eagerly, and write down the graph of what it did (or why it cannot).

PyTorch's Dynamo reads a function's bytecode and builds an fx graph of its tensor operations without running
it. tinytorch captures by running instead, with the op-level recording that ``make_fx``, ``torch.export`` and
``torch.jit.trace`` share (``tinytorch/fx/experimental/_capture.py``): every declared op the program calls
is written down as an ATen node at the level the Python API called it (``aten.linear.default``), so replaying
the graph calls the very same ops with the same arguments and gives the same floats as eager, bit for bit.

The first call therefore *is* an eager call: its results are the program's own. While it runs, the capture
watches for what a graph cannot hold (``Capture.break_reason``):

  - a tensor's value read into Python (``if x.sum() > 0``, ``x.item()``, ``x.tolist()``, ``x.numpy()``,
    ``float(x)``): data-dependent control flow. PyTorch splits the function there into two graphs and runs the
    Python in between eagerly; stage 1 here runs the *whole* call eagerly instead (no subgraphs), for every
    later call that passes the same guards;
  - an in-place op, under another grad mode than the caller's, on a tensor that requires grad (an update of
    parameters under ``torch.no_grad()``, an optimizer's step): a graph that writes its own inputs behind
    autograd's back cannot be differentiated as one; so is grad switched on inside a caller's ``no_grad``
    (results with a graph, where the plans run for the caller's mode). Other ops under no_grad are kept: the graph
    switches the mode where the program did (``torch._C._set_grad_enabled`` nodes, as PyTorch's dynamo
    writes them), so ``with torch.no_grad(): stat = h.mean()`` stays in the graph and out of its backward;
  - a tensor that reached the ops from outside the recording (``x.data``, a path below the declared ops)
    and is not a parameter, buffer or tensor attribute of the module or of another module the program reaches
    (a global, a closure variable, the bound method's ``self``, an argument: ``Root``), nor a tensor the function
    reaches through its globals or closure, directly or in their lists, tuples, dicts and objects (micrograd's
    neurons' weights: ``free_tensors``): its value would be frozen into the graph;
  - a call of a function marked ``torch.compiler.disable``;
  - a side effect a replay would skip (``side_effects.py``): ``print``, a container that outlives the call
    mutated, a Python value the program reads written by it, an op's ``out=``, a draw from a ``torch.Generator``;
  - ``backward()`` (``Tensor.backward``, ``autograd.backward``) other than a plain ``loss.backward()``, and an
    op after a backward or an optimizer's step: the gradients backward() accumulates into ``.grad`` are written
    below the ops, so a graph cannot hold them. A plain ``loss.backward()``, an optimizer's ``step()`` and
    ``zero_grad()`` are kept as calls that each replay makes again (``train_step.py``: a whole training step
    compiled); ``autograd.grad``, whose results are recorded ops, stays in the graph.

The Python values the program reads (globals, closure variables, attributes: ``python_reads.py``) are listed
before the run; the graph holds them as constants, so its guards compare them at each call.

With ``fullgraph=True`` the first break raises ``torch._dynamo.exc.Unsupported`` with PyTorch's text instead.

Sizes: the capture notes whether the program read a size into Python (``x.shape``, ``x.size(0)``, ``len(x)``,
iterating a tensor); such a graph holds those sizes as constants and its guards pin every input's shape. A graph
that read none works for any sizes of the same rank (``dynamic``, see ``guards.py``)."""
from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import threading
import traceback
import types

from ..autograd.grad_mode import _State, _set_grad_enabled
from ..fx.experimental import _capture as _fx_capture
from ..fx.graph_module import GraphModule
from ..nn.modules.module import Module
from ..optim.optimizer import Optimizer
from ..tensor import Tensor
from ..utils import _pytree as pytree
from . import exc, side_effects
from .guards import resolve
from .python_reads import PythonReads
from .side_effects import op_side_effect
from .train_step import StepCalls, watching

__all__ = ["Capture", "Program", "Root", "capture", "input_names", "module_roots", "CAPTURING"]


class _Capturing(threading.local):
    capture = None  # the Capture running in this thread (torch.compiler.is_compiling() answers True)


CAPTURING = _Capturing()


class _GraphBreak(Exception):
    """Raised through the program under ``fullgraph=True``: carries the ``Unsupported`` to raise."""


def user_frame() -> traceback.FrameSummary | None:
    """The innermost frame of the user's code (outside tinytorch's own files), with the columns of the
    expression running there, so that a traceback marks it (``^^^^``) as PyTorch's messages do."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_fx_capture.PACKAGE):
        f = f.f_back
    if f is None:
        return None
    positions = [(f.f_lineno, None, None, None)]
    with contextlib.suppress(Exception):
        positions = list(f.f_code.co_positions())[f.f_lasti // 2:f.f_lasti // 2 + 1] or positions
    lineno, end_lineno, colno, end_colno = positions[0]
    return traceback.FrameSummary(f.f_code.co_filename, lineno or f.f_lineno, f.f_code.co_name,
                                  end_lineno=end_lineno, colno=colno, end_colno=end_colno)


class _Recording(_fx_capture.Recording):
    """The capture's recording (indexing kept as ``operator.getitem``/``setitem`` nodes), which also notes an op
    run under another grad mode than the call's and an op's side effect. A tensor made from data is a node of the
    graph (``aten.tensor``), as in dynamo's graphs."""

    python_indexing = True

    def __init__(self, capture: "Capture"):
        super().__init__(predispatch=True)
        self.capture = capture
        self.grad_mode = _State.enabled  # the caller's
        self.graph_mode = self.grad_mode  # the mode a replay is in at this point of the graph
        self.last = None  # the last node added: the computation a value read is about
        self.calls: list = []  # (op name, spelling) of each call recorded, for explain

    def record(self, decl, spelling, args, kwargs, out, stack) -> None:
        effect = op_side_effect(kwargs) if kwargs else None
        if effect is not None:
            self.capture.graph_break(*effect)
        # an op on tensors that need no gradient (a BatchNorm's counter under no_grad) replays the same under
        # either mode; one on tensors that do runs under the mode the program ran it in
        mode = _State.enabled
        if (mode != self.grad_mode or mode != self.graph_mode) and _any_requires_grad(args, kwargs):
            name = spelling or decl.name
            # (grad switched on inside a caller's no_grad: results that carry a graph, which a replay of the
            # plans, made for the caller's mode, would not give)
            if mode != self.grad_mode and ("out" in kwargs or name in decl.idunders or not self.grad_mode
                                           or (name.endswith("_") and not name.endswith("__"))):
                self.capture.graph_break("grad mode changed inside the compiled program", "grad_mode")
            if mode != self.graph_mode:
                self.switch_mode(mode)
        super().record(decl, spelling, args, kwargs, out, stack)
        self.last = next(reversed(self.graph.nodes), None)
        self.calls.append((decl.name, spelling))

    def accumulating_backward(self, args: tuple, kwargs: dict) -> bool:
        # backward() fills .grad below the ops: a graph of the forward replayed alone would leave .grad as the
        # first call left it (a training step that stops training). A plain loss.backward() is kept as a call the
        # replay makes again (train_step.py); any other breaks the graph, as PyTorch's dynamo breaks it
        return self.capture.steps.backward(args, kwargs)

    def switch_mode(self, mode: bool) -> None:
        """A ``torch._C._set_grad_enabled(mode)`` node: from here on the graph replays under ``mode``."""
        self.graph.create_node("call_function", _set_grad_enabled, (mode,), name="_set_grad_enabled")
        self.graph_mode = mode
        self.calls.append(("_set_grad_enabled", None))


def _any_requires_grad(args, kwargs) -> bool:
    return any(isinstance(t, Tensor) and t.requires_grad for t in pytree.tree_leaves((args, kwargs)))


class _Reads(_fx_capture.Reads):
    """What the program read from its tensors: a value read is a graph break; a size read pins the shapes."""

    def __init__(self, capture: "Capture"):
        super().__init__()
        self.capture = capture

    def read_value(self, what: str) -> None:
        self.capture.value_read(what)


_GENERIC_JUMP = "generic_jump TensorVariable()"
_VALUE_REASONS = {"boolean": _GENERIC_JUMP, "number": "Tensor.item", "float": "Tensor.item",
                  "integer": "Tensor.item", "index": "Tensor.item", "list": "Tensor.tolist",
                  "NumPy array": "Tensor.numpy"}


class Break:
    """One graph break: PyTorch's short reason (as ``explain`` prints it) and the user's frame."""

    def __init__(self, reason: str, frame):
        self.reason, self.frame = reason, frame


class Capture:
    """One capturing call: the recording, the value reads and the graph breaks met."""

    def __init__(self, fullgraph: bool):
        self.fullgraph = fullgraph
        self.rec = _Recording(self)
        self.reads = _Reads(self)
        self.breaks: list = []
        self.steps = None  # the backward(), step() and zero_grad() calls met (train_step.StepCalls)

    def graph_break(self, reason: str, kind: str, frame=None, text: str | None = None) -> None:
        """``text``: the lines of PyTorch's Unsupported text after ``reason``, where the break gives them."""
        frame = frame if frame is not None else user_frame()
        if self.fullgraph:
            raise _GraphBreak(exc.Unsupported(_unsupported_text(kind, reason, frame, self.rec.last, text)))
        if not self.breaks or self.breaks[-1].reason != reason or self.breaks[-1].frame != frame:
            self.breaks.append(Break(reason, frame))

    def value_read(self, what: str) -> None:
        kind = "branch" if what == "boolean" else "value"
        self.graph_break(_VALUE_REASONS[what], kind)


# PyTorch's texts for the graph breaks fullgraph=True refuses
_BRANCH = ("Data-dependent branching\n"
           "  Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not "
           "support tracing dynamic control flow.\n\n"
           "      The branch condition involves a tensor computed as follows:\n"
           "{computed}"
           "    \n"
           "  Hint: For the common pattern `if tensor_cond: x = transform(x)` (e.g. clamping inf/nan values), "
           "consider making the code branchless by always applying the transform. Operations like torch.clamp, "
           "torch.nan_to_num, and torch.where are typically no-ops on well-behaved inputs and compile without graph "
           "breaks.\n"
           "  Hint: This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through "
           "your code. Consider finding a workaround.\n"
           "  Hint: Use `torch.cond` to express dynamic control flow.\n\n"
           "  Developer debug context: attempted to jump with TensorVariable()\n\n"
           " For more details about this graph break, please visit: "
           "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html")
_VERBOSE = ("Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting "
            "a bug to PyTorch). For even more developer context, set TORCH_LOGS=\"+dynamo\"")


def _unsupported_text(kind: str, reason: str, frame, node, text: str | None = None) -> str:
    if text is not None:
        head = f"{reason}\n{text}"
    elif kind == "branch":
        computed = ""
        if node is not None and frame is not None:
            args = ", ".join(a.name if hasattr(a, "op") else repr(a) for a in node.args)
            op = getattr(node.target, "__name__", str(node.target)).split(".")[0]
            computed = (f"        # File \"{frame.filename}\", line {frame.lineno}, in {frame.name}, code: "
                        f"{frame.line}\n        {node.name} = {op}({args})\n")
        head = _BRANCH.format(computed=computed)
    elif kind in side_effects.TEXTS:
        head = f"{reason}\n{side_effects.TEXTS[kind]}"
    else:
        head = (f"{reason}\n  Explanation: tinytorch's torch.compile cannot hold this in a graph: the call runs "
                "eagerly without fullgraph=True.")
    where = "".join(" " + line for line in traceback.format_list([frame])) if frame is not None else ""
    return f"{head}\n\nfrom user code:\n{where}\n{_VERBOSE}\n"


class Root:
    """A module the program reaches other than the compiled one, by the name PyTorch's guards give it:
    ``G['model']`` (a global), ``model`` (a closure variable), ``L['self']`` (the compiled bound method's
    object), ``L['mod']`` (an argument). ``read(leaves)`` gives the object now. As in PyTorch 2.13, whose graphs
    take such modules' tensors as inputs, the replay reads their tensors through it at each call: a module bound
    anew to the name, or a parameter assigned anew, is used without a recompile while its tensors keep their
    kind (``guards.py``)."""

    def __init__(self, name: str, read):
        self.name, self.read = name, read


def module_roots(fn, leaves: list, names: list, owner: Module | None = None) -> list:
    """The modules ``fn`` reaches besides ``owner``: its global and closure names that hold one, its bound
    ``self``, and the call's arguments that are one; and, one level down, those held by a dict, list or tuple,
    or as an attribute of another object (a trainer's ``self.model``)."""
    roots = []

    def add(name: str, value, read, depth: int = 1) -> None:
        if isinstance(value, Module):
            if value is not owner:
                roots.append(Root(name, read))
        elif depth <= 0:
            return
        elif type(value) in (dict, list, tuple):
            for key, item in (value.items() if type(value) is dict else enumerate(value)):
                add(f"{name}[{key!r}]", item, lambda leaves, key=key: _item(read(leaves), key), depth - 1)
        elif _plain_object(value):
            try:
                items = list(vars(value).items())
            except Exception:  # noqa: BLE001  (an object whose attributes raise: not looked into)
                return
            for attr, item in items:
                add(f"{name}.{attr}", item, lambda leaves, attr=attr: getattr(read(leaves), attr, None), depth - 1)

    bound = getattr(fn, "__self__", None)
    add("L['self']", bound, lambda leaves, m=bound: m)
    for name, value, read in _free_names(fn):
        add(name, value, lambda leaves, read=read: read())
    for i, (leaf, name) in enumerate(zip(leaves, names)):
        if isinstance(leaf, Module):
            add(f"L['{name}']", leaf, lambda leaves, i=i: leaves[i])
    return roots


def _plain_object(value) -> bool:
    """An instance of a user's class (not a function, class, module of Python's or a tensor): its attributes
    may hold the modules a method uses."""
    return (_has_dict(value) and not isinstance(value, (type, Tensor)) and not callable(value)
            and type(value).__module__ not in ("builtins", "types", "functools"))


def _has_dict(value) -> bool:
    """Whether ``value`` has a ``__dict__`` to look into (False where asking raises: a proxy that refuses)."""
    try:
        return hasattr(value, "__dict__")
    except Exception:  # noqa: BLE001
        return False


def _item(container, key):
    """``container[key]``, or None where it holds no such item now (the guard then reports the change)."""
    try:
        return container[key]
    except (KeyError, IndexError, TypeError):
        return None


class Program:
    """A captured graph and what replaying it needs: the GraphModule (its generated ``forward`` takes the input
    tensors; module state is read through ``self`` at each call), the output structure, the tensors the graph
    reads besides its inputs, and whether a size was read into Python."""

    def __init__(self, gm: GraphModule, out_spec, out_consts: dict, constants: list, used_paths: list, free: dict,
                 sizes_read: bool, roots: list = (), rooted: dict | None = None):
        self.gm, self.out_spec, self.out_consts = gm, out_spec, out_consts
        self.used_paths = used_paths  # the module's tensors the graph reads, by dotted path (``l.weight``)
        self.attrs = {p.split(".")[0] for p in used_paths}  # what the generated code reads from the module
        self.free = free              # the function's global and closure tensors the graph reads (guarded)
        self.constants = constants    # the graph's get_attr targets, in the order ``state`` gives them
        self.roots = list(roots)      # the other modules the program reaches (``Root``)
        # the graph's constants that are those modules' tensors: constant -> (root's position, path's parts)
        self.rooted = rooted or {}
        used = set(used_paths)
        self.from_owner = [(c, "owner" if c in used else "root" if c in self.rooted else "gm") for c in constants]
        self.sizes_read = sizes_read
        self.python_reads = None  # the Python values the graph holds as constants (``python_reads.py``)
        # a training step's calls below the ops (train_step.py): (calls before the graph, calls after it, how many
        # of the graph's outputs are the program's); None for a program of ops only
        self.step = None

    def state(self, owner: Module | None, found: list | None = None, found_rooted: list | None = None) -> list:
        """The tensors the graph reads besides its inputs, as they are now (for the gradients they may need);
        ``found``: the module's ones as a guard just read them (in the order of ``used_paths``);
        ``found_rooted``: the other modules' ones (in the order of ``rooted``)."""
        found = iter(found) if found is not None else None
        rooted = iter(found_rooted) if found_rooted is not None else None
        out = []
        for c, where in self.from_owner:
            if where == "owner":
                out.append(next(found) if found is not None else resolve(owner, c))
            elif where == "root" and rooted is not None:
                out.append(next(rooted))
            else:  # the GraphModule's own (at the capture, the rooted tensors themselves)
                out.append(resolve(self.gm, c))
        return out

    def rebind(self, state: list) -> None:
        """Point the GraphModule's own attributes at ``state`` (``state()``'s tensors, in the order of
        ``constants``), for a backend's callable that runs ``gm.forward`` itself."""
        for c, t in zip(self.constants, state):
            *parents, last = c.split(".")
            owner = self.gm
            for part in parents:
                owner = getattr(owner, part)
            tables = [d for d in (owner.__dict__.get("_parameters"), owner.__dict__.get("_buffers")) if d]
            table = next((d for d in tables if last in d), owner.__dict__)
            if table.get(last) is not t:
                table[last] = t

    def run(self, owner: Module | None, tensors: list, found_rooted: list | None = None):
        return self.assemble(self.outputs(owner, tensors, found_rooted))

    def outputs(self, owner: Module | None, tensors: list, found_rooted: list | None = None) -> list:
        """The graph's output tensors, replayed op by op (autograd recording as eagerly)."""
        extra = dict(zip(self.rooted, found_rooted)) if found_rooted is not None else {}
        out = type(self.gm).forward(_Self(self.gm, owner, self.attrs, extra), *tensors)
        return list(out) if isinstance(out, tuple) else [out]

    def assemble(self, out: list):
        """The program's result from the graph's output tensors: its structure, with its non-tensor leaves."""
        if not self.out_consts:
            if self.out_spec.is_leaf():  # one tensor, a model's usual result
                return out[0]
            return pytree.tree_unflatten(out, self.out_spec)
        flat = [self.out_consts[i] if i in self.out_consts else out.pop(0)
                for i in range(self.out_spec.num_leaves)]
        return pytree.tree_unflatten(flat, self.out_spec)


class _Self:
    """``self`` of the generated code: the module's parameters and buffers read from the module now (so the
    guard on their identity, not a stale copy, decides), the capture's other constants from the GraphModule."""

    def __init__(self, gm, owner, attrs, rooted: dict):
        self._gm, self._owner, self._attrs, self._rooted = gm, owner, attrs, rooted

    def __getattr__(self, name):
        if self._owner is not None and name in self._attrs:
            return getattr(self._owner, name)
        if name in self._rooted:  # another module's tensor, as the guard just read it
            return self._rooted[name]
        return getattr(self._gm, name)


def input_names(fn, args: tuple, kwargs: dict) -> list:
    """The Python names of the call's inputs, one per leaf: ``x`` or ``x[0]`` as PyTorch's guards say them."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
        items = list(bound.arguments.items())
    except (TypeError, ValueError):
        items = [(f"args[{i}]", a) for i, a in enumerate(args)] + list(kwargs.items())
    names = []
    for name, value in items:
        leaves, spec = pytree.tree_flatten(value)
        names += [name] if spec.is_leaf() else [f"{name}[{k}]" for k in range(len(leaves))]
    return names


def module_sources(module: Module) -> dict:
    """id -> dotted path of every tensor a module holds (parameters, buffers, plain tensor attributes)."""
    paths: dict = {}
    for prefix, m in module.named_modules(remove_duplicate=False):
        dot = f"{prefix}." if prefix else ""
        for name, t in list(m._parameters.items()) + list(m._buffers.items()):
            if t is not None:
                paths.setdefault(id(t), dot + name)
        for name, t in vars(m).items():
            if isinstance(t, Tensor):
                paths.setdefault(id(t), dot + name)
    return paths


def _free_names(fn):
    """(name as PyTorch's guards say it, value, reader of its value now) for each global name a function's code
    uses (``G['model']``) and each of its closure variables (``model``)."""
    fn = inspect.unwrap(getattr(fn, "__func__", fn))
    code = getattr(fn, "__code__", None)
    if code is None:
        return
    glob = getattr(fn, "__globals__", {})
    for name in code.co_names:
        yield f"G['{name}']", glob.get(name), lambda name=name: glob.get(name)
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # a cell not yet filled
            continue
        yield name, value, lambda cell=cell: cell.cell_contents


_FREE_DEPTH = 4        # containers and objects followed below a global or closure name
_FREE_BUDGET = 100_000  # items looked at in all, at most (a global dataset list is not walked to its end)


def free_tensors(fn) -> dict:
    """id -> (name, reader) of the tensors a function reads from its globals or closure (or, for a bound method of
    a user's object, from that object), directly or held by the lists, tuples and dicts and user objects they
    name, up to four levels down (micrograd's ``layers[0][3].w[1]``), each by the name PyTorch's guards give it
    (``G['layers'][0][3].w[1]``, ``L['self'].params[0]``). As Dynamo lifts such tensors into graph inputs, the
    replay reads them at each call through their readers (their values are not frozen into the graph), and the
    guards compare their identities. An object that fails to be looked into (an attribute access that raises) is
    left out: a tensor only it holds breaks the graph as before."""
    found: dict = {}
    seen: set = set()
    budget = [_FREE_BUDGET]

    def walk(name: str, value, read, depth: int) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            return
        if isinstance(value, Tensor):
            found.setdefault(id(value), (name, read))
            return
        if depth <= 0 or id(value) in seen or isinstance(value, Module):  # (a module's tensors: a Root's)
            return
        if type(value) in (list, tuple):
            seen.add(id(value))
            for k, item in enumerate(value):
                walk(f"{name}[{k}]", item, lambda k=k, read=read: _item(read(), k), depth - 1)
        elif type(value) is dict:
            seen.add(id(value))
            for key, item in list(value.items()):
                walk(f"{name}[{key!r}]", item, lambda key=key, read=read: _item(read(), key), depth - 1)
        elif _user_object(value):
            seen.add(id(value))
            for attr, item in list(vars(value).items()):
                walk(f"{name}.{attr}", item, lambda attr=attr, read=read: getattr(read(), attr, None), depth - 1)

    bound = getattr(fn, "__self__", None)
    roots = [("L['self']", bound, lambda: bound)] if bound is not None else []  # a compiled method's object
    for name, value, read in roots + list(_free_names(fn)):
        try:
            walk(name, value, read, _FREE_DEPTH)
        except Exception:  # noqa: BLE001  (a user's object whose attributes raise: not looked into)
            continue
    return found


def _user_object(value) -> bool:
    """An instance of a user's class, callable or not (a micrograd ``Neuron``), whose attributes may hold tensors;
    not a function, method, class, Python module or an object of Python's own or numpy's."""
    return (_has_dict(value) and not isinstance(value, (type, Tensor, types.FunctionType, types.MethodType,
                                                                   types.ModuleType, functools.partial))
            and type(value).__module__.split(".")[0] not in ("builtins", "types", "functools", "numpy", "tinytorch"))


_FIND_DEPTH = 2


def find_named(obj, fn):
    """``(name, reader)`` of ``obj`` among ``fn``'s globals and closure variables (and its bound ``self``), or
    their attributes, dict items and list items, two levels down (a trainer's ``self.opt``)."""
    bound = getattr(fn, "__self__", None)
    roots = ([("L['self']", bound, lambda: bound)] if bound is not None else []) + list(_free_names(fn))
    seen: set = set()

    def walk(name, value, read, depth):
        if value is obj:
            return name, read
        if depth <= 0 or id(value) in seen or isinstance(value, (Module, Optimizer)):
            return None
        seen.add(id(value))
        if type(value) in (list, tuple, dict):
            items = value.items() if type(value) is dict else enumerate(value)
            for key, item in list(items):
                hit = walk(f"{name}[{key!r}]", item, lambda key=key, read=read: _item(read(), key), depth - 1)
                if hit is not None:
                    return hit
        elif _user_object(value):
            for attr, item in list(vars(value).items()):
                hit = walk(f"{name}.{attr}", item, lambda attr=attr, read=read: getattr(read(), attr, None),
                           depth - 1)
                if hit is not None:
                    return hit
        return None

    for name, value, read in roots:
        hit = walk(name, value, read, _FIND_DEPTH)
        if hit is not None:
            return hit
    return None


def capture(fn, args: tuple, kwargs: dict, module: Module | None, fullgraph: bool):
    """Run ``fn(*args, **kwargs)`` once, eagerly, recording it. Returns ``(result, Program or None, capture)``:
    None where a graph break made the call one to run eagerly (``capture.breaks`` says why)."""
    cap = Capture(fullgraph)
    rec = cap.rec
    leaves, in_spec = pytree.tree_flatten((args, kwargs))
    paths = module_sources(module) if module is not None else {}
    free = free_tensors(getattr(module, "forward", fn) if module is not None else fn)
    rec.constant_name = lambda t: paths.get(id(t))
    names = input_names(module.forward if module is not None else fn, args, kwargs)
    roots = module_roots(getattr(module, "forward", fn) if module is not None else fn, leaves, names, module)
    reached: dict = {}  # id -> (root's position, dotted path) of the other modules' tensors
    for k, root in enumerate(roots):
        for ident, path in module_sources(root.read(leaves)).items():
            reached.setdefault(ident, (k, path))
    for leaf, name in zip(leaves, names):
        if isinstance(leaf, Tensor):
            rec.bind(leaf, rec.graph.placeholder(_identifier(name)))
    code = getattr(module, "forward", fn) if module is not None else fn
    python_reads = PythonReads.of(fn, module)
    outside = [v for _, v, _ in _free_names(code)] + [args, kwargs, getattr(fn, "__self__", None), module]
    cap.steps = StepCalls(cap, code, leaves, module, find_named)
    outer, CAPTURING.capture = CAPTURING.capture, cap
    outer_steps = _State.step_watch
    watching(cap.steps)
    try:
        with _fx_capture.capturing(rec), _fx_capture.watching(cap.reads), side_effects.Watch(cap, outside):
            out = fn(*args, **kwargs)
        written = python_reads.check()
        if written is not None:  # a value the program reads, written by it: a replay would not write it
            cap.graph_break(f"a side effect: the program wrote a Python value it reads (expected {written})",
                            "write")
    except _GraphBreak as e:
        raise e.args[0].with_traceback(None) from None
    finally:
        CAPTURING.capture = outer
        _State.step_watch = outer_steps
    out_leaves, out_spec = pytree.tree_flatten(out)
    out_nodes = [rec.node(t) for t in out_leaves if isinstance(t, Tensor)]
    rooted = {}
    for cname, t in rec.constants.items():
        if cname not in paths.values() and id(t) not in free and id(t) in reached:
            k, path = reached[id(t)]
            rooted[cname] = (k, path.split("."))
        elif cname not in paths.values() and id(t) not in free:
            cap.graph_break(f"a tensor reached the compiled program outside the recorded ops ({cname}): its value "
                            "would be frozen into the graph", "untraced")
    split = cap.steps.split(len(rec.calls)) if cap.steps.calls else None
    if not cap.breaks and not any(n.op == "call_function" for n in rec.graph.nodes):
        # nothing recorded: the program computed nothing through the ops (an optimizer's step updates its
        # tensors on arrays, below them), so a replay would skip its work; it runs eagerly instead
        return out, None, cap
    if cap.breaks:
        return out, None, cap
    if rec.graph_mode != rec.grad_mode:  # the program switched back after its last op: so does the graph
        rec.switch_mode(rec.grad_mode)
    n_out = len(out_nodes)
    if split is not None:  # a training step: each backward's loss is an output of the graph too
        out_nodes = _step_outputs(rec.graph, cap.steps, split[1], out_nodes)
    rec.graph.output(tuple(out_nodes))
    gm = GraphModule(dict(rec.constants), rec.graph)
    consts = {i: v for i, v in enumerate(out_leaves) if not isinstance(v, Tensor)}
    used = [c for c in rec.constants if c in paths.values()]
    free_used = {id(t): free[id(t)] for t in rec.constants.values() if id(t) in free}
    free_used.update(cap.steps.guards)  # the optimizers a step reached through a name: guarded by identity
    program = Program(gm, out_spec, consts, list(rec.constants), used, free_used, cap.reads.sizes, roots, rooted)
    program.python_reads = python_reads if python_reads else None
    if split is not None:
        program.step = (split[0], split[1], n_out)
    return out, program, cap


def _step_outputs(graph, steps: StepCalls, after: list, out_nodes: list) -> list:
    """The graph's outputs with each backward's loss among them (``StepCall.output`` set to its place); the
    seeds backward() recorded (``ones_like``), which no replay reads, taken out of the graph."""
    out_nodes = list(out_nodes)
    losses = {id(c): node for c, _, node in steps.calls}
    for call in after:
        if call.name == "backward":
            node = losses[id(call)]
            if node not in out_nodes:
                out_nodes.append(node)
            call.output = out_nodes.index(node)
    for seed in steps.seeds:
        if not seed.users:
            graph.erase_node(seed)
    return out_nodes


def _identifier(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name).strip("_") or "arg"
