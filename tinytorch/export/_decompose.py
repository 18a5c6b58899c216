"""``ExportedProgram.run_decompositions()``: the exported graph (the ops as the Python API called them,
``aten.linear.default``) lowered to core ATen (``aten.permute`` + ``aten.addmm``, ``aten.convolution``,
``aten._native_batch_norm_legit_no_training``), as PyTorch's export prints it after its default decompositions.

The lowering is the one ``make_fx`` already writes (``tinytorch/fx/experimental/_aten_rules.py``): the graph runs
node by node, each op under a capture one level down (``predispatch=False``, autograd off, so no ``detach``
nodes), with ``core_aten`` set so that ``t`` is written ``permute(w, [1, 0])`` as PyTorch's core decomposition
table writes it. Each new node keeps its source node's ``# File:`` line, and the nodes nobody reads (an op's unused
results) are dropped, as PyTorch's pass does. The state runs as copies (an in-place counter update in the graph
leaves the module's own alone).

Not done: ``decomp_table`` is not read (the lowering is the rules' one; ``default_decompositions()`` returns an
empty table); a training-mode BatchNorm stays ``aten.batch_norm.default`` (PyTorch functionalises it to
``_native_batch_norm_legit_functional`` with the running statistics as ``BUFFER_MUTATION`` outputs); a program with
dynamic sizes keeps the symbols on the nodes whose shape is their source node's, and the example's numbers in
the arguments of the ops the lowering adds (a 3-d ``linear``'s ``view`` sizes)."""
from __future__ import annotations

import operator

from .._op_namespace import ops
from .._ops.creation.factory import zeros
from .._symbolic import _Symbolic
from ..autograd.grad_mode import no_grad
from ..fx.experimental._capture import Recording, capturing
from ..fx.graph_module import GraphModule
from ..tensor import Tensor
from ..utils import _pytree as pytree
from ._unbacked import Unbacked
from .graph_signature import ExportGraphSignature, InputKind, OutputSpec, TensorArgument

__all__ = ["run_decompositions", "default_decompositions", "CustomDecompTable"]


class CustomDecompTable(dict):
    """PyTorch's table of the decompositions ``run_decompositions`` applies, by operator (tinytorch's holds none:
    its lowering is its capture rules')."""


CustomDecompTable.__module__ = "tinytorch.export.decomp_utils"  # PyTorch's module, which re-exports it


def default_decompositions() -> CustomDecompTable:
    return CustomDecompTable()


def run_decompositions(ep, decomp_table=None):
    rec = Recording(predispatch=False)
    rec.core_aten = True
    # the values read by .item(): aten._local_scalar_dense, as symbols again; their size checks are the graph's own
    rec.unbacked = unbacked = Unbacked(rec, overload="_local_scalar_dense.default")
    unbacked.write_checks = False
    sig = ep.graph_signature
    env, outputs = {}, None
    state = {s.arg.name: ep.constants[s.target] if s.kind is InputKind.CONSTANT_TENSOR else ep.state_dict[s.target]
             for s in sig.input_specs if s.kind is not InputKind.USER_INPUT}
    with no_grad():
        for node in ep.graph.nodes:
            if node.op == "placeholder":
                value = state.get(node.name)
                value = node.meta["val"] if value is None else value
                # a loaded program's inputs are known by shape and dtype only (meta tensors): zeros of them
                value = zeros(value.shape, dtype=value.dtype) if value.is_meta else value.detach().clone()
                new = placeholder(rec.graph, node.target)
                rec.bind(value, new)
                if "sym_shape" in node.meta:
                    new.meta["sym_shape"] = node.meta["sym_shape"]
                env[node] = value
            elif node.op == "get_attr":
                env[node] = getattr(ep.graph_module, node.target)
            elif node.op == "call_function":
                args, kwargs = pytree.tree_map(lambda a: env[a] if a in env else a, (node.args, node.kwargs),
                                               is_leaf=lambda a: hasattr(a, "op") and hasattr(a, "users"))
                if node.target is operator.getitem:
                    env[node] = operator.getitem(*args)
                    continue
                if node.target is ops.aten.item.default:
                    env[node] = unbacked.item(args[0])
                    _inherit(node, [env[node].node])
                    continue
                if node.target is ops.aten._assert_scalar.default:  # named after the lowered condition's node
                    cond = args[0]
                    check = rec.graph.create_node(
                        "call_function", node.target, (cond.node, f"Runtime assertion failed for expression "
                                                                  f"{cond!r} on node '{cond.node.name}'"),
                        name="_assert_scalar_default")
                    check.meta["val"] = None
                    _inherit(node, [check])
                    continue
                known = set(rec.graph.nodes)
                with capturing(rec):
                    env[node] = node.target(*args, **kwargs)
                _inherit(node, [n for n in rec.graph.nodes if n not in known])
            elif node.op == "output":
                outputs = [env[a] for a in node.args[0]]
    out_nodes = tuple(rec.node(t) if isinstance(t, (Tensor, _Symbolic)) else t for t in outputs)
    rec.graph.output(out_nodes)
    rec.graph.eliminate_dead_code(lambda n: n.op in ("placeholder", "output") or _mutates(n))
    _fill_values(rec.graph)
    gm = GraphModule(dict(rec.constants), rec.graph)
    specs = [OutputSpec(s.kind, TensorArgument(n.name), s.target) for s, n in zip(sig.output_specs, out_nodes)]
    return type(ep)(gm, ExportGraphSignature(list(sig.input_specs), specs), ep.state_dict, ep._out_spec,
                    ep._user_names, ep.range_constraints, ep._guards, ep.constants)


def placeholder(graph, name: str):
    """An input named ``name`` though it is a builtin's (``input``: PyTorch's export keeps the name in its
    signature; the generated code reads it as ``input_1 = input``)."""
    node = graph.placeholder(name)
    node.name = name
    return node


def _inherit(source, nodes: list) -> None:
    """The lowered nodes of ``source``: its ``# File:`` line, and its symbolic shape where theirs is the same."""
    stack = source.meta.get("stack_trace")
    shape = source.meta.get("sym_shape")
    val = source.meta.get("val")
    for n in nodes:
        if stack is not None:
            n.meta["stack_trace"] = stack
        v = n.meta.get("val")
        if shape is not None and isinstance(v, Tensor) and isinstance(val, Tensor) and v.shape == val.shape:
            n.meta["sym_shape"] = shape


def _fill_values(graph) -> None:
    """The value of a node a rule added on the way (the ``permute`` before an ``addmm``), which the capture binds
    to no tensor: its op run again on its inputs' values (the printed graph shows its shape)."""
    is_node = lambda a: hasattr(a, "op") and hasattr(a, "users")  # noqa: E731
    with no_grad():
        for node in graph.nodes:
            if node.op != "call_function" or "val" in node.meta or node.target is operator.getitem:
                continue
            args, kwargs = pytree.tree_map(lambda a: a.meta.get("val") if is_node(a) else a,
                                           (node.args, node.kwargs), is_leaf=is_node)
            value = node.target(*args, **kwargs)
            if isinstance(value, Tensor):
                node.meta["val"] = value


def _mutates(node) -> bool:
    """An in-place op (``aten.add_.Tensor``): kept though nobody reads its result."""
    if node.target is ops.aten._assert_scalar.default:  # a runtime check: kept, as PyTorch keeps it
        return True
    name = getattr(node.target, "__name__", str(node.target))
    return node.op == "call_function" and name.split(".")[0].endswith("_") and not name.startswith("_")

