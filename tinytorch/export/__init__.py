"""``tinytorch.export`` (PyTorch's ``torch.export``): a module's forward as a graph of ATen operators, its parameters,
buffers and constant tensors lifted to inputs.

``export(module, args)`` runs ``module(*args)`` once under the same capture as ``make_fx``
(``tinytorch/fx/experimental/_capture.py``), one level up (``predispatch``: the ops as the Python API called
them, ``aten.linear.default``, ``aten.conv2d.default``, as PyTorch 2's export records its training IR). The graph's
inputs are the parameters (``p_<name>``), the buffers (``b_<name>``), the plain tensors the module holds as
attributes and the program reads (``c_<name>``), then the user's inputs; ``graph_signature`` says which is which,
``state_dict`` and ``constants`` hold the lifted tensors, and ``module()`` gives a module that checks its inputs
(the guards) and calls the graph with them. ``print(ep)`` prints PyTorch's text (its ``# File:`` lines name
tinytorch's files where PyTorch's name its own). A training-mode BatchNorm shows its
``aten.add_.Tensor(b_..._num_batches_tracked, 1)``, as PyTorch's does.

The rest, one file each (``graph_signature.py`` and ``exported_program.py`` hold the classes, as PyTorch's do):
  * ``dynamic_shapes.py``: ``Dim``, ``Dim.AUTO``/``STATIC``/``DYNAMIC`` and ``dynamic_shapes=``. tinytorch has no
    symbolic sizes: the capture runs on the example, and the marked sizes are named (``s77``), written into the
    graph's shapes, checked for specialisation and narrowed by capturing again at other sizes; its docstring says
    how and what that cannot see.
  * ``_unbacked.py``: a tensor's value read into Python (``x.sum().item()``) as PyTorch's unbacked symbol (``u0``,
    ``zuf0``): its ``aten.item`` node, the arithmetic on it, the runtime check of a size, PyTorch's refusals.
  * ``_decompose.py``: ``run_decompositions()``, the graph lowered to core ATen by make_fx's own rules, its in-place
    writes functionalised (written buffers and inputs as mutation outputs; a training BatchNorm's statistics are not;
    ``decomp_table`` is not read).
  * ``_serialize.py``: ``save``/``load`` in tinytorch's own zip archive (not PyTorch's ``.pt2``)."""
from __future__ import annotations

import contextlib
import inspect
import threading
import traceback

from ..autograd.grad_mode import no_grad
from .._dynamo.capture import user_frame
from ..fx.experimental._capture import Reads, Recording, capturing, watching
from ..fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode
from ..fx.graph_module import GraphModule
from ..nn.modules.module import Module
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor
from ..utils import _pytree as pytree
from . import _serialize, _unbacked, dynamic_shapes as _dyn
from ._decompose import CustomDecompTable, default_decompositions, placeholder as _placeholder
from .dynamic_shapes import Dim, ShapesCollection
from .exported_program import ExportedProgram
from .graph_signature import (ExportGraphSignature, InputKind, InputSpec, OutputKind, OutputSpec,
                              TensorArgument)

__all__ = ["export", "load", "save", "ExportedProgram", "ExportGraphSignature", "Dim", "ShapesCollection",
           "default_decompositions", "CustomDecompTable"]


class _Exporting(threading.local):
    depth = 0  # > 0 while torch.export runs the program in this thread (torch.compiler.is_exporting())


