"""``torch.jit.trace`` and ``torch.jit.script`` on tinytorch's graph capture.

There is no TorchScript here. ``trace(fn_or_module, example_inputs)`` runs the program once under the same capture
as ``torch.export`` (``tinytorch/fx/experimental/_capture.py``, one level up: ``aten.linear.default`` as the
Python API called it) and keeps the fx graph it records, with what PyTorch's TorchScript text shows beside it: the
local variable each tensor was held in when an op first took it, and the submodule calls (``_Call``). The result
runs that graph; ``.graph``, ``.inlined_graph`` and ``.code`` print it as TorchScript (``_ir.py``).

A traced module (``TopLevelTracedModule``, its submodules ``TracedModule``) holds the original's parameters and
buffers themselves, under the same names; the graph reads them by name at every call (``self.l.weight``), as
TorchScript's ``prim::GetAttr`` does. As in PyTorch, a Python value read from a tensor's data (``if x.sum() > 0``,
``float(x)``, ``x.item()``) is frozen into the graph with PyTorch's ``TracerWarning``. Sizes read in Python
(``x.size(0)``, ``x.shape``, ``len(x)``) are frozen too (PyTorch records them as ops): a traced program that read
one refuses inputs of other shapes rather than run the example's sizes on them.

``script(fn_or_module)`` covers what tracing covers: the function is traced when called, once for each input
signature (the tensors' shapes and dtypes, the other arguments' values, a module's training flag), so sizes and
Python arguments are never frozen wrongly. Where the program reads a tensor's value into Python (data-dependent
control flow, which TorchScript compiles) the call raises instead of freezing it. ``.graph`` and ``.code`` of a
scripted function or module print what PyTorch's compiler makes of its source (``_script_ir.py``), for the
straight-line subset that module compiles; outside it they raise ``NotImplementedError`` naming the construct. A
scripted program called by a traced one runs its ops inline (a value read from a tensor there raises); the trace
notes the call (``_ScriptedCall``), which ``_ir.py`` prints as PyTorch's call of the compiled graph."""
from __future__ import annotations

import contextlib
import difflib
import gc
import importlib
import inspect
import os
import sys
import textwrap
import warnings

import numpy as np

from ..fx.experimental import _capture
from ..fx.graph_module import GraphModule
from ..nn.modules.module import Module
from ..tensor import Tensor, _make
from ..utils import _pytree as pytree
from . import _ir, _script_ir
_tinytorch = sys.modules["tinytorch"]  # the namespace: whether an op is also torch.<name>

__all__ = ["trace", "trace_module", "script", "TracerWarning", "TracingCheckError", "ScriptModule",
           "ScriptFunction", "TracedModule", "TopLevelTracedModule", "RecursiveScriptModule"]


class TracerWarning(Warning):
    """A Python value read from a tensor during a trace: the traced program keeps it as a constant."""

    @staticmethod
    def ignore_lib_warnings():
        warnings.filterwarnings("ignore", category=TracerWarning, module="torch.(?!jit)")
        warnings.filterwarnings("ignore", category=TracerWarning, module="tinytorch.(?!jit)")


class TracingCheckError(Exception):
    """``check_inputs`` traced to another graph than the example inputs did."""

    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n"
            self.message += textwrap.indent(graph_diff_error, "\t")
        if tensor_compare_error is not None:
            self.message += ("ERROR: Tensor-valued Constant nodes differed in value across invocations. This "
                             "often indicates that the tracer has encountered untraceable code.\n")
            self.message += textwrap.indent(tensor_compare_error, "\t")
        super().__init__(self.message)


_VALUE_MSG = ("Converting a tensor to a Python {} might cause the trace to be incorrect. We can't record the data "
              "flow of Python values, so this value will be treated as a constant in the future. This means that "
              "the trace might not generalize to other inputs!")

_OUTPUT_TYPES = "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from traced functions"

class _Reads(_capture.Reads):
    """What one trace does with the program's reads (``_capture.Reads``): a value read raises (script) or warns
    (trace), a size read pins the inputs' shapes."""

    def __init__(self, refuse_values: str | None = None):
        super().__init__()
        self.refuse_values = refuse_values  # script: the name of the function that cannot read values

    def read_value(self, what: str) -> None:
        """The program converts a tensor to a Python ``what``: script refuses it; a trace warns."""
        if self.refuse_values is not None:
            raise RuntimeError(
                f"tinytorch.jit.script cannot compile {self.refuse_values}: it converts a tensor to a Python {what} "
                "(data-dependent control flow or a value read from a tensor), which TorchScript compiles but "
                "tinytorch's script, which traces the program for each input signature, cannot follow. Call "
                "it without torch.jit.script, or use torch.jit.trace where the flow does not depend on the "
                "data")
        warnings.warn(_VALUE_MSG.format(what), TracerWarning, stacklevel=3)  # (the line that read it)


