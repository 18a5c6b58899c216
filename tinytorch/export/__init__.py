"""``tinytorch.export`` (PyTorch's ``torch.export``): a module's forward as a graph of ATen operators, its parameters,
buffers and constant tensors lifted to inputs.

``export(module, args)`` runs ``module(*args)`` once under the same capture as ``make_fx``
(``tinytorch/fx/experimental/proxy_tensor.py``), one level up (``predispatch``: the ops as the Python API called
them, ``aten.linear.default``, ``aten.conv2d.default``, as PyTorch 2's export records its training IR). The graph's
inputs are the parameters (``p_<name>``), the buffers (``b_<name>``), the plain tensors the module holds as
attributes and the program reads (``c_<name>``), then the user's inputs; ``graph_signature`` says which is which,
``state_dict`` and ``constants`` hold the lifted tensors, and ``module()`` gives a module that checks its inputs
(the guards) and calls the graph with them. ``print(ep)`` prints PyTorch's text (its ``# File:`` lines name
tinytorch's files where PyTorch's name its own). A training-mode BatchNorm shows its
``aten.add_.Tensor(b_..._num_batches_tracked, 1)``, as PyTorch's does.

The rest, one file each:
  * ``dynamic_shapes.py``: ``Dim``, ``Dim.AUTO``/``STATIC``/``DYNAMIC`` and ``dynamic_shapes=``. tinytorch has no
    symbolic sizes: the capture runs on the example, and the marked sizes are named (``s77``), written into the
    graph's shapes, checked for specialisation and narrowed by capturing again at other sizes; its docstring says
    how and what that cannot see.
  * ``_decompose.py``: ``run_decompositions()``, the graph lowered to core ATen by make_fx's own rules (a training
    BatchNorm is not functionalised; ``decomp_table`` is not read).
  * ``_serialize.py``: ``save``/``load`` in tinytorch's own zip archive (not PyTorch's ``.pt2``)."""
from __future__ import annotations

import dataclasses
import enum
import inspect

from ..autograd.grad_mode import no_grad
from ..fx.experimental.proxy_tensor import Recording, capturing
from ..fx.graph_module import GraphModule
from ..nn.modules.module import Module
from ..tensor import Tensor
from ..utils import _pytree as pytree
from . import _decompose, _serialize, dynamic_shapes as _dyn
from ._decompose import CustomDecompTable, default_decompositions
from .dynamic_shapes import Dim, ShapesCollection

__all__ = ["export", "load", "save", "ExportedProgram", "ExportGraphSignature", "Dim", "ShapesCollection",
           "default_decompositions", "CustomDecompTable"]


class InputKind(enum.Enum):
    USER_INPUT = enum.auto()
    PARAMETER = enum.auto()
    BUFFER = enum.auto()
    CONSTANT_TENSOR = enum.auto()
    CUSTOM_OBJ = enum.auto()
    TOKEN = enum.auto()


class OutputKind(enum.Enum):
    USER_OUTPUT = enum.auto()
    LOSS_OUTPUT = enum.auto()
    BUFFER_MUTATION = enum.auto()
    GRADIENT_TO_PARAMETER = enum.auto()
    GRADIENT_TO_USER_INPUT = enum.auto()
    USER_INPUT_MUTATION = enum.auto()
    TOKEN = enum.auto()


@dataclasses.dataclass
class TensorArgument:
    name: str


@dataclasses.dataclass
class InputSpec:
    kind: InputKind
    arg: TensorArgument
    target: str | None
    persistent: bool | None = None

    def __str__(self) -> str:
        target = "" if self.target is None else f" target='{self.target}'"
        persistent = "" if self.persistent is None else f" persistent={self.persistent}"
        return f"{self.arg.name}: {self.kind.name}{target}{persistent}"


@dataclasses.dataclass
class OutputSpec:
    kind: OutputKind
    arg: TensorArgument
    target: str | None

    def __str__(self) -> str:
        target = "" if self.target is None else f" target='{self.target}'"
        return f"{self.arg.name}: {self.kind.name}{target}"


@dataclasses.dataclass
class ExportGraphSignature:
    """Which graph inputs are parameters, buffers or the user's, and which outputs the user's."""
    input_specs: list
    output_specs: list

    def _names(self, kind) -> tuple:
        return tuple(s.arg.name for s in self.input_specs if s.kind is kind)

    @property
    def parameters(self) -> tuple:
        return tuple(s.target for s in self.input_specs if s.kind is InputKind.PARAMETER)

    @property
    def buffers(self) -> tuple:
        return tuple(s.target for s in self.input_specs if s.kind is InputKind.BUFFER)

    @property
    def user_inputs(self) -> tuple:
        return self._names(InputKind.USER_INPUT)

    @property
    def user_outputs(self) -> tuple:
        return tuple(s.arg.name for s in self.output_specs if s.kind is OutputKind.USER_OUTPUT)

    @property
    def inputs_to_parameters(self) -> dict:
        return {s.arg.name: s.target for s in self.input_specs if s.kind is InputKind.PARAMETER}

    @property
    def inputs_to_buffers(self) -> dict:
        return {s.arg.name: s.target for s in self.input_specs if s.kind is InputKind.BUFFER}

    def __str__(self) -> str:
        inputs = "\n".join(map(str, self.input_specs))
        outputs = "\n".join(map(str, self.output_specs))
        return f"\n# inputs\n{inputs}\n\n# outputs\n{outputs}\n"


