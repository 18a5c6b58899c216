"""``torch.jit.save``/``torch.jit.load`` of traced programs, in tinytorch's own file.

The file is a ``tinytorch.save`` checkpoint (PyTorch's zip format) of one dict:
``{"format": "tinytorch.jit/1", "program": <JSON text>, "tensors": {name: tensor}}``. The JSON describes the
graph node by node (op, name, target, arguments), the inputs' and outputs' structure, the input shapes a trace
that read sizes is bound to, and, for a module, its tree: each submodule's original class name, training flag,
and the names of its parameters (with ``requires_grad``) and buffers. ``tensors`` holds the parameters and
buffers under their dotted names and the graph's constants under theirs.

Loading reads the file with ``weights_only=True`` and runs no code from it: a node's target must name an ATen
operator (``aten.<op>.<overload>``) or ``operator.getitem``/``setitem``, and its arguments are plain values, so
the Python the graph module generates calls tinytorch's operators only. PyTorch's ``.pt`` TorchScript archives
are not read, and tinytorch's files are not TorchScript."""
from __future__ import annotations

import json
import operator
import os
import warnings
import sys

from .. import _dtype, device, layout, memory_format, serialization as _serialization
from .._op_namespace import ops
from ..fx.graph import Graph
from ..fx.graph_module import GraphModule
from ..fx.node import Node
from ..nn.parameter import Parameter
from ..utils import _pytree as pytree
from ._trace import (ScriptFunction, TopLevelTracedModule, TracedModule, _Program, RecursiveScriptModule,
                     _NO_SCRIPT_SAVE)

__all__ = ["save", "load"]
_FORMAT = "tinytorch.jit/1"


