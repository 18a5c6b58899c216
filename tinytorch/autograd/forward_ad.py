"""Forward-mode AD: ``dual_level``, ``make_dual``, ``unpack_dual``.

How it works. A dual tensor is a tensor that autograd records (a forward-only leaf when its primal
does not require grad) and that carries a tangent. Ops run as usual and record their nodes; the
tangent of a result is computed when ``unpack_dual`` asks for it, by pushing the tangents forward
through the recorded nodes in topological order (inputs before outputs), each node applying its
forward-derivative rule ``J @ tangent``. Results are cached on the nodes, so unpacking every step of a
chain costs one rule per node. Nothing of this runs, or is checked, outside a dual level: the normal
path pays nothing.

Where a node's rule comes from, first match wins:
  1. a ``jvp(self, *input_tangents)`` method on the node class (``None`` for an input without a
     tangent; return one tangent per output, a tuple for several). A new op adds its rule here, next
     to its ``backward``;
  2. for custom ``autograd.Function`` nodes, the Function's ``jvp`` staticmethod when it defines one;
  3. otherwise the node's own backward, by the double backward trick: ``u -> J^T u`` is linear, so the
     derivative of ``<J^T u, t>`` with respect to ``u`` is ``J t``. That makes every op, present or
     future, forward-differentiable, at the cost of two small backward passes per node.
A rule's result is broadcast to the output's shape, so rules may ignore broadcasting; its dtype is the
formula's, as PyTorch's is (a float64 tangent of a float32 primal gives float64 tangents through products
with the primals, and stays float64 through linear ops), so a rule computes as its PyTorch formula does.

Differences from PyTorch: ops on dual tensors record a graph even when the primal does not require
grad, so such results report ``requires_grad=True`` and a ``grad_fn`` (``unpack_dual`` returns the
primal detached in that case); tangents only flow where grad mode is on (not inside ``no_grad``).
The nodes show PyTorch's edges all the same: an edge to such a dual, or to a node recorded for such duals alone,
shows as None in ``next_functions`` (so the backward engine never goes there), and forward AD walks the edges as
recorded (``node.full_edges``; see ``node.hide_forward_only_edges``). ``requires_grad_()`` on such a dual makes it
a leaf that requires grad, as in PyTorch.
A tangent records history as PyTorch's formulas do: a rule reads the node's saved inputs through their primals
(``_fw_primal``: a CppFunction view of an input that requires grad, an AliasBackward0 inside
``torch.func.jvp``) and its saved results as they are. PyTorch takes a missing tangent as a zero tensor, so its
tangent also records history through primals whose tangent is missing; the products' (mm, bmm, mv, dot,
addmm, addmv, baddbmm, linear: ``zero_operand``), mul's, div's, pow's, layer_norm's and mse_loss's rules do so
(``zero_tangent``, ``zero_times``), other rules skip the missing terms. A
rule that reads an op's result or an input its backward does not keep has the op keep it while a level is active
(div, the softmaxes, mul).
The level is the calling thread's (``_State.fw_level``): while one is active, every recorded result
notes its shape and dtype on its node (``node.note_output``), which the rules need; other threads are
untouched."""
from __future__ import annotations

import itertools
from typing import Any, NamedTuple

from .._dtype import FROM_NP
from .._dtype_info import promote_types
from ..tensor import Tensor
from .engine import grad
from .function import BackwardCFunction, Function
from .grad_mode import _Active, _State, enable_grad
from .node import AccumulateGrad, _SavedOutput, full_edges
from .._tensor import printing as _printing

# factory.zeros: factories are ops, which build on this module; _ops/creation/factory.py registers it when it
# loads (``bind_zeros``; the tangent rules run long after)
zeros = None


def bind_zeros(fn) -> None:
    global zeros
    zeros = fn


# ``dst.copy_(src)`` as autograd records it (CopyBackwards), written into a new tensor: _ops/pointwise/inplace.py
# registers it when it loads (``bind_copy_recorded``)
copy_recorded = None


