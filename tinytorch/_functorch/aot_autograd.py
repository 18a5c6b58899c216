"""AOTAutograd: a captured forward graph turned into a forward graph and a backward graph, ahead of time.

``torch.compile`` captures what a program does as a graph of ops (``tinytorch/_dynamo/capture.py``). To run a
training step without building autograd's graph op by op, the backward must be a graph too. PyTorch derives it
the way this file does:

  1. **The joint graph.** Trace, on fake tensors (no data, no side effect on the real ones), one function that
     runs the captured forward and then asks autograd for the gradients of its outputs, seeded by extra inputs
     (the *tangents*, the gradients that will reach the outputs)::

         joint(*primals, *tangents) = (*outputs, *autograd.grad(outputs, primals_needing_grad, tangents))

     ``make_fx`` records the forward's ops and then each backward formula's ops as the engine runs them, so the
     joint graph holds the backward in tinytorch's own formulas, in the engine's order.
  2. **The partition.** Every node that depends on a tangent belongs to the backward; every other node to the
     forward (in its order, so that a mutation with no user, a BatchNorm's running statistics, stays there). The
     forward values the backward reads are the *saved* values: the forward graph returns them after the
     outputs, and the backward graph takes them before the tangents. (PyTorch's default partitioner cuts the
     same way; its min-cut partitioner would recompute cheap values instead of saving them.)

The two graphs are then run by ``tinytorch/_dynamo/replay.py``. A backward that ``make_fx`` cannot see (a node
whose gradient is computed on arrays only) makes ``joint_graph`` raise; the compiled call then keeps the
stage-1 replay through autograd."""
from __future__ import annotations

from ..autograd.engine import grad as _grad
from ..fx.experimental.proxy_tensor import make_fx
from ..fx.node import Node as FxNode
from .._ops.creation.factory import zeros
from ..tensor import Tensor

__all__ = ["joint_graph", "partition", "Partition"]


def _interpret(graph, inputs: list, state: dict):
    """Run a captured graph's nodes on ``inputs`` (its placeholders) and ``state`` (its get_attr tensors, by
    target): the program once more, its tensors all given as arguments."""
    env, ins = {}, iter(inputs)
    for node in graph.nodes:
        if node.op == "placeholder":
            env[node] = next(ins)
        elif node.op == "get_attr":
            env[node] = state[node.target]
        elif node.op == "call_function":
            args = _load(node.args, env)
            kwargs = _load(node.kwargs, env)
            env[node] = _call(node.target, args, kwargs)
        elif node.op == "output":
            return list(_load(node.args[0], env))
    raise AssertionError("a graph without an output node")


def _call(target, args, kwargs):
    """A captured node's call, made the way the program made it: an ATen operator that is a Tensor method only
    (``view``, ``contiguous``) through the method, which a running trace records (the operator's own function
    is below the recording hook)."""
    packet = getattr(target, "_packet", None)
    if packet is not None and not hasattr(packet._fn, "_decl") and args and isinstance(args[0], Tensor):
        method = getattr(args[0], packet._name, None)
        if method is not None:
            return method(*args[1:], **kwargs)
    return target(*args, **kwargs)


def _load(value, env):
    if isinstance(value, FxNode):
        return env[value]
    if isinstance(value, (list, tuple)):
        return type(value)(_load(v, env) for v in value)
    if isinstance(value, dict):
        return {k: _load(v, env) for k, v in value.items()}
    return value


def joint_graph(graph, tensors: list, constants: list, state: list):
    """The joint graph of a captured ``graph`` at the given inputs and state (real tensors; traced on fakes
    made like them; ``constants`` names the get_attr target each state tensor stands for).

    Returns ``(GraphModule, need, out_grad)``: ``need`` the positions (among inputs + state) of the primals that
    require grad, ``out_grad`` which of the program's outputs carry a gradient (each of those takes a tangent,
    in order)."""
    primals = list(tensors) + list(state)
    need = [i for i, t in enumerate(primals) if t.requires_grad]
    n_in = len(tensors)
    outs_seen: list = []

    def forward_only(*ps):  # a first fake run: which outputs carry a gradient, and their tangents' shapes
        outs = _interpret(graph, list(ps[:n_in]), dict(zip(constants, ps[n_in:])))
        outs_seen.extend(outs)
        return outs

    make_fx(forward_only, tracing_mode="fake")(*primals)
    out_grad = [isinstance(o, Tensor) and o.requires_grad for o in outs_seen]
    tangents = [zeros(o.shape, dtype=o.dtype) for o, g in zip(outs_seen, out_grad) if g]

    def joint(*ps_and_tangents):
        ps, tans = ps_and_tangents[:len(primals)], ps_and_tangents[len(primals):]
        outs = _interpret(graph, list(ps[:n_in]), dict(zip(constants, ps[n_in:])))
        diff = [o for o, g in zip(outs, out_grad) if g]
        grads = _grad(diff, [ps[i] for i in need], list(tans), allow_unused=True) if diff and need else ()
        return (*outs, *grads)

    return make_fx(joint, tracing_mode="fake")(*primals, *tangents), need, out_grad


class Partition:
    """The joint graph's nodes cut in two. ``forward``: the nodes run at the call, ``fw_outputs`` the values it
    hands out (the program's outputs, then the saved values); ``backward``: the nodes run by the backward,
    ``bw_outputs`` the gradients (None where a primal received none)."""

    def __init__(self, forward, fw_outputs, saved, backward, bw_outputs, primals, tangents):
        self.forward, self.fw_outputs, self.saved = forward, fw_outputs, saved
        self.backward, self.bw_outputs = backward, bw_outputs
        self.primals, self.tangents = primals, tangents


def partition(gm, n_primals: int, n_outputs: int) -> Partition:
    """Cut ``gm`` (a joint graph: ``n_primals`` placeholders, then the tangents; outputs: the program's
    ``n_outputs`` outputs, then the gradients) into forward and backward."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    primals, tangents = placeholders[:n_primals], placeholders[n_primals:]
    output = next(n for n in gm.graph.nodes if n.op == "output")
    outs = list(output.args[0])
    fw_outputs, bw_outputs = outs[:n_outputs], outs[n_outputs:]
    in_backward = set(tangents)
    for node in gm.graph.nodes:
        if node.op == "call_function" and any(a in in_backward for a in node.all_input_nodes):
            in_backward.add(node)
    forward = [n for n in gm.graph.nodes if n.op in ("call_function", "get_attr") and n not in in_backward]
    backward = [n for n in gm.graph.nodes if n.op == "call_function" and n in in_backward]
    if any(isinstance(o, FxNode) and o in in_backward for o in fw_outputs):
        raise NotImplementedError("an output of the forward depends on a tangent")
    saved, seen = [], set()
    for node in backward:
        for a in node.all_input_nodes:
            if a not in in_backward and a not in seen:
                seen.add(a)
                saved.append(a)
    for o in bw_outputs:  # a gradient that is a forward value itself (a constant, or a primal passed through)
        if isinstance(o, FxNode) and o not in in_backward and o not in seen:
            seen.add(o)
            saved.append(o)
    return Partition(forward, fw_outputs, saved, backward, bw_outputs, primals, tangents)
