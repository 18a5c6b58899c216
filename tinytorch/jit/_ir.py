"""A traced program's TorchScript text: ``.graph`` (the IR), ``.inlined_graph`` and ``.code`` as PyTorch prints them.

tinytorch has no TorchScript; ``trace`` records an fx graph (``_trace.py``), with the names its tensors had in the
program and the submodule calls it made. This module rewrites that recording as the graph PyTorch's tracer would
have built (``Traced``), then prints it as PyTorch's printers do:

- **Values.** PyTorch numbers a graph's values in the order they are made (``%4``) and prints a value's name where it
  has one (``%x``): the inputs take their parameters' names, a module's attributes their own (``%weight``), and a
  tensor first used by an op is named after the local variable that held it in the frame calling the op (``a = x +
  y; b = a * 2`` names ``%a``; inside ``F.relu`` it is ``input``). A name taken already moves the older value to
  ``name.1`` (then ``.3``...), as ``Value::setDebugName`` does. The numbers skip what PyTorch made and dropped: one
  value per attribute of the traced module (``training`` and a hidden flag for each module, its parameters,
  buffers and submodules) before the inputs, the view the tracer makes of a tensor given twice (``trace(cell, (x,
  x))``: the program gets a view for the second place, so the graph has two inputs), the nodes of ops whose results
  were unused, and the values the lifting of the submodule calls into methods made (``Traced``).
- **Nodes.** An op shows its whole ATen schema (``_aten_rules.SCHEMAS``): each argument that is not a tensor becomes
  a ``prim::Constant`` (an int list a ``prim::ListConstruct`` of them), a Python number given where the schema
  takes a Tensor a wrapped-number tensor constant (``Long(...) = prim::Constant[value={2}]``); several outputs are
  a ``prim::TupleConstruct``. ``conv2d`` is ``aten::_convolution``, the op PyTorch's tracer records inside it.
  Attributes are ``prim::GetAttr`` nodes placed first, the last read first (a chain of them where the attribute
  is deeper: ``self.lin.weight`` read by the forward; an input of the method where it is not under the module's
  own name, as a submodule or tensor held under several names can be: ``Traced._convert``); a submodule call is a
  ``prim::CallMethod`` of the method made of it (``forward``; the same submodule called again ``forward1``...),
  whose graph a traced submodule's ``.graph`` prints (``traced.linear.graph``), numbered on its own. Tensors carry
  their type as PyTorch writes it: ``Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu)``. A node records
  where its op was called: ``# file.py:12:0``.
- **Inlined graph.** A copy of the graph (numbered again), each call replaced by the callee's method as PyTorch's
  inliner takes it: its own calls inlined, its constants pooled (one per type and value, at its start, the last
  first), each op marked ``, scope: __module.body/__module.body.0``.
- **Code.** ``.code`` is PyTorch's ``PythonPrint``: a value used once, unnamed, made by the node just before its
  user, is written inside that user's expression; a line of 40 characters or more is split at its last inlined
  argument; defaults at the end of a call are left out; tensor constants are ``CONSTANTS.c<i>``.

What this module cannot print as PyTorch does it refuses with ``NotImplementedError`` (naming what), never printing
a guess: ops whose ATen schema tinytorch does not declare, in-place ops, indexing, ops with several outputs,
factories and dtype arguments, a tensor PyTorch's Python ``torch.nn.functional`` would have named, the inlined
graph of a scripted program called in the trace (its call, ``prim::CallMethod`` of the module or
``prim::CallFunction`` of the function's constant, is printed: ``Traced._scripted_call``), a loaded program."""
from __future__ import annotations

import math
import operator

from ..fx.experimental import _aten_rules
from ..tensor import Tensor

__all__ = ["Traced", "TorchScriptGraph", "texts"]

_REFUSED = "tinytorch cannot print this traced program as TorchScript: {}"

# a tensor PyTorch's tracer may have named in a frame tinytorch does not have (torch.nn.functional's Python)
UNKNOWN_NAME = object()


def _refuse(what: str):
    raise NotImplementedError(_REFUSED.format(what))


# -- the graph --------------------------------------------------------------------------------------------
class Value:
    def __init__(self, unique: int, type_: str, node=None):
        self.unique, self.type, self.node = unique, type_, node
        self.name = None
        self.constant = None   # a constant's Python value (prim::Constant)

    def ref(self) -> str:
        return f"%{self.name if self.name is not None else self.unique}"


class Node:
    def __init__(self, kind: str, inputs: list, attrs: str = "", source: str | None = None):
        self.kind, self.inputs, self.attrs, self.source = kind, inputs, attrs, source
        self.outputs: list = []
        self.schema = None  # an op's parsed ATen schema (name, default, keyword-only), for .code
        self.call = None    # the submodule call (``_trace._Call``) the op ran in; None: the traced forward itself
        self.index = None   # the position of its fx node in the recording
        self.callee = None  # a prim::CallMethod's call
        self.scope = None   # ``__module.body/__module.body.0`` (printed in a submodule's graph and inlined_graph)
        self.scripted = None  # a prim::CallMethod / prim::CallFunction of a scripted program (_trace._ScriptedCall)

    def with_inputs(self, inputs: list):
        """The same node (its outputs, the same values) reading ``inputs``: the node as another graph holds it."""
        node = Node(self.kind, inputs, self.attrs, self.source)
        node.outputs, node.schema, node.call, node.scope = self.outputs, self.schema, self.call, self.scope
        node.index, node.callee, node.scripted = self.index, self.callee, self.scripted
        return node


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
        v = Value(self._next, type_, node)
        self._next += 1
        return v

    def skip(self, n: int) -> None:
        """``n`` values PyTorch made here and later dropped: they took their numbers."""
        self._next += n

    def set_name(self, v: Value, name: str) -> None:
        if v.name is not None:
            if self._names.get(v.name) is v:
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