def bind_copy_recorded(fn) -> None:
    global copy_recorded
    copy_recorded = fn


# the view through which a forward formula reads a primal that requires grad (PyTorch's ``_fw_primal``), made by
# ``primal_view(t, jvp)``: _ops/_core/members.py registers it when it loads (``bind_primal_view``)
primal_view = None


def bind_primal_view(fn) -> None:
    global primal_view
    primal_view = fn

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the primal and the tangent (None when there is none)."""

    primal: Any
    tangent: Any


# every level entered in any thread gets a new generation: caches and tangents of other levels are stale
_generations = itertools.count(1)


# -- entering and leaving ----------------------------------------------------------------------------
def enter_dual_level() -> int:
    """Start a forward-AD level in this thread (one at a time, as in PyTorch); returns its index."""
    if _State.fw_level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _State.fw_level = 0
    _State.fw_generation = next(_generations)
    _Active.count("fw", 1)
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """End the level: every dual tensor made in it loses its tangent."""
    if _State.fw_level is None:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This "
                           "is not supported.")
    _State.fw_level = None
    _State.fw_generation = next(_generations)
    _Active.count("fw", -1)


class dual_level:
    """Context manager for a forward-AD level: ``with dual_level(): ...``."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


# -- making and unpacking ------------------------------------------------------------------------------
def make_dual(tensor, tangent, *, level: int | None = None):
    """A tensor with ``tensor``'s values that carries ``tangent`` as its forward gradient."""

    if _State.fw_level is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    _check_pair(tensor, tangent)
    return _seeded(tensor, tangent, tensor.view_as)  # a view, as PyTorch's make_dual returns


def _check_pair(tensor, tangent) -> None:
    if not isinstance(tangent, Tensor):
        raise TypeError(f"Expected tangent to be a Tensor, got {type(tangent).__name__}")
    if tangent.shape != tensor.shape:
        def dims(s):
            return "[" + ", ".join(str(d) for d in s) + "]"
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {dims(tensor.shape)} while the given "
                           f"forward gradient is of size {dims(tangent.shape)}.")
    if not tensor.is_floating_point():
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent.is_complex():  # (PyTorch keeps it through some formulas, takes its real part in others)
        raise NotImplementedError("tinytorch's forward AD does not take a complex tangent of a real primal")


def _aliased_dual(tensor, tangent):
    """``make_dual`` as ``torch.func.jvp`` makes its duals: a primal that requires grad is aliased (AliasBackward0,
    as functorch wraps it), not viewed."""
    _check_pair(tensor, tangent)
    return _seeded(tensor, tangent, lambda t: t.as_subclass(Tensor))


def _seeded(tensor, tangent, alias):
    """``tensor`` carrying ``tangent``: ``alias(tensor)`` (a view or an alias, whose node holds the tangent) when it
    requires grad, else a forward-only leaf."""
    if tensor.requires_grad:
        dual = alias(tensor)
        dual.grad_fn._fw_seed = (_State.fw_generation, tangent)
        return dual
    dual = tensor.detach()
    dual._requires_grad = True  # recorded, so the tangent can be pushed through the graph later
    dual._fw_tangent = (_State.fw_generation, tangent)
    dual._fw_only_leaf = True  # (until requires_grad_() makes it a leaf that requires grad, as PyTorch's dual)
    return dual


