"""``Graph``: the nodes of one function, in the order they run, and the ways to build, edit, check and print them.

New nodes go in at the insert point (the end, unless ``inserting_before``/``inserting_after`` says otherwise);
each gets a unique name made from its target (``torch.relu`` makes ``relu``, then ``relu_1``). ``print(graph)``
shows one line per node, ``print_tabular()`` a table, ``python_code()`` the source of ``forward``."""
from __future__ import annotations

import copy
import functools
import inspect
import re
import warnings
from typing import Any, Callable, NamedTuple

from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..utils import _pytree as pytree
from ._codegen import (CodeGen, PythonCode, _custom_builtins, _format_target, _Namespace,  # noqa: F401
                       inplace_methods, magic_methods, reflectable_magic_methods)
from ._pytorch_names import function_name, is_from_torch as _is_from_torch, target_str, torch_str  # noqa: F401
from .immutable_collections import immutable_dict
from .node import Argument, Node, Target, map_arg

__all__ = ["PythonCode", "CodeGen", "Graph"]

_LEGAL_OPS = ("call_function", "call_method", "get_attr", "call_module", "placeholder", "output")


def _is_magic(x: str) -> bool:
    return x.startswith("__") and x.endswith("__")


def _snake_case(s: str) -> str:
    """``pascalCase`` -> ``pascal_case`` (a lowercase letter followed by a capital gets an underscore)."""
    return re.sub(r"(?<=[a-z])([A-Z])", r"_\1", s).lower()


class _InsertPoint:
    """Where ``create_node`` puts new nodes until the ``with`` block ends."""

    def __init__(self, graph: Graph, new_insert: Callable) -> None:
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        self.graph._insert = self.orig_insert


class _node_list:
    """``graph.nodes``: iterates the linked list (erasing or adding nodes while iterating is safe)."""

    def __init__(self, graph: Graph, direction: str = "_next") -> None:
        self.graph = graph
        self.direction = direction

    def __len__(self) -> int:
        return self.graph._len

    def __iter__(self):
        return _walk(self.graph._root, self.direction)

    def __reversed__(self):
        return _walk(self.graph._root, "_prev" if self.direction == "_next" else "_next")


def _walk(root: Node, direction: str):
    node = getattr(root, direction)
    while node is not root:
        if not node._erased:
            yield node
        node = getattr(node, direction)  # an erased node keeps its links, so the walk goes on past it


class _PyTreeInfo(NamedTuple):
    orig_args: list
    in_spec: pytree.TreeSpec
    out_spec: pytree.TreeSpec | None


class _PyTreeCodeGen(CodeGen):
    """``forward`` for a function traced with structured ``concrete_args``: it takes the structures, flattens
    them into the graph's placeholders (``fx_pytree.tree_flatten_spec``) and rebuilds the output's structure."""

    def __init__(self, pytree_info: _PyTreeInfo) -> None:
        super().__init__()
        self.pytree_info = pytree_info

    def process_inputs(self, *inputs):
        return pytree.tree_leaves(inputs)

    def process_outputs(self, out):
        if self.pytree_info is None or self.pytree_info.out_spec is None:
            return out
        if not isinstance(out, (list, tuple)):
            out = [out]
        return pytree.tree_unflatten(out, self.pytree_info.out_spec)

    def gen_fn_def(self, free_vars: list, maybe_return_annotation: str) -> str:
        if self.pytree_info is None:
            return super().gen_fn_def(free_vars, maybe_return_annotation)
        fn_args = self.pytree_info.orig_args
        if fn_args and fn_args[0] == "self":
            free_vars.insert(0, "self")
        definition = super().gen_fn_def(fn_args[:], maybe_return_annotation)
        if free_vars:
            definition += self._bindings(fn_args, free_vars)
        return definition

    def _bindings(self, fn_args: list, free_vars: list) -> str:
        """``x_1, x_2, = fx_pytree.tree_flatten_spec([x], self._in_spec)`` (annotations on a line before)."""
        spec = self.pytree_info.in_spec
        signature = f"[{', '.join(fn_args)}], self._in_spec"
        children = spec.children_specs
        if spec.type is tuple and len(children) == 2 and children[0].type is tuple and children[1].type is dict:
            count = children[0].num_children  # (args, kwargs): the keywords passed as a dict
            names = self.pytree_info.orig_args
            kwargs = "{" + ", ".join(f"'{k}':{v}" for k, v in zip(children[1].context, names[count:])) + "}"
            signature = f"([{', '.join(names[:count])}], {kwargs}), self._in_spec"
        annotated = [v for v in free_vars if ":" in v]
        text = "\n    " + "".join(v + "; " for v in annotated) + "\n" if annotated else ""
        plain = [v.split(":")[0].split("#")[0] for v in free_vars]
        return text + f"\n    {', '.join(plain)}, = fx_pytree.tree_flatten_spec({signature})"

    def generate_output(self, output_args, repr_fn=repr) -> str:
        if self.pytree_info and self.pytree_info.out_spec:
            return f"return pytree.tree_unflatten({repr_fn(output_args)}, self._out_spec)"
        return super().generate_output(output_args, repr_fn=repr_fn)