def _uses(g: Graph) -> dict:
    """value -> [(user node, position)]; the return is the user None."""
    uses: dict = {}
    for node in g.nodes:
        for i, v in enumerate(node.inputs):
            uses.setdefault(v, []).append((node, i))
    uses.setdefault(g.returned, []).append((None, 0))
    return uses


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
    dtype = t.type().rpartition(".")[2][:-len("Tensor")]  # (FloatTensor: its ScalarType's name)
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


class Traced:
    """A trace rewritten as PyTorch's tracer records it (its "raw" graph: every op of the forward and of the
    submodules it called, in order, the unused ones too), and the graphs PyTorch makes of it: ``top()`` (the
    forward, each submodule call a ``prim::CallMethod``), ``method(call)`` (the method made of a submodule's call)
    and ``inlined(graph)``.

    PyTorch's tracer records a submodule's call as a block and lifts each block into a method of the submodule
    (``FixupTraceScopeBlocks``): the block takes ``self`` as an input and a ``prim::GetAttr`` at its start for each
    attribute it reads; the values made in the block and used after it become its results, in the order their
    uses are met, whatever the forward returned in Python (none: the method returns None; several: a tuple, which
    the caller unpacks); then the block is copied into a graph of its own, numbered afresh, each value it reads
    from outside becoming an input of the method, in the order the copy meets them (so ``forward(a, b)`` that
    reads ``b`` first takes ``(b, a)``, and an input it never reads is no argument). The same submodule called
    again gets another method, ``forward1``."""

    def __init__(self, program, module=None):
        names = getattr(program, "local_names", None)
        if names is None:
            _refuse("a loaded program (tinytorch's file keeps the fx graph, not the names PyTorch's tracer gave)")
        if any(not spec.is_leaf() for spec in program.in_spec.children_specs):
            _refuse("an input that is a tuple, list or dict of tensors")
        out = program.out_spec
        if not out.is_leaf() and (out.type is not tuple or any(not c.is_leaf() for c in out.children_specs)):
            _refuse("an output other than a tensor or a tuple of tensors")
        fx_nodes = list(program.gm.graph.nodes)
        spans = self._scripted_spans(program, module, fx_nodes)
        self.module = module
        self.calls = list(getattr(program, "calls", ()) or ())
        _check_calls(self.calls)
        self.raw = g = Graph()
        values: dict = {}           # fx node -> Value
        naming = list(names)
        repeated = set(getattr(program, "repeated", ()))
        if module is not None:
            self_value = g.value(f"__torch__.{_qualified(type(module))}")
            g.set_name(self_value, "self")
            g.inputs.append(self_value)
            # the tracer's view of each tensor bound again under a later name (a constant per size, their list,
            # the view: dropped, but numbered, and their reads of the tensor named, _convert)
            later = _later_bindings(module)
            g.skip(_attribute_count(module) + sum(t.dim() + 2 for _, t in later))
        self._attrs: dict = {}      # path of an attribute -> the one value standing for it (PyTorch's TracedAttr)
        for index, n in enumerate(fx_nodes):
            while naming and naming[0][0] <= index:  # names given when this node's op looked at its inputs
                position, named, name = naming.pop(0)
                if position in spans:  # (a scripted call runs untraced: its ops name nothing)
                    continue
                # a parameter's value named by a frame is PyTorch's TracedAttr of it, not the GetAttr made later
                target = getattr(values.get(named), "traced", None) or values.get(named)
                if target is not None and target.name is None:
                    if name is UNKNOWN_NAME:
                        _refuse(f"a tensor no variable holds passed to torch.nn.functional.{n.target._packet._name}"
                                " (PyTorch's function may be Python code, whose frame names the tensor after its "
                                "parameter; tinytorch's is not)" if hasattr(n.target, "_packet") else
                                "a tensor passed to torch.nn.functional unnamed")
                    g.set_name(target, name)
            call = self._innermost(index)
            first = len(g.nodes)
            if n.op == "placeholder":
                v = g.value(tensor_type(n.meta["val"]))
                g.set_name(v, n.target)
                if len(g.inputs) - (module is not None) in repeated:  # the tracer's view of a tensor given before:
                    g.skip(n.meta["val"].dim() + 2)  # a constant per size, their list, the view (all dropped)
                g.inputs.append(v)
                values[n] = v
            elif n.op == "get_attr":
                values[n] = self._attribute(n)
            elif index in spans:  # a scripted call's op: the call is made in its place, after its last op
                if index == spans[index].end - 1:
                    values[spans[index].output] = self._scripted_call(g, spans[index], values)
            elif n.op == "call_function":
                values[n] = _op(g, n, values)
            elif n.op == "output":
                _output(g, n.args[0], values)
            else:
                _refuse(f"an fx node {n.op}")
            for node in g.nodes[first:]:
                node.call, node.index = call, index
        # where each value was made: the call whose block holds it (None: the forward itself)
        self.made_in = {o: node.call for node in g.nodes for o in node.outputs}
        for c in self.calls:
            c.module_value = self._what(tuple(c.path.split(".")), f"__torch__.{_qualified(type(c.module))}")
            c.self_value = Value(-1, c.module_value.type)
            g.set_name(c.self_value, "self")  # (each block's self, in the order the calls began)
            c.outs = []
        self._lift_uses(None)
        self._lift(g.returned, None)
        self._names_of_methods()
        self._views = [self._what(path, "Tensor", t) for path, t in later] if module is not None else []
        self._blocks: dict = {}    # call -> (its chains of GetAttr, the attributes it takes as inputs, their values)
        self._methods: dict = {}   # call -> its method's graph
        self._convert(None)

    def _scripted_spans(self, program, module, fx_nodes: list) -> dict:
        """{position of a recorded node: the scripted call (``_trace._ScriptedCall``) it ran in}; each call checked
        to be one PyTorch's tracer records as a call: of tensors, giving one tensor made in it, used after it."""
        spans: dict = {}
        position = {n: i for i, n in enumerate(fx_nodes)}
        for sc in getattr(program, "scripted", ()):
            if sc.inputs is None or None in sc.inputs:
                _refuse(f"the scripted {sc.name} called with arguments other than the program's tensors")
            if sc.output is None or not sc.start <= position[sc.output] < sc.end:
                _refuse(f"the scripted {sc.name}, whose result is not one tensor it computed")
            for n in fx_nodes[sc.start:sc.end]:
                if n is not sc.output and n.op == "call_function" and any(
                        not sc.start <= position[u] < sc.end for u in n.users):
                    _refuse(f"the scripted {sc.name}, a value of which is used after it other than its result")
            if sc.module is not None:  # (read by its last name: the tracer binds the module again under each)
                paths = [p for p, m in module.named_modules(remove_duplicate=False) if m is sc.module and p] \
                    if module is not None else []
                if not paths:
                    _refuse(f"the scripted {sc.name} called as a module that is not a submodule of the traced one")
                sc.path = tuple(paths[-1].split("."))
            spans.update((i, sc) for i in range(sc.start, sc.end))
        return spans

    def _scripted_call(self, g: Graph, sc, values: dict) -> Value:
        """PyTorch's node for a scripted call: ``prim::CallMethod`` on the module (an attribute read as any other),
        or ``prim::CallFunction`` of the function's constant; its result typed as the trace saw it."""
        for named, name in sc.names:
            target = getattr(values.get(named), "traced", None) or values.get(named)
            if target is not None and target.name is None:
                g.set_name(target, name)
        args = [values[i] for i in sc.inputs]
        out_type = tensor_type(sc.output.meta["val"])
        if sc.module is not None:
            original = getattr(sc.module, "_original", sc.module)
            what = self._what(sc.path, f"__torch__.{_qualified(type(original))}")
            node = g.add("prim::CallMethod", [what] + args, out_type, '[name="forward"]')
        else:
            fn = getattr(sc.fn, "__func__", sc.fn)
            function = g.add("prim::Constant", [], "Function", f'[name="{fn.__name__}"]').outputs[0]
            function.constant = ("function", f"__torch__.{_qualified_function(fn)}")
            node = g.add("prim::CallFunction", [function] + args, out_type)
        node.scripted = sc
        return node.outputs[0]

    def _lift(self, v: Value, user) -> None:
        """A value used in ``user``'s block (a call, None: the forward) but made in a block inside another: each
        block from the one that made it up to the one holding ``user`` gets it as a result, as PyTorch's
        ``MakeDefsDominateUses`` makes them (in the order the uses are met)."""
        block = self.made_in.get(v, False)
        while block is not None and block is not False and not self._inside(user, block):
            if v not in block.outs:
                block.outs.append(v)
            block = block.parent

    def _lift_uses(self, call) -> None:
        """The uses in ``call``'s block, its nodes' then those of the blocks inside, in the order made."""
        for item in self._direct(call):
            if isinstance(item, Node):
                for v in item.inputs:
                    self._lift(v, call)
            else:
                self._lift_uses(item)

    @staticmethod
    def _inside(made, call) -> bool:
        """Whether a value made in ``made`` (a call, None: the forward; False: an input) is in ``call``'s block
        or one inside it."""
        while made is not None and made is not False:
            if made is call:
                return True
            made = made.parent
        return call is None and made is None

    def _innermost(self, index: int):
        inside = [c for c in self.calls if c.start <= index < c.end]
        return max(inside, key=lambda c: c.depth) if inside else None

    def _attribute(self, n) -> Value:
        owner_path, _, attr = n.target.rpartition(".")
        if self.module is None or (owner_path or attr) and not _has_tensor(self.module, n.target):
            _refuse(f"the tensor {n.target} the program read, which PyTorch holds as a constant")
        # the attribute as the tracer holds it (by the first name it was bound under); each block reads it by a
        # GetAttr of its own
        v = self._what(tuple(n.target.split(".")), "Tensor", _tensors(self.module)[n.target])
        if not hasattr(v, "traced"):
            v.traced = Value(-1, "Tensor")  # PyTorch's TracedAttr, which a frame's local name may take first
        return v

    def _what(self, path: tuple, type_: str, tensor=None) -> Value:
        """The one value standing for the attribute at ``path`` (a tensor's first name, a submodule's scope): its
        GetAttr's type ``type_``; as an input of a method taking it, the tensor's type or the module's."""
        v = self._attrs.get(path)
        if v is None:
            v = self._attrs[path] = Value(-1, type_)
            v.path = path
            v.input_type = type_ if tensor is None else tensor_type(tensor)
        return v

    def _names_of_methods(self) -> None:
        """``forward``, then ``forward1``... for the calls of one submodule, in the order their methods were made
        (a call's after those inside it)."""
        count: dict = {}
        for c in sorted(self.calls, key=lambda c: (c.end, -c.depth)):
            k = count.get(id(c.module), 0)
            count[id(c.module)] = k + 1
            c.method_name = f"forward{k}" if k else "forward"

    # -- the blocks --
    def _direct(self, call) -> list:
        """The nodes of ``call``'s block (None: the forward), the unused ones too, and its direct submodule calls,
        in the order they were made."""
        items = [(n.index, 1, k, n) for k, n in enumerate(self.raw.nodes) if n.call is call]
        items += [(c.start, 0, k, c) for k, c in enumerate(self.calls) if c.parent is call]
        return [item[-1] for item in sorted(items, key=lambda item: item[:3])]

    def _convert(self, call) -> None:
        """The attribute reads of ``call``'s block (None: the forward) as PyTorch's ``ConvertTracedAttrReferences``
        makes them, blocks inside first: going through its nodes (a call's block before the call itself, which
        reads its module, then the attributes its block takes as inputs), each attribute read the first time in the
        block becomes a chain of ``prim::GetAttr`` from the block's ``self`` where the attribute's path is under
        the block's scope (``self.lin.weight`` read in the forward: ``lin``, then ``weight``), else an input of the
        block, which its caller gives in turn. Each GetAttr is named as it is made (a name taken moves the older
        value to ``name.1``: a Sequential's first Linear reads ``%bias.1``). The forward's block starts with the
        views of the tensors bound again under later names, each reading the tensor's first name (dropped later,
        their GetAttrs' names stay taken)."""
        prefix = () if call is None else tuple(call.path.split("."))
        chains, captures, local = [], [], {}
        self._blocks[call] = (chains, captures, local)

        def resolve(what: Value) -> None:
            if what in local:
                return
            if what.path[:len(prefix)] != prefix:  # above this block's scope: an input, given by the caller
                local[what] = Value(-1, what.input_type)
                captures.append(what)
                return
            links = []
            for k in range(len(prefix), len(what.path)):
                atom = what.path[k]
                inner = ".".join(what.path[:k + 1])
                type_ = what.type if k == len(what.path) - 1 else \
                    f"__torch__.{_qualified(type(self.module.get_submodule(inner)))}"
                v = Value(-1, type_)
                self.raw.set_name(v, atom if atom.isidentifier() else f"_{atom}")
                links.append((atom, v))
            chains.append(links)
            local[what] = links[-1][1]
        if call is None:
            for what in self._views:
                resolve(what)
        for item in self._direct(call):
            if isinstance(item, Node):
                for v in item.inputs:
                    if getattr(v, "path", None) is not None:
                        resolve(v)
            else:
                self._convert(item)
                resolve(item.module_value)
                for what in self._blocks[item][1]:
                    resolve(what)

    def _getattrs(self, call, self_value: Value, made) -> tuple[list, dict]:
        """The ``prim::GetAttr`` nodes ``call``'s block starts with, on ``self_value``: the last chain made first
        (each was inserted before the others), a chain in its order; ``made(value, node)``: the value this graph
        holds for a GetAttr's. Returns the nodes and {attribute: its value here}."""
        chains, _, local = self._blocks[call]
        nodes, here = [], {}
        for links in reversed(chains):
            owner = self_value
            for atom, v in links:
                node = Node("prim::GetAttr", [owner], f'[name="{atom}"]')
                owner = here[v] = made(v, node)
                node.outputs.append(owner)
                nodes.append(node)
        return nodes, {what: here[v] for what, v in local.items() if v in here}

    def _call_node(self, c, inputs: list, out: Value) -> Node:
        node = Node("prim::CallMethod", inputs, f'[name="{c.method_name}"]')
        node.outputs.append(out)
        node.callee = c
        out.node = node
        return node

    # -- the graphs --
    def top(self) -> Graph:
        """The forward's graph, in the trace's numbering: its own ops, each submodule call it made a
        ``prim::CallMethod``, numbered after the values PyTorch's lifting of the calls made and dropped (per call
        its block's ``self`` and its result or a None and its place; one per GetAttr of each block)."""
        raw = self.raw
        g = Graph()
        g._names, g._suffixes = dict(raw._names), dict(raw._suffixes)
        g.inputs = list(raw.inputs)
        self_value = raw.inputs[0] if self.module is not None else None
        g.nodes, replaced = self._getattrs(None, self_value, _placed) if self_value is not None else ([], {})
        # the values made and dropped: per call its block's self and a result for each value it gives out; the
        # GetAttrs; then, call by call as their methods are made, a None (and its place) where a block gives out
        # nothing, the tuple of its results, the call's tuple and their unpacking where it gives out several
        g._next = raw._next + sum(1 + len(c.outs) for c in self.calls)
        g._next += sum(sum(map(len, chains)) + len(taken) for chains, taken, _ in self._blocks.values())
        unpacked: dict = {}
        for c in sorted(self.calls, key=lambda c: (c.end, -c.depth)):
            if len(c.outs) > 1:
                unpacked[c] = [Value(g._next + 2 + k, v.type) for k, v in enumerate(c.outs)]
            g._next += 2 if not c.outs else 2 + len(c.outs) if len(c.outs) > 1 else 0
        for item in self._direct(None):
            if isinstance(item, Node):
                g.nodes.append(item.with_inputs([replaced.get(v, v) for v in item.inputs]))
                continue
            args = [replaced[item.module_value]] + [replaced.get(v, v) for v in self.method(item).captured]
            out = g.value(_returned_type(item))
            g.nodes.append(self._call_node(item, args, out))
            if len(item.outs) == 1:
                replaced[item.outs[0]] = out
            elif item.outs:
                g.nodes.append(_unpack(out, unpacked[item]))
                replaced.update(zip(item.outs, unpacked[item]))
        g.returned = replaced.get(raw.returned, raw.returned)
        _eliminate_dead(g)
        return g

    def method(self, call) -> Graph:
        """The graph of the method made of ``call``; ``.captured``: what it reads from outside (its inputs after
        ``self``), as the caller holds it. Its values are numbered as the copy of the block into a graph of its own
        made them (each node's results, then the outside values it reads met first); a call inside another's
        block was copied once more with its caller's graph (a graph held by a node is copied with it), which
        numbers the inputs first, then the nodes' results."""
        if call in self._methods:
            return self._methods[call]
        made_order: list = []  # the values as the copy of the block makes them

        def value(type_: str, node=None, like: Value | None = None) -> Value:
            v = Value(-1, type_, node)
            if like is not None:
                v.name, v.constant = like.name, like.constant
            made_order.append(v)
            return v
        g = Graph()
        me = value(call.self_value.type, like=call.self_value)
        g.inputs.append(me)
        g.captured = []
        local: dict = {}  # the block's values (and what its GetAttrs read) -> this graph's

        def read(v: Value) -> Value:
            if v in local:
                return local[v]
            made = self.made_in.get(v, False)
            if self._inside(made, call):
                _refuse(f"a value the submodule {call.path} computed, used before it was made")
            # a value from outside: an input, named as the caller holds it (a block around this one, or the
            # inputs, hold it by its name; a call beside it returned it as an unnamed result)
            local[v] = c = value(v.type)
            c.name = v.name if made is None or made is False or self._inside(call, made) else None
            g.inputs.append(c)
            g.captured.append(v)
            return c
        for what in self._blocks[call][1]:  # the attributes its caller gives: inputs after self
            local[what] = taken = value(what.input_type)
            g.inputs.append(taken)
            g.captured.append(what)
        nodes, attrs = self._getattrs(call, me, lambda v, node: value(v.type, node, like=v))
        local.update(attrs)
        calls = []
        for item in self._direct(call):
            if isinstance(item, Node):
                node = Node(item.kind, [], item.attrs, item.source)
                node.schema, node.call, node.scope = item.schema, item.call, _scope(item.call)
                node.scripted = item.scripted
                for o in item.outputs:
                    local[o] = out = value(o.type, node, like=o)
                    node.outputs.append(out)
                node.inputs = [read(v) for v in item.inputs]
                nodes.append(node)
            else:  # the call's node: its result is made, then its inputs are read; a CallMethod replaces it
                node = Node("prim::TracedModuleForward", [])
                stand_in = value(_returned_type(item), node)
                node.outputs.append(stand_in)
                if len(item.outs) == 1:
                    local[item.outs[0]] = stand_in
                node.inputs = [local[item.module_value]] + [read(v) for v in self.method(item).captured]
                calls.append((item, node))
                nodes.append(node)
                if len(item.outs) > 1:  # (its results unpacked after it)
                    nodes.append(_unpack(stand_in, [value(v.type) for v in item.outs]))
                    local.update(zip(item.outs, nodes[-1].outputs))
        if len(call.outs) == 1:
            g.returned = local[call.outs[0]]
        elif call.outs:  # several results: a tuple of them at its end
            items = [local[v] for v in call.outs]
            tup = Node("prim::TupleConstruct", items)
            tup.outputs.append(value(f"({', '.join(v.type for v in items)})", tup))
            nodes.append(tup)
            g.returned = tup.outputs[0]
        else:  # (the block returns nothing: a None is made at its end)
            none = Node("prim::Constant", [], "")
            none.outputs.append(value("NoneType", none))
            nodes.append(none)
            g.returned = none.outputs[0]
        if call.parent is not None:
            made_order = g.inputs + [o for node in nodes for o in node.outputs]
        for v in made_order:
            v.unique = g._next
            g._next += 1
        results = {}
        for item, node in calls:
            out = node.outputs[0]
            results[out] = g.value(out.type)
            nodes[nodes.index(node)] = self._call_node(item, node.inputs, results[out])
        for node in nodes:
            node.inputs = [results.get(v, v) for v in node.inputs]
        g.nodes = nodes
        g.returned = results.get(g.returned, g.returned)
        _eliminate_dead(g)
        self._methods[call] = g
        return g

    def inlined(self, source: Graph) -> Graph:
        """``inlined_graph``: a copy of ``source`` (its values numbered again in order), each ``prim::CallMethod``
        replaced by the callee's optimized graph (its own calls inlined, its constants pooled at its start: one per
        type and value, the last first), the inserted values numbered after."""
        g = Graph()
        new: dict = {}       # source's value -> its copy
        redirect: dict = {}  # a CallMethod's result (copy) -> the inlined callee's result

        def copy(v: Value) -> Value:
            c = g.value(v.type)
            c.constant = v.constant
            if v.name is not None:
                g.set_name(c, v.name)
            return c
        for v in source.inputs:
            new[v] = copy(v)
            g.inputs.append(new[v])
        for node in source.nodes:
            for v in node.outputs:
                new[v] = copy(v)

        def read(v: Value) -> Value:
            v = new[v]
            while v in redirect:
                v = redirect[v]
            return v
        for node in source.nodes:
            if node.scripted is not None:
                inputs, body, returned = _scripted_function_graph(node)
                arguments = node.inputs[1:]  # (after the function's constant)
            elif node.kind != "prim::CallMethod":
                made = node.with_inputs([read(v) for v in node.inputs])
                made.outputs = [new[v] for v in node.outputs]
                g.nodes.append(made)
                continue
            else:
                (inputs, body, returned), arguments = self._optimized(node.callee), node.inputs
            local = {v: read(a) for v, a in zip(inputs, arguments)}
            for item in body:
                made = item.with_inputs([local[v] for v in item.inputs])
                made.outputs = []
                for o in item.outputs:
                    local[o] = c = copy(o)
                    made.outputs.append(c)
                g.nodes.append(made)
            redirect[new[node.outputs[0]]] = local[returned]
            if node.scripted is not None and new[node.outputs[0]].name is not None:  # (its name goes to the result)
                g.set_name(local[returned], new[node.outputs[0]].name)
        g.returned = read(source.returned)
        return g

    def _optimized(self, call) -> tuple:
        """``call``'s method as ``optimized_graph`` gives it to the inliner: (its inputs, its nodes, its result),
        its own calls inlined, then its constants pooled (one node per type and value, moved to the start, the
        last first)."""
        m = self.method(call)
        body, swap = [], {}
        for node in m.nodes:
            _no_scripted_inlining(node)
            if node.kind != "prim::CallMethod":
                body.append(node.with_inputs([swap.get(v, v) for v in node.inputs]))
                continue
            inputs, inner, returned = self._optimized(node.callee)
            given = dict(zip(inputs, [swap.get(v, v) for v in node.inputs]))
            for item in inner:
                body.append(item.with_inputs([given.get(v, v) for v in item.inputs]))
            swap[node.outputs[0]] = given.get(returned, returned)
        kept, pooled, constants = {}, {}, []
        for node in body:
            if node.kind == "prim::Constant":
                key = (node.outputs[0].type, node.attrs)
                if key in kept:
                    pooled[node.outputs[0]] = kept[key]
                else:
                    kept[key] = node.outputs[0]
                    constants.append(node)
        rest = [n.with_inputs([pooled.get(v, v) for v in n.inputs]) for n in body if n.kind != "prim::Constant"]
        returned = swap.get(m.returned, m.returned)
        return m.inputs, list(reversed(constants)) + rest, pooled.get(returned, returned)