def unpack_dual(tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent) of ``tensor`` at the active level; the tangent is None when it has none."""
    if _State.fw_level is None:
        return UnpackedDualTensor(tensor, None)
    tangent = _tangent_of(tensor)
    primal = tensor.detach() if _forward_only(tensor) else tensor.view_as(tensor)
    if tangent is not None and _forward_only(tangent):
        tangent = tangent.detach()  # its graph only holds forward-AD helpers
    if tangent is not None:
        tangent._fw_is_tangent = _State.fw_generation  # a tangent has no tangent of its own (PyTorch's repr)
    return UnpackedDualTensor(primal, tangent)


def _leaf_tangent(t):
    entry = t.__dict__.get("_fw_tangent")
    if entry is not None and entry[0] == _State.fw_generation:
        return entry[1]
    return None


def _helper_leaf(t) -> bool:
    return "_fw_only_leaf" in t.__dict__ or "_fw_aux" in t.__dict__


def _forward_only(t) -> bool:
    """Is ``t`` recorded only because of forward AD (no leaf that really requires grad below it)?"""
    if not t.requires_grad:
        return False
    if t.grad_fn is None:
        return _helper_leaf(t)
    return _forward_only_node(t.grad_fn)


def _post_order(root, cache_attr: str) -> list:
    """The nodes below ``root`` whose ``cache_attr`` is not of this level, inputs before outputs
    (iterative, so long chains need no recursion)."""
    gen = _State.fw_generation
    order, stack, seen = [], [(root, False)], set()
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node is None or id(node) in seen or isinstance(node, AccumulateGrad):
            continue
        seen.add(id(node))
        cached = node.__dict__.get(cache_attr)
        if cached is not None and cached[0] == gen:
            continue
        stack.append((node, True))
        stack.extend((n, False) for n, _ in full_edges(node))
    return order


def _forward_only_node(root) -> bool:
    """Memoised on the nodes (per level), so asking at every step of a long chain stays linear."""
    gen = _State.fw_generation
    for node in _post_order(root, "_fw_fo"):
        only = True
        for n, _ in full_edges(node):
            if n is None:
                continue
            only = _helper_leaf(n.variable) if isinstance(n, AccumulateGrad) else n.__dict__["_fw_fo"][1]
            if not only:
                break
        node._fw_fo = (gen, only)
    return root.__dict__["_fw_fo"][1]


def _tangent_of(t):
    if t.grad_fn is None:
        return _leaf_tangent(t)
    tangents = _node_tangents(t.grad_fn)
    return tangents[t._output_nr] if tangents is not None else None


def _edge_tangent(edge):
    node, nr = edge
    if node is None:
        return None
    if isinstance(node, AccumulateGrad):
        return _leaf_tangent(node.variable)
    cached = node.__dict__.get("_fw_cache")
    tangents = cached[1] if cached is not None and cached[0] == _State.fw_generation else None
    return tangents[nr] if tangents is not None else None


def _node_tangents(root):
    """The tangents of ``root``'s outputs, computing every node below it first (iteratively)."""
    gen = _State.fw_generation
    for node in _post_order(root, "_fw_cache"):  # inputs before outputs
        seed = node.__dict__.get("_fw_seed")
        if seed is not None and seed[0] == gen:
            result = (seed[1],)
        else:
            ins = [_edge_tangent(e) for e in full_edges(node)]
            result = None if all(x is None for x in ins) else _apply_rule(node, ins)
        node._fw_cache = (gen, result)
    cached = root.__dict__.get("_fw_cache")
    return cached[1] if cached is not None else None


# -- rules ---------------------------------------------------------------------------------------------
def _out_meta(node):
    """[(shape, dtype)] per output, in output order."""
    outs = node.__dict__.get("_fw_outs") or []
    meta = {}
    for i, (ref, shape, dtype) in enumerate(outs):
        t = ref()
        nr = t._output_nr if t is not None and t.grad_fn is node else i
        meta[nr] = (shape, dtype)
    if not meta and getattr(node, "_out_meta", None):  # custom Function nodes keep their own
        return [(s, d) for s, d in node._out_meta]
    return [meta[i] for i in sorted(meta)]


class _recorded_edges:
    """While a rule runs: ``node`` shows its edges as recorded, forward AD's hidden ones too (node.py's
    ``hide_forward_only_edges``), for a rule or backward that asks which inputs need a gradient: every input with a
    tangent does here."""

    def __init__(self, node):
        self.node = node

    def __enter__(self):
        self.shown = self.node.next_functions
        self.node.next_functions = full_edges(self.node)

    def __exit__(self, *exc):
        self.node.next_functions = self.shown