def _simple_table(rows: list, headers: list) -> str:
    """A table in tabulate's default ("simple") format for text columns, as ``print_tabular`` prints it: each
    column as wide as its widest cell or its header plus two, columns two spaces apart, no trailing spaces."""
    widths = [max([len(h) + 2] + [len(row[i]) for row in rows]) for i, h in enumerate(headers)]

    def line(cells) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    return "\n".join([line(headers), line("-" * w for w in widths), *map(line, rows)])


class Graph:
    """The nodes of one function; see the module docstring."""

    def __init__(self, owning_module=None, tracer_cls: type | None = None, tracer_extras: dict | None = None) -> None:
        self._root = Node(self, "", "root", "", (), {})  # the list's sentinel: _root._next is the first node
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen = CodeGen()
        self._co_fields: dict = {}

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod) -> None:
        self._owning_module = mod

    @property
    def nodes(self) -> _node_list:
        """The nodes in order (``reversed(graph.nodes)`` walks them backwards)."""
        return _node_list(self)

    def output_node(self) -> Node:
        node = next(iter(reversed(self.nodes)))
        if node.op != "output":
            raise AssertionError(f"Expected output node, got op={node.op}")
        return node

    def find_nodes(self, *, op: str, target: Target | None = None, sort: bool = True) -> list:
        """The nodes with this ``op`` (and ``target``, when given), in graph order."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # -- building -----------------------------------------------------------------------------------------
    def create_node(self, op: str, target: Target, args: tuple | None = None, kwargs: dict | None = None,
                    name: str | None = None, type_expr: Any = None) -> Node:
        """A new node at the insert point, named ``name`` or after its target, made unique."""
        if args and not isinstance(args, tuple):
            raise AssertionError(f"args must be a tuple, got {type(args)}")
        if kwargs and not isinstance(kwargs, dict):
            raise AssertionError(f"kwargs must be a dict, got {type(kwargs)}")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        node = Node(self, name, op, target, args or (), kwargs or immutable_dict(), type_expr)
        for hook in getattr(self.owning_module, "_create_node_hooks", None) or ():
            hook(node)
        self._graph_namespace.associate_name_with_obj(name, node)
        self._insert(node)
        self._len += 1
        return node

    def _target_to_str(self, target: Target) -> str:
        if callable(target):
            op = function_name(target)
        else:
            op = target[2:-2] if _is_magic(target) else target
        return _snake_case(op)

    def placeholder(self, name: str, type_expr: Any = None, default_value: Any = inspect.Signature.empty) -> Node:
        """An input of the function (with its default, unless ``default_value`` is ``inspect.Signature.empty``)."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr: Any = None) -> Node:
        """A fetch of the owning module's attribute at the dotted path ``qualified_name``."""
        if self.owning_module is not None and not _holds_attribute(self.owning_module, qualified_name):
            warnings.warn("Attempted to insert a get_attr Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule, "
                          "GraphModule.add_parameter to add the necessary Parameter, or "
                          "nn.Module.register_buffer to add the necessary buffer", stacklevel=2)
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args: tuple | None = None, kwargs: dict | None = None,
                    type_expr: Any = None) -> Node:
        """A call of the submodule at the dotted path ``module_name`` (``args`` without ``self``)."""
        if self.owning_module is not None and self.owning_module.get_submodule(module_name) is None:
            warnings.warn("Attempted to insert a call_module Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule")
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args: tuple | None = None, kwargs: dict | None = None,
                    type_expr: Any = None) -> Node:
        """A call of the method ``method_name`` of ``args[0]``."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable, args: tuple | None = None, kwargs: dict | None = None,
                      type_expr: Any = None, name: str | None = None) -> Node:
        """A call of the Python callable ``the_function``."""
        return self.create_node("call_function", the_function, args, kwargs, name=name, type_expr=type_expr)

    def output(self, result: Argument, type_expr: Any = None) -> Node:
        """The ``return result`` of the function."""
        return self.create_node(op="output", target="output", args=(result,), type_expr=type_expr)

    def node_copy(self, node: Node, arg_transform: Callable[[Node], Argument] = lambda x: x) -> Node:
        """A copy of ``node`` (of another graph) here, its node arguments mapped by ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        copied = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        copied.meta = copy.copy(node.meta)
        return copied

    def graph_copy(self, g: Graph, val_map: dict, return_output_node: bool = False):
        """Copy ``g``'s nodes here (``val_map``: old node -> new, filled in; entries given beforehand are not
        copied); returns what ``g`` outputs, in terms of the copies."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                result = map_arg(node.args[0], lambda n: val_map[n])
                return (result, node) if return_output_node else result
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None) -> Graph:
        memo = memo if memo else {}
        g = Graph(tracer_cls=self._tracer_cls)
        copied = g.graph_copy(self, val_map=memo, return_output_node=True)
        g._codegen = copy.deepcopy(self._codegen)
        if copied is not None:
            result, old_output = copied
            g.output(result, type_expr=getattr(old_output, "type", None)).meta = copy.copy(old_output.meta)
        return g

    # -- editing ------------------------------------------------------------------------------------------
    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        """Insert new nodes before ``n`` (the start of the graph when None); a context manager."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        """Insert new nodes after ``n`` (the end of the graph when None); a context manager."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def erase_node(self, to_erase: Node) -> None:
        """Remove a node nobody reads."""
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users in the "
                               f"graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            warnings.warn(f"erase_node({to_erase}) on an already erased node")
            return
        for hook in getattr(self.owning_module, "_erase_node_hooks", None) or ():
            hook(to_erase)
        p, n = to_erase._prev, to_erase._next  # unlinked, but its own links kept for a walk that stands on it
        p._next, n._prev = n, p
        to_erase._erased = True
        self._len -= 1
        # its arguments no longer count it among their users
        to_erase._update_args_kwargs(map_arg(to_erase._args, lambda n: None), map_arg(to_erase._kwargs, lambda n: None))

    def eliminate_dead_code(self, is_impure_node: Callable[[Node], bool] | None = None) -> bool:
        """Erase the nodes nobody reads that have no side effect; returns whether anything changed."""
        self.lint()
        impure = is_impure_node if is_impure_node is not None else Node.is_impure
        changed = False
        for node in reversed(self.nodes):  # users first, so their inputs lose a user before they are looked at
            if not impure(node) and not node.users:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self) -> None:
        """Check that every node belongs here, comes after its inputs and has its own name, and that the
        owning module has every attribute and submodule the graph names."""
        seen_names: set = set()
        seen: set = set()
        for node in self.nodes:
            if node.op not in _LEGAL_OPS:
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to this Graph, but was used "
                                       "as an argument! If you are copying nodes from another graph, make sure to use "
                                       f"``arg_transform`` on node_copy() to remap values\n{self}")
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been defined! Please "
                                       f"check that Nodes in the graph are topologically ordered\n{self}")
            seen.add(node)
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
        if self.owning_module:
            for node in self.nodes:
                _check_target(node, self.owning_module)

    def set_codegen(self, codegen: CodeGen) -> None:
        self._codegen = codegen

    def on_generate_code(self, make_transformer: Callable):
        """Install ``make_transformer(current)`` as the transformer of generated code's body lines; as a
        context manager, the previous one comes back at the end."""
        previous = self._codegen._body_transformer
        self._codegen._body_transformer = make_transformer(previous)
        graph = self

        class _Restore:
            def __enter__(self):
                return None

            def __exit__(self, *exc):
                graph._codegen._body_transformer = previous

        return _Restore()

    def process_inputs(self, *args):
        return self._codegen.process_inputs(*args)

    def process_outputs(self, out):
        return self._codegen.process_outputs(out)

    # -- text ---------------------------------------------------------------------------------------------
    def python_code(self, root_module: str, *, verbose: bool = False) -> PythonCode:
        """The source of ``forward`` (attributes read from ``root_module``, usually ``"self"``) and its globals;
        ``verbose`` adds comments on where nodes were traced from and each value's dtype and shape when known.

        Nodes are written under names of a fresh namespace that also holds the globals, so a node called
        ``torch`` or ``sum`` cannot shadow them; their ``repr`` gives that name while the code is made."""
        namespace = _Namespace()
        saved = {node: node._repr_fn for node in self.nodes}
        for node in saved:
            node._repr_fn = functools.partial(_code_name, namespace)
        try:
            return self._codegen._gen_python_code(self.nodes, root_module, namespace, verbose=verbose)
        finally:
            for node, fn in saved.items():
                node._repr_fn = fn

    def __str__(self) -> str:
        placeholder_names: list = []
        return_typename = [""]
        lines = [node.format_node(placeholder_names, return_typename) for node in self.nodes]
        text = f"graph({', '.join(placeholder_names)}){return_typename[0]}:"
        for line in lines:
            if line:
                text += "\n    " + line
        return text

    def print_tabular(self) -> None:
        """Print the nodes as a table of opcode, name, target, args and kwargs."""
        rows = [[n.op, n.name, target_str(n.target), torch_str(n.args), torch_str(n.kwargs)] for n in self.nodes]
        print(_simple_table(rows, ["opcode", "name", "target", "args", "kwargs"]))


