"""A scripted program's TorchScript text: ``.graph`` and ``.code`` as PyTorch's compiler prints them.

tinytorch runs scripted code as Python (``_trace.py``); this module compiles its source (``inspect.getsource`` +
``ast``) the way PyTorch's ``torch.jit.script`` front end does, for a small subset, only to print it. It replays the
steps whose traces show in the printed text:

- **Emission** (``ir_emitter.cpp``). Every variable is a slot: assigning stores to it, each read of it makes a new
  value (a ``prim::Load``) named after the variable. A value is numbered when it is made (``%4``); naming a value
  after a variable whose name another value holds moves the older one to ``name.1`` (then ``.3``...): so a parameter
  read once prints as ``%x.1``. A number literal is made once per function (one ``prim::Constant`` per value, at the
  graph's start, carrying the first literal's source ``# file:line:col``); ``-2`` is ``2`` negated and folded into a
  new constant where it stands. Arguments a call leaves out get constants of their schema defaults where they stand
  (no source), an ``int[]`` given one int a ``prim::ListConstruct``.
- **SSA.** The loads are replaced by the values last stored and dropped, with their names (their numbers stay
  taken).
- **Clean-up.** Nodes whose results nothing uses are dropped; then equal constants are pooled (the first kept), each
  kept one moved to the graph's start as it is visited, so they end up in reverse order of visit.
- **Printing**: ``_ir.print_graph`` and ``_ir.print_code`` (PyTorch's ``PythonPrint``), shared with traced programs.

The subset: straight-line code of tensor arithmetic (``+ - * / ** @``, unary ``-``; a number only on the right),
calls of ``torch.<op>(...)`` and ``tensor.<op>(...)`` whose ATen overload is one of ``VERIFIED`` (its schema read
from ``_aten_rules.SCHEMAS``), with tensor, number, bool, list-literal and keyword arguments, assignments to plain
names, a module's submodule calls (``self.l(x)``: a module whose ``forward`` returns a Tensor, by annotation, by
compiling it, or a ``Sequential`` of such) and parameter reads, and a final ``return`` of a tensor or a tuple of
tensors. Anything else raises ``NotImplementedError`` naming the construct: never a text PyTorch would not print."""
from __future__ import annotations

import ast
import importlib
import inspect
import textwrap

from . import _ir
from ..fx.experimental import _aten_rules
from ..nn.modules.container import Sequential
from ..tensor import Tensor

__all__ = ["VERIFIED", "compile_graph", "graph_text", "code_text"]

_REFUSED = "tinytorch cannot print this scripted program as TorchScript: {} (line {} of {})"

# the ATen operator of each binary operator; a number on the right picks its Scalar overload, whose arguments are
# the Tensor overload's (``add.Scalar(Tensor self, Scalar other, Scalar alpha=1)``)
_BINARY = {ast.Add: "add.Tensor", ast.Sub: "sub.Tensor", ast.Mult: "mul.Tensor", ast.Div: "div.Tensor",
           ast.MatMult: "matmul.default"}
_SCALAR_TYPES = {int: "int", float: "float", bool: "bool"}

# The overloads whose compilation this module follows, each compared with PyTorch's by a program in
# tests/jit/test_jit_script_ir.py (``_VERIFIED_PROGRAMS``, which must hold one for each). Others are refused: what
# PyTorch prints depends on overloads SCHEMAS does not list (``mean(x, 1)`` tries one that takes a value number
# before ``mean.dim``; ``std(x, 1)`` picks ``std.dim``), which only a comparison shows.
VERIFIED = frozenset("""
add.Tensor sub.Tensor mul.Tensor div.Tensor pow.Tensor_Scalar pow.Tensor_Tensor matmul.default neg.default
relu.default tanh.default sigmoid.default exp.default t.default sum.default sum.dim_IntList mean.default
softmax.int log_softmax.int view.default reshape.default permute.default transpose.int flatten.using_ints
unsqueeze.default expand.default cat.default stack.default cumsum.default logsumexp.default amax.default mm.default
addmm.default flip.default tril.default triu.default roll.default
""".split())