def _apply_rule(node, ins):
    # an in-place op's node (views.set_history marks it): PyTorch's formula reads a clone of the tangent the tensor
    # had, and writes its result into that tangent (copy_, CopyBackwards); tinytorch records that copy into a new
    # tensor instead, as tangents are pushed later (others may still read the old one)
    inplace = ins and ins[0] is not None and node.__dict__.get("_fw_inplace")
    if inplace:
        old = ins[0]
        ins = [old.clone()] + list(ins[1:])
    with enable_grad(), _recorded_edges(node):
        rule = getattr(type(node), "jvp", None)
        if rule is not None and not isinstance(node, BackwardCFunction):
            out = _explicit_rule(rule, node, ins)
        elif isinstance(node, BackwardCFunction) and _has_custom_jvp(node):
            out = _custom_function_jvp(node, ins)
        else:
            out = _double_backward_rule(node, ins)
        if inplace and not isinstance(out, tuple) and out is not None:
            out = copy_recorded(old, _fit(out, _out_meta(node)[0]))
    out = out if isinstance(out, tuple) else (out,)
    return tuple(_fit(t, m) for t, m in zip(out, _out_meta(node) or [None] * len(out)))


def _explicit_rule(rule, node, ins):
    """A node's ``jvp`` rule, reading its saved inputs as PyTorch's formulas read them: each through its primal
    (``self_p``), a view of its own; saved results (``result``) as they are, without history where only forward AD
    recorded them. (The double-backward route keeps the saved tensors: a backward may differentiate them.)"""
    saved = node._saved
    if not saved:
        return rule(node, *ins)
    fw_only = _forward_only_node(node)
    # (an in-place op's result is the tensor it wrote into, an input: PyTorch's formula reads it as self_p)
    inplace = node.__dict__.get("_fw_inplace")
    node._saved = tuple(_primal(t) if isinstance(t, Tensor) else
                        _primal(t.unpack(node)) if inplace and type(t) is _SavedOutput else
                        t.unpack(node).detach() if fw_only and type(t) is _SavedOutput else t for t in saved)
    try:
        return rule(node, *ins)
    finally:
        node._saved = saved


def _primal(t):
    """``t`` as a forward formula reads its primal (PyTorch's ``_fw_primal``): through an identity view where it
    requires grad (CppFunction; AliasBackward0 inside ``torch.func.jvp``), without history where it is recorded
    for forward AD alone (a dual tensor of a primal that does not require grad)."""
    if not t.requires_grad:
        return t
    if _forward_only(t):
        return t.detach()
    if "_fw_original_self" in t.__dict__:  # an in-place op's input before the write: PyTorch's formula reads the
        t = t.clone()                     # clone it took then (original_self), a CloneBackward0
    return primal_view(t, _State.fw_jvp)


class _jvp_level(dual_level):
    """The dual level of ``torch.func.jvp``: a ``dual_level`` whose formulas read primals through functorch's
    views (AliasBackward0)."""

    def __enter__(self) -> int:
        level = super().__enter__()
        _State.fw_jvp = True
        return level

    def __exit__(self, *exc) -> None:
        _State.fw_jvp = False
        super().__exit__(*exc)


def _fit(t, meta):
    if t is None or meta is None:
        return t
    shape, dtype = meta
    if t._data.shape != shape:
        t = t.expand(shape) if len(t._data.shape) <= len(shape) else t.reshape(shape)
    return t


