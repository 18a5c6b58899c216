"""Unbacked symbols: a tensor's value read into Python while ``torch.export`` captures (``n = x.sum().item()``).

PyTorch's export cannot know such a value and names it: ``u0`` (an integer), ``zuf0`` (a float), the node
``item = torch.ops.aten.item.default(sum_1)``. tinytorch does the same with ``torch.SymInt``/``SymFloat``
(``tinytorch/_symbolic.py``), each holding the example's number, which the program runs on, and its node:

  * **Arithmetic** with it is a node of the graph (``mul = item * 2``, printed ``Sym(2*u0)``), and an op given it
    (``y * n``, ``torch.zeros(n)``) takes its node as the argument: ``_capture._run`` hands the op the number
    and the recording the symbol.
  * **Reading it as a Python value** (``int(n)``, ``float(x)``, ``if n > 0:``) would freeze the example's number:
    refused with PyTorch's ``GuardOnDataDependentSymNode`` and its text.
  * **Sizes.** tinytorch has no symbolic sizes, so the capture runs once more with each integer symbol moved by
    one: the sizes that move with it are printed as ``u0`` (``f32[u0, 2]``), and a graph that changes otherwise
    (the program read a size made from the symbol as a number, ``torch.zeros(n).shape[0]``, which PyTorch keeps
    as ``u0``) is refused rather than exported with the example's number. A symbol in the size list of an op
    whose sizes move with it (``torch.zeros(n)``, ``x.view(n, -1)``) gets PyTorch's runtime check
    ``ge = item >= 0`` + ``aten._assert_scalar`` before that op, and the range ``VR[0, int_oo]``.

Not as PyTorch: a symbol used as a size elsewhere than in a size list (``torch.arange(n)``) gets no ``ge`` check
(the op itself refuses a bad value at run time); a slice by it (``x[1:n]``) has no check of its size (PyTorch's
``sym_size`` node and ``u1``), and the sizes that move with ``u0`` print as a sum of its multiples (a slice's
``Min(5, u0)`` prints ``u0``); ``view``'s further checks (``Ne(u0, 0)``, the divisibility) are not written;
the ``Size-like symbols:`` part of the error always says ``none``; printed expressions
are written for the common forms only (``2*u0 + 1``, ``u0 - 3``, ``Eq(u0, 2)``), and an expression PyTorch's
graph writes anew (``full((2*u0 + 1,))``: ``2 * item`` then ``1 + mul_1``) keeps the program's own nodes."""
from __future__ import annotations

import operator
import traceback

from .._dynamo.capture import user_frame
from .._op_namespace import ops
from .._symbolic import SymBool, SymFloat, SymInt, _Symbolic, concrete
from ..fx.experimental._capture import _user_stack
from ..fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode
from .dynamic_shapes import Symbol, ValueRanges, _expression as _sum, _shapes, _signature, int_oo

__all__ = ["Unbacked", "sized", "drop_unused"]

_TAIL = ("\n\nThe error above occurred when calling torch.export.export. If you would like to view some more "
         "information about this error, and get a list of all other errors that may occur in your export call, you "
         "can replace your `export()` call with `draft_export()`.")
_FRIENDLY = ("consider using data-dependent friendly APIs such as guard_or_false, guard_or_true and "
             "statically_known_true.")

# how sympy prints the forms the graph writes (PyTorch's ``Sym(...)`` annotations)
_INFIX = {operator.add: "+", operator.sub: "-", operator.lt: "<", operator.le: "<=", operator.gt: ">",
          operator.ge: ">="}
_CALLED = {operator.eq: "Eq", operator.ne: "Ne", operator.mod: "PythonMod"}


def _with_user_stack(node):
    """``node``, marked with the user's line that made it (the ``# File:`` line export prints)."""
    stack = _user_stack()
    if stack is not None:
        node.meta["stack_trace"] = stack
    return node


