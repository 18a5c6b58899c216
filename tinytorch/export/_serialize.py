"""``torch.export.save``/``load`` in tinytorch's own file: a zip archive holding

  * ``archive_format``: ``tinytorch-exported-program/1``;
  * ``program.json``: the graph, node by node (``op``, ``name``, ``target`` as ``aten.<packet>.<overload>`` or
    ``operator.getitem``, the arguments with nodes as ``{"node": name}``, and each node's dtype and shape, symbolic
    sizes and ``# File:`` line), the graph signature, the range constraints, ``module()``'s guards and the outputs'
    structure;
  * ``state.pt``: the lifted parameters, buffers and constant tensors and the graph's own constants, by
    ``tinytorch.save``.

PyTorch's ``.pt2`` archive (its schema'd JSON, its own weights layout) is not written or read: a file saved by one
library does not load in the other."""
from __future__ import annotations

import io
import json
import operator
import os
import zipfile

from .. import _dtype
from .._op_namespace import ops
from .._ops._core.members import strided
from .._ops.creation.factory import empty
from .._symbolic import SymBool, SymFloat, SymInt, _Symbolic
from .._ops.shape.conversions import channels_last, channels_last_3d, contiguous_format, preserve_format
from ..fx.graph import Graph
from ..fx.graph_module import GraphModule
from ..serialization import load as _load, save as _save
from ..tensor import Tensor, device
from ..utils import _pytree as pytree
from ._decompose import placeholder
from .dynamic_shapes import Symbol, ValueRanges, int_oo
from .exported_program import ExportedProgram
from .graph_signature import (ExportGraphSignature, InputKind, InputSpec, OutputKind, OutputSpec,
                              TensorArgument)

FORMAT = "tinytorch-exported-program/1"
_NAMED = {"strided": strided, "contiguous_format": contiguous_format, "preserve_format": preserve_format,
          "channels_last": channels_last, "channels_last_3d": channels_last_3d}


# -- values ----------------------------------------------------------------------------------------------
def _encode(a):
    if hasattr(a, "op") and hasattr(a, "users"):
        return {"node": a.name}
    if isinstance(a, tuple):
        return {"tuple": [_encode(v) for v in a]}
    if isinstance(a, list):
        return [_encode(v) for v in a]
    if isinstance(a, dict):
        return {"dict": [[k, _encode(v)] for k, v in a.items()]}
    if a is None or isinstance(a, (bool, int, float, str)):
        return a
    if isinstance(a, _dtype.dtype):
        return {"dtype": str(a).rpartition(".")[2]}
    if isinstance(a, device):
        return {"device": str(a)}
    for name, v in _NAMED.items():  # a layout or a memory format
        if v is a:
            return {"torch": name}
    raise NotImplementedError(f"tinytorch.export.save: cannot write the argument {a!r} ({type(a).__name__})")


def _decode(a, nodes: dict):
    if isinstance(a, list):
        return [_decode(v, nodes) for v in a]
    if not isinstance(a, dict):
        return a
    if "node" in a:
        return nodes[a["node"]]
    if "tuple" in a:
        return tuple(_decode(v, nodes) for v in a["tuple"])
    if "dict" in a:
        return {k: _decode(v, nodes) for k, v in a["dict"]}
    if "dtype" in a:
        return _dtype.BY_NAME[a["dtype"]]
    if "torch" in a:
        return _NAMED[a["torch"]]
    return device(a["device"])


def _target(node):
    if node.op != "call_function":
        return node.target
    if node.target is operator.getitem:
        return "operator.getitem"
    if getattr(node.target, "__module__", None) in ("_operator", "builtins"):  # an unbacked value's arithmetic
        return f"{'operator' if node.target.__module__ == '_operator' else 'builtins'}.{node.target.__name__}"
    return str(node.target)  # aten.add_.Tensor


def _resolve(op: str, target: str):
    if op != "call_function":
        return target
    if target.startswith("operator."):
        return getattr(operator, target.partition(".")[2])
    if target == "builtins.abs":
        return abs
    namespace, packet, overload = target.split(".")
    return getattr(getattr(getattr(ops, namespace), packet), overload)


def _bound(v):
    """A range's end: a number, or an infinity's name (``-int_oo``, ``oo``)."""
    return v if isinstance(v, (int, float)) else repr(v)


def _unbound(v):
    return Symbol(v) if isinstance(v, str) else v


def _meta(node) -> dict:
    out = {}
    v = node.meta.get("val")
    if isinstance(v, Tensor):
        out["val"] = {"dtype": str(v.dtype).rpartition(".")[2], "shape": [int(s) for s in v.shape]}
    elif isinstance(v, _Symbolic):  # an unbacked value (u0): its class and expression, for the printed graph
        out["sym"] = [type(v).__name__, repr(v)]
    for key in ("sym_shape", "stack_trace"):
        if node.meta.get(key) is not None:
            out[key] = node.meta[key]
    return out