# -- values ----------------------------------------------------------------------------------------------------
def _encode(v):
    if isinstance(v, Node):
        return {"node": v.name}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return {"list" if isinstance(v, list) else "tuple": [_encode(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[k, _encode(x)] for k, x in v.items()]}
    if isinstance(v, slice):
        return {"slice": [_encode(v.start), _encode(v.stop), _encode(v.step)]}
    if v is Ellipsis:
        return {"ellipsis": None}
    if isinstance(v, complex):
        return {"complex": [v.real, v.imag]}
    if isinstance(v, _dtype.dtype):
        return {"dtype": str(v).rpartition(".")[2]}
    if isinstance(v, device):
        return {"device": str(v)}
    if isinstance(v, (memory_format, layout)):
        return {type(v).__name__: str(v).rpartition(".")[2]}
    raise RuntimeError(f"tinytorch.jit.save: cannot save the graph argument {v!r} of type {type(v).__name__}")


def _decode(v, nodes: dict):
    if not isinstance(v, dict):
        return v
    (kind, x), = v.items()
    tinytorch = sys.modules[__name__.partition(".")[0]]
    if kind == "node":
        return nodes[x]
    if kind in ("list", "tuple"):
        items = [_decode(i, nodes) for i in x]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {k: _decode(i, nodes) for k, i in x}
    if kind == "slice":
        return slice(*(_decode(i, nodes) for i in x))
    if kind == "ellipsis":
        return Ellipsis
    if kind == "complex":
        return complex(*x)
    if kind == "device":
        return tinytorch.device(x)
    if kind in ("dtype", "memory_format", "layout"):
        value = getattr(tinytorch, x, None)
        if type(value).__name__ != kind:
            raise RuntimeError(f"tinytorch.jit.load: {x!r} is no {kind}")
        return value
    raise RuntimeError(f"tinytorch.jit.load: unknown value kind {kind!r}")


def _target_name(target) -> str:
    if target in (operator.getitem, operator.setitem):
        return f"operator.{target.__name__}"
    if type(target).__name__ == "_AtenOverload":
        return str(target)  # aten.<op>.<overload>
    raise RuntimeError(f"tinytorch.jit.save: cannot save the graph target {target!r}")


def _resolve(name: str):
    if name in ("operator.getitem", "operator.setitem"):
        return getattr(operator, name.partition(".")[2])
    parts = name.split(".")
    if len(parts) != 3 or parts[0] != "aten":
        raise RuntimeError(f"tinytorch.jit.load: {name!r} is not an ATen operator")
    return getattr(getattr(ops.aten, parts[1]), parts[2])


# -- the structures ---------------------------------------------------------------------------------------------
def _shape_of(spec):
    """The inputs' or outputs' structure as plain values (0 for a leaf), flattened again on load."""
    return _encode(pytree.tree_unflatten([0] * spec.num_leaves, spec))


def _tree(m: TracedModule) -> dict:
    return {"name": m._original_name, "training": m.training,
            "parameters": [[k, None if p is None else p.requires_grad] for k, p in m._parameters.items()],
            "buffers": [[k, k not in m._non_persistent_buffers_set] for k in m._buffers],
            "children": [[k, None if c is None else _tree(c)] for k, c in m._modules.items()]}


def _build(tree: dict, tensors: dict, prefix: str, top: bool) -> TracedModule:
    m = (TopLevelTracedModule if top else TracedModule)(tree["name"], tree["training"])
    for k, requires_grad in tree["parameters"]:
        m._parameters[k] = None if requires_grad is None else Parameter(tensors[prefix + k], requires_grad)
    for k, persistent in tree["buffers"]:
        m._buffers[k] = tensors.get(prefix + k)
        if not persistent:
            m._non_persistent_buffers_set.add(k)
    for k, child in tree["children"]:
        m._modules[k] = None if child is None else _build(child, tensors, f"{prefix}{k}.", False)
    return m


def save(m, f, _extra_files=None) -> None:
    """Write a traced module or function (``torch.jit.trace``'s result) to ``f`` (a path or a binary file)."""
    warnings.warn("`torch.jit.save` is deprecated. Please switch to `torch.export`.", DeprecationWarning,
                  stacklevel=1)  # (no caller named, as trace's)
    write(m, f)


def write(m, f) -> None:
    """``save`` without its deprecation warning: a program's own ``.save(f)``, which PyTorch does not warn of."""
    if isinstance(m, (RecursiveScriptModule,)) or (isinstance(m, ScriptFunction) and not hasattr(m, "_program")):
        raise RuntimeError(_NO_SCRIPT_SAVE)
    if not isinstance(m, (TopLevelTracedModule, ScriptFunction)):
        raise RuntimeError("tinytorch.jit.save expects the result of torch.jit.trace (a traced module or "
                           f"function), got {type(m).__name__}; use tinytorch.save for a module's weights")
    program: _Program = m._program
    nodes = [{"op": n.op, "name": n.name,
              "target": _target_name(n.target) if n.op == "call_function" else n.target,
              "args": _encode(n.args), "kwargs": _encode(n.kwargs)} for n in program.gm.graph.nodes]
    tensors, desc = {}, {"nodes": nodes, "inputs": _shape_of(program.in_spec),
                         "outputs": _shape_of(program.out_spec),
                         "shapes": None if program.shapes is None else [list(s) for s in program.shapes]}
    for n in program.gm.graph.nodes:
        if n.op == "get_attr" and n.target.split(".")[0] not in program.params:
            tensors[n.target] = getattr(program.gm, n.target)
    if isinstance(m, TopLevelTracedModule):
        desc["module"] = _tree(m)
        tensors.update(m.state_dict(keep_vars=False))
        for k, b in m.named_buffers():
            tensors.setdefault(k, b)
    else:
        desc["function"] = m.name
    _serialization.save({"format": _FORMAT, "program": json.dumps(desc), "tensors": tensors}, f)


def load(f, map_location=None, _extra_files=None, _restore_shapes: bool = False):
    """A traced module or function written by ``save``."""
    warnings.warn("`torch.jit.load` is deprecated. Please switch to `torch.export`.", DeprecationWarning,
                  stacklevel=1)  # (no caller named, as trace's)
    if isinstance(f, (str, os.PathLike)):  # PyTorch checks a path before it opens it
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {f} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {f} is a directory")
    blob = _serialization.load(f, map_location=map_location, weights_only=True)
    if not isinstance(blob, dict) or blob.get("format") != _FORMAT:
        raise RuntimeError("tinytorch.jit.load reads the files tinytorch.jit.save writes (PyTorch's TorchScript "
                           "archives are not read)")
    desc, tensors = json.loads(blob["program"]), blob["tensors"]
    graph, by_name = Graph(), {}
    params = set()
    if "module" in desc:
        params = {k for k, _ in desc["module"]["parameters"]} | {k for k, _ in desc["module"]["buffers"]} | \
                 {k for k, _ in desc["module"]["children"]}
    constants = {}
    for n in desc["nodes"]:
        args, kwargs = _decode(n["args"], by_name), _decode(n["kwargs"], by_name)
        if n["op"] == "placeholder":
            node = graph.placeholder(n["name"])
        elif n["op"] == "get_attr":
            node = graph.get_attr(n["target"])
            if n["target"].split(".")[0] not in params:
                constants[n["target"]] = tensors[n["target"]]
        elif n["op"] == "call_function":
            node = graph.create_node("call_function", _resolve(n["target"]), args, kwargs, name=n["name"])
        elif n["op"] == "output":
            node = graph.output(args[0])
        else:
            raise RuntimeError(f"tinytorch.jit.load: unexpected node kind {n['op']!r}")
        by_name[n["name"]] = node
    in_spec = pytree.tree_flatten(_decode(desc["inputs"], {}))[1]
    out_spec = pytree.tree_flatten(_decode(desc["outputs"], {}))[1]
    shapes = None if desc["shapes"] is None else tuple(tuple(s) for s in desc["shapes"])
    if "module" in desc:
        m = _build(desc["module"], tensors, "", True)
        state = {n.target: _path(m, n.target) for n in graph.nodes
                 if n.op == "get_attr" and n.target not in constants}
        gm = GraphModule({**constants, **state}, graph)
        m._program = _Program(gm, in_spec, out_spec, shapes, frozenset(params))
        return m
    gm = GraphModule(constants, graph)
    return ScriptFunction(_Program(gm, in_spec, out_spec, shapes, frozenset()), desc["function"])


def _path(m, target: str):
    for atom in target.split("."):
        m = getattr(m, atom)
    return m
