"""A traced program's TorchScript text: ``.graph`` (the IR), ``.inlined_graph`` and ``.code`` as PyTorch prints them.

tinytorch has no TorchScript; ``trace`` records an fx graph (``_trace.py``). This module rewrites that recording as
the graph PyTorch's tracer would have built, then prints it as PyTorch's printers do:

- **Values.** PyTorch numbers a graph's values in the order they are made (``%4``) and prints a value's name where it
  has one (``%x``): the inputs take their parameters' names, a module's attributes their own (``%weight``), and a
  tensor first used by an op is named after the local variable that held it in the calling frame (``a = x + y;
  b = a * 2`` names ``%a``). A name taken already moves the older value to ``name.1`` (then ``.3``...), as
  ``Value::setDebugName`` does. The numbers skip what PyTorch made and dropped: one value per attribute of the
  traced module (``training`` and a hidden flag for each module, its parameters and buffers) before the inputs,
  and the nodes of ops whose results were unused.
- **Nodes.** An op shows its whole ATen schema: each argument that is not a tensor becomes a ``prim::Constant``
  (an int list a ``prim::ListConstruct`` of them), a Python number given where the schema takes a Tensor a
  wrapped-number tensor constant (``Long(...) = prim::Constant[value={2}]``); several outputs are a
  ``prim::TupleConstruct``. A module's parameters are ``prim::GetAttr`` nodes on ``%self``, placed first, the
  last read first. Tensors carry their type as PyTorch writes it: ``Float(3, 4, strides=[4, 1],
  requires_grad=0, device=cpu)``. A node records where the op was called: ``# file.py:12:0``.
- **Code.** ``.code`` is PyTorch's ``PythonPrint``: a value used once, unnamed, made by the node just before its
  user, is written inside that user's expression; a line of 40 characters or more is split at its last inlined
  argument; defaults at the end of a call are left out.

What this module cannot print as PyTorch does it refuses with ``NotImplementedError`` (naming what): a module that
calls submodules (PyTorch's ``prim::CallMethod`` and the method graphs it splits off), ops whose ATen schema
tinytorch does not know, in-place ops, indexing, structured inputs or outputs. It never prints a guess."""
from __future__ import annotations

import math
import operator

from ..fx.experimental import _aten_rules
from ..tensor import Tensor

__all__ = ["build", "print_graph", "print_code"]

_REFUSED = "tinytorch cannot print this traced program as TorchScript: {}"

_DTYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _refuse(what: str):
    raise NotImplementedError(_REFUSED.format(what))


# -- the graph --------------------------------------------------------------------------------------------
class Value:
    def __init__(self, graph, unique: int, type_: str, node=None):
        self.graph, self.unique, self.type, self.node = graph, unique, type_, node
        self.name = None
        self.constant = None   # a constant's Python value (prim::Constant)
        self.uses: list = []   # (node, position)

    def ref(self) -> str:
        return f"%{self.name if self.name is not None else self.unique}"


class Node:
    def __init__(self, kind: str, inputs: list, attrs: str = "", source: str | None = None):
        self.kind, self.inputs, self.attrs, self.source = kind, inputs, attrs, source
        self.outputs: list = []
        self.schema = None  # an op's parsed ATen schema (name, default, keyword-only), for .code