def _double_backward_rule(node, ins):
    """J t from the node's backward: differentiate <J^T u, t> with respect to u."""
    meta = _out_meta(node)
    if not meta:
        raise RuntimeError(f"forward AD: {node.name()} recorded no outputs during the dual level")
    # the tangents' dtypes promote with the outputs' (a float64 tangent of a float32 primal gives float64, as
    # PyTorch's formulas, products of the tangent and the primals, do)
    dts = [FROM_NP[d] for _, d in meta]
    for t in ins:
        if t is not None and t.dtype not in dts:
            dts = [promote_types(d, t.dtype) if d.is_floating_point else d for d in dts]
    meta = [(s, d) for (s, _), d in zip(meta, dts)]
    us = [zeros(tuple(s), dtype=d).requires_grad_(True) for s, d in meta]
    for u in us:
        u._fw_aux = True  # a helper leaf: results hanging on it alone are still forward-only
    # every input's J^T u: the node's recorded edges, and the ops the backward records show theirs (a backward may
    # differentiate what it recomputes from its saved inputs)
    hide, _State.fw_hide = _State.fw_hide, False
    try:
        with _recorded_edges(node):
            grads_in = node.backward(*us)
    finally:
        _State.fw_hide = hide
    grads_in = grads_in if isinstance(grads_in, tuple) else (grads_in,)
    total = None
    for g, t in zip(grads_in, ins):
        if g is None or t is None:
            continue
        term = (g * t.to(g.dtype)).sum()
        total = term if total is None else total + term
    if total is None or not total.requires_grad:
        return tuple(zeros(tuple(s), dtype=d) for s, d in meta)
    res = grad(total, us, allow_unused=True, create_graph=True)
    return tuple(zeros(tuple(s), dtype=d) if r is None else r for r, (s, d) in zip(res, meta))


def _has_custom_jvp(node) -> bool:
    return node._forward_cls.jvp is not Function.jvp


def _custom_function_jvp(node, ins):
    """Call the Function's ``jvp(ctx, *tangents)``: one tangent per forward argument (None for
    non-tensors; zeros for tensors without one, as PyTorch passes them)."""
    n_args = len(node._in_meta)
    positions = node._tensor_pos if node._tensor_pos is not None else range(n_args)
    full = [None] * n_args
    for pos, t in zip(positions, ins):
        full[pos] = t
    for i, m in enumerate(node._in_meta):
        if full[i] is None and m is not None:
            full[i] = zeros(m[0], dtype=_dt(m[1]))
    node._in_jvp = True
    try:
        return node._forward_cls.jvp(node, *full)
    finally:
        node._in_jvp = False


def _dt(np_dtype):
    return FROM_NP[np_dtype]


def _sum(a, b):
    if a is None:
        return b
    return a if b is None else a + b


def _out_dtype(node, i: int = 0):
    """The dtype of ``node``'s ``i``-th output as noted during the dual level (a rule that casts its tangent to it)."""
    return FROM_NP[_out_meta(node)[i][1]]


def _out_shape(node, i: int = 0) -> tuple:
    """The shape of ``node``'s ``i``-th output as noted during the dual level (for shape ops' rules)."""
    return tuple(_out_meta(node)[i][0])


_OUTPUT = object()  # (formula_sum: the zero term has the output's dtype)