class ExportedProgram:
    """A module's forward as a graph (``graph_module``, ``graph``), its signature and its lifted state."""

    def __init__(self, graph_module: GraphModule, graph_signature: ExportGraphSignature, state_dict: dict,
                 out_spec, user_names: list, range_constraints: dict | None = None, guards: list | None = None,
                 constants: dict | None = None):
        self.graph_module = graph_module
        self.graph_signature = graph_signature
        self.state_dict = state_dict
        self.constants = constants or {}  # the lifted plain tensors (CONSTANT_TENSOR inputs), by target
        self.range_constraints: dict = range_constraints or {}
        self._out_spec = out_spec
        self._user_names = user_names
        self._guards = guards or []

    @property
    def graph(self):
        return self.graph_module.graph

    def module(self) -> Module:
        """A module running the graph with this program's state: ``ep.module()(*args)`` is ``module(*args)``,
        for inputs that pass the program's guards (its static sizes, its symbols' ranges)."""
        return _Unlifted(self)

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops: bool = False) -> ExportedProgram:
        """The program lowered to core ATen (see ``_decompose``)."""
        return _decompose.run_decompositions(self, decomp_table)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use `exported_program.module()` "
                           "instead.")

    def __str__(self) -> str:
        code = self.graph_module.print_readable(print_output=False).replace("\n", "\n    ")
        signature = str(self.graph_signature).replace("\n", "\n    ")
        return (f"ExportedProgram:\n    {code}\nGraph signature: {signature}\n"
                f"Range constraints: {self.range_constraints}\n")


class _Unlifted(Module):
    """``ExportedProgram.module()``: the lifted state held again as parameters and buffers of this module."""

    def __init__(self, ep: ExportedProgram):
        super().__init__()
        self._ep = ep

    def forward(self, *args, **kwargs):
        ep = self._ep
        if ep._guards:
            _dyn.check_guards(ep._guards, _dyn.tensor_leaves(args, kwargs))
        sig = ep.graph_signature
        state = [ep.constants[s.target] if s.kind is InputKind.CONSTANT_TENSOR else ep.state_dict[s.target]
                 for s in sig.input_specs if s.kind is not InputKind.USER_INPUT]
        leaves = pytree.tree_leaves((args, kwargs))
        out = ep.graph_module(*state, *leaves)
        return pytree.tree_unflatten(list(out), ep._out_spec)


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict: bool = False, preserve_module_call_signature=()):
    """``mod``'s forward, called on ``args`` and ``kwargs``, as an ``ExportedProgram``; ``dynamic_shapes`` marks
    the sizes left free (``tinytorch/export/dynamic_shapes.py``)."""
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got {type(mod)}.")
    if not isinstance(args, tuple):
        raise ValueError(f"Expected `args` to be a tuple, got {type(args)}")
    kwargs = kwargs or {}
    rec, specs, state, constants, names, outputs, out_spec = _capture(mod, args, kwargs)
    params = _forward_params(mod)
    leaves = _dyn.leaf_specs(params, args, kwargs, {} if dynamic_shapes is None else dynamic_shapes)
    syms = _dyn.make_symbols(leaves)
    if syms:
        _dynamic(mod, args, kwargs, rec.graph, leaves, syms)
    gm = GraphModule(dict(rec.constants), rec.graph)
    signature = ExportGraphSignature(specs, [OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(n.name), None)
                                             for n in outputs])
    return ExportedProgram(gm, signature, state, out_spec, names, _dyn.range_constraints(syms),
                           _dyn.guards(leaves, syms), constants)