class _Refused(Exception):
    """Raised inside the compiler with the ast node at fault; turned into ``NotImplementedError``."""

    def __init__(self, what: str, node):
        super().__init__(what)
        self.what, self.node = what, node


class _Value:
    """An expression's result that is a graph value (a tensor, or a submodule)."""

    def __init__(self, value):
        self.value = value


class _Number:
    """An expression's result that is a Python number not yet made a constant (a literal, or a negated one)."""

    def __init__(self, value, node, negated: bool = False):
        self.value, self.node, self.negated = value, node, negated
        self.const = None  # its constant, once made


class _List:
    """A list literal argument made into a ``prim::ListConstruct`` (``kind``: ``int[]`` or ``Tensor[]``)."""

    def __init__(self, kind: str, value):
        self.kind, self.value = kind, value


class _Compiler:
    def __init__(self, fn, module=None):
        self.fn, self.module = fn, module
        self.path = inspect.getsourcefile(fn) or "<unknown>"
        lines, self.first_line = inspect.getsourcelines(fn)
        source = "".join(lines)
        self.indent = len(source) - len(source.lstrip(" "))
        self.tree = ast.parse(textwrap.dedent(source)).body[0]
        self.g = _ir.Graph()
        self.slots: dict = {}       # variable -> the value last stored
        self.loads: dict = {}       # a load's value -> the value it reads
        self.literals: dict = {}    # (type, value) -> the constant made for that literal

    # -- where ------------------------------------------------------------------------------------------
    def _source(self, node) -> str:
        """``file:line:col`` of an expression: where its first token is (PyTorch's ranges leave parentheses out,
        Python's start at an opening parenthesis)."""
        while isinstance(node, (ast.BinOp, ast.Call, ast.Attribute)):
            node = node.left if isinstance(node, ast.BinOp) else node.func if isinstance(node, ast.Call) \
                else node.value
        # (columns in the file: the dedented source's plus the indentation taken off)
        return f"{self.path}:{self.first_line + node.lineno - 1}:{node.col_offset + self.indent}"

    # -- values -----------------------------------------------------------------------------------------
    def _new(self, kind: str, inputs: list, type_: str, attrs: str = "", source=None, front: bool = False):
        node = _ir.Node(kind, inputs, attrs, source)
        node.outputs.append(self.g.value(type_, node))
        if front:
            self.g.nodes.insert(0, node)
        else:
            self.g.nodes.append(node)
        return node.outputs[0]

    def _constant(self, value, source=None, front: bool = False):
        if value is None:
            v = self._new("prim::Constant", [], "NoneType", front=front)
        elif value == []:  # an int list's default (``dim=[]``)
            v = self._new("prim::Constant", [], "int[]", "[value=annotate(List[int], [])]", front=front)
        else:
            type_ = "bool" if isinstance(value, bool) else _SCALAR_TYPES[type(value)]
            v = self._new("prim::Constant", [], type_, f"[value={_ir._ir_scalar(value)}]", source, front)
        v.constant = value
        return v

    def _materialize(self, number: _Number):
        """A number argument as PyTorch's emitter makes it: a literal's constant (once per value, at the start), a
        negated one then its ``aten::neg`` (dropped later) and the folded constant where it stands."""
        if number.const is not None:
            return number.const
        if type(number.value) is bool:  # True/False: a constant where it stands, made each time
            number.const = self._constant(number.value, self._source(number.node))
            return number.const
        literal = -number.value if number.negated else number.value
        key = (type(literal), literal)
        if key not in self.literals:
            operand = number.node.operand if number.negated else number.node
            self.literals[key] = self._constant(literal, self._source(operand), front=True)
        if not number.negated:
            number.const = self.literals[key]
        else:
            self._new("aten::neg", [self.literals[key]], _SCALAR_TYPES[type(literal)])
            number.const = self._constant(number.value, self._source(number.node))
        return number.const

    def _store(self, name: str, value, node) -> None:
        if not _meaningful(name):
            raise _Refused(f"the variable name {name!r}", node)
        if value.name is None:
            self.g.set_name(value, name)
        self.slots[name] = value

    def _load(self, name: str):
        v = self.g.value(self.slots[name].type)
        self.g.set_name(v, name)
        self.loads[v] = self.slots[name]
        return v

    # -- statements -------------------------------------------------------------------------------------
    def compile(self):
        fn = self.tree
        if not isinstance(fn, ast.FunctionDef):
            raise _Refused("a definition other than a plain function", fn)
        args = fn.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs:
            raise _Refused("parameters with defaults, *args, **kwargs or keyword-only ones", fn)
        params = list(args.args)
        if self.module is not None:
            if not params:
                raise _Refused("a method without its self parameter", fn)
            self_param = params.pop(0)
            s = self.g.value(f"__torch__.{_ir._qualified(type(self.module))}")
            self.g.set_name(s, self_param.arg)
            self.g.inputs.append(s)
            self.self_name = self_param.arg
        for p in params:
            if p.annotation is not None and not _names_tensor(p.annotation):
                raise _Refused(f"the parameter {p.arg} annotated {ast.unparse(p.annotation)} (not a Tensor)", p)
            if not _meaningful(p.arg):
                raise _Refused(f"the parameter name {p.arg!r}", p)
            v = self.g.value("Tensor")
            self.g.set_name(v, p.arg)
            self.g.inputs.append(v)
            self.slots[p.arg] = v
        body = list(fn.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body.pop(0)  # a docstring: PyTorch emits it as a string constant (a number taken), then drops it
            self.g.skip(1)
        if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
            raise _Refused("a function that does not end with a return of its result", fn)
        for stmt in body[:-1]:
            self._statement(stmt)
        self._return(body[-1])
        if fn.returns is not None and ast.unparse(fn.returns) not in ("torch.Tensor", _ir._return_type(self.g)):
            raise _Refused(f"the return annotation {ast.unparse(fn.returns)} (PyTorch types the result by it)", fn)
        self._to_ssa()
        _eliminate_dead(self.g)
        _pool_constants(self.g)
        return self.g

    def _statement(self, stmt) -> None:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            result = self._expr(stmt.value)
            if not isinstance(result, _Value) or result.value.type != "Tensor":
                raise _Refused("an assignment of a value that is not a tensor", stmt)
            self._store(stmt.targets[0].id, result.value, stmt)
            return
        raise _Refused(f"the statement {type(stmt).__name__} ({_line_text(stmt)})", stmt)

    def _return(self, stmt) -> None:
        value = stmt.value
        items = value.elts if isinstance(value, ast.Tuple) else [value]
        results = [self._tensor(self._expr(e), e) for e in items]
        if isinstance(value, ast.Tuple):
            if not results:
                raise _Refused("an empty tuple returned", stmt)
            self.g.returned = self._new("prim::TupleConstruct", results,
                                        f"({', '.join(r.type for r in results)})")
        else:
            self.g.returned = results[0]

    def _to_ssa(self) -> None:
        """Each load replaced by the value it read; the loads' names freed (their numbers stay taken)."""
        def read(v):
            while v in self.loads:
                v = self.loads[v]
            return v
        for node in self.g.nodes:
            node.inputs = [read(v) for v in node.inputs]
        self.g.returned = read(self.g.returned)
        for v in self.loads:
            if self.g._names.get(v.name) is v:
                del self.g._names[v.name]

    # -- expressions ------------------------------------------------------------------------------------
    def _tensor(self, result, node):
        if isinstance(result, _Value) and result.value.type == "Tensor":
            return result.value
        raise _Refused(f"{ast.unparse(node)} where a tensor is needed", node)

    def _expr(self, node):
        if isinstance(node, ast.Name):
            if node.id in self.slots:
                return _Value(self._load(node.id))
            raise _Refused(f"the name {node.id} (not a local tensor variable or parameter)", node)
        if isinstance(node, ast.Constant) and type(node.value) in _SCALAR_TYPES:
            return _Number(node.value, node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            if isinstance(node.operand, ast.Constant) and type(node.operand.value) in _SCALAR_TYPES:
                if type(node.operand.value) is bool:
                    raise _Refused(f"the negated bool {ast.unparse(node)}", node)
                return _Number(-node.operand.value, node, negated=True)
            x = self._tensor(self._expr(node.operand), node.operand)
            return _Value(self._op("neg.default", [x], node))
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Attribute) and self._is_self(node.value):
            return _Value(self._attribute(node))
        raise _Refused(f"the expression {type(node).__name__} ({ast.unparse(node)})", node)

    def _binary(self, node):
        left = self._expr(node.left)
        if not isinstance(left, _Value):
            raise _Refused(f"a number on the left of {ast.unparse(node)} (PyTorch calls a builtin function)", node)
        left = self._tensor(left, node.left)
        right = self._expr(node.right)
        if isinstance(node.op, ast.Pow):
            overload = "pow.Tensor_Scalar" if isinstance(right, _Number) else "pow.Tensor_Tensor"
        elif type(node.op) in _BINARY:
            overload = _BINARY[type(node.op)]
        else:
            raise _Refused(f"the operator {type(node.op).__name__}", node)
        if isinstance(right, _Number) and (overload == "matmul.default" or type(right.value) is bool):
            raise _Refused(f"the number {ast.unparse(node.right)} in {ast.unparse(node)}", node)
        scalar = isinstance(right, _Number)
        right = self._materialize(right) if scalar else self._tensor(right, node.right)
        return _Value(self._op(overload, [left, right], node, scalar=scalar and overload in _BINARY.values()))

    def _op(self, overload: str, given, node, scalar: bool = False):
        """An ``aten::`` node: its schema's arguments in order, ``given`` (a list: the first ones; a dict: by name)
        where given, the others' defaults made as constants where they stand. ``scalar``: a binary operator's
        Scalar overload (``add.Scalar(Tensor self, Scalar other, Scalar alpha=1)``: alpha by position)."""
        params = _aten_rules.schema(overload)
        if scalar:
            params = [(name, default, False) for name, default, _ in params]
        if isinstance(given, list):
            given = {p[0]: v for p, v in zip(params, given)}
        inputs = []
        for name, default, _ in params:
            if name in given:
                inputs.append(given[name])
                continue
            if default is _aten_rules._REQUIRED:
                raise _Refused(f"aten::{overload} without its argument {name}", node)
            if isinstance(default, str) or isinstance(default, list) and default:
                raise _Refused(f"aten::{overload}'s default {name}={default!r}", node)
            inputs.append(self._constant(default))
        out = self._new(f"aten::{overload.partition('.')[0]}", inputs, "Tensor", source=self._source(node))
        out.node.schema = params
        return out

    def _arg(self, node):
        """A call's argument, emitted where it stands: a number's constant made now, a list literal's
        ``prim::ListConstruct`` after its items."""
        if isinstance(node, ast.List):
            items = [self._arg(e) for e in node.elts]
            if items and all(isinstance(i, _Number) and type(i.value) is int for i in items):
                return _List("int[]", self._new("prim::ListConstruct", [i.const for i in items], "int[]"))
            if items and all(isinstance(i, _Value) and i.value.type == "Tensor" for i in items):
                return _List("Tensor[]", self._new("prim::ListConstruct", [i.value for i in items], "Tensor[]"))
            raise _Refused(f"the list {ast.unparse(node)} (neither ints nor tensors)", node)
        result = self._expr(node)
        if isinstance(result, _Number):
            self._materialize(result)
        return result

    def _call(self, node):
        func = node.func
        if not isinstance(func, ast.Attribute):
            raise _Refused(f"the call {ast.unparse(node)} (only torch.<op>, tensor.<op> and submodules)", node)
        if self._is_self(func.value):
            if node.keywords:
                raise _Refused(f"keyword arguments in {ast.unparse(node)}", node)
            return _Value(self._submodule_call(node))
        if isinstance(func.value, ast.Name) and func.value.id not in self.slots:
            if not self._is_torch(func.value.id):
                raise _Refused(f"the call {ast.unparse(node)} (a Python function, which PyTorch compiles and calls "
                               "with prim::CallFunction)", node)
            args = [self._arg(a) for a in node.args]
        else:
            args = [self._expr(func.value)] + [self._arg(a) for a in node.args]
            self._tensor(args[0], func.value)
        kwargs = {}
        for k in node.keywords:
            if k.arg is None or k.arg in kwargs:
                raise _Refused(f"the keyword arguments of {ast.unparse(node)}", node)
            kwargs[k.arg] = self._arg(k.value)
        return _Value(self._aten_call(func.attr, args, kwargs, node))

    def _aten_call(self, name: str, args: list, kwargs: dict, node):
        """``torch.<name>(*args, **kwargs)``: the first ATen overload of that name whose arguments take these (as
        PyTorch's matching does without conversions); refused unless tinytorch's function says it returns one
        Tensor."""
        if not _returns_one_tensor(name):
            raise _Refused(f"torch.{name} (not an operator returning one tensor)", node)
        for overload in _overloads(name):
            bound = _bind(overload, args, kwargs)
            if bound is not None:
                break
        else:
            raise _Refused(f"torch.{name} with these arguments (no ATen overload tinytorch declares takes them)",
                           node)
        if overload not in VERIFIED:
            raise _Refused(f"aten::{overload}, which tinytorch has not compared with PyTorch's compiler (PyTorch "
                           "may try other overloads first, which takes value numbers)", node)
        given = {}
        for pname, _, _ in _aten_rules.schema(overload):  # (lists of numbers made in the schema's order)
            if pname not in bound:
                continue
            a = bound[pname]
            if isinstance(a, list):  # ints for an int list: varargs (view(2, 3)) or one int (sum(x, 1))
                a = _List("int[]", self._new("prim::ListConstruct", [n.const for n in a], "int[]"))
            given[pname] = a.const if isinstance(a, _Number) else a.value
        scalar = overload in _BINARY.values() and isinstance(bound.get("other"), _Number)
        return self._op(overload, given, node, scalar=scalar)

    def _is_self(self, node) -> bool:
        return self.module is not None and isinstance(node, ast.Name) and node.id == self.self_name

    def _is_torch(self, name: str) -> bool:
        """Whether ``name`` is the torch module where the function reads it (a closure's cell, else a global)."""
        cells = dict(zip(self.fn.__code__.co_freevars, self.fn.__closure__ or ()))
        value = cells[name].cell_contents if name in cells else self.fn.__globals__.get(name)
        return getattr(value, "__name__", None) in ("torch", "tinytorch")

    def _attribute(self, node):
        """``self.<name>``: a submodule or a parameter/buffer, read by a ``prim::GetAttr`` named after it."""
        name, m = node.attr, self.module
        if name in m._modules and m._modules[name] is not None:
            type_ = f"__torch__.{_ir._qualified(type(m._modules[name]))}"
        elif name in m._parameters and m._parameters[name] is not None or \
                name in m._buffers and m._buffers[name] is not None:
            type_ = "Tensor"
        else:
            raise _Refused(f"the attribute self.{name} (not a submodule, parameter or buffer)", node)
        v = self._new("prim::GetAttr", [self.g.inputs[0]], type_, f'[name="{name}"]')
        self.g.set_name(v, name)
        return v

    def _submodule_call(self, node):
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in self.module._modules:
            raise _Refused(f"the call {ast.unparse(node)} (only submodules of self are called)", node)
        sub = self.module._modules[func.attr]
        _check_returns_tensor(sub, node)
        owner = self._attribute(func)
        args = [self._tensor(self._expr(a), a) for a in node.args]
        return self._new("prim::CallMethod", [owner] + args, "Tensor", '[name="forward"]', self._source(node))


# -- the rules' small pieces ---------------------------------------------------------------------------
def _meaningful(name: str) -> bool:
    """PyTorch's ``meaningfulName``: ``_`` and ``_<digits>`` name nothing."""
    return not (name.startswith("_") and name[1:].isdigit() or name == "_")


def _names_tensor(annotation) -> bool:
    return ast.unparse(annotation) in ("Tensor", "torch.Tensor")


def _line_text(node) -> str:
    return ast.unparse(node).splitlines()[0]


def _overloads(name: str) -> list:
    """The overloads of ``aten::<name>`` that ``SCHEMAS`` declares, in its order (not the in-place ones)."""
    return [line.partition("(")[0] for line in _aten_rules.SCHEMAS.strip().splitlines()
            if line.partition(".")[0] == name]


def _returns_one_tensor(name: str) -> bool:
    """What tinytorch's ``torch.<name>`` declares it returns (``-> Tensor``): a tuple-returning overload (``max``
    with a dim, ``sort``) is never printed as one tensor."""
    fn = getattr(importlib.import_module("..", __package__), name, None)
    if fn is None:
        fn = getattr(Tensor, name, None)
    try:
        returned = inspect.signature(fn).return_annotation
    except (TypeError, ValueError):
        return False
    return returned in ("Tensor", Tensor)


def _accepts(kind: str, arg) -> bool:
    """Whether an argument of schema type ``kind`` takes ``arg`` as PyTorch's matching does without conversions."""
    if isinstance(arg, _Value):
        return kind in ("Tensor", "Tensor?") and arg.value.type == "Tensor"
    if isinstance(arg, _List):
        return kind == "Tensor[]" if arg.kind == "Tensor[]" else _int_list(kind)
    if isinstance(arg, list):  # ints packed into a list
        return _int_list(kind) and all(isinstance(n, _Number) and type(n.value) is int for n in arg)
    if type(arg.value) is bool:
        return kind in ("bool", "bool?")
    if kind == "Scalar":
        return True
    if kind in ("int", "int?", "SymInt", "SymInt?"):
        return type(arg.value) is int
    return kind in ("float", "float?") and type(arg.value) is float


def _int_list(kind: str) -> bool:
    """``int[]``, ``SymInt[]``, ``int[1]?``: a list of ints a single int may stand for (not ``int[2]``, which
    PyTorch repeats)."""
    base = kind.rstrip("?")
    return base.startswith(("int[", "SymInt[")) and base.partition("[")[2] in ("]", "1]")


def _bind(overload: str, args: list, kwargs: dict):
    """``{parameter: argument}`` of a call to ``overload``, or None where its schema does not take the arguments;
    an int (or several, at the end: ``view(2, 3)``) given for an int list becomes a list of the ints."""
    params = _aten_rules.schema(overload)
    types = _ir._param_types(overload)
    positional = [p[0] for p in params if not p[2]]
    bound = {}
    for i, a in enumerate(args):
        if i >= len(positional):
            return None
        name = positional[i]
        if isinstance(a, _Number) and _int_list(types.get(name, "")):
            last = i == len(positional) - 1
            if len(args) > i + 1 and not last:
                bound[name] = [a]
                continue
            bound[name] = list(args[i:]) if last else [a]
            break
        bound[name] = a
    for name, a in kwargs.items():
        if name in bound or name not in {p[0] for p in params}:
            return None
        bound[name] = [a] if isinstance(a, _Number) and _int_list(types.get(name, "")) else a
    if any(default is _aten_rules._REQUIRED and name not in bound for name, default, _ in params):
        return None
    if overload in _BINARY.values() and isinstance(bound.get("other"), _Number):
        types["other"] = "Scalar"  # (its Scalar overload: the same arguments, a number for other)
    return bound if all(_accepts(types.get(n, ""), a) for n, a in bound.items()) else None


def _check_returns_tensor(sub, node) -> None:
    """A submodule's call is a ``Tensor`` when its ``forward`` says so (``-> Tensor``), or compiles to one."""
    if isinstance(sub, Sequential) and len(sub):  # (PyTorch infers its type: the last module's, each fed a tensor)
        for child in sub:
            _check_returns_tensor(child, node)
        return
    forward = type(sub).forward
    returned = inspect.signature(forward).return_annotation
    if returned in ("Tensor", "torch.Tensor", Tensor):
        return
    if type(sub).__module__.startswith("tinytorch."):
        raise _Refused(f"the call of {type(sub).__name__}, whose forward tinytorch does not declare as returning "
                       "a Tensor", node)
    g = compile_graph(forward, sub)
    if g.returned.type != "Tensor":
        raise _Refused(f"the call of {type(sub).__name__}, whose forward returns {g.returned.type}", node)


def _eliminate_dead(g) -> None:
    """PyTorch's ``EliminateDeadCode``: nodes whose results nothing uses are dropped, except method calls (they may
    have effects), which keep what they read alive."""
    live = {g.returned}
    kept = []
    for node in reversed(g.nodes):
        if node.kind == "prim::CallMethod" or any(o in live for o in node.outputs):
            kept.append(node)
            live.update(node.inputs)
    g.nodes = kept[::-1]


def _pool_constants(g) -> None:
    """PyTorch's ``ConstantPooling``: the first of equal constants kept, each kept one moved to the graph's start as
    it is visited (so the kept ones end in reverse order of visit)."""
    kept: dict = {}
    order: list = []
    replaced: dict = {}
    rest = []
    for node in g.nodes:
        if node.kind != "prim::Constant":
            rest.append(node)
            continue
        v = node.outputs[0]
        key = (v.type, repr(v.constant))
        if key in kept:
            replaced[v] = kept[key]
            if g._names.get(v.name) is v:
                del g._names[v.name]
        else:
            kept[key] = v
            order.append(node)
    for node in rest:
        node.inputs = [replaced.get(v, v) for v in node.inputs]
    g.nodes = order[::-1] + rest


def compile_graph(fn, module=None):
    """The graph PyTorch's ``torch.jit.script`` makes of ``fn`` (a module's ``forward`` when ``module`` is given),
    as ``_ir.Graph``; ``NotImplementedError`` for what is outside this module's subset."""
    fn = inspect.unwrap(fn)
    try:
        compiler = _Compiler(fn, module)
    except (OSError, TypeError, SyntaxError) as e:  # (a lambda's source line may not parse alone)
        raise NotImplementedError(f"tinytorch cannot print this scripted program as TorchScript: its source is not "
                                  f"available ({e})") from None
    try:
        g = compiler.compile()
    except _Refused as r:
        line = compiler.first_line + getattr(r.node, "lineno", 1) - 1
        raise NotImplementedError(_REFUSED.format(r.what, line, compiler.path)) from None
    g.self_name = getattr(compiler, "self_name", None)
    return g


def graph_text(fn, module=None) -> str:
    """``scripted.graph`` printed."""
    return _ir.print_graph(compile_graph(fn, module))


def code_text(fn, module=None) -> str:
    """``scripted.code``: the compiled graph written back as Python (PyTorch's ``PythonPrint``)."""
    g = compile_graph(fn, module)
    name = "forward" if module is not None else fn.__name__
    return _ir.print_code(g, name, module is not None, self_name=g.self_name)
