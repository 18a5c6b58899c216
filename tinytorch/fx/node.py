"""``Node``: one value of a ``Graph`` (an input, a call, an attribute fetch, or the output), with the
arguments it reads and the nodes that read it.

``op`` says what kind of value it is:

- ``placeholder``: an input of the function; ``target`` is the parameter's name, ``args`` its default if any.
- ``get_attr``: a parameter, buffer or constant of the module; ``target`` is its dotted path (``linear.weight``).
- ``call_function``: ``target(*args, **kwargs)``, ``target`` a Python callable (``torch.relu``, ``operator.add``).
- ``call_method``: ``args[0].<target>(*args[1:], **kwargs)``, ``target`` a method's name (``"view"``).
- ``call_module``: the submodule at the dotted path ``target``, called with ``args`` and ``kwargs``.
- ``output``: ``return args[0]``.

Nodes form a doubly linked list through a sentinel ``root`` node of their graph (``_prev``/``_next``); each
node keeps ``users``, the nodes whose arguments mention it, up to date whenever ``args`` or ``kwargs`` are
assigned."""
from __future__ import annotations

import functools
import operator
import types
from typing import Any, Callable, Union

import tinytorch as _tinytorch

from .. import _checks
from ._pytorch_names import qualified_name, torch_repr
from .immutable_collections import immutable_dict, immutable_list

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect"]

Target = Union[Callable[..., Any], str]
_get_qualified_name = qualified_name  # PyTorch's name for it, which libraries import
Argument = Any

_LEGAL_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")

# calls dead-code elimination keeps although nobody reads their result (PyTorch's list, for the ops tinytorch has)
_side_effectful_functions: set = {_checks._assert, operator.setitem}


def has_side_effect(fn):
    """Mark ``fn`` as a call that ``Graph.eliminate_dead_code`` must keep."""
    _side_effectful_functions.add(fn)
    return fn


@functools.cache
def _random_functions() -> frozenset:
    """The calls that draw from the generator (impure: they move its state)."""
    t = _tinytorch
    return frozenset({t.rand, t.randn, t.randint, t.randperm, t.rand_like, t.randn_like, t.randint_like, t.normal,
                      t.poisson, t.bernoulli, t.multinomial})