EXPORTING = _Exporting()


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict: bool = False, preserve_module_call_signature=()):
    """``mod``'s forward, called on ``args`` and ``kwargs``, as an ``ExportedProgram``; ``dynamic_shapes`` marks
    the sizes left free (``tinytorch/export/dynamic_shapes.py``)."""
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got {type(mod)}.")
    if not isinstance(args, tuple):
        raise ValueError(f"Expected `args` to be a tuple, got {type(args)}")
    kwargs = kwargs or {}
    with _state_kept(mod, (args, kwargs)):  # (PyTorch's export runs on fake tensors: nothing is written)
        rec, specs, state, constants, names, outputs, out_spec = _capture(mod, args, kwargs)
    params = _forward_params(mod)
    leaves = _dyn.leaf_specs(params, args, kwargs, {} if dynamic_shapes is None else dynamic_shapes)
    syms = _dyn.make_symbols(leaves)
    if syms:
        _dynamic(mod, args, kwargs, rec.graph, leaves, syms)
    if rec.unbacked.ints:
        with _state_kept(mod):
            _unbacked.sized(rec, lambda shifts: _capture(mod, args, kwargs, shifts)[0])
    _unbacked.drop_unused(rec.graph)
    gm = GraphModule(dict(rec.constants), rec.graph)
    signature = ExportGraphSignature(specs, [OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(n.name), None)
                                             for n in outputs])
    ranges = {**_dyn.range_constraints(syms), **rec.unbacked.range_constraints()}
    ep = ExportedProgram(gm, signature, state, out_spec, names, ranges, _dyn.guards(leaves, syms), constants)
    ep._in_spec = pytree.tree_flatten((args, kwargs))[1]
    return ep


def _capture(mod, args, kwargs, shifts=None) -> tuple:
    """One run of ``mod(*args, **kwargs)`` recorded: the recording, the input specs, the lifted state, the user
    inputs' names, the output nodes and the outputs' structure. ``shifts``: the unbacked integers moved from the
    example's values ({u-index: by}; ``_unbacked.py``)."""
    rec = Recording(predispatch=True)
    rec.metadata_checks = True
    rec.unbacked = _unbacked.Unbacked(rec, shifts)
    specs, state, non_persistent = [], {}, {}
    for kind, prefix, named in ((InputKind.PARAMETER, "p_", mod.named_parameters()),
                                (InputKind.BUFFER, "b_", mod.named_buffers())):
        for target, t in named:
            node = rec.graph.placeholder(prefix + target.replace(".", "_"))
            rec.bind(t, node)
            path, _, name = target.rpartition(".")
            # a buffer left out of the state dict (persistent=False) is held in the program's constants
            persistent = None if kind is InputKind.PARAMETER else \
                name not in mod.get_submodule(path)._non_persistent_buffers_set
            specs.append(InputSpec(kind, TensorArgument(node.name), target, persistent))
            (state if persistent is not False else non_persistent)[target] = t
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
    EXPORTING.depth += 1
    try:
        with capturing(rec), watching(_Branches(rec.unbacked)):
            out = mod(*args, **kwargs)
    finally:
        EXPORTING.depth -= 1
    out_leaves, out_spec = pytree.tree_flatten(out)
    outputs = tuple(rec.node(t) for t in out_leaves)
    rec.graph.output(outputs)
    constants, at = dict(non_persistent), sum(1 for s in specs if s.kind is not InputKind.USER_INPUT)
    read = {}  # the constant inputs the program read: attributes, then the tensors it made (a list index)
    for node, (target, t) in lifted.items():
        if node.users:
            read[node] = (target, t)
        else:
            rec.graph.erase_node(node)
    # the placeholders stay first, the constant inputs just before the user's
    after = next((n for n in rec.graph.nodes if n.op != "placeholder" or n.name in names), None)
    read.update(_lift_made_constants(rec, after))
    order = {n: i for i, n in enumerate(rec.graph.nodes)}

    def first_read(n):  # (the op, then the argument: self.a * self.b reads a first)
        return min((order[u], next((i for i, a in enumerate(pytree.tree_leaves((u.args, u.kwargs))) if a is n), 0))
                   for u in n.users)
    for node in sorted(read, key=first_read):  # PyTorch lifts them as first read
        target, t = read[node]
        if after is not None:
            after.prepend(node)
        specs.insert(at, InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(node.name), target))
        constants[target] = t
        at += 1
    return rec, specs, state, constants, names, outputs, out_spec