class Unbacked:
    """The unbacked symbols of one capture (``rec``): made by ``item``, combined by ``binary``/``unary``."""

    def __init__(self, rec, shifts: dict | None = None, overload: str = "item.default"):
        self.rec = rec
        self.ints: list = []      # the SymInts read from tensors, in order: u0, u1, ...
        self.floats = 0           # the SymFloats read so far (zuf0, zuf1, ...)
        self.shifts = shifts or {}  # u-index -> moved by this much from the example's value (the second capture)
        self.sizes: set = set()   # the u-indices used as sizes (their ge checks written)
        self.checked: set = set()  # the nodes of the size expressions checked
        self.write_checks = True   # (run_decompositions replays the exported graph's own)
        self.overload = overload  # run_decompositions writes aten._local_scalar_dense
        self.read_sizes: list = []  # the nodes whose sizes the program read as numbers
        self.made: dict = {}        # id(tensor) -> (tensor, its version, its symbol): a value read once

    def size_read(self, t) -> None:
        node = self.rec.nodes.get(id(t))
        if node is not None:
            self.read_sizes.append(node)

    def range_constraints(self) -> dict:
        """PyTorch's ranges of the symbols: a size's from 0, a float's over the reals."""
        out = {Symbol(s._expr): ValueRanges(0 if k in self.sizes else Symbol("-int_oo"), int_oo)
               for k, s in enumerate(self.ints)}
        out.update({Symbol(f"zuf{k}"): ValueRanges(Symbol("-oo"), Symbol("oo")) for k in range(self.floats)})
        return out

    def item(self, t):
        """``t.item()``: its node, and its value as a new unbacked symbol (the same one for the same tensor
        unchanged, as PyTorch's tracer keeps it)."""
        known = self.made.get(id(t))
        if known is not None and known[0] is t and known[1] == t._version:
            return known[2]
        value = t._data.item()  # (the array's: Tensor.item is the program's, which this answers)
        if isinstance(value, (bool, complex)):
            raise NotImplementedError(f"tinytorch.export: .item() of a {t.dtype} tensor (PyTorch's unbacked "
                                      "SymBool or complex value) is not supported")
        node = _with_user_stack(self.rec.call(self.overload, t))
        if isinstance(value, int):
            k = len(self.ints)
            sym = SymInt._made(value + self.shifts.get(k, 0), node, f"u{k}", self)
            self.ints.append(sym)
        else:
            sym = SymFloat._made(float(value), node, f"zuf{self.floats}", self)
            self.floats += 1
        node.meta["val"] = sym
        self.made[id(t)] = (t, t._version, sym)
        return sym

    def _node(self, fn, args: tuple, value, expr: str):
        node = _with_user_stack(self.rec.graph.create_node(
            "call_function", fn, tuple(a.node if isinstance(a, _Symbolic) else a for a in args), name=fn.__name__))
        cls = SymBool if isinstance(value, bool) else SymInt if isinstance(value, int) else SymFloat
        node.meta["val"] = out = cls._made(value, node, expr, self)
        return out

    def binary(self, fn, args: tuple):
        if any(isinstance(a, SymFloat) for a in args):  # a float's graph holds float numbers (``item > 0.0``)
            args = tuple(float(a) if type(a) is int else a for a in args)
        value = fn(*(concrete(a) for a in args))
        return self._node(fn, args, value, _expression(fn, args))

    def unary(self, fn, a):
        text = f"-{_wrapped(a)}" if fn is operator.neg else f"Abs({a!r})"
        return self._node(fn, (a,), fn(a._value), text)

    def size(self, sym, before) -> None:
        """``sym`` is used as a size by the node ``before``: PyTorch's check that it is not negative, once
        (``u0 >= 0``, which makes ``u0``'s range start at 0; ``0 <= 2*u0 + 1`` for an expression)."""
        k = next((i for i, s in enumerate(self.ints) if s is sym), None)  # (== on a symbol is a node)
        if not self.write_checks or sym.node in self.checked or k in self.sizes:
            return
        self.checked.add(sym.node)
        if k is not None:
            self.sizes.add(k)
        graph = self.rec.graph
        with graph.inserting_before(before):
            ge = graph.create_node("call_function", operator.ge, (sym.node, 0), name="ge")
            text = f"{sym._expr} >= 0" if k is not None else f"0 <= {sym._expr}"
            ge.meta["val"] = SymBool._made(sym._value >= 0, ge, f"{sym._expr} >= 0", self)
            check = graph.create_node("call_function", ops.aten._assert_scalar.default,
                                      (ge, f"Runtime assertion failed for expression {text} on node '{ge.name}'"),
                                      name="_assert_scalar_default")
        check.meta["val"] = None
        for n in (ge, check):
            if "stack_trace" in before.meta:
                n.meta["stack_trace"] = before.meta["stack_trace"]

    def check(self, cond) -> None:
        """``torch._check(cond)``: PyTorch's runtime check of it in the graph; ``u0 >= 0`` makes ``u0`` a size."""
        node = cond.node
        graph = self.rec.graph
        check = graph.create_node("call_function", ops.aten._assert_scalar.default,
                                  (node, f"Runtime assertion failed for expression {cond._expr} on node "
                                         f"'{node.name}'"), name="_assert_scalar_default")
        check.meta["val"] = None
        if "stack_trace" in node.meta:
            check.meta["stack_trace"] = node.meta["stack_trace"]
        a, b = node.args if node.target is operator.ge and len(node.args) == 2 else (None, None)
        if b == 0 and isinstance(a, type(node)):
            k = next((i for i, s in enumerate(self.ints) if s.node is a), None)
            if k is not None:
                self.sizes.add(k)

    def guard(self, sym, want: str):
        """``bool``/``int``/``float`` of ``sym``: PyTorch's refusal (the example's value would be frozen)."""
        frame = user_frame()
        where = "".join(traceback.format_list([frame])) if frame is not None else ""
        e = sym._expr
        if isinstance(sym, SymInt) and want != "bool":
            text = (f"Could not extract specialized integer from data-dependent expression {e} (unhinted: {e}).  "
                    "(Size-like symbols: none)\n\n\n")
        else:
            text = (f"Could not guard on data-dependent expression {e} (unhinted: {e}).  (Size-like symbols: "
                    f"none)\n\n{_FRIENDLY}\n")
        raise GuardOnDataDependentSymNode(text + "The following call raised this error:\n" + where + _TAIL)