def _scripted_function_graph(node: Node) -> tuple:
    """(inputs, nodes, result) of the graph of the scripted function ``node`` calls, as PyTorch's inliner takes it
    (its ``optimized_graph``: ``_script_ir``'s graph, its constants pooled once more, which reverses their order);
    a module's method, or a graph that calls, refused."""
    sc = node.scripted
    _no_scripted_inlining(node, sc.module is None)
    callee = sc.compiled_graph()
    if any(n.kind in ("prim::CallMethod", "prim::CallFunction", "prim::GetAttr") for n in callee.nodes):
        _no_scripted_inlining(node)
    return callee.inputs, callee.nodes, callee.returned


def _no_scripted_inlining(node: Node, allowed: bool = False) -> None:
    if allowed:
        return
    if node.scripted is not None:
        _refuse(f"the inlined graph of the scripted {node.scripted.name} it called (PyTorch inlines the compiled "
                "graph, optimized; tinytorch prints a scripted program's graph, not that)")


def _placed(v: Value, node: Node) -> Value:
    v.node = node
    return v


def _returned_type(call) -> str:
    """The type of a method call's result (its method's return type)."""
    n = len(call.outs)
    return "NoneType" if not n else "Tensor" if n == 1 else f"({', '.join(['Tensor'] * n)})"


