"""Python source from a graph: the text of ``gm.code`` and the ``forward`` a GraphModule runs.

Each node becomes one line, ``name = <call>``, in graph order; after a value's last use the line ends with
``;  a = b = None`` so memory is freed as early as it would be in hand-written code. Calls of ``torch`` functions
are written by their qualified names (``torch.relu(x)``, ``torch._C._nn.linear(x, w, b)``), operators as
operators (``x + y``), other functions through globals named after them. The code is exec'd with ``torch``
bound to tinytorch, so the text reads as PyTorch's and runs on tinytorch."""
from __future__ import annotations

import builtins
import enum
import keyword
import math
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, NamedTuple

import tinytorch as _tinytorch

from .. import _size
from .._symbolic import _Symbolic
from ..tensor import Tensor
from ..utils import _pytree as pytree
from . import _pytree as fx_pytree
from ._pytorch_names import is_from_torch, qualified_name, torch_repr
from .node import Node, _type_repr

__all__ = ["PythonCode", "CodeGen", "magic_methods", "reflectable_magic_methods", "inplace_methods"]

# the operators generated code writes as operators: {operator module function name: format}
reflectable_magic_methods = {
    "add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}", "truediv": "{} / {}",
    "div": "{} / {}", "mod": "{} % {}", "pow": "{} ** {}", "lshift": "{} << {}", "rshift": "{} >> {}",
    "and_": "{} & {}", "or_": "{} | {}", "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}",
}
magic_methods = {
    "eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}", "le": "{} <= {}", "ge": "{} >= {}",
    "pos": "+{}", "neg": "-{}", "invert": "~{}", **reflectable_magic_methods,
}
inplace_methods = {
    "iadd": "{} += {}", "iand": "{} &= {}", "ifloordiv": "{} //= {}", "ilshift": "{} <<= {}", "imod": "{} %= {}",
    "imul": "{} *= {}", "imatmul": "{} @= {}", "ior": "{} |= {}", "ipow": "{} **= {}", "irshift": "{} >>= {}",
    "isub": "{} -= {}", "itruediv": "{} /= {}", "ixor": "{} ^= {}", "setitem": "{}[{}] = {}",
}

class _CustomBuiltin(NamedTuple):
    import_str: str  # how a saved module imports it
    obj: Any


# globals every generated module has (their reprs are not valid Python without them), in PyTorch's order
_custom_builtins = {"inf": _CustomBuiltin("from math import inf", math.inf),
                    "nan": _CustomBuiltin("from math import nan", math.nan),
                    "NoneType": _CustomBuiltin("NoneType = type(None)", type(None)),
                    "torch": _CustomBuiltin("import torch", _tinytorch),
                    "device": _CustomBuiltin("from torch import device", _size.device),
                    "fx_pytree": _CustomBuiltin("import torch.fx._pytree as fx_pytree", fx_pytree),
                    "pytree": _CustomBuiltin("import torch.utils._pytree as pytree", pytree)}

# names a value may not take: keywords and builtins (unless the value is that builtin), and the globals above
_illegal_names = {k: object() for k in keyword.kwlist}
_illegal_names.update(builtins.__dict__)
_illegal_names.update((name, b.obj) for name, b in _custom_builtins.items())

_NAME = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")  # a base name and an optional _<number>
_ILLEGAL_CHARS = re.compile("[^0-9a-zA-Z_]+")