def _wrapped(a) -> str:
    text = repr(a)
    return f"({text})" if isinstance(a, _Symbolic) and " " in text else text


def _expression(fn, args: tuple) -> str:
    a, b = args
    if fn is operator.mul:
        if not isinstance(a, _Symbolic):
            a, b = b, a
        if not isinstance(b, _Symbolic):
            return f"{b!r}*{_wrapped(a)}"
        return f"{_wrapped(a)}*{_wrapped(b)}"
    if fn in _INFIX:
        if fn is operator.add and not isinstance(a, _Symbolic):
            a, b = b, a
        op = _INFIX[fn]
        if op in "+-" and not isinstance(b, _Symbolic) and b < 0:
            op, b = "-" if op == "+" else "+", -b
        return f"{a!r} {op} {b!r}"
    if fn is operator.truediv:
        return f"IntTrueDiv({a!r}, {b!r})" if not any(isinstance(v, float) or isinstance(v, SymFloat)
                                                      for v in args) else f"{_wrapped(a)}/{_wrapped(b)}"
    if fn is operator.floordiv:
        return f"({_wrapped(a)}//{_wrapped(b)})"
    if fn is operator.pow:
        return f"{_wrapped(a)}**{_wrapped(b)}"
    return f"{_CALLED[fn]}({a!r}, {b!r})"


def sized(rec, trace) -> None:
    """The sizes in ``rec``'s graph that move with its unbacked integers, written into the nodes' ``sym_shape``
    (``f32[u0, 2]``): ``trace(shifts)`` captures the program again with one symbol moved (by 1, or -1, 2, -2
    where the program refuses that value). Refused: a graph that changes otherwise (a number made from the
    symbol frozen into it), and a size the program read from a tensor whose sizes move (PyTorch gives ``u0``)."""
    unbacked, graph = rec.unbacked, rec.graph
    base_full, base_shapes = _signature(graph, True), _shapes(graph)
    nodes = list(graph.nodes)
    moved = [None] * len(nodes)  # per node: {dim: [(symbol, a)]}
    for k, sym in enumerate(unbacked.ints):
        for step in (1, -1, 2, -2):
            try:
                other = trace({k: step}).graph
            except Exception:  # noqa: BLE001 - the program refuses this value: try another
                continue
            break
        else:
            raise NotImplementedError(
                f"tinytorch.export: the program runs only at the example's value of {sym._expr} (a tensor's value "
                "read by .item()), which tinytorch cannot tell from a size the program needs; PyTorch writes "
                "runtime checks for it")
        if _signature(other, True) != base_full:
            raise NotImplementedError(
                f"tinytorch.export: the program turned {sym._expr} (a tensor's value read by .item()) into a Python "
                "number or a branch that tinytorch cannot hold as a symbol; the exported graph would freeze the "
                "example's value")
        for i, (a, b) in enumerate(zip(base_shapes, _shapes(other))):
            if a is None or a == b:
                continue
            for d, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    if (y - x) % step:
                        raise NotImplementedError(f"tinytorch.export: a size that is no sum of multiples of "
                                                  f"{sym._expr} ({nodes[i].name}'s)")
                    moved[i] = moved[i] or {}
                    moved[i].setdefault(d, []).append((sym, (y - x) // step))
    for node in unbacked.read_sizes:
        if moved[nodes.index(node)]:
            raise NotImplementedError(
                f"tinytorch.export: the program read the sizes of {node.name}, which depend on a tensor's value read "
                "by .item(); PyTorch gives the symbol (u0), tinytorch has only the example's number, which the "
                "exported graph would freeze")
    for node, dims in zip(nodes, moved):
        if dims:  # the symbols in its size lists (``zeros([item])``, ``view(x, [item, -1])``) checked before it
            for a in (*node.args, *node.kwargs.values()):
                for v in a if isinstance(a, (list, tuple)) else ():
                    if isinstance(v, type(node)) and isinstance(v.meta.get("val"), SymInt):
                        unbacked.size(v.meta["val"], node)
    for node, shape, dims in zip(nodes, base_shapes, moved):
        if dims:
            sym_shape = list(node.meta.get("sym_shape", shape))
            for d, terms in dims.items():
                rest = shape[d] - sum(a * sym._value for sym, a in terms)
                sym_shape[d] = _sum(sorted((sym._expr, a) for sym, a in terms), rest)
            node.meta["sym_shape"] = sym_shape


def drop_unused(graph) -> None:
    """The symbol nodes nobody reads (an ``item`` whose value the program dropped, the arithmetic on it) left out,
    as PyTorch's export leaves them out (its tensor ops stay; the symbols keep their ranges)."""
    for node in reversed(list(graph.nodes)):
        if node.op == "call_function" and isinstance(node.meta.get("val"), _Symbolic) and not node.users:
            graph.erase_node(node)