class Graph:
    """Values numbered as they are made, names kept unique as ``Value::setDebugName`` keeps them."""

    def __init__(self):
        self.inputs: list = []
        self.nodes: list = []
        self.returned = None
        self._next = 0
        self._names: dict = {}
        self._suffixes: dict = {}

    def value(self, type_: str, node=None) -> Value:
        v = Value(self, self._next, type_, node)
        self._next += 1
        return v

    def skip(self, n: int) -> None:
        """``n`` values PyTorch made here and later dropped: they took their numbers."""
        self._next += n

    def set_name(self, v: Value, name: str) -> None:
        if v.name is not None:
            del self._names[v.name]
            v.name = None
        owner = self._names.get(name)
        if owner is not None:  # the older value moves to name.<n>
            base, suffix = name, 1
            head, dot, tail = name.rpartition(".")
            if dot and tail.isdigit():
                base, suffix = head, int(tail)
            if base in self._suffixes:
                suffix = max(suffix, self._suffixes[base] + 1)
            while f"{base}.{suffix}" in self._names:
                suffix += 1
            self._suffixes[base] = suffix + 1
            self.set_name(owner, f"{base}.{suffix}")
        self._names[name] = v
        v.name = name

    def add(self, kind: str, inputs: list, out_type: str | None, attrs: str = "", source=None) -> Node:
        node = Node(kind, inputs, attrs, source)
        for i, v in enumerate(inputs):
            v.uses.append((node, i))
        if out_type is not None:
            node.outputs.append(self.value(out_type, node))
        self.nodes.append(node)
        return node

    def constant(self, value, source) -> Value:
        if value is None:  # PyTorch's None constants carry no source location
            node = self.add("prim::Constant", [], "NoneType")
        else:
            type_ = {bool: "bool", int: "int", float: "float", str: "str"}.get(type(value))
            if type_ is None:
                _refuse(f"an argument {value!r} of type {type(value).__name__}")
            node = self.add("prim::Constant", [], type_, f"[value={_ir_scalar(value)}]", source)
        node.outputs[0].constant = value
        return node.outputs[0]


def _ir_scalar(value) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return _float(value, ".")
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def _float(value: float, integral_suffix: str) -> str:
    """A double as PyTorch prints one: 17 significant digits, ``1.`` for a whole number."""
    if math.isfinite(value) and value == int(value) and abs(value) < 1e16:
        return f"{int(value)}{integral_suffix}"
    return f"{value:.17g}"


def tensor_type(t: Tensor) -> str:
    dtype = _DTYPE_NAMES.get(str(t.dtype).rpartition(".")[2])
    if dtype is None:
        _refuse(f"a tensor of dtype {t.dtype}")
    sizes = ", ".join(str(s) for s in t.shape)
    strides = f"strides=[{', '.join(str(s) for s in t.stride())}], " if t.dim() else ""
    head = f"{sizes}, " if t.dim() else ""
    return f"{dtype}({head}{strides}requires_grad={int(t.requires_grad)}, device={t.device})"


# -- from the recording -----------------------------------------------------------------------------------
def _source(fx_node) -> str | None:
    """``file:line:0`` of the call, from the recording's stack (``File "f.py", line 12, in fn``)."""
    stack = fx_node.meta.get("stack_trace")
    if not stack:
        return None
    first = stack.strip().splitlines()[0].strip()
    if not first.startswith('File "'):
        return None
    path, _, rest = first[6:].partition('", line ')
    return f"{path}:{rest.split(',')[0]}:0"


def _schema_of(fx_node) -> tuple[str, list]:
    target = fx_node.target
    packet = getattr(target, "_packet", None)
    if packet is None:
        _refuse(f"the call {getattr(target, '__name__', target)} (not an ATen operator)")
    overload = f"{packet._name}.{target._overloadname}"
    if packet._name.endswith("_") and packet._name != "_":
        _refuse(f"the in-place operator aten::{packet._name}")
    params = _aten_rules.schema(overload)
    if params is None:
        _refuse(f"aten::{overload}, whose ATen schema tinytorch does not declare "
                "(tinytorch/fx/experimental/_aten_rules.py SCHEMAS)")
    return packet._name, params


def _conv_as_traced(args: list, kwargs: dict) -> list:
    """``conv2d``'s arguments as PyTorch's tracer records the op below it, ``aten::_convolution``."""
    names = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
    defaults = (None, None, None, 1, 0, 1, 1)
    bound = dict(zip(names, defaults))
    bound.update(zip(names, args))
    bound.update(kwargs)
    if isinstance(bound["padding"], str):
        _refuse(f"conv2d with padding={bound['padding']!r}")
    pair = lambda v: [v, v] if isinstance(v, int) else list(v)  # noqa: E731
    return [bound["input"], bound["weight"], bound["bias"], pair(bound["stride"]), pair(bound["padding"]),
            pair(bound["dilation"]), False, [0, 0], bound["groups"], False, False, True, True]


_CONVOLUTION = [("input", None, False), ("weight", None, False), ("bias", None, False), ("stride", None, False),
                ("padding", None, False), ("dilation", None, False), ("transposed", None, False),
                ("output_padding", None, False), ("groups", None, False), ("benchmark", None, False),
                ("deterministic", None, False), ("cudnn_enabled", None, False), ("allow_tf32", None, False)]