def _unpack(tup: Value, outs: list) -> Node:
    node = Node("prim::TupleUnpack", [tup])
    for v in outs:
        v.node = node
        node.outputs.append(v)
    return node


def _scope(call) -> str | None:
    chain = []
    while call is not None:
        chain.append(f"__module.{call.path}")
        call = call.parent
    return "/".join(reversed(chain)) or None


def _has_tensor(module, target: str) -> bool:
    return target in _tensors(module)


def _tensors(module) -> dict:
    return {**dict(module.named_buffers()), **dict(module.named_parameters())}


def _later_bindings(module) -> list:
    """(the first path, tensor) for each parameter or buffer PyTorch's tracer binds again: it binds a module's
    tensors, then its submodules' (each name of a shared one), and a tensor met before gets a view of it."""
    first: dict = {}
    later = []

    def walk(mod, prefix: tuple) -> None:
        for name, t in list(mod._parameters.items()) + list(mod._buffers.items()):
            if t is None:
                continue
            if id(t) in first:
                later.append((first[id(t)], t))
            else:
                first[id(t)] = prefix + (name,)
        for name, child in mod._modules.items():
            if child is not None:
                walk(child, prefix + (name,))
    walk(module, ())
    return later


def _check_calls(calls: list) -> None:
    """The submodule calls PyTorch's lifting into methods is followed for here: on tensors, returning one."""
    for c in calls:
        if c.problem is not None:
            _refuse(f"the submodule {c.path} {c.problem}")