# -- save and load ---------------------------------------------------------------------------------------
def save(ep, f, extra_files=None) -> None:
    nodes = [{"op": n.op, "name": n.name, "target": _target(n), "args": _encode(n.args),
              "kwargs": _encode(n.kwargs), "meta": _meta(n)} for n in ep.graph.nodes]
    sig = ep.graph_signature
    program = {
        "graph": nodes,
        "inputs": [[s.kind.name, s.arg.name, s.target, s.persistent] for s in sig.input_specs],
        "outputs": [[s.kind.name, s.arg.name, s.target] for s in sig.output_specs],
        "range_constraints": [[k.name, _bound(v.lower), None if v.upper is int_oo else _bound(v.upper)]
                              for k, v in ep.range_constraints.items()],
        "guards": [[i, d, how, list(value) if isinstance(value, tuple) else value, message]
                   for i, d, (how, value), message in ep._guards],
        "out_structure": _encode(pytree.tree_unflatten(list(range(ep._out_spec.num_leaves)), ep._out_spec)),
        "user_names": list(ep._user_names),
    }
    state = io.BytesIO()
    constants = {name: getattr(ep.graph_module, name) for name in _constant_names(ep.graph)}
    _save({"state_dict": dict(ep.state_dict), "constants": constants, "lifted": dict(ep.constants)},
                   state)
    if isinstance(f, (str, os.PathLike)):
        f = os.fspath(f)
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("archive_format", FORMAT)
        z.writestr("program.json", json.dumps(program))
        z.writestr("state.pt", state.getvalue())
        for name, content in (extra_files or {}).items():
            z.writestr(f"extra/{name}", content)


def _constant_names(graph) -> list:
    return [n.target for n in graph.nodes if n.op == "get_attr"]


def load(f, extra_files=None):
    if isinstance(f, (str, os.PathLike)):
        f = os.fspath(f)
    with zipfile.ZipFile(f) as z:
        names = set(z.namelist())
        if "archive_format" not in names or z.read("archive_format").decode() != FORMAT:
            raise RuntimeError("tinytorch.export.load: not an exported program saved by tinytorch.export.save "
                               "(PyTorch's .pt2 archives are not read)")
        program = json.loads(z.read("program.json"))
        stored = _load(io.BytesIO(z.read("state.pt")), weights_only=False)
        for name in (extra_files or {}):
            if f"extra/{name}" in names:
                extra_files[name] = z.read(f"extra/{name}").decode()
    graph, nodes = Graph(), {}
    for entry in program["graph"]:
        op, target = entry["op"], _resolve(entry["op"], entry["target"])
        args, kwargs = _decode(entry["args"], nodes), _decode(entry["kwargs"], nodes)
        if op == "output":
            node = graph.output(args[0])
        elif op == "placeholder":
            node = placeholder(graph, target)
        else:
            node = graph.create_node(op, target, args, kwargs, name=entry["name"])
        meta = entry["meta"]
        if "val" in meta:
            node.meta["val"] = empty(meta["val"]["shape"], dtype=_dtype.BY_NAME[meta["val"]["dtype"]],
                                     device="meta")
        elif "sym" in meta:  # shown only: the loaded program reads no example value
            cls = {"SymInt": SymInt, "SymFloat": SymFloat, "SymBool": SymBool}[meta["sym"][0]]
            node.meta["val"] = cls._made(None, node, meta["sym"][1], None)
        for key in ("sym_shape", "stack_trace"):
            if key in meta:
                node.meta[key] = meta[key]
        nodes[entry["name"]] = node
    gm = GraphModule(dict(stored["constants"]), graph)
    signature = ExportGraphSignature(
        [InputSpec(InputKind[k], TensorArgument(a), t, p) for k, a, t, p in program["inputs"]],
        [OutputSpec(OutputKind[k], TensorArgument(a), t) for k, a, t in program["outputs"]])
    ranges = {Symbol(name): ValueRanges(_unbound(lo), int_oo if hi is None else _unbound(hi))
              for name, lo, hi in program["range_constraints"]}
    guards = [(i, d, (how, tuple(value) if isinstance(value, list) else value), message)
              for i, d, how, value, message in program["guards"]]
    out_spec = pytree.tree_flatten(_decode(program["out_structure"], {}))[1]
    return ExportedProgram(gm, signature, stored["state_dict"], out_spec, program["user_names"], ranges, guards,
                           stored["lifted"])