def _full_args(name: str, params: list, fx_node) -> list:
    """Every argument of the schema, in its order: the given ones, the defaults for the others."""
    args, kwargs = list(fx_node.args), dict(fx_node.kwargs)
    positional = [p for p in params if not p[2]]
    if len(args) > len(positional):
        _refuse(f"aten::{name} called with more arguments than its schema takes")
    values = []
    for i, (pname, default, kw_only) in enumerate(params):
        if not kw_only and i < len(args):
            values.append(args[i])
        elif pname in kwargs:
            values.append(kwargs.pop(pname))
        elif default is _aten_rules._REQUIRED:
            _refuse(f"aten::{name} without its argument {pname}")
        else:
            values.append(default)
    if kwargs:
        _refuse(f"aten::{name} with arguments {sorted(kwargs)} its schema lacks")
    return values


def build(gm, names=(), module=None) -> Graph:
    """The TorchScript graph of the recorded fx graph ``gm.graph``. ``names``: (position of the fx node whose op
    looked its inputs up, the fx node named, the local variable's name), in the order the trace named them;
    ``module``: the traced module (its graph starts with ``%self``)."""
    g = Graph()
    values: dict = {}  # fx node -> Value
    attrs: list = []   # (Value, attribute name), in the order the program read them
    if module is not None:
        if any(True for _ in module.children()):
            _refuse(f"the module {type(module).__name__} calls submodules (PyTorch prints prim::CallMethod and a "
                    "graph for each submodule's method)")
        self_value = g.value(f"__torch__.{_qualified(type(module))}")
        g.set_name(self_value, "self")
        g.inputs.append(self_value)
        g.skip(_attribute_count(module))
    naming = list(names)
    fx_nodes = list(gm.graph.nodes)
    for index, n in enumerate(fx_nodes):
        while naming and naming[0][0] <= index:  # names given when this node's op looked at its inputs
            _, named, name = naming.pop(0)
            if named in values and values[named].name is None:
                g.set_name(values[named], name)
        if n.op == "placeholder":
            v = g.value(tensor_type(n.meta["val"]))
            g.set_name(v, n.target)
            g.inputs.append(v)
            values[n] = v
        elif n.op == "get_attr":
            if module is None or "." in n.target or n.target not in dict(module.named_parameters()) and \
                    n.target not in dict(module.named_buffers()):
                _refuse(f"the tensor {n.target} the program read, which PyTorch holds as a constant")
            v = Value(g, -1, "Tensor")  # made after the trace, named: its number is never shown
            values[n] = v
            attrs.append((v, n.target))
        elif n.op == "call_function":
            values[n] = _op(g, n, values)
        elif n.op == "output":
            _output(g, n.args[0], values)
        else:
            _refuse(f"an fx node {n.op}")
    # PyTorch puts each attribute read first, made in the order read, each new one before the others
    for v, name in attrs:
        node = Node("prim::GetAttr", [g.inputs[0]], f'[name="{name}"]')
        self_uses = g.inputs[0].uses
        self_uses.append((node, 0))
        v.node = node
        node.outputs.append(v)
        g.set_name(v, name)
        g.nodes.insert(0, node)
    _eliminate_dead(g)
    return g


def _qualified(cls) -> str:
    module = cls.__module__
    if module.startswith("tinytorch."):
        module = "torch." + module[len("tinytorch."):]
    return cls.__qualname__ if module == "__main__" else f"{module}.{cls.__qualname__}"


def _attribute_count(module) -> int:
    """The values PyTorch's tracer makes for a module's attributes (``training``, a hidden flag, parameters,
    buffers, submodules and theirs) before the inputs."""
    n = 2 + sum(p is not None for p in module._parameters.values())
    n += sum(b is not None for b in module._buffers.values())
    for child in module._modules.values():
        if child is not None:
            n += 1 + _attribute_count(child)
    return n


