"""``ExportedProgram.run_decompositions()``: the exported graph (the ops as the Python API called them,
``aten.linear.default``) lowered to core ATen (``aten.permute`` + ``aten.addmm``, ``aten.convolution``,
``aten._native_batch_norm_legit_no_training``), as PyTorch's export prints it after its default decompositions.

The lowering is the one ``make_fx`` already writes (``tinytorch/fx/experimental/_aten_rules.py``): the graph runs
node by node, each op under a capture one level down (``predispatch=False``, autograd off, so no ``detach``
nodes), with ``core_aten`` set so that ``t`` is written ``permute(w, [1, 0])`` as PyTorch's core decomposition
table writes it. Each new node keeps its source node's ``# File:`` line, and the nodes nobody reads (an op's unused
results) are dropped, as PyTorch's pass does. The state runs as copies.

In-place operators are functionalised as PyTorch's pass does (``_functionalised``): ``x.add_(y)`` is written
``aten.add.Tensor``, whose node stands for ``x`` from then on (``_to_copy`` back to ``x``'s dtype where the result's
differs; ``copy_`` and ``fill_`` of a tensor as ``aten.copy``, the fills as ``full_like``, by the capture's
``_filled_core``), and a buffer or user input written so is an output of the graph, ``BUFFER_MUTATION`` /
``USER_INPUT_MUTATION``, which ``module()`` copies back. A write into an alias (``select``, ``slice``, ``diagonal``,
``as_strided``, ``t``/``transpose``/``permute``, ``view``, ``unsqueeze``/``squeeze``, ``detach``, one on the other), or
into a base that has such aliases, is scattered into the base as PyTorch's pass scatters it (``_Views``: each step's
inverse as its op declares it, ``op(view_inverse=)``: ``slice_scatter``, ``select_scatter`` as its ``where``, the
inverse ``permute``, a ``view`` back...), the
aliases made again from the base's new node when PyTorch's pass makes them again (their dropped nodes take the names
they take there); a write into a base that has other aliases (a ``split``'s parts) stays in place, and so does an
in-place operator whose out-of-place namesake does not compute the same floats. Export's checks before each ``to``
(``_assert_tensor_metadata``) are kept, written with the positional ``None, None, dtype`` PyTorch's pass writes; a
``to`` that hands its input back leaves no node.

Not done: ``decomp_table`` is not read (the lowering is the rules' one; ``default_decompositions()`` returns an
empty table); a training-mode BatchNorm stays ``aten.batch_norm.default`` (PyTorch functionalises it to
``_native_batch_norm_legit_functional`` with the running statistics as ``BUFFER_MUTATION`` outputs; its
``num_batches_tracked`` update is functionalised here); a program with
dynamic sizes keeps the symbols on the nodes whose shape is their source node's, and the example's numbers in
the arguments of the ops the lowering adds (a 3-d ``linear``'s ``view`` sizes)."""
from __future__ import annotations

import operator

import numpy as np