def _code_name(namespace: _Namespace, node: Node) -> str:
    return namespace.create_name(node.name, node)


def _holds_attribute(module: Module, qualified_name: str) -> bool:
    """Whether ``module`` has a submodule, parameter or buffer at the dotted path ``qualified_name``."""
    path, _, name = qualified_name.rpartition(".")
    try:
        owner = module.get_submodule(path)
    except AttributeError:
        warnings.warn(f"Failed to fetch module {path}!")
        return False
    if not hasattr(owner, name):
        return False
    value = getattr(owner, name)
    return isinstance(value, (Module, Parameter)) or name in owner._buffers


def _check_target(node: Node, root: Module) -> None:
    if node.op == "call_function":
        if not callable(node.target):
            raise ValueError(f"Node {node} target {node.target} has type {type(node.target).__name__} but a "
                             "Callable is expected")
        return
    if not isinstance(node.target, str):
        raise ValueError(f"Node {node} target {node.target} has type {type(node.target).__name__} but a str is "
                         "expected")
    if node.op not in ("get_attr", "call_module"):
        return
    atoms = node.target.split(".")
    obj = root
    for i, atom in enumerate(atoms):
        nxt = getattr(obj, atom, None)
        seen = ".".join(atoms[:i])
        if nxt is None:
            raise RuntimeError(f"Node {node} target {node.target} references nonexistent attribute {atom} of {seen}")
        if node.op == "call_module" and not isinstance(nxt, Module):
            raise RuntimeError(f"Node {node} target {node.target} {atom} of {seen} does not reference an nn.Module")
        obj = nxt