def formula_sum(node, first, second, subtract: bool = False, zero_of=_OUTPUT):
    """``first + second`` in ``node``'s forward formula (``first - second`` with ``subtract``), as PyTorch runs its
    formulas (``other_t * self_p + self_t * other_p``): an absent tangent is a zero tensor there, whose term adds
    nothing, but the sum is still the formula's last op (AddBackward0 or SubBackward0, with no edge for the zero)
    where the other term records history; and the zero term, a zero tangent times a primal, has the output's dtype
    and dims, so it promotes the sum (a float32 tangent of a float64 primal gives a float64 tangent). Where the
    missing tangent is an operand's own (add, sub), ``zero_of`` is that operand: its zero has its dtype, and a
    number's (None) does not promote."""
    if first is not None and second is not None:
        total = first - second if subtract else first + second
        zero = first if first.__dict__.get("_fw_zero") else second if second.__dict__.get("_fw_zero") else None
        if zero is not None:  # a zero_times term: PyTorch's zero tensor adds nothing at all (a -0.0 stays -0.0)
            other = (second if zero is first else first)._data
            total._data[...] = -other if subtract and zero is first else other
        return total
    t = second if first is None else first
    if t is None:
        return t
    dtype = _out_dtype(node) if zero_of is _OUTPUT else t.dtype if zero_of is None else zero_of.dtype
    negate = subtract and first is None
    if not t.requires_grad:
        return (-t if negate else t).to(promote_types(t.dtype, dtype))
    zero = zeros((1,) * t.dim(), dtype=dtype)  # (a dimensioned zero: it takes part in type promotion)
    total = (zero - t if subtract else zero + t) if first is None else (t - zero if subtract else t + zero)
    total._data[...] = -t._data if negate else t._data  # (PyTorch's zero tensor adds nothing: a -0.0 stays -0.0)
    return total


def zero_tangent(node, ndim: int):
    """A missing tangent in a formula: PyTorch's zero tensor (of the output's dtype; dims of size 1, which take part
    in broadcasting and type promotion), without history."""
    return zeros((1,) * ndim, dtype=_out_dtype(node))


def zero_times(node, factor, zero_first: bool = True):
    """``missing_t * factor`` in ``node``'s formula (``factor * missing_t`` with ``zero_first=False``): zeros, which
    record a MulBackward0 through ``factor`` where it requires grad, as PyTorch's zero tensor times a primal does
    (its gradient is zero)."""
    zero = zero_tangent(node, factor.dim())
    if not factor.requires_grad:
        return zero
    term = zero * factor if zero_first else factor * zero
    term._data[...] = 0  # (0 * inf would be nan; PyTorch's zero tensor is zero whatever it multiplies)
    term._fw_zero = True  # (formula_sum adds it as nothing)
    return term


def recorded_zero_times(node, factor):
    """``zero_times(node, factor)`` where it records history (``factor`` requires grad), else None: a term that
    ``formula_sum`` leaves out, as it adds nothing and records nothing."""
    return zero_times(node, factor) if factor is not None and factor.requires_grad else None


def zero_operand(t):
    """The tangent a formula reads for operand ``t`` that has none: PyTorch's zero tensor of ``t``'s sizes and dtype
    (``_efficientzerotensor(t.sizes(), t.options())``), without history. A product's formula multiplies it out (a
    zero times an infinite primal is nan there too), so its term records history through the other primal."""
    return zeros(tuple(t.shape), dtype=t.dtype)


def fw_operand(saved, kept):
    """An operand as a product's forward formula reads it: the saved input (read through its primal by the rule's
    caller) or, where the backward did not keep it, the input the node kept in a dual level (``fw_inputs``) read
    so; None where neither exists (a node recorded before the level)."""
    return saved if saved is not None else fw_primal(kept)


def fw_primal(t):
    """An input a node kept for its forward formula alone (not among its saved tensors), read through its primal
    as the formula reads its saved inputs (``_primal``); None stays None."""
    return None if t is None or not isinstance(t, Tensor) else _primal(t)


def _add_terms(*terms):
    """The sum of the tangent terms that exist (None where no input had a tangent)."""
    total = None
    for t in terms:
        total = _sum(total, t)
    return total


def _dual_parts(t) -> tuple:
    """What ``repr`` shows of ``t`` in a dual level: whether it is recorded for forward AD alone (then no
    ``grad_fn``), and its tangent (``tangent=``), as ``unpack_dual`` gives it."""
    if t.grad_fn is None and not ("_fw_tangent" in t.__dict__ or _helper_leaf(t)):
        return False, None
    if t.__dict__.get("_fw_is_tangent") == _State.fw_generation:
        return _forward_only(t), None
    return _forward_only(t), unpack_dual(t).tangent


_printing.bind_dual_parts(_dual_parts)