def _qualified(cls) -> str:
    if "<locals>" in cls.__qualname__:
        _refuse(f"the class {cls.__qualname__}, defined inside a function (PyTorch's name for it is not followed)")
    module = cls.__module__
    if module.startswith("tinytorch."):
        module = "torch." + module[len("tinytorch."):]
    return cls.__qualname__ if module == "__main__" else f"{module}.{cls.__qualname__}"


def _qualified_function(fn) -> str:
    """A scripted function's name as PyTorch qualifies it: its module and ``__name__`` (not where it was defined
    inside another function)."""
    module = fn.__module__
    if module.startswith("tinytorch."):
        module = "torch." + module[len("tinytorch."):]
    return fn.__name__ if module == "__main__" else f"{module}.{fn.__name__}"


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
    types = _param_types(f"{n.target._packet._name}.{n.target._overloadname}") if name != "_convolution" else {}
    if name == "batch_norm":
        _refuse("aten::batch_norm (tinytorch's F.batch_norm passes cudnn_enabled=False where PyTorch passes "
                "torch.backends.cudnn.enabled)")
    if any(t.startswith("Layout") for t in types.values()):
        _refuse(f"aten::{name}, a factory (PyTorch's tracer records the dtype, layout and device it resolved)")
    for (pname, _, _), a in zip(params, args):
        kind = types.get(pname, "")
        if "[" in kind and kind[kind.index("[") + 1].isdigit() and isinstance(a, int) and not isinstance(a, bool):
            a = [a] * int(kind[kind.index("[") + 1:kind.index("]")])  # int[2] padding=0: [0, 0], as ATen's binding
        if kind.rstrip("?") in ("ScalarType", "MemoryFormat", "Device", "Generator") and a is not None:
            _refuse(f"aten::{name}'s argument {pname}={a} (PyTorch records a {kind.rstrip('?')} as a number)")
        inputs.append(_argument(g, a, values, source, kind == "Tensor"))
    out = n.meta.get("val")
    if not isinstance(out, Tensor):
        _refuse(f"aten::{name}, whose result is not one tensor")
    out_type = tensor_type(out)
    if name == "_convolution":  # recorded inside conv2d, below autograd: PyTorch's type has requires_grad=0
        out_type = out_type.replace("requires_grad=1", "requires_grad=0")
    node = g.add(f"aten::{name}", inputs, out_type, source=source)
    node.schema = params
    return node.outputs[0]