def _capture(mod, args, kwargs) -> tuple:
    """One run of ``mod(*args, **kwargs)`` recorded: the recording, the input specs, the lifted state, the user
    inputs' names, the output nodes and the outputs' structure."""
    rec = Recording(predispatch=True)
    specs, state = [], {}
    for kind, prefix, named in ((InputKind.PARAMETER, "p_", mod.named_parameters()),
                                (InputKind.BUFFER, "b_", mod.named_buffers())):
        for target, t in named:
            node = rec.graph.placeholder(prefix + target.replace(".", "_"))
            rec.bind(t, node)
            persistent = None if kind is InputKind.PARAMETER else True
            specs.append(InputSpec(kind, TensorArgument(node.name), target, persistent))
            state[target] = t
    lifted = {}
    for target, t in _tensor_attributes(mod):  # plain tensors held as attributes: CONSTANT_TENSOR inputs
        node = rec.graph.placeholder("c_" + target.replace(".", "_"))
        rec.bind(t, node)
        lifted[node] = (target, t)
    names = _user_input_names(mod, args, kwargs)
    leaves = pytree.tree_leaves((args, kwargs))
    for leaf, name in zip(leaves, names):
        node = _placeholder(rec.graph, name)
        if isinstance(leaf, Tensor):
            rec.bind(leaf, node)
        specs.append(InputSpec(InputKind.USER_INPUT, TensorArgument(node.name), None))
    with capturing(rec):
        out = mod(*args, **kwargs)
    out_leaves, out_spec = pytree.tree_flatten(out)
    outputs = tuple(rec.node(t) for t in out_leaves)
    rec.graph.output(outputs)
    constants, at = {}, sum(1 for s in specs if s.kind is not InputKind.USER_INPUT)
    for node, (target, t) in lifted.items():  # the ones the program read, after the buffers
        if node.users:
            specs.insert(at, InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(node.name), target))
            constants[target] = t
            at += 1
        else:
            rec.graph.erase_node(node)
    return rec, specs, state, constants, names, outputs, out_spec


def _tensor_attributes(mod) -> list:
    """``(qualified name, tensor)`` of the plain tensors ``mod`` and its submodules hold as attributes (not as
    parameters or buffers), each tensor once."""
    out, seen = [], set()
    for prefix, m in mod.named_modules():
        for name, v in vars(m).items():
            if type(v) is Tensor and id(v) not in seen:
                seen.add(id(v))
                out.append((f"{prefix}.{name}" if prefix else name, v))
    return out


def _placeholder(graph, name: str):
    """An input named ``name`` though it is a builtin's (``input``: PyTorch's export keeps the name in its
    signature; the generated code reads it as ``input_1 = input``)."""
    node = graph.placeholder(name)
    node.name = name
    return node


def _dynamic(mod, args, kwargs, graph, leaves, syms) -> None:
    """Check the marked sizes by capturing ``mod`` again at other sizes (its buffers put back after), and write
    the graph's sizes with their symbols (``node.meta["sym_shape"]``, which the printed graph shows)."""
    originals = [t for t, _, _ in leaves]

    def trace(tensors):
        swap = {id(a): b for a, b in zip(originals, tensors)}
        new_args, new_kwargs = pytree.tree_map(lambda x: swap.get(id(x), x) if isinstance(x, Tensor) else x,
                                               (args, kwargs))
        return _capture(mod, new_args, new_kwargs)[0].graph

    saved = [(b, b.detach().clone()) for b in mod.buffers() if b is not None]
    try:
        prober = _dyn.Prober(trace, leaves, syms, graph)
        _dyn.check(prober, syms)
        shapes = _dyn.symbolic_shapes(prober, syms, graph)
    finally:
        with no_grad():
            for b, value in saved:
                b.copy_(value)
    for node, shape in zip(graph.nodes, shapes):
        if shape is not None and any(isinstance(d, str) for d in shape):
            node.meta["sym_shape"] = shape


def _forward_params(mod) -> list:
    try:
        return list(inspect.signature(mod.forward).parameters)
    except (TypeError, ValueError):
        return []


def _user_input_names(mod, args, kwargs) -> list:
    """The forward's parameter names for the user's inputs (``x``; ``x_0``, ``x_1``... for a structured one)."""
    try:
        params = list(inspect.signature(mod.forward).parameters)
    except (TypeError, ValueError):
        params = []
    names = []
    for i, a in enumerate(args):
        base = params[i] if i < len(params) else f"args_{i}"
        n = len(pytree.tree_leaves(a))
        names += [base] if n == 1 else [f"{base}_{k}" for k in range(n)]
    for k, v in kwargs.items():
        n = len(pytree.tree_leaves(v))
        names += [k] if n == 1 else [f"{k}_{j}" for j in range(n)]
    return names


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol: int = 2) -> None:
    """Write ``ep`` to ``f`` (a path or a binary file) in tinytorch's archive (``_serialize.py``; not PyTorch's
    ``.pt2``)."""
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"The 'ep' parameter must be an instance of 'ExportedProgram', got '{type(ep).__name__}' "
                        f"instead.")
    _serialize.save(ep, f, extra_files)


def load(f, *, extra_files=None, expected_opset_version=None) -> ExportedProgram:
    """The program ``save`` wrote to ``f``."""
    return _serialize.load(f, extra_files)