class _Branches(Reads):
    """The export's watch on value reads, which a graph of the example would freeze: ``.item()`` is an unbacked
    symbol (``_unbacked.py``), ``tolist()`` one per element, and ``int(x)``/``float(x)`` are refused by it as
    PyTorch refuses them; a tensor read as a Python bool (a branch on the data) is refused with PyTorch's
    ``GuardOnDataDependentSymNode``; ``numpy()`` with PyTorch's error."""

    def __init__(self, unbacked):
        super().__init__()
        self.unbacked = unbacked

    def size_read(self, t) -> None:
        super().size_read(t)
        self.unbacked.size_read(t)

    def made_value(self, t, what: str):
        if what == "list":  # one symbol per element, read from its row of unbind(0), as PyTorch's tolist
            return self.unbacked.item(t) if t.dim() == 0 else [self.made_value(r, what) for r in t.unbind(0)]
        if t._data.size != 1 and what != "NumPy array":
            return None  # the conversion refuses it with its own error
        if what == "number":
            return self.unbacked.item(t)
        if what in ("integer", "index", "float"):  # the symbol itself refuses to be a Python number
            n = self.unbacked.item(t)
            return float(n) if what == "float" else int(n)
        if what == "NumPy array":
            raise RuntimeError(".numpy() is not supported for tensor subclasses.")
        return None

    def read_value(self, what: str) -> bool:
        if what != "boolean":
            raise NotImplementedError(
                f"tinytorch's torch.export cannot hold a tensor's value read into Python (a {what}): the "
                "example's value would be frozen into the exported graph")
        frame = user_frame()
        where = "".join(traceback.format_list([frame])) if frame is not None else ""
        raise GuardOnDataDependentSymNode(
            "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like symbols: "
            "none)\n\nconsider using data-dependent friendly APIs such as guard_or_false, guard_or_true and "
            "statically_known_true.\n\nThe following call raised this error:\n" + where + "\n\nThe error above "
            "occurred when calling torch.export.export. If you would like to view some more information about this "
            "error, and get a list of all other errors that may occur in your export call, you can replace your "
            "`export()` call with `draft_export()`.")


def _lift_made_constants(rec, before) -> dict:
    """The tensors the program made from Python values (a list index), which the recording holds as constants
    (``get_attr`` nodes), as inputs ``c_lifted_tensor_<n>`` (targets ``lifted_tensor_<n>``), as PyTorch's export
    lifts them: {placeholder: (target, tensor)}."""
    made = [n for n in rec.graph.nodes if n.op == "get_attr" and n.target.startswith("_tensor_constant")]
    out = {}
    for k, node in enumerate(made):
        target = f"lifted_tensor_{k}"
        with rec.graph.inserting_before(before):
            placeholder = rec.graph.placeholder("c_" + target)
        placeholder.meta.update(node.meta)
        node.replace_all_uses_with(placeholder)
        rec.graph.erase_node(node)
        out[placeholder] = (target, rec.constants.pop(node.target))
    return out


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


def _dynamic(mod, args, kwargs, graph, leaves, syms) -> None:
    """Check the marked sizes by capturing ``mod`` again at other sizes (its buffers and the random number
    generator's state put back after), and write the graph's sizes with their symbols (``node.meta["sym_shape"]``,
    which the printed graph shows)."""
    originals = [t for t, _, _ in leaves]

    def trace(tensors):
        swap = {id(a): b for a, b in zip(originals, tensors)}
        new_args, new_kwargs = pytree.tree_map(lambda x: swap.get(id(x), x) if isinstance(x, Tensor) else x,
                                               (args, kwargs))
        return _capture(mod, new_args, new_kwargs)[0].graph

    with _state_kept(mod):
        prober = _dyn.Prober(trace, leaves, syms, graph)
        _dyn.check(prober, syms)
        shapes = _dyn.symbolic_shapes(prober, syms, graph)
    for node, shape in zip(graph.nodes, shapes):
        if shape is not None and any(isinstance(d, str) for d in shape):
            node.meta["sym_shape"] = shape


@contextlib.contextmanager
def _state_kept(mod, inputs=()):
    """The module's parameters and buffers, the tensors in ``inputs`` and the random number generator's state as
    they were before the block (which captures the program: one that writes a buffer or an input, or draws random
    numbers, would do so at each capture)."""
    tensors = [*mod.parameters(), *mod.buffers(), *(t for t in pytree.tree_leaves(inputs) if isinstance(t, Tensor))]
    saved = [(b, b.detach().clone()) for b in tensors if b is not None]
    rng = get_rng_state()
    try:
        yield
    finally:
        with no_grad():
            for b, value in saved:
                b.copy_(value)
        set_rng_state(rng)


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