def _param_types(overload: str) -> dict:
    """name -> type of each argument of ``overload``'s schema (a number given for a ``Tensor`` is a wrapped-number
    tensor constant; ``ScalarType``, ``MemoryFormat``, ``Layout``: refused unless None)."""
    line = next((s for s in _aten_rules.SCHEMAS.strip().splitlines() if s.startswith(overload + "(")), "")
    out = {}
    for part in line.partition("(")[2].rstrip(")").split(", "):
        decl = part.partition("=")[0].split()
        if len(decl) == 2:
            out[decl[1]] = decl[0]
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


def _eliminate_dead(g: Graph) -> None:
    """Drop the nodes whose results nothing uses (their values keep their numbers), as PyTorch's tracer does; a
    method call stays (it may have effects)."""
    while True:
        uses = _uses(g)
        dead = [n for n in g.nodes if n.outputs and not any(o in uses for o in n.outputs)
                and n.kind not in ("prim::CallMethod", "prim::CallFunction")]
        if not dead:
            return
        g.nodes = [n for n in g.nodes if n not in dead]


# -- printing the graph -----------------------------------------------------------------------------------
def print_graph(g: Graph) -> str:
    """The IR as ``Graph::toString`` writes it."""
    def ref(v: Value) -> str:
        return v.ref()
    head = ",\n      ".join(f"{ref(v)} : {v.type}" for v in g.inputs)
    lines = [f"graph({head}):"]
    for node in g.nodes:
        outs = ", ".join(f"{ref(v)} : {v.type}" for v in node.outputs)
        line = f"  {outs} = {node.kind}{node.attrs}({', '.join(ref(v) for v in node.inputs)})"
        if node.scope is not None:
            line += f", scope: {node.scope}"
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
        self.used: set = set()
        self.next_id: dict = {}
        self.lines: list = []
        self.constants: list = []  # the tensor constants, CONSTANTS.c<i>
        self.split_uses: dict = {}
        self.uses = _uses(g)
        self.producer = {o: node for node in g.nodes for o in node.outputs}  # (a value's node in this graph)

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
        if len(self.uses.get(v, ())) != 1 or self.producer.get(v) is None or len(self.producer[v].outputs) != 1:
            return False
        return v.name is None or returned

    def _scan_value(self, block_point, v: Value, returned: bool = False):
        n = self.producer.get(v)
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
        if v in self.producer and self.producer[v].kind == "prim::Constant":
            return self._constant(v)
        raise AssertionError(f"value {v.ref()} used before it is written")

    def _constant(self, v: Value) -> str:
        value = v.constant
        if isinstance(value, tuple) and value and value[0] == "tensor":  # one CONSTANTS entry per dtype and value
            key = (v.type, value[1])
            if key not in self.constants:
                self.constants.append(key)
            return f"CONSTANTS.c{self.constants.index(key)}"
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
            owner = self.expr(node.inputs[0])
            return f"{owner}.{attr}" if attr.isidentifier() else f'getattr({owner}, "{attr}")'
        if node.kind == "prim::CallFunction":
            name = node.inputs[0].constant[1]
            return f"{name}({''.join(self.expr(v) + ', ' for v in node.inputs[1:])})"
        if node.kind == "prim::CallMethod":  # (a trailing ", " after each argument, as PythonPrint writes)
            method = node.attrs[len('[name="'):-len('"]')]
            return f"({self.expr(node.inputs[0])}).{method}({''.join(self.expr(v) + ', ' for v in node.inputs[1:])})"
        return self._call(node)

    def _call(self, node) -> str:
        params = node.schema
        shown = list(zip(params, node.inputs))
        # trailing positional arguments that hold their defaults are left out, keyword-only ones shown by name
        positional = [(p, v) for p, v in shown if not p[2]]
        while positional and _holds_default(positional[-1][1], positional[-1][0][1], self.producer):
            positional.pop()
        parts = [self.expr(v) for _, v in positional]
        parts += [f"{p[0]}={self.expr(v)}" for p, v in shown if p[2] and not _holds_default(v, p[1], self.producer)]
        return f"torch.{node.kind.partition('::')[2]}({', '.join(parts)})"

    def write(self) -> str:
        for node in self.g.nodes:
            if node.kind == "prim::Constant":
                continue
            if node.kind == "prim::TupleUnpack":  # (a trailing ", " after each name, as PythonPrint writes)
                names = [self.name_for(o) for o in node.outputs]
                self.exprs.update(zip(node.outputs, names))
                self.lines.append(f"  {''.join(n + ', ' for n in names)}= {self.expr(node.inputs[0])}")
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
        user, offset = self.uses[v][0]
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
            made = self.producer.get(arg)
            if made is not None and made.kind != "prim::Constant" and made in self.inline:
                to_split.append(arg)
        self.split_uses[user] = offset
        if not present and user is not None and user in self.inline:
            u_user, u_offset = self.uses[user.outputs[0]][0]
            self._scan_long(u_user, u_offset - 1, to_split)