class _Namespace:
    """Unique Python identifiers for objects: each object one name, each name one object, and no name that
    shadows a builtin (``sum`` becomes ``sum_1``) unless the object is that builtin."""

    def __init__(self) -> None:
        self._obj_to_name: dict = {}
        self._used_names: set = set()
        self._base_count: dict = {}

    def create_name(self, candidate: str, obj) -> str:
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        match = _NAME.match(candidate)
        if match is None:  # not an identifier: replace what is illegal in one
            candidate = _ILLEGAL_CHARS.sub("_", candidate) or "_unnamed"
            if candidate[0].isdigit():
                candidate = f"_{candidate}"
            match = _NAME.match(candidate)
        base, num = match.group(1, 2)
        if num is None or candidate in self._used_names:
            num = self._base_count.get(base, 0)
            if _illegal_names.get(candidate, obj) is not obj:
                num += 1
                candidate = f"{base}_{num}"
        else:
            num = int(num)
        while candidate in self._used_names:
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[obj] = candidate
        return candidate

    def associate_name_with_obj(self, name: str, obj) -> None:
        if self._obj_to_name.setdefault(obj, name) is not name:
            raise AssertionError("obj is already associated")

    def _rename_object(self, obj, name: str) -> None:
        if obj not in self._obj_to_name:
            raise AssertionError(f"Object {obj} is not in _obj_to_name")
        self._obj_to_name[obj] = name
        self._used_names.add(name)


@dataclass
class PythonCode:
    """Generated source and the globals it runs with."""

    src: str
    globals: dict
    _lineno_map: dict | None = None
    _prologue_start: int = 0


# dtypes as verbose code annotates values with them ("f32[2, 3]")
_DTYPE_ABBRS = {"uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "float16": "f16",
                "float32": "f32", "float64": "f64", "complex32": "c32", "complex64": "c64", "complex128": "c128",
                "bool": "b8", "bfloat16": "bf16", "uint16": "u16", "uint32": "u32", "uint64": "u64",
                "float8_e5m2": "f8e5m2", "float8_e4m3fn": "f8e4m3fn", "float8_e5m2fnuz": "f8e5m2fnuz",
                "float8_e4m3fnuz": "f8e4m3fnuz", "float8_e8m0fnu": "f8e8m0fnu"}
_FRAME = re.compile(r"^File \"(.+)\", line (\d+), in (.+)$")


def _parse_stack_trace(stack_trace: str | None) -> str | None:
    """``File: <file>:<line> in <function>, code: <line of code>`` for the innermost frame of a recorded trace."""
    if stack_trace is None:
        return None
    lines = stack_trace.strip().split("\n")
    for i in range(len(lines) - 2, -1, -1):
        frame = _FRAME.match(lines[i].strip())
        if frame:
            return f"File: {frame.group(1)}:{frame.group(2)} in {frame.group(3)}, code: {lines[i + 1].strip()}"
    return None


def _format_target(base: str, target: str) -> str:
    """``self.layer1.0`` as Python: ``getattr(self.layer1, "0")``."""
    out = base
    for atom in target.split("."):
        out = f"{out}.{atom}" if atom.isidentifier() else f'getattr({out}, "{atom}")'
    return out


# typing's old names for the builtin generics (typing.List[int] prints through typing.List)
_origin_type_map = {list: typing.List, dict: typing.Dict, set: typing.Set,  # noqa: UP006
                    frozenset: typing.FrozenSet, tuple: typing.Tuple}  # noqa: UP006