from .._op_namespace import ops
from .._ops._core.members import strided
from .._ops._core.registry import view_inverse
from .._ops.creation.factory import zeros
from .._symbolic import _Symbolic
from ..autograd.grad_mode import no_grad
from ..fx.experimental._capture import Recording, capturing
from ..fx.graph_module import GraphModule
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor
from ..utils import _pytree as pytree
from ._unbacked import Unbacked
from .graph_signature import ExportGraphSignature, InputKind, OutputKind, OutputSpec, TensorArgument

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
    env, outputs, placed = {}, None, {}
    state = {s.arg.name: ep.state_dict[s.target] if s.target in ep.state_dict else ep.constants[s.target]
             for s in sig.input_specs if s.kind is not InputKind.USER_INPUT}
    views = _Views(rec)
    with no_grad():
        for node in ep.graph.nodes:
            if node.op == "placeholder":
                value = state.get(node.name)
                value = node.meta["val"] if value is None else value
                # a loaded program's inputs are known by shape and dtype only (meta tensors): zeros of them
                value = zeros(value.shape, dtype=value.dtype) if value.is_meta else value.detach().clone()
                new = placeholder(rec.graph, node.target)
                rec.bind(value, new)
                placed[node.name] = (new, value)
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
                if node.target is ops.aten.detach_.default:  # (torch.tensor's own; functionalised away)
                    env[node] = args[0]
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
                if node.target is ops.aten._assert_tensor_metadata.default:  # its arguments as the schema orders them
                    views.sync(args[0])
                    check = rec.graph.create_node(
                        "call_function", node.target,
                        (rec.node(args[0]), kwargs.get("size"), kwargs.get("stride"), kwargs.get("dtype")),
                        {k: kwargs[k] for k in ("device", "layout") if k in kwargs}, name="_assert_tensor_metadata")
                    check.meta["val"] = None
                    _inherit(node, [check])
                    continue
                for t in pytree.tree_leaves((args, kwargs)):
                    views.sync(t)
                known = set(rec.graph.nodes)
                if views.write(node.target, args, kwargs):
                    env[node] = args[0]
                elif _functionalised(rec, node.target, args, kwargs):
                    views.written(args[0])
                    env[node] = args[0]
                else:
                    with capturing(rec):
                        env[node] = node.target(*args, **kwargs)
                    views.track(args[0] if args else None, env[node], [n for n in rec.graph.nodes if n not in known])
                _inherit(node, [n for n in rec.graph.nodes if n not in known])
            elif node.op == "output":
                outputs = [env[a] for a in node.args[0]]
                for t in outputs:
                    views.sync(t)
                for _, value in placed.values():  # the inputs' latest values (a written one is an output)
                    views.sync(value)
    out_nodes = tuple(rec.node(t) if isinstance(t, (Tensor, _Symbolic)) else t for t in outputs)
    mutations = _mutated_inputs(rec, sig, placed)
    rec.graph.output(tuple(n for _, n in mutations) + out_nodes)
    rec.graph.eliminate_dead_code(lambda n: n.op in ("placeholder", "output") or _mutates(n))
    _fill_values(rec.graph)
    gm = GraphModule(dict(rec.constants), rec.graph)
    specs = [spec for spec, _ in mutations]
    specs += [OutputSpec(s.kind, TensorArgument(n.name), s.target) for s, n in zip(sig.output_specs, out_nodes)]
    return type(ep)(gm, ExportGraphSignature(list(sig.input_specs), specs), ep.state_dict, ep._out_spec,
                    ep._user_names, ep.range_constraints, ep._guards, ep.constants)


def _functional_form(target):
    """The out-of-place operator of the in-place ATen operator ``target`` (``aten.add.Tensor`` for
    ``aten.add_.Tensor``: the same overload without the trailing underscore), where tinytorch has it; None for
    any other operator. The fills and ``copy_`` are functionalised by the capture itself
    (``Recording._filled_core``: ``full_like``, ``copy``)."""
    packet = getattr(target, "_packet", None)
    name = getattr(packet, "_name", "")
    if not name.endswith("_") or name.startswith("_") or name in ("fill_", "zero_", "copy_"):
        return None
    try:
        return getattr(getattr(ops.aten, name[:-1]), target._overloadname)
    except AttributeError:
        return None