def _holds_default(v: Value, default, producer: dict) -> bool:
    node = producer.get(v)
    if default is _aten_rules._REQUIRED or node is None:
        return False
    if node.kind == "prim::Constant":
        value = v.constant
        if isinstance(value, tuple):
            return False
        return type(value) is type(default) and value == default or (value is None and default is None)
    if node.kind == "prim::ListConstruct" and isinstance(default, list):
        items = [i.constant for i in node.inputs if producer[i].kind == "prim::Constant"]
        return len(items) == len(node.inputs) and items == default
    return False


_RESERVED = frozenset({"_", "aten", "attribute", "CONSTANTS", "fork", "getattr", "inf", "nan", "infj", "nanj", "ops",
                       "__torch__", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
                       "del", "elif", "else", "except", "False", "finally", "for", "from", "global", "if", "import",
                       "in", "is", "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "True",
                       "try", "while", "with", "yield", "uninitialized", "unchecked_cast"})


def _return_type(g: Graph) -> str:
    if g.returned.type == "NoneType":
        return "NoneType"
    made = next((n for n in g.nodes if g.returned in n.outputs), None)
    if made is not None and made.kind == "prim::TupleConstruct":
        return f"Tuple[{', '.join('Tensor' for _ in made.inputs)}]"
    return "Tensor"