def _op(g: Graph, n, values: dict) -> Value:
    if n.target is operator.getitem:
        _refuse("indexing (x[...]) or an op with several outputs")
    name, params = _schema_of(n)
    args = _full_args(name, params, n)
    if name == "conv2d":
        name, params, args = "_convolution", _CONVOLUTION, _conv_as_traced(args, {})
    source = _source(n)
    inputs = []
    tensor_params = _tensor_params(f"{n.target._packet._name}.{n.target._overloadname}")
    for (pname, _, _), a in zip(params, args):
        inputs.append(_argument(g, a, values, source, pname in tensor_params))
    out = n.meta.get("val")
    if not isinstance(out, Tensor):
        _refuse(f"aten::{name}, whose result is not one tensor")
    out_type = tensor_type(out)
    if name == "_convolution":  # recorded inside conv2d, below autograd: PyTorch's type has requires_grad=0
        out_type = out_type.replace("requires_grad=1", "requires_grad=0")
    node = g.add(f"aten::{name}", inputs, out_type, source=source)
    node.schema = params
    return node.outputs[0]


def _tensor_params(overload: str) -> set:
    """The arguments ``overload``'s schema types as ``Tensor`` (a number given there is a wrapped-number tensor)."""
    line = next((s for s in _aten_rules.SCHEMAS.strip().splitlines() if s.startswith(overload + "(")), "")
    out = set()
    for part in line.partition("(")[2].rstrip(")").split(", "):
        decl = part.partition("=")[0].split()
        if len(decl) == 2 and decl[0] == "Tensor":
            out.add(decl[1])
    return out


def _argument(g: Graph, a, values: dict, source, is_tensor: bool) -> Value:
    if isinstance(a, (list, tuple)):
        items = [_argument(g, v, values, source, False) for v in a]
        kinds = {v.type for v in items}
        if len(kinds) > 1:
            _refuse(f"a list of mixed types {sorted(kinds)}")
        item_type = kinds.pop() if kinds else "int"
        list_type = "Tensor" if item_type not in ("int", "float", "bool") else item_type
        return g.add("prim::ListConstruct", items, f"{list_type}[]").outputs[0]
    if hasattr(a, "op") and a in values:
        return values[a]
    if is_tensor and isinstance(a, (bool, int, float)):
        dtype = "Bool" if isinstance(a, bool) else "Long" if isinstance(a, int) else "Double"
        text = str(int(a)) if isinstance(a, bool) else _float(a, "") if isinstance(a, float) else str(a)
        node = g.add("prim::Constant", [], f"{dtype}(requires_grad=0, device=cpu)", f"[value={{{text}}}]", source)
        node.outputs[0].constant = ("tensor", a)
        return node.outputs[0]
    if hasattr(a, "op"):
        _refuse(f"a value {a} the recording does not know")
    return g.constant(a, source)


def _output(g: Graph, out, values: dict) -> None:
    if isinstance(out, (tuple, list)):
        if any(isinstance(o, (tuple, list)) for o in out):
            _refuse("a nested output")
        items = [values[o] for o in out]
        node = g.add("prim::TupleConstruct", items, f"({', '.join(v.type for v in items)})")
        g.returned = node.outputs[0]
    else:
        g.returned = values[out]
    g.returned.uses.append((None, 0))


def _eliminate_dead(g: Graph) -> None:
    """Drop the nodes whose results nothing uses (their values keep their numbers), as PyTorch's tracer does."""
    changed = True
    while changed:
        changed = False
        for node in list(g.nodes):
            if node.outputs and not any(o.uses for o in node.outputs):
                g.nodes.remove(node)
                for v in node.inputs:
                    v.uses = [u for u in v.uses if u[0] is not node]
                changed = True


# -- printing the graph -----------------------------------------------------------------------------------
def print_graph(g: Graph, numbers: dict | None = None) -> str:
    """The IR as ``Graph::toString`` writes it; ``numbers``: values numbered anew (a copy of the graph, as
    ``inlined_graph`` is)."""
    def ref(v: Value) -> str:
        return v.ref() if numbers is None or v.name is not None else f"%{numbers[v]}"
    head = ",\n      ".join(f"{ref(v)} : {v.type}" for v in g.inputs)
    lines = [f"graph({head}):"]
    for node in g.nodes:
        outs = ", ".join(f"{ref(v)} : {v.type}" for v in node.outputs)
        line = f"  {outs} = {node.kind}{node.attrs}({', '.join(ref(v) for v in node.inputs)})"
        if node.source is not None:
            line += f" # {node.source}"
        lines.append(line)
    lines.append(f"  return ({ref(g.returned)})")
    return "\n".join(lines) + "\n"