class _Views:
    """The aliases a write is scattered back through, as PyTorch's functionalisation does. Every tensor made by
    view ops from a base (a tensor that is no such view) is known by that base and its steps from it (``select``,
    ``slice``, ``diagonal``, ``as_strided``, ``permute``, ``view``, ``unsqueeze``, ``squeeze``: the lowered nodes, so
    ``t`` is a ``permute`` and ``narrow`` a ``slice``), and the base by the node of its latest value and a count of
    its writes (``store``).

    A write into an alias is its out-of-place op on the alias's node, then written into the base's latest value by
    the inverse of each step, innermost first, as the step's op declares it (``op(view_inverse=)``: ``slice_scatter``,
    ``diagonal_scatter``, ``as_strided_scatter``, ``select_scatter`` written as its core decomposition, the inverse
    ``permute``, ``view`` back to the base's sizes, ``squeeze``/``unsqueeze``; ``expand`` declares none, so a write
    into it stays in place), the intermediate views made again from the base; the written alias is
    then made again from the new value at once. An op's inputs are made again before it runs where their base was
    written since (``sync``), and a new alias counts as made before any write (as a new view in PyTorch's pass
    starts at generation 0): made after one, it is made again at its first use. That is the order in which
    PyTorch's pass creates these nodes, some of which nobody reads: they are dropped, but their names are taken, so
    the other nodes' names are PyTorch's.

    Only where every tensor the graph holds that shares the base's memory is the base or one of its known aliases:
    another alias (a ``split``'s part, an ``expand``) would not see a new node, so such a write stays in place."""

    def __init__(self, rec):
        self.rec = rec
        self.of: dict = {}      # id(alias) -> [alias, base, steps ((overload, arguments) each), generation seen]
        self.store: dict = {}   # id(base) -> [node of the base's latest value, its generation]
        self.writes: dict = {}  # id(tensor) -> its writes while it had no alias (its generation when it gets one)

    def _entry(self, t):
        v = self.of.get(id(t)) if type(t) is Tensor else None
        return v if v is not None and v[0] is t else None

    def written(self, t) -> None:
        """``t``, which has no alias, was written (functionalised)."""
        self.writes[id(t)] = self.writes.get(id(t), 0) + 1

    def track(self, src, out, made: list) -> bool:
        """``out``, made from ``src`` by the nodes ``made``: an alias of ``src``'s base where those are view steps
        (ops that declare a ``view_inverse``), one on the other from ``src``'s node to ``out``'s (True)."""
        if not (type(src) is Tensor and type(out) is Tensor and made) or not np.may_share_memory(src._data,
                                                                                              out._data):
            return False
        at, steps = self.rec.nodes.get(id(src)), []
        for n in made:
            if _inverse(n.target) is None or not n.args or n.args[0] is not at or n.kwargs:
                return False
            steps.append((f"{n.target._packet._name}.{n.target._overloadname}", tuple(n.args[1:])))
            at = n
        if at is not self.rec.nodes.get(id(out)):
            return False
        parent = self._entry(src)
        if parent is None:  # src is a base: its first alias
            gen = self.writes.get(id(src), 0)
            parent = self.of[id(src)] = [src, src, [], gen]
            self.store[id(src)] = [self.rec.nodes[id(src)], gen]
        self.of[id(out)] = [out, parent[1], parent[2] + steps, 0]
        return True

    def sync(self, t) -> None:
        """An alias whose base was written since it was made: made again from the base's latest node."""
        v = self._entry(t)
        if v is None:
            return
        node, gen = self.store[id(v[1])]
        if v[3] == gen:
            return
        for overload, a in v[2]:
            node = self.rec.call(overload, node, *a)
        self.rec.nodes[id(t)] = node
        v[3] = gen

    def write(self, target, args: tuple, kwargs: dict) -> bool:
        """The in-place call ``target(*args, **kwargs)`` functionalised and scattered into the written alias's base
        (or into a base that has aliases: they are made again later); False where it is not (nothing recorded)."""
        self_ = args[0] if args else None
        name = getattr(getattr(target, "_packet", None), "_name", "")
        v = self._entry(self_)
        if v is None or not name.endswith("_") or name.startswith("_"):
            return False
        base, steps = v[1], v[2]
        if not all(callable(_inverse(_aten(overload))) for overload, _ in steps):  # (through an expand: in place)
            return False
        rec = self.rec
        for h in rec.held:  # every alias of the base is known here
            if h is not base and type(h) is Tensor and np.may_share_memory(h._data, base._data):
                w = self._entry(h)
                if w is None or w[1] is not base:
                    return False
        before = rec.nodes.get(id(self_))
        rec.scattered = self_
        try:
            if _functional_form(target) is not None:
                if not _functionalised(rec, target, args, kwargs, aliased=True):
                    return False
            elif name in ("fill_", "zero_", "copy_"):  # (the capture writes them as full_like and copy)
                known = set(rec.graph.nodes)
                with capturing(rec):
                    target(*args, **kwargs)
                if rec.nodes.get(id(self_)) in (before, None) or rec.nodes[id(self_)] in known:
                    raise RuntimeError(f"run_decompositions: {target} into a view was not functionalised")
            else:
                return False
        finally:
            rec.scattered = None
        node = rec.nodes[id(self_)]
        store = self.store[id(base)]
        if steps:
            values = [base]  # the intermediate views' values, for the sizes the inverses need
            for overload, a in steps[:-1]:
                values.append(_aten(overload)(values[-1], *a))
            bases = [store[0]]
            for overload, a in steps[:-1]:
                bases.append(rec.call(overload, bases[-1], *a))
            for (overload, a), b, value in reversed(list(zip(steps, bases, values))):
                node = _inverse(_aten(overload))(_core_call(rec, value), b, value, node, *a)
        store[:] = [node, store[1] + 1]
        self.sync(self_)  # the written alias made again at once (a base: its new node)
        return True


def _inverse(target):
    """The inverse the view op ``target`` (an ATen overload) declares (``op(view_inverse=)``): a function, a string
    where the view has none, or None where ``target`` is no view op that declares one."""
    fn = getattr(getattr(target, "_packet", None), "_fn", None)
    return None if fn is None else view_inverse(fn)


def _core_call(rec, value: Tensor):
    """The ``call`` an inverse records its ATen calls with, onto a base of value ``value``: ``select_scatter``, which
    is no core ATen operator, written as its core decomposition."""
    def call(overload: str, *args, **kwargs):
        if overload == "select_scatter.default":
            return _select_scatter(rec, value, *args)
        return rec.call(overload, *args, **kwargs)
    return call