def map_aggregate(a: Argument, fn: Callable[[Argument], Argument]) -> Argument:
    """``fn`` applied to every leaf of ``a`` (through tuples, lists, dicts and slices), which keeps its shape;
    lists and dicts come back immutable."""
    if isinstance(a, tuple):
        items = tuple(map_aggregate(e, fn) for e in a)
        return type(a)(*items) if hasattr(a, "_fields") else items  # a namedtuple is rebuilt as itself
    if isinstance(a, list):
        return immutable_list(map_aggregate(e, fn) for e in a)
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a: Argument, fn: Callable[[Node], Argument]) -> Argument:
    """``fn`` applied to every ``Node`` inside ``a``; other leaves are kept."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _type_repr(obj) -> str:
    """How a type annotation prints: ``torch.Tensor``, ``int``, ``typing.List[int]``."""
    if isinstance(obj, type) and not isinstance(obj, types.GenericAlias):
        if obj.__module__ == "builtins":
            return obj.__qualname__
        module = obj.__module__
        if module == "tinytorch" or module.startswith("tinytorch."):
            module = "torch" + module[len("tinytorch"):]
        return f"{module}.{obj.__qualname__}"
    if obj is ...:
        return "..."
    if isinstance(obj, types.FunctionType):
        return obj.__name__
    return torch_repr(obj)


def _format_arg(arg, max_list_len: float = float("inf")) -> str:
    """An argument as ``print(graph)`` shows it: nodes as ``%name``, containers element by element."""
    if hasattr(arg, "_custom_fx_repr_fn"):
        return arg._custom_fx_repr_fn()
    if isinstance(arg, (list, tuple)):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        if isinstance(arg, list):
            return f"[{items}{more}]"
        return f"({items}{',' if len(arg) == 1 else ''}{more})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    text = str(arg)
    return "torch" + text[len("tinytorch"):] if text.startswith("tinytorch.") else text


class Node:
    """One value of a graph; see the module docstring for what each ``op`` means."""

    def __init__(self, graph, name: str, op: str, target: Target, args: tuple, kwargs: dict,
                 return_type: Any = None) -> None:
        if op == "call_function":
            if not callable(target):
                raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                                 f"{type(target).__name__} but a Callable is expected")
        else:
            if op not in _LEGAL_OPS:
                raise AssertionError(f"op '{op}' is not in _legal_ops")
            if not isinstance(target, str):
                raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                                 f"{type(target).__name__} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.type = return_type
        self._input_nodes: dict = {}  # the nodes among args and kwargs, in order (a dict as an ordered set)
        self.users: dict = {}         # the nodes whose args or kwargs mention this one
        self._prev = self._next = self
        self._erased = False
        self._repr_fn = None          # set while generating code: a name unique among globals and locals
        self.meta: dict = {}
        self._args: tuple = ()
        self._kwargs: dict = immutable_dict()
        self._update_args_kwargs(args, kwargs)

    # -- the linked list -----------------------------------------------------------------------------------
    @property
    def next(self) -> Node:
        return self._next

    @property
    def prev(self) -> Node:
        return self._prev

    def prepend(self, x: Node) -> None:
        """Move ``x`` (of the same graph) to just before this node."""
        if self.graph is not x.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        if self is x:
            raise AssertionError("Cannot prepend a node to itself")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x: Node) -> None:
        """Move ``x`` to just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    # -- arguments and users -------------------------------------------------------------------------------
    @property
    def args(self) -> tuple:
        """The positional arguments; assigning a new tuple updates every ``users``."""
        return self._args

    @args.setter
    def args(self, a: tuple) -> None:
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self) -> dict:
        """The keyword arguments; assigning a new dict updates every ``users``."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k: dict) -> None:
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self) -> list:
        """The nodes among ``args`` and ``kwargs``, in order, each once."""
        return list(self._input_nodes)

    def _update_args_kwargs(self, new_args: tuple, new_kwargs: dict) -> None:
        self._args = map_aggregate(new_args, lambda x: x)
        self._kwargs = map_aggregate(new_kwargs, lambda x: x)
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        map_arg(self._args, self._input_nodes.setdefault)
        map_arg(self._kwargs, self._input_nodes.setdefault)
        for new in self._input_nodes:
            new.users.setdefault(self)

    def update_arg(self, idx: int, arg: Argument) -> None:
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx: int, arg: Argument) -> None:
        if not 0 <= idx <= len(self.args):
            raise AssertionError(f"insert_args index must be between 0 and len(self.args), got {idx}")
        self.args = self.args[:idx] + (arg,) + self.args[idx:]

    def update_kwarg(self, key: str, arg: Argument) -> None:
        self.kwargs = {**self.kwargs, key: arg}

    def replace_all_uses_with(self, replace_with: Node, delete_user_cb: Callable[[Node], bool] | None = None, *,
                              propagate_meta: bool = False) -> list:
        """Make every user read ``replace_with`` instead of this node (those ``delete_user_cb`` accepts, if
        given); returns the users changed."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, propagate_meta=True), "
                                     "but replace_with already has .meta keys")
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if delete_user_cb is not None and not delete_user_cb(user):
                continue
            changed.append(user)
            user._replace_input_with(self, replace_with)
        return changed

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Read ``new_input`` wherever this node's arguments read ``old_input``."""
        self._replace_input_with(old_input, new_input)

    def _replace_input_with(self, old: Node, new: Node) -> None:
        swap = lambda n: new if n is old else n  # noqa: E731
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def _rename(self, candidate: str) -> None:
        if candidate == self.name:
            return
        name = self.graph._graph_namespace.create_name(candidate, None)
        self.name = name
        self.graph._graph_namespace._rename_object(self, name)

    # -- what it means ------------------------------------------------------------------------------------
    @property
    def stack_trace(self) -> str | None:
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace: str | None) -> None:
        self.meta["stack_trace"] = trace

    def is_impure(self, impure_random: bool = True) -> bool:
        """Whether dead-code elimination must keep this node even when nothing reads it."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_module":
            return getattr(self.graph.owning_module.get_submodule(self.target), "_is_impure", False)
        if self.op == "call_function":
            return self.target in _side_effectful_functions or (impure_random and self.target in _random_functions())
        return False

    # -- printing -----------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        if self._repr_fn is not None:
            return self._repr_fn(self)
        return self.name

    @staticmethod
    def _pretty_print_target(target) -> str:
        """``relu`` (a method or module path), ``builtins.getattr``, ``operator.add``, ``torch.relu``."""
        if isinstance(target, str):
            return target
        module = getattr(target, "__module__", None)
        if module == "builtins":
            return f"builtins.{target.__name__}"
        if module == "_operator":
            return f"operator.{target.__name__}"
        return qualified_name(target)

    def format_node(self, placeholder_names: list | None = None,
                    maybe_return_typename: list | None = None) -> str | None:
        """This node's line in ``print(graph)`` (a placeholder goes into ``placeholder_names`` instead when
        that list is given and not empty, as PyTorch does)."""
        typename = f"{_type_repr(self.type)} " if self.type is not None else ""
        if self.op == "placeholder":  # (PyTorch's own text, including its doubled name when it lists placeholders)
            arg_str = self.target
            if self.type:
                arg_str += arg_str + f": {_type_repr(self.type)}"
            if placeholder_names:
                placeholder_names.append(arg_str)
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            return f"%{self.name} : {typename}[num_users={len(self.users)}] = {self.op}[target={self.target}]{default}"
        if self.op == "get_attr":
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={self._pretty_print_target(self.target)}]")
        if self.op == "output":
            if self.type and maybe_return_typename:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                f"{self.op}[target={self._pretty_print_target(self.target)}]("
                f"args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")