# -- one trace --------------------------------------------------------------------------------------------
def _type_name(x) -> str:
    """TorchScript's spelling of an argument's type, for the errors PyTorch gives."""
    if isinstance(x, Tensor):
        return "Tensor"
    if isinstance(x, tuple):
        return f"Tuple[{', '.join(_type_name(v) for v in x)}]"
    if isinstance(x, list):
        return f"List[{_type_name(x[0]) if x else 'Tensor'}]"
    if isinstance(x, dict):
        key, value = next(iter(x.items())) if x else ("", None)
        return f"Dict[{type(key).__name__}, {_type_name(value) if x else 'Tensor'}]"
    return type(x).__name__


def _param_names(fn) -> list:
    try:
        return [p.name for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return []


def _input_names(fn, args) -> list:
    """A placeholder name for each input leaf: the parameter's name, ``<name>_<k>`` inside a structured one."""
    params = _param_names(fn)
    names = []
    for i, a in enumerate(args):
        base = params[i] if i < len(params) else f"args_{i}"
        n = len(pytree.tree_leaves(a))
        names += [base] if isinstance(a, Tensor) else [f"{base}_{k}" for k in range(n)]
    return names


class _Program:
    """One recorded graph: its GraphModule (the generated code and the constants it holds), the input and output
    structures, and the input shapes it is bound to (None where no size was read). ``local_names``: the names the
    trace saw the tensors under (``_Recording.local_names``, for ``_ir.py``); None for a loaded program."""

    local_names = None
    calls = ()
    scripted = ()  # the scripted programs the trace called (_ScriptedCall: their ops inlined, _ir.py calls them)
    repeated = ()  # the positions of inputs that were a tensor given before (the tracer's view of it, _ir.py)

    def __init__(self, gm: GraphModule, in_spec, out_spec, shapes, params: frozenset):
        self.gm, self.in_spec, self.out_spec, self.shapes, self.params = gm, in_spec, out_spec, shapes, params

    def run(self, owner, leaves):
        out = type(self.gm).forward(_Self(self.gm, owner, self.params), *leaves)
        flat = [out] if self.out_spec.is_leaf() else list(out)
        return pytree.tree_unflatten(flat, self.out_spec)


class _Self:
    """``self`` of the generated code: a module's parameters and buffers read from ``owner`` (the traced module,
    so that a reassigned parameter is the one used), the trace's constants from its GraphModule."""

    def __init__(self, gm, owner, params):
        self._gm, self._owner, self._params = gm, owner, params

    def __getattr__(self, name):
        if self._owner is not None and name in self._params:
            return getattr(self._owner, name)
        return getattr(self._gm, name)


# the factories that make a tensor from data (lists, numpy arrays): PyTorch's tracer holds their results as constants
_DATA_FACTORIES = frozenset({"tensor", "as_tensor", "from_numpy"})
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_stacklevel() -> int:
    """warnings.warn's stacklevel, called where it is, of the first frame outside tinytorch: the user's line that
    made the value, as PyTorch's warning names it (the frames between differ by the factory's path)."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


_DATA_CONSTANT = ("torch.{} results are registered as constants in the trace. You can safely ignore this warning if "
                  "you use this function to create tensors out of constant variables that would be the same every "
                  "time you call this function. In any other case, this might cause the trace to be incorrect.")


def _as_constants(x, made: set):
    """``x`` (an op's arguments) with numpy values as the constants the generated code can hold: a numpy scalar as
    the Python number, an array as a tensor (kept as a constant of the graph, its id added to ``made``; an array's
    repr is no Python code)."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        t = _make(x.copy())  # (made here, not by an op: the capture records nothing for it)
        made.add(id(t))
        return t
    if type(x) in (list, tuple):
        return type(x)(_as_constants(v, made) for v in x)
    if type(x) is dict:
        return {k: _as_constants(v, made) for k, v in x.items()}
    return x


class _Recording(_capture.Recording):
    """The capture's recording, indexing kept as Python's ``x[key]`` and ``x[key] = value``. A tensor made from
    data (``torch.tensor``, ``from_numpy``) is no node: it is held as a constant, with PyTorch's warning (where
    torch.compile's capture records ``aten.tensor`` as a node, as dynamo does). Beside the graph it notes what
    TorchScript's text shows: the local names of the tensors and the submodule calls (``_ir.py``)."""

    python_indexing = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.data_constants: set = set()  # ids of the tensors made from data (told of already, or from an array)
        # (position of the op's first node, the fx node of a tensor it took, the local variable that held that
        # tensor where the op was called): PyTorch's tracer names a value so when an op first takes it (_ir.py)
        self.local_names: list = []
        self.calls: list = []       # the submodule calls, in the order made (_Call)
        self.scripted: list = []    # the scripted programs called (_ScriptedCall, _Scripted._traced_through)
        self.in_script = 0          # inside a scripted call: its ops are that call's, its submodules no calls
        self._open: list = []       # the calls running now, innermost last

    def enter_call(self, path: str, module, args, kwargs):
        parent = self._open[-1] if self._open else None
        call = _Call(path, module, parent, len(self.graph.nodes))
        tensors = all(isinstance(a, Tensor) for a in args) and not kwargs
        call.inputs = [self.nodes.get(id(a)) for a in args] if tensors else []
        if not tensors or None in call.inputs:
            call.problem = "is called with arguments other than the program's tensors"
        self.calls.append(call)
        self._open.append(call)
        return call

    def exit_call(self, call, out) -> None:
        self._open.pop()
        call.end = len(self.graph.nodes)

    def _local_names(self, args, kwargs, functional_only: bool) -> list:
        """(tensor, the local variable's name) for an op's inputs. PyTorch's tracer names an op's unnamed input
        after the local variable holding it in the frame that called the op (``_calling_frame``). An op of
        ``torch.nn.functional`` alone called from the program's own code (``F.leaky_relu(x * 2)``) may be Python
        in PyTorch, whose frame would name the tensor after its parameter, or C++, which names nothing: its inputs
        are noted as named by a frame tinytorch does not have (``_ir.UNKNOWN_NAME``, which ``_ir`` refuses to
        print where the value has no name yet)."""
        frame = _calling_frame()
        if frame is None:
            return []
        unknown = functional_only and not frame.f_code.co_filename.startswith(_OWN)
        found = []
        for t in pytree.tree_leaves((args, kwargs)):
            if not isinstance(t, Tensor):
                continue
            name = next((k for k, v in frame.f_locals.items() if v is t), None)
            if unknown:
                found.append((t, _ir.UNKNOWN_NAME))
            elif name is not None and name != "self":
                found.append((t, name))
        return found

    def record(self, decl, spelling, args, kwargs, out, stack) -> None:
        calling = self.calling
        module = getattr(calling, "__module__", None) or ""
        functional_only = (spelling is None and module.startswith("tinytorch._ops.nn.")
                           and getattr(_tinytorch, getattr(calling, "__name__", ""), None) is not calling)
        names = [(t, name, self.nodes.get(id(t))) for t, name in self._local_names(args, kwargs, functional_only)]
        self._record_op(decl, spelling, args, kwargs, out, stack)
        # (after the op's nodes, so that a parameter first read here has its node: the names apply before the op)
        position = len(self.graph.nodes) - 1
        for t, name, node in names:
            node = node if node is not None else self.nodes.get(id(t))
            if node is not None:
                self.local_names.append((position, node, name))

    def _record_op(self, decl, spelling, args, kwargs, out, stack) -> None:
        if decl.name in _DATA_FACTORIES and spelling is None:
            warnings.warn(_DATA_CONSTANT.format(decl.name), TracerWarning, stacklevel=_user_stacklevel())
            self.data_constants.add(id(out))
            return
        args, kwargs = _as_constants(args, self.data_constants), _as_constants(kwargs, self.data_constants)
        super().record(decl, spelling, args, kwargs, out, stack)


_OWN = _capture.PACKAGE
_REGISTRY = os.path.join(_capture.PACKAGE, "_ops", "_core", "registry.py")
_USER_SIDE = (_capture._PACKAGE_MODULES, _capture.PACKAGE + "nn" + os.sep + "functional.py")


def _calling_frame():
    """The frame that called the op being recorded, as PyTorch's tracer finds it: the first outside tinytorch's
    machinery (its nn modules count as the caller's), or a ``torch.nn.functional`` spelling's own function where
    the op was called through one (PyTorch's are Python whose frame holds the tensors under their parameters'
    names: ``input``)."""
    frame, inner = inspect.currentframe(), None
    while frame is not None:
        code = frame.f_code
        if code.co_name == "spelling" and code.co_filename == _REGISTRY and inner is not None:
            return inner
        if not code.co_filename.startswith(_OWN) or code.co_filename.startswith(_USER_SIDE):
            return frame
        inner, frame = frame, frame.f_back
    return None


_CALL_PATHS = (Module._call_impl.__code__, Module._call_with_hooks.__code__)


class _ScriptedCall:
    """One call of a scripted function or module's forward by the program being traced: where its ops (recorded
    inline, so that the traced program runs them) start and end among the recorded nodes, the nodes of its tensor
    inputs (None where it took other values) and of its result (None: not a tensor). ``_ir.py`` prints it as
    PyTorch's ``prim::CallMethod`` or ``prim::CallFunction`` of the compiled graph."""

    def __init__(self, scripted, module, start: int, inputs):
        self.name, self.fn, self.module = scripted.name, scripted.fn, module
        self.start, self.end, self.inputs, self.output = start, start, inputs, None
        self.names: list = []  # (fx node, the caller's variable holding it): names PyTorch gives its inputs

    def compiled_graph(self):
        """The function's graph as PyTorch's inliner takes it (its ``optimized_graph``: ``_script_ir``'s graph,
        its constants pooled once more, which reverses their order)."""
        callee = _script_ir.compile_graph(getattr(self.fn, "__func__", self.fn))
        _script_ir._pool_constants(callee)
        return callee


class _Call:
    """One call of a submodule during a trace: where its ops start and end among the recorded nodes, the nodes of
    its inputs and output (``_ir.py`` makes PyTorch's ``prim::CallMethod`` of it)."""

    def __init__(self, path: str, module, parent, start: int):
        self.path, self.module, self.parent, self.start = path, module, parent, start
        self.depth = 0 if parent is None else parent.depth + 1
        self.end = start
        self.inputs: list = []
        self.problem = None  # what makes it a call _ir.py cannot print as PyTorch does


def _scope_paths(module: Module) -> dict:
    """id(submodule) -> the path PyTorch's tracer names its calls' scope by (``__module.<path>``): it registers
    each module's children (``named_children``, which skips a second name under one module), the children's
    children after them, a later name of an instance in another module replacing the earlier one; so a submodule
    held under several names takes the last of them that is not a repeat within one module."""
    paths: dict = {}

    def register(mod: Module, prefix: str) -> None:
        for name, child in mod.named_children():
            paths[id(child)] = prefix + name
            register(child, prefix + name + ".")
    register(module, "")
    return paths


@contextlib.contextmanager
def _watching_calls(module: Module, rec: _Recording):
    """Each submodule's calls noted in ``rec`` while the trace runs: its instance's ``forward`` wraps the class's
    for that time (Module.__call__, the eager path, is left alone)."""
    wrapped = []
    scopes = _scope_paths(module)
    for _, sub in module.named_modules():
        if sub is module or "forward" in sub.__dict__ or isinstance(sub, RecursiveScriptModule):
            continue  # (a scripted module's call is no scope: PyTorch calls its compiled method, _traced_through)
        path = scopes[id(sub)]

        def forward(*args, _sub=sub, _path=path, **kwargs):
            # a call through Module.__call__ in the tracing thread (PyTorch's tracer makes a scope of those only;
            # ``sub.forward(x)`` called directly runs in its caller's)
            if (_capture._THREAD.recording is not rec or rec.in_script
                    or sys._getframe(1).f_code not in _CALL_PATHS):
                return type(_sub).forward(_sub, *args, **kwargs)
            call = rec.enter_call(_path, _sub, args, kwargs)
            out = type(_sub).forward(_sub, *args, **kwargs)
            rec.exit_call(call, out)
            return out
        sub.__dict__["forward"] = forward
        wrapped.append(sub)
    try:
        yield
    finally:
        for sub in wrapped:
            sub.__dict__.pop("forward", None)


def _record(fn, args: tuple, module: Module | None, reads: _Reads, strict: bool, name: str) -> _Program:
    leaves, in_spec = pytree.tree_flatten(args)
    rec = _Recording(predispatch=True)
    paths: dict = {}
    if module is not None:
        for target, t in list(module.named_parameters()) + list(module.named_buffers()):
            paths.setdefault(id(t), target)
        rec.constant_name = lambda t: paths.get(id(t))
    # a tensor given twice is bound twice: PyTorch's tracer hands the program a view of it for each later place,
    # so the graph has an input for each place (traced ``cell(x, x)`` runs ``cell(a, b)`` as the original does)
    bound, seen, repeated = [], set(), []
    for leaf, pname in zip(leaves, _input_names(fn, args)):
        if id(leaf) in seen:
            leaf = leaf.view(tuple(leaf.shape))
            repeated.append(len(bound))
        seen.add(id(leaf))
        rec.bind(leaf, rec.graph.placeholder(pname))
        bound.append(leaf)
    if repeated:
        args = pytree.tree_unflatten(bound, in_spec)
    # by type, not isinstance: a dead weakref.proxy among the objects raises on isinstance (torch.compile leaves some);
    # each held until the trace ends, so that no tensor made during it can take a freed one's id (and pass as old)
    before = {id(o): o for o in gc.get_objects() if issubclass(type(o), Tensor)}
    calls = _watching_calls(module, rec) if module is not None else contextlib.nullcontext()
    with _capture.capturing(rec), _capture.watching(reads), calls:
        out = fn(*args)
    out_leaves, out_spec = pytree.tree_flatten(out)
    if not all(isinstance(t, Tensor) for t in out_leaves) or out is None:
        raise RuntimeError(_OUTPUT_TYPES)
    if strict:
        for kind in _containers(out):
            raise RuntimeError(
                f"Encountering a {kind} at the output of the tracer might cause the trace to be incorrect, this is "
                "only valid if the container structure does not change based on the module's inputs. Consider "
                "using a constant container instead (e.g. for `list`, use a `tuple` instead. for `dict`, use a "
                "`NamedTuple` instead). If you absolutely need this and know the side effects, pass strict=False "
                "to trace() to allow this behavior.")
    for cname, t in rec.constants.items():
        if cname not in paths.values() and t.grad_fn is not None:
            raise RuntimeError(
                f"tinytorch.jit.trace of {name}: a tensor computed during the trace (by {type(t.grad_fn).__name__})"
                " reached the graph as a constant: it came from a path tinytorch's graph capture does not see, and "
                "the traced program would return the example's values for every input")
        if cname not in paths.values() and id(t) not in before and id(t) not in rec.data_constants:
            warnings.warn(f"tinytorch.jit.trace of {name}: a tensor made during the trace outside the ops the graph "
                          f"capture records (a constant, or a path below the ops) is kept as the constant {cname}: "
                          "the traced program will use these values for every input", TracerWarning, stacklevel=3)
    if out_spec.is_leaf():
        rec.graph.output(rec.node(out))
    else:
        rec.graph.output(tuple(rec.node(t) for t in out_leaves))
    gm = GraphModule(dict(rec.constants), rec.graph)
    shapes = tuple(tuple(t.shape) for t in leaves) if reads.sizes else None
    top = frozenset(target.split(".")[0] for target in paths.values())
    program = _Program(gm, in_spec, out_spec, shapes, top)
    program.local_names, program.calls, program.repeated = rec.local_names, rec.calls, tuple(repeated)
    program.scripted = tuple(rec.scripted)
    return program


def _containers(out):
    """The containers of a traced output PyTorch's strict mode refuses: a dict (in a list: no output at all)."""
    if isinstance(out, dict):
        yield "dict"
    elif isinstance(out, (tuple, list)):
        if isinstance(out, list) and any(isinstance(v, dict) for v in out):
            raise RuntimeError(_OUTPUT_TYPES)
        for v in out:
            yield from _containers(v)


def _check_leaves(args) -> list:
    leaves = pytree.tree_leaves(args)
    if not all(isinstance(t, Tensor) for t in leaves):
        raise RuntimeError(f"Type '{_type_name(args)}' cannot be traced. Only Tensors and (possibly nested) "
                           "Lists, Dicts, and Tuples of Tensors can be traced")
    return leaves


def _script_name(fn) -> str:
    name = getattr(fn, "__name__", type(fn).__name__)
    return "_lambda" if name == "<lambda>" else name


# -- traced programs ----------------------------------------------------------------------------------------
class ScriptModule(Module):
    """What ``trace`` and ``script`` make of a module (``TracedModule``, ``RecursiveScriptModule``)."""

    __module__ = "tinytorch.jit._script"  # PyTorch's module for it (and RecursiveScriptModule), which re-exports ours


class ScriptFunction:
    """A traced function: calling it runs its graph. ``.graph`` (fx), ``.code`` (fx's Python), ``.name``."""

    # PyTorch's is a C++ class that prints as torch.jit.ScriptFunction
    __module__ = "tinytorch.jit"

    def __init__(self, program: _Program, name: str):
        self._program, self.name = program, name

    @property
    def graph(self):
        return _ir.TorchScriptGraph(_ir.texts(self._program, None, self.name)[0])

    @property
    def inlined_graph(self):
        return _ir.TorchScriptGraph(_ir.texts(self._program, None, self.name)[1])

    @property
    def code(self) -> str:
        return _ir.texts(self._program, None, self.name)[2]

    def __call__(self, *args):
        return _call(self._program, None, self.name, args)

    def save(self, f, _extra_files=None):
        importlib.import_module("._serialization", __package__).write(self, f)

    def __repr__(self) -> str:
        return f"<tinytorch.jit.ScriptFunction {self.name}>"


def _call(program: _Program, owner, name: str, args):
    leaves, spec = pytree.tree_flatten(args)
    n_expected, n_got = len(program.in_spec.children_specs), len(args)
    if n_got != n_expected:
        raise RuntimeError(f"{name}() expected at most {n_expected} argument(s) but received {n_got} argument(s).")
    if spec != program.in_spec:
        raise RuntimeError(f"{name}(): the inputs' structure {spec} is not the traced one {program.in_spec}")
    _check_leaves(args)
    if program.shapes is not None:
        shapes = tuple(tuple(t.shape) for t in leaves)
        if shapes != program.shapes:
            raise RuntimeError(
                f"{name}() was traced on inputs of shapes {list(program.shapes)} and read their sizes in Python "
                f"(x.size(), x.shape, len(x)), which tinytorch's trace records as constants: it cannot run inputs "
                f"of shapes {list(shapes)}. Trace it again with such inputs, or use torch.jit.script")
    return program.run(owner, leaves)


class TracedModule(ScriptModule):
    """A traced module's submodule: the original's parameters and buffers (the same tensors), under its names."""

    def __init__(self, original_name: str, training: bool = True):
        super().__init__()
        self.training = training
        self._original_name = original_name

    @classmethod
    def _like(cls, orig: Module, top: bool = False):
        self = (TopLevelTracedModule if top else TracedModule)(type(orig).__name__, orig.training)
        self._parameters.update(orig._parameters)
        self._buffers.update(orig._buffers)
        self._non_persistent_buffers_set.update(getattr(orig, "_non_persistent_buffers_set", ()))
        for name, child in orig._modules.items():
            self._modules[name] = None if child is None else TracedModule._like(child)
        if isinstance(orig, RecursiveScriptModule):  # (kept as PyTorch keeps it: its texts are the scripted ones)
            object.__setattr__(self, "_scripted_original", orig)
        return self

    def _get_name(self) -> str:
        return self._original_name

    def extra_repr(self) -> str:
        return f"original_name={self._original_name}"

    def _texts(self, what: str) -> str:
        """``what`` (graph, inlined_graph, code) of the method PyTorch made of this submodule's first call
        (``_ir.py``)."""
        root, path = self.__dict__.get("_root"), self.__dict__.get("_path")
        scripted = self.__dict__.get("_scripted_original")
        if scripted is not None:
            if what == "inlined_graph":
                name = type(scripted._original).__name__
                raise NotImplementedError("tinytorch cannot print this traced program as TorchScript: the inlined "
                                          f"graph of the scripted {name} (PyTorch inlines its compiled graph, "
                                          "optimized; tinytorch prints its graph, not that)")
            return str(getattr(scripted, what))
        if root is None:
            raise NotImplementedError("tinytorch cannot print this traced program as TorchScript: a submodule "
                                      "of a loaded program")
        try:
            texts = _ir.texts(root._program, root._module_printed(), path=path)
        except _ir.NoMethod:  # never called as a module by the trace: PyTorch made it no forward
            if what == "graph":
                raise RuntimeError("Method 'forward' is not defined.") from None
            raise AttributeError(what) from None  # (__getattr__ gives PyTorch's message)
        return texts[("graph", "inlined_graph", "code").index(what)]

    def __getattr__(self, name: str):
        if name in ("code", "inlined_graph"):  # (the property found no method; PyTorch's submodule says so)
            raise AttributeError(f"'RecursiveScriptModule' object has no attribute '{name}'")
        return super().__getattr__(name)

    @property
    def graph(self):
        return _ir.TorchScriptGraph(self._texts("graph"))

    @property
    def inlined_graph(self):
        return _ir.TorchScriptGraph(self._texts("inlined_graph"))

    @property
    def code(self) -> str:
        return self._texts("code")

    def forward(self, *args, **kwargs):
        raise RuntimeError(f"tinytorch.jit.trace records the top-level forward only: the traced submodule "
                           f"{self._original_name} cannot be called on its own (trace it, or call the original)")


class TopLevelTracedModule(TracedModule):
    """``trace(module, ...)``: calling it runs the recorded graph of the module's forward; ``.graph``, ``.code``
    print it as TorchScript (``_ir.py``)."""

    _program = None
    _original = None

    def forward(self, *args):
        return _call(self._program, self, "forward", args)

    @property
    def graph(self):
        return _ir.TorchScriptGraph(_ir.texts(self._program, self._module_printed())[0])

    @property
    def inlined_graph(self):
        return _ir.TorchScriptGraph(_ir.texts(self._program, self._module_printed())[1])

    @property
    def code(self) -> str:
        return _ir.texts(self._program, self._module_printed())[2]

    def _module_printed(self):
        if self._original is None:
            raise NotImplementedError("tinytorch cannot print this traced program as TorchScript: a loaded program "
                                      "(tinytorch's file keeps the fx graph, not the module PyTorch's types name)")
        return self._original

    def save(self, f, _extra_files=None):
        importlib.import_module("._serialization", __package__).write(self, f)


def _as_args(example_inputs) -> tuple:
    return example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)


def _check(fn, module, program: _Program, check_inputs, strict: bool, name: str) -> None:
    """PyTorch's check: each of ``check_inputs`` traced again must give the same graph."""
    for inputs in check_inputs or ():
        args = _as_args(inputs)
        _check_leaves(args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TracerWarning)
            again = _record(fn, args, module, _Reads(), strict, name)
        if again.gm.code != program.gm.code:
            diff = "".join(difflib.ndiff(program.gm.code.splitlines(True), again.gm.code.splitlines(True)))
            raise TracingCheckError("Graph diff:\n" + textwrap.indent(diff, "\t"), None)


def trace(func, example_inputs=None, optimize=None, check_trace: bool = True, check_inputs=None,
          check_tolerance: float = 1e-5, strict: bool = True, _force_outplace: bool = False,
          _module_class=None, _compilation_unit=None, example_kwarg_inputs=None, _store_inputs: bool = True):
    """``func`` (a function or a module) run once on ``example_inputs`` and recorded: a ``ScriptFunction`` or a
    ``TopLevelTracedModule`` that runs the recorded graph (see the module docstring)."""
    # PyTorch's deprecations of TorchScript name no caller (no stacklevel): Python's default filters, which show a
    # DeprecationWarning only where __main__ triggers it, keep them quiet, as here
    warnings.warn("`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=1)
    if isinstance(func, (ScriptModule, ScriptFunction)):
        warnings.warn("The input to trace is already a ScriptModule, tracing it is a no-op. Returning the object "
                      "as is.", stacklevel=2)
        return func
    if example_kwarg_inputs is not None:
        raise NotImplementedError("tinytorch.jit.trace: example_kwarg_inputs are not supported; pass the inputs "
                                  "positionally in example_inputs")
    args = _as_args(example_inputs)
    _check_leaves(args)
    if inspect.ismethod(func) and isinstance(func.__self__, Module):  # m.forward: the module, as PyTorch does
        if func.__name__ != "forward":
            raise NotImplementedError("tinytorch.jit.trace traces a module's forward only")
        func = func.__self__
    if isinstance(func, Module):
        program = _record(func.forward, args, func, _Reads(), strict, type(func).__name__)
        if check_trace:
            _check(func.forward, func, program, check_inputs, strict, type(func).__name__)
        traced = TracedModule._like(func, top=True)
        traced._program = program
        object.__setattr__(traced, "_original", func)  # (its printed types and attribute count, _ir.py)
        for path, sub in traced.named_modules():
            if sub is not traced:  # (each submodule prints the method made of its call: _ir.py)
                object.__setattr__(sub, "_root", traced)
                object.__setattr__(sub, "_path", path)
        return traced
    name = _script_name(func)
    program = _record(func, args, None, _Reads(), strict, name)
    if check_trace:
        _check(func, None, program, check_inputs, strict, name)
    return ScriptFunction(program, name)


def trace_module(mod, inputs, optimize=None, check_trace: bool = True, check_inputs=None,
                 check_tolerance: float = 1e-5, strict: bool = True, **kwargs):
    """``inputs``: {method name: example inputs}; tinytorch traces ``forward`` only."""
    if set(inputs) != {"forward"}:
        raise NotImplementedError("tinytorch.jit.trace_module traces forward only")
    warnings.warn("`torch.jit.trace_method` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=1)  # (no caller named, as trace's)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return trace(mod, inputs["forward"], check_trace=check_trace, check_inputs=check_inputs, strict=strict)


# -- script --------------------------------------------------------------------------------------------------
def _signature(args, module) -> tuple:
    """The cache key of a scripted call: the structure, each tensor's shape and dtype, the other values."""
    leaves, spec = pytree.tree_flatten(args)
    key = [repr(spec), None if module is None else module.training]
    for x in leaves:
        key.append((tuple(x.shape), str(x.dtype)) if isinstance(x, Tensor) else (type(x).__name__, repr(x)))
    return tuple(key)


class _Scripted:
    """The traces of one scripted program, one per input signature."""

    def __init__(self, fn, module, name: str):
        self.fn, self.module, self.name = fn, module, name
        self.programs: dict = {}
        self.last = None

    def __call__(self, owner, args, kwargs):
        rec = _capture._THREAD.recording
        if isinstance(rec, _Recording):  # called by a program being traced
            return self._traced_through(rec, owner, args, kwargs)
        if kwargs:
            args = _bind(self.fn, args, kwargs)
        key = _signature(args, self.module)
        entry = self.programs.get(key)
        if entry is None:
            # the non-tensor arguments are part of the key: the trace takes them as they are
            tensors = [isinstance(x, Tensor) for x in pytree.tree_leaves(args)]
            leaves, spec = pytree.tree_flatten(args)

            def with_values(*ts):
                it = iter(ts)
                return self.fn(*pytree.tree_unflatten([next(it) if t else x for t, x in zip(tensors, leaves)],
                                                      spec))

            with_values.__signature__ = inspect.Signature(
                [inspect.Parameter(f"{n}", inspect.Parameter.POSITIONAL_OR_KEYWORD)
                 for n in _leaf_names(self.fn, args, tensors)])
            ts = tuple(x for t, x in zip(tensors, leaves) if t)
            program = _record(with_values, ts, self.module, _Reads(refuse_values=self.name), False, self.name)
            entry = self.programs[key] = program
        self.last = entry
        ts = tuple(x for x in pytree.tree_leaves(args) if isinstance(x, Tensor))
        return entry.run(owner, ts)

    def _traced_through(self, rec: _Recording, owner, args, kwargs):
        """Inside ``torch.jit.trace``: PyTorch calls the compiled graph (``prim::CallMethod``,
        ``prim::CallFunction``), which keeps its control flow. Here its ops join the trace's graph, so a value it
        reads from a tensor raises as in a scripted call (never frozen); ``_ir.py`` prints the call (the outermost
        one: a call inside it is its own)."""
        outermost = not rec.in_script
        if outermost:
            tensors = all(isinstance(a, Tensor) for a in args) and not kwargs
            call = _ScriptedCall(self, owner, len(rec.graph.nodes),
                                 [rec.nodes.get(id(a)) for a in args] if tensors else None)
            if owner is None:  # a function's call names its inputs after the caller's variables (a module's is
                # made in PyTorch's Module.__call__, whose frame holds no tensor)
                call.names = [(rec.nodes.get(id(t)), name) for t, name in rec._local_names(args, {}, False)]
        reads = _capture._THREAD.reads
        refused = reads.refuse_values
        reads.refuse_values = self.name
        rec.in_script += 1
        try:
            out = self.fn(*args, **kwargs)
        finally:
            reads.refuse_values = refused
            rec.in_script -= 1
        if outermost:
            call.end = len(rec.graph.nodes)
            call.output = rec.nodes.get(id(out)) if isinstance(out, Tensor) else None
            rec.scripted.append(call)
        return out

    def graph(self):
        """PyTorch's compiled graph of the source (``_script_ir.py``; refused outside its subset)."""
        return _ir.TorchScriptGraph(_script_ir.graph_text(getattr(self.fn, "__func__", self.fn), self.module))

    def code(self) -> str:
        return _script_ir.code_text(getattr(self.fn, "__func__", self.fn), self.module)


def _leaf_names(fn, args, tensors) -> list:
    return [n for n, t in zip(_input_names(fn, args), tensors) if t]


def _bind(fn, args, kwargs) -> tuple:
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.arguments.values())


class _ScriptFunction(ScriptFunction):
    """``script(function)``: traced at each new input signature (see the module docstring)."""

    def __init__(self, fn):
        self._fn = fn
        self.name = _script_name(fn)
        self._scripted = _Scripted(fn, None, self.name)
        self.__doc__, self.__name__, self.__wrapped__ = fn.__doc__, fn.__name__, fn

    @property
    def graph(self):
        return self._scripted.graph()

    @property
    def code(self) -> str:
        return self._scripted.code()

    def __call__(self, *args, **kwargs):
        return self._scripted(None, args, kwargs)

    def save(self, f, _extra_files=None):
        raise RuntimeError(_NO_SCRIPT_SAVE)


_NO_SCRIPT_SAVE = ("tinytorch.jit.save saves traced programs: a scripted one is traced again for each input "
                   "signature and has no single graph to save; use torch.jit.trace with example inputs")


class RecursiveScriptModule(ScriptModule):
    """``script(module)``: the module's parameters and buffers (the same tensors), its submodules scripted, its
    forward traced at each new input signature; other attributes and methods are the original's."""

    __module__ = "tinytorch.jit._script"

    def __init__(self, orig: Module):
        super().__init__()
        object.__setattr__(self, "_original", orig)
        self.training = orig.training
        self._parameters = orig._parameters
        self._buffers = orig._buffers
        self._non_persistent_buffers_set = orig._non_persistent_buffers_set
        for name, child in orig._modules.items():
            self._modules[name] = None if child is None else _script_module(child)
        object.__setattr__(self, "_scripted", _Scripted(orig.forward, orig, type(orig).__name__))

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(object.__getattribute__(self, "_original"), name)

    def train(self, mode: bool = True):
        super().train(mode)
        self._original.train(mode)
        return self

    def _get_name(self) -> str:
        return "RecursiveScriptModule"

    def extra_repr(self) -> str:
        return f"original_name={type(self._original).__name__}"

    def forward(self, *args, **kwargs):
        return self._scripted(self, args, kwargs)

    @property
    def graph(self):
        return self._scripted.graph()

    @property
    def code(self) -> str:
        return self._scripted.code()

    def save(self, f, _extra_files=None):
        raise RuntimeError(_NO_SCRIPT_SAVE)


def _script_module(m: Module) -> ScriptModule:
    if isinstance(m, ScriptModule):
        return m
    # the original's training flag follows the scripted module's (train()/eval() reach both)
    return RecursiveScriptModule(m)


def script(obj=None, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """A module or function to run as the traces of its calls (see the module docstring); classes and other
    objects are returned as they are (they run eagerly)."""
    warnings.warn("`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=1)  # (no caller named, as trace's)
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, Module):
        return _script_module(obj)
    if inspect.isfunction(obj):
        return _ScriptFunction(obj)
    return obj