def _select_scatter(rec, value: Tensor, base, src, dim: int, index: int):
    """select_scatter in core ATen: where(arange(size) == index along dim, src unsqueezed and expanded, base)."""
    dim %= value.dim()
    index = index + value.shape[dim] if index < 0 else index  # (the mask counts from 0)
    mask = [1] * value.dim()
    mask[dim] = -1
    positions = rec.call("arange.start_step", 0, value.shape[dim], layout=strided, device=value.device,
                         pin_memory=False)
    hit = rec.call("eq.Scalar", rec.call("view.default", positions, mask), index)
    spread = rec.call("expand.default", rec.call("unsqueeze.default", src, dim), list(value.shape))
    return rec.call("where.self", hit, spread, base)


def _aten(overload: str):
    packet, _, name = overload.partition(".")
    return getattr(getattr(ops.aten, packet), name)


def _functionalised(rec, target, args: tuple, kwargs: dict, aliased: bool = False) -> bool:
    """An in-place operator recorded as PyTorch's functionalisation writes it: its out-of-place form, cast
    back to the written tensor's dtype (``_to_copy``) where the result's differs, whose node stands for that
    tensor from then on (the tensor itself gets the new values, as the in-place call would have written them).

    Only where that is what the in-place call computes: the written tensor shares memory with no other the
    graph holds (a view's write reaches its base through that memory, which a new node would not: it stays in
    place), and the out-of-place result equals, bit for bit, the in-place call run on a copy (an in-place op
    whose out-of-place namesake means something else, as ``bernoulli_(p)``, stays in place). False: nothing
    was recorded, and the random number generator's state is as it was."""
    functional = _functional_form(target)
    self_ = args[0] if args else None
    if functional is None or type(self_) is not Tensor or (not aliased and rec._shares_memory(self_)):
        return False
    known = set(rec.graph.nodes)
    rng = get_rng_state()
    try:
        with capturing(rec):
            result = functional(*args, **kwargs)
        if isinstance(result, Tensor) and result.shape == self_.shape and result.dtype != self_.dtype:
            cast = result.to(self_.dtype)
            rec.bind(cast, rec.call("_to_copy.default", result, dtype=self_.dtype, layout=strided))
            result = cast
        set_rng_state(rng)
        want = target(self_.detach().clone(), *args[1:], **kwargs)  # the in-place call, as eager runs it
    except (TypeError, ValueError, RuntimeError, NotImplementedError):
        result = want = None
    if isinstance(result, Tensor) and isinstance(want, Tensor) and _same_bits(result, want):
        self_.copy_(result)
        node = rec.node(result)
        rec.nodes[id(self_)] = node
        rec.by_storage[id(self_._data)] = (self_._data, node)
        return True
    for made in reversed([n for n in rec.graph.nodes if n not in known]):
        rec.graph.erase_node(made)
    set_rng_state(rng)
    return False


def _same_bits(a: Tensor, b: Tensor) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    x, y = np.ascontiguousarray(a._data), np.ascontiguousarray(b._data)
    return x.tobytes() == y.tobytes()


def _mutated_inputs(rec, sig, placed: dict) -> list:
    """``(OutputSpec, node)`` of each input the program wrote (a buffer, a parameter, a user's input), its value
    at the end: the outputs PyTorch's functionalised graph returns first, in the inputs' order."""
    kinds = {InputKind.BUFFER: OutputKind.BUFFER_MUTATION, InputKind.PARAMETER: OutputKind.PARAMETER_MUTATION,
             InputKind.USER_INPUT: OutputKind.USER_INPUT_MUTATION}
    done = {(s.kind, s.target) for s in sig.output_specs}
    out = []
    for spec in sig.input_specs:
        if spec.kind not in kinds or spec.arg.name not in placed:
            continue
        node, value = placed[spec.arg.name]
        latest = rec.nodes.get(id(value)) if isinstance(value, Tensor) else None
        target = spec.arg.name if spec.kind is InputKind.USER_INPUT else spec.target
        if latest is None or latest is node or (kinds[spec.kind], target) in done:
            continue
        out.append((OutputSpec(kinds[spec.kind], TensorArgument(latest.name), target), latest))
    return out


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
    if node.target in (ops.aten._assert_scalar.default, ops.aten._assert_tensor_metadata.default):
        # a runtime check: kept, as PyTorch keeps it
        return True
    name = getattr(node.target, "__name__", str(node.target))
    return node.op == "call_function" and name.split(".")[0].endswith("_") and not name.startswith("_")