# -- printing the code (PyTorch's PythonPrint) ---------------------------------------------------------------
_LONG = 40


class _Code:
    def __init__(self, g: Graph):
        self.g = g
        self.inline: set = set()   # nodes written inside their user's expression
        self.exprs: dict = {}      # Value -> its expression
        self.used: set = {"self"} if g.inputs and g.inputs[0].name == "self" else set()
        self.next_id: dict = {}
        self.lines: list = []
        self.constants: list = []  # the tensor constants, CONSTANTS.c<i>
        self.split_uses: dict = {}

    # which values are written inline
    def scan(self) -> None:
        """PyTorch's ``scanBlock``: the return, then each node from the last, its inputs from the last."""
        self._scan_value(self._previous(None), self.g.returned, returned=True)
        for node in reversed(self.g.nodes):
            if node not in self.inline:
                self._scan_node(node)

    def _previous(self, node):
        i = len(self.g.nodes) if node is None else self.g.nodes.index(node)
        i -= 1
        while i >= 0 and self.g.nodes[i].kind == "prim::Constant":
            i -= 1
        return self.g.nodes[i] if i >= 0 else None

    def _can_inline(self, v: Value, returned: bool) -> bool:
        if len(v.uses) != 1 or v.node is None or len(v.node.outputs) != 1:
            return False
        return v.name is None or returned

    def _scan_value(self, block_point, v: Value, returned: bool = False):
        n = v.node
        if n is not None and n is block_point and self._can_inline(v, returned):
            block_point = self._scan_node(n)
            self.inline.add(n)
        elif n is not None and n.kind == "prim::Constant":
            self.inline.add(n)
        return block_point

    def _scan_node(self, node):
        block_point = self._previous(node)
        for v in reversed(node.inputs):
            block_point = self._scan_value(block_point, v)
        return block_point

    # names
    def _gen(self, candidate: str) -> str:
        name = candidate
        while name in self.used or name in _RESERVED:
            name = f"{candidate}{self.next_id.get(candidate, 0)}"
            self.next_id[candidate] = self.next_id.get(candidate, 0) + 1
        self.used.add(name)
        return name

    def name_for(self, v: Value) -> str:
        if v.name is None:
            return self._gen("_")
        base = v.name.rpartition(".")[0] if v.name.rpartition(".")[2].isdigit() else v.name
        ident = "".join(c if c.isalnum() or c == "_" else "_" for c in base)
        return self._gen("_" + ident if ident[:1].isdigit() else ident)

    # expressions
    def expr(self, v: Value) -> str:
        if v in self.exprs:
            return self.exprs[v]
        if v.node is not None and v.node.kind == "prim::Constant":
            return self._constant(v)
        raise AssertionError(f"value {v.ref()} used before it is written")

    def _constant(self, v: Value) -> str:
        value = v.constant
        if isinstance(value, tuple) and value and value[0] == "tensor":
            self.constants.append(value[1])
            return f"CONSTANTS.c{len(self.constants) - 1}"
        if value is None:
            return "None"
        if isinstance(value, bool):
            return str(value)
        if isinstance(value, float):
            return _float(value, ".")
        if isinstance(value, str):
            return f'"{value}"'
        return str(value)

    def rhs(self, node) -> str:
        if node.kind == "prim::ListConstruct":
            return f"[{', '.join(self.expr(v) for v in node.inputs)}]"
        if node.kind == "prim::TupleConstruct":
            items = [self.expr(v) for v in node.inputs]
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
        if node.kind == "prim::GetAttr":
            attr = node.attrs[len('[name="'):-len('"]')]
            return f"self.{attr}" if attr.isidentifier() else f'getattr(self, "{attr}")'
        return self._call(node)

    def _call(self, node) -> str:
        params = node.schema
        shown = list(zip(params, node.inputs))
        # trailing positional arguments that hold their defaults are left out, keyword-only ones shown by name
        positional = [(p, v) for p, v in shown if not p[2]]
        while positional and _holds_default(positional[-1][1], positional[-1][0][1]):
            positional.pop()
        parts = [self.expr(v) for _, v in positional]
        parts += [f"{p[0]}={self.expr(v)}" for p, v in shown if p[2] and not _holds_default(v, p[1])]
        return f"torch.{node.kind.partition('::')[2]}({', '.join(parts)})"

    def write(self) -> str:
        for node in self.g.nodes:
            if node.kind == "prim::Constant":
                continue
            text = self.rhs(node)
            out = node.outputs[0]
            if node not in self.inline:
                self.exprs[out] = self.name_for(out)
                self.lines.append(f"  {self.exprs[out]} = {text}")
            else:
                self.exprs[out] = text
                if len(text) + 2 >= _LONG:
                    self._split(out)
        self.lines.append(f"  return {self.expr(self.g.returned)}")
        return "\n".join(self.lines)

    def _split(self, v: Value) -> None:
        """A long inlined expression: it and the inlined arguments before it in its users get lines of their
        own (PyTorch's ``splitLongInlines``)."""
        to_split: list = []
        user, offset = v.uses[0]
        self._scan_long(user, offset, to_split)
        for value in reversed(to_split):
            name = self.name_for(value)
            self.lines.append(f"  {name} = {self.exprs[value]}")
            self.exprs[value] = name

    def _scan_long(self, user, offset: int, to_split: list) -> None:
        if user is None:  # the return
            inputs = [self.g.returned]
        else:
            inputs = user.inputs
        present = user in self.split_uses
        low = self.split_uses[user] + 1 if present else 0
        for i in range(offset, low - 1, -1):
            arg = inputs[i]
            if arg.node is not None and arg.node.kind != "prim::Constant" and arg.node in self.inline:
                to_split.append(arg)
        self.split_uses[user] = offset
        if not present and user is not None and user in self.inline:
            u_user, u_offset = user.outputs[0].uses[0]
            self._scan_long(u_user, u_offset - 1, to_split)


