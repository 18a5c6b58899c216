"""``add_graph``: the module's structure as a TensorBoard GraphDef.

PyTorch traces with TorchScript; here the forward runs once with hooks on every submodule, and each
leaf module's call becomes a node (op = its class, scope = PyTorch's ``Net/Sequential[stack]/Linear[0]``
naming) joined to the nodes that produced its inputs."""
from __future__ import annotations

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.config_pb2 import RunMetadata
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef
from ...tensor import Tensor
from ...autograd import no_grad


def _shape_attr(shapes) -> AttrValue:
    protos = [TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in s]) for s in shapes]
    return AttrValue(list=AttrValue.ListValue(shape=protos))


def _tensors(x) -> list:

    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for item in x for t in _tensors(item)]
    if isinstance(x, dict):
        return [t for item in x.values() for t in _tensors(item)]
    return []


def graph(model, args, verbose: bool = False):
    """(GraphDef, RunMetadata) of one forward of ``model`` on ``args``; the structure alone without args."""

    scopes = {}
    root = type(model).__name__
    for name, m in model.named_modules():
        path = root
        parent = model
        for part in name.split(".") if name else []:
            parent = getattr(parent, part) if not part.isdigit() else parent._modules[part]
            path += f"/{type(parent).__name__}[{part}]"
        scopes[id(m)] = path

    nodes, producer, keep = [], {}, []

    def add(name: str, op: str, inputs: list, shapes: list, attr: str = "") -> str:
        node = NodeDef(name=name, op=op, input=inputs)
        node.attr["_output_shapes"].CopyFrom(_shape_attr(shapes))
        if attr:
            node.attr["attr"].CopyFrom(AttrValue(s=attr.encode("utf-8")))
        nodes.append(node)
        return name

    if args is None:  # no input: every module in the tree, joined to its parent
        for name, m in model.named_modules():
            parent = scopes[id(m)].rsplit("/", 1)[0] if name else None
            add(scopes[id(m)], type(m).__name__, [parent] if parent else [], [], m.extra_repr())
        return GraphDef(node=nodes, versions=VersionDef(producer=22)), _run_metadata()

    inputs = args if isinstance(args, (tuple, list)) else (args,)
    for i, t in enumerate(_tensors(inputs)):
        producer[id(t)] = add(f"input/input.{i}", "IO Node", [], [tuple(t.shape)])
        keep.append(t)
    counter = [0]

    def hook(module, inp, out):
        if module._modules:  # containers: their children are the nodes
            return
        counter[0] += 1
        srcs = [producer[id(t)] for t in _tensors(inp) if id(t) in producer]
        if not srcs and nodes:  # its input came from functional code between modules: the last node's
            srcs = [nodes[-1].name]
        outs = _tensors(out)
        name = add(f"{scopes[id(module)]}/{type(module).__name__.lower()}.{counter[0]}", type(module).__name__,
                   srcs, [tuple(t.shape) for t in outs], module.extra_repr())
        for t in outs:
            producer[id(t)] = name
            keep.append(t)

    handles = [m.register_forward_hook(hook) for m in model.modules()]
    try:
        with no_grad():
            out = model(*inputs)
    finally:
        for h in handles:
            h.remove()
    for i, t in enumerate(_tensors(out)):
        src = [producer[id(t)]] if id(t) in producer else []
        add(f"output/output.{i}", "IO Node", src, [tuple(t.shape)])
    return GraphDef(node=nodes, versions=VersionDef(producer=22)), _run_metadata()


def _run_metadata() -> RunMetadata:
    return RunMetadata(step_stats=StepStats(dev_stats=[DeviceStepStats(device="/device:CPU:0")]))