def print_code(g: Graph, name: str, method: bool, self_name: str = "self") -> str:
    """``.code``: ``def <name>(...)`` and the body; ``method``: the first input is the module (``self_name``). An
    input without a name is ``argument_<i>``, as the method's schema names it."""
    code = _Code(g)
    params = []
    for i, v in enumerate(g.inputs):
        if method and i == 0:
            ident = self_name
            code.used.add(self_name)
        elif v.name is None:
            ident = code._gen(f"argument_{i}")
        else:
            ident = code.name_for(v)
        code.exprs[v] = ident
        annotation = v.type if v.type.startswith("__torch__.") else "Tensor"  # (a module taken as an input)
        params.append(ident if method and i == 0 else f"{ident}: {annotation}")
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


class NoMethod(Exception):
    """The submodule at this path was not called as a module in the trace: PyTorch made it no method."""


def texts(program, module=None, name: str = "forward", path: str | None = None):
    """(``.graph``, ``.inlined_graph``, ``.code``) of a traced program; ``module``: the traced module; ``path``:
    of its submodule there, the method PyTorch made of that submodule's (first) call."""
    traced = Traced(program, module)
    if path is None:
        g = traced.top()
    else:
        call = next((c for c in traced.calls if c.path == path and c.method_name == "forward"), None)
        if call is None:
            raise NoMethod(path)
        g = traced.method(call)
    return _Texts(traced, g, name, module is not None)


class _Texts(tuple):
    """(``.graph``, ``.inlined_graph``, ``.code``), each printed when asked for (one may be refused alone)."""

    def __new__(cls, traced, g: Graph, name: str, method: bool):
        self = super().__new__(cls, (0, 1, 2))
        self._traced, self._g, self._name, self._method = traced, g, name, method
        return self

    def __getitem__(self, i):
        if i == 0:
            return print_graph(self._g)
        if i == 1:
            return print_graph(self._traced.inlined(self._g))
        if i == 2:
            return print_code(self._g, self._name, self._method)
        raise IndexError(i)