def _holds_default(v: Value, default) -> bool:
    if default is _aten_rules._REQUIRED or v.node is None:
        return False
    if v.node.kind == "prim::Constant":
        value = v.constant
        if isinstance(value, tuple):
            return False
        return type(value) is type(default) and value == default or (value is None and default is None)
    if v.node.kind == "prim::ListConstruct" and isinstance(default, list):
        items = [i.constant for i in v.inputs if i.node.kind == "prim::Constant"]
        return len(items) == len(v.inputs) and items == default
    return False


_RESERVED = frozenset({"_", "aten", "attribute", "CONSTANTS", "fork", "getattr", "inf", "nan", "infj", "nanj", "ops",
                       "__torch__", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
                       "del", "elif", "else", "except", "False", "finally", "for", "from", "global", "if", "import",
                       "in", "is", "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "True",
                       "try", "while", "with", "yield", "uninitialized", "unchecked_cast"})


def _return_type(g: Graph) -> str:
    t = g.returned.type
    if t.startswith("("):
        return f"Tuple[{', '.join('Tensor' for _ in g.returned.node.inputs)}]"
    return "Tensor"


def print_code(g: Graph, name: str) -> str:
    code = _Code(g)
    params = []
    for v in g.inputs:
        ident = code.name_for(v) if v.name != "self" else "self"
        code.exprs[v] = ident
        params.append(ident if ident == "self" else f"{ident}: Tensor")
    code.scan()
    body = code.write()
    joined = ",\n    ".join(params)
    head = f"def {name}({joined}) -> {_return_type(g)}:"
    return f"{head}\n{body}\n"


class TorchScriptGraph:
    """What ``traced.graph`` prints: the TorchScript IR text of a traced program (``str`` and ``repr``)."""

    def __init__(self, text: str):
        self._text = text

    def __str__(self) -> str:
        return self._text

    __repr__ = __str__

    def __eq__(self, other) -> bool:
        return isinstance(other, TorchScriptGraph) and other._text == self._text

    __hash__ = None


def texts(program, module=None, name: str = "forward") -> tuple[str, str, str]:
    """(``.graph``, ``.inlined_graph``, ``.code``) of a traced program."""
    names = getattr(program, "local_names", None)
    if names is None:
        _refuse("a loaded program (tinytorch's file keeps the fx graph, not the names PyTorch's tracer gave)")
    g = build(program.gm, names, module)
    graph = print_graph(g)
    inlined = print_graph(g, numbers={v: i for i, v in enumerate(
        list(g.inputs) + [v for node in g.nodes for v in node.outputs])})
    return graph, inlined, print_code(g, name)