class CodeGen:
    """Turns a graph's nodes into the source of ``forward``; subclasses change the signature and the return
    (``_PyTreeCodeGen`` flattens structured inputs and rebuilds structured outputs)."""

    def __init__(self) -> None:
        self._body_transformer = None  # a function over the body's lines (Graph.on_generate_code)
        self._func_name = "forward"

    def gen_fn_def(self, free_vars: list, maybe_return_annotation: str) -> str:
        if not free_vars or free_vars[0] != "self":
            free_vars.insert(0, "self")
        return f"def {self._func_name}({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args, repr_fn=repr) -> str:
        return f"return {repr_fn(output_args)}"

    def process_inputs(self, *args):
        return args

    def process_outputs(self, outputs):
        return outputs

    def additional_globals(self) -> list:
        return []

    def _gen_python_code(self, nodes, root_module: str, namespace: _Namespace, verbose: bool = False) -> PythonCode:
        free_vars: list = []
        body: list = []
        globals_: dict = {}
        wrapped_fns: dict = {}
        return_annotation = ""

        def add_global(name_hint: str, obj) -> str:
            """The name generated code reaches ``obj`` by: ``torch.<path>`` for torch's own, else a global."""
            if is_from_torch(obj) and obj is not _size.device:
                return qualified_name(obj)
            name = namespace.create_name(name_hint, obj)
            if name in globals_ and globals_[name] is not obj:
                raise AssertionError(f"Global name {name} already assigned to different object")
            globals_[name] = obj
            return name

        for name, builtin in _custom_builtins.items():
            add_global(name, builtin.obj)

        def type_repr(o) -> str:
            if o == ():
                return "()"
            typename = _type_repr(o)
            if isinstance(o, types.UnionType) and "|" in typename:
                return "|".join(type_repr(a) for a in typing.get_args(o))
            origin = getattr(o, "__origin__", None)
            if origin:
                if isinstance(o, typing._GenericAlias):  # typing.List[int] rather than list[int]
                    origin = _origin_type_map.get(origin, origin)
                origin_name = add_global(_type_repr(origin), origin)
                args = typing.get_args(o)
                return f"{origin_name}[{','.join(type_repr(a) for a in args)}]" if args else origin_name
            return add_global(typename, o)

        def get_repr(arg) -> str:
            if isinstance(arg, Node):
                return repr(arg)
            if isinstance(arg, tuple) and hasattr(arg, "_fields"):
                return f"{add_global(qualified_name(type(arg)), type(arg))}{repr(tuple(arg))}"
            if isinstance(arg, enum.Enum):
                return f"{add_global(type(arg).__name__, type(arg))}.{arg.name}"
            if isinstance(arg, Tensor):
                return f"torch.Tensor(size={list(arg.size())}, dtype={str(arg.dtype).split('.')[-1]})"
            if isinstance(arg, tuple):
                return f"({get_repr(arg[0])},)" if len(arg) == 1 else "(" + ", ".join(map(get_repr, arg)) + ")"
            if isinstance(arg, list):
                return "[" + ", ".join(map(get_repr, arg)) + "]"
            if isinstance(arg, slice):
                return f"slice({get_repr(arg.start)}, {get_repr(arg.stop)}, {get_repr(arg.step)})"
            return torch_repr(arg)

        def format_args(args, kwargs) -> str:
            return ", ".join([get_repr(a) for a in args] + [f"{k} = {get_repr(v)}" for k, v in kwargs.items()])

        # the user that reads a value last (walking backwards, the first one met): after it, the value is freed
        last_uses: dict = {}
        for node in reversed(nodes):
            for used in node._input_nodes:
                if used not in last_uses:
                    last_uses[used] = node
        freed_after: dict = {}
        for used, user in last_uses.items():
            freed_after.setdefault(user, []).append(used)

        def end_line(node: Node) -> None:
            if node.op == "placeholder":
                return
            if node.op == "output":
                body.append("\n")
                return
            free = list(freed_after.get(node, ()))
            if not node.users:  # a result nobody reads (kept for its side effect) is freed at once
                free.append(node)
            body.append(f";  {' = '.join([repr(n) for n in free] + ['None'])}\n" if free else "\n")

        last_summary = None

        def summarise(node: Node) -> None:
            """``verbose``: a comment naming where the nodes below were traced from (when it changes)."""
            nonlocal last_summary
            if node.op in ("placeholder", "output"):
                return
            parsed = _parse_stack_trace(node.stack_trace)
            summary = f"\n# {parsed or 'No stacktrace found for following nodes'}\n"
            if summary != last_summary:
                last_summary = summary
                body.append(summary)

        def emit(node: Node) -> None:
            nonlocal return_annotation
            annotation = "" if node.type is None else f" : {type_repr(node.type)}"
            if verbose:  # the value's dtype and shape, as recorded by ShapeProp (or a traced example value; an export's
                #             symbolic sizes, ``s77``, in meta['sym_shape'])
                meta = node.meta.get("val", node.meta.get("tensor_meta", node.meta.get("example_value")))
                if isinstance(meta, Tensor) and type(meta) is Tensor or type(meta).__name__ == "TensorMetadata":
                    annotation = f': "{_DTYPE_ABBRS.get(str(meta.dtype).rpartition(".")[2], meta.dtype)}' \
                                 f'[{", ".join(str(d) for d in node.meta.get("sym_shape", meta.shape))}]"'
                elif isinstance(meta, _Symbolic):  # an export's unbacked value (``x.sum().item()``)
                    annotation = f': "Sym({meta!r})"'
            if node.op == "placeholder":
                default = "" if not node.args else f" = {get_repr(node.args[0])}"
                free_vars.append(f"{node.target}{annotation}{default}")
                raw_name = node.target.replace("*", "")
                if raw_name != repr(node):
                    body.append(f"{repr(node)} = {raw_name}\n")
            elif node.op == "call_method":
                body.append(f"{repr(node)}{annotation} = {_format_target(get_repr(node.args[0]), node.target)}"
                            f"({format_args(node.args[1:], node.kwargs)})")
            elif node.op == "call_function":
                emit_call_function(node, annotation)
            elif node.op == "call_module":
                body.append(f"{repr(node)}{annotation} = "
                            f"{_format_target(root_module, node.target)}({format_args(node.args, node.kwargs)})")
            elif node.op == "get_attr":
                body.append(f"{repr(node)}{annotation} = {_format_target(root_module, node.target)}")
            elif node.op == "output":
                if node.type is not None:
                    return_annotation = f" -> {type_repr(node.type)}"
                body.append(self.generate_output(node.args[0], repr_fn=get_repr))
            else:
                raise NotImplementedError(f"node: {node.op} {node.target}")

        def emit_call_function(node: Node, annotation: str) -> None:
            target = node.target
            if getattr(target, "__module__", "") == "_operator":
                if target.__name__ in magic_methods:
                    body.append(f"{repr(node)}{annotation} = "
                                f"{magic_methods[target.__name__].format(*map(get_repr, node.args))}")
                    return
                if target.__name__ in inplace_methods:
                    body.append(f"{inplace_methods[target.__name__].format(*map(get_repr, node.args))};  "
                                f"{repr(node)}{annotation} = {get_repr(node.args[0])}")
                    return
            name = add_global(qualified_name(target), target)
            if name == "getattr" and len(node.args) == 2 and isinstance(node.args[1], str) \
                    and node.args[1].isidentifier():  # getattr(x, "shape") is written x.shape
                body.append(f"{repr(node)}{annotation} = {_format_target(get_repr(node.args[0]), node.args[1])}")
                return
            body.append(f"{repr(node)}{annotation} = {name}({format_args(node.args, node.kwargs)})")
            if node.meta.get("is_wrapped", False):
                wrapped_fns.setdefault(name)

        count = 0
        for node in nodes:
            count += 1
            if verbose:
                summarise(node)
            emit(node)
            end_line(node)
        if count == 0:  # a graph without nodes: still a valid function
            body.append("pass\n")

        wrap_stmts = ""
        if wrapped_fns:  # the module registers its wrapped functions again, for a retrace of its code
            wrap_stmts = "\n".join(f'torch.fx._symbolic_trace.wrap("{name}")' for name in wrapped_fns)
        if self._body_transformer is not None:
            body = self._body_transformer(body)
        for name, value in self.additional_globals():
            add_global(name, value)

        prologue = self.gen_fn_def(free_vars, return_annotation)
        code = "".join(body).lstrip("\n")
        code = "\n".join("    " + line for line in code.split("\n"))
        src = f"\n{wrap_stmts}\n\n{prologue}\n{code}"
        return PythonCode(src, globals_, _prologue_start=wrap_stmts.count("\n") + 4)


# PyTorch defines both in torch.fx.graph, which re-exports ours: they print and pickle by that path
PythonCode.__module__ = CodeGen.__module__ = "tinytorch.fx.graph"
