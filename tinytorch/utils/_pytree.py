"""``tinytorch.utils._pytree`` (PyTorch's ``torch.utils._pytree``): nested containers flattened to a list of
leaves and a ``TreeSpec`` that rebuilds them. Nodes, as in PyTorch: tuple, list, dict, namedtuple,
OrderedDict, defaultdict, deque, and any type given to
``register_pytree_node``; everything else is a leaf. Dicts flatten in insertion order."""
from __future__ import annotations

import collections
import dataclasses
from typing import Any, Callable

__all__ = ["TreeSpec", "LeafSpec", "register_pytree_node", "tree_flatten", "tree_unflatten", "tree_leaves",
           "tree_structure", "tree_map", "tree_map_only", "tree_iter", "tree_any", "tree_all", "treespec_dumps",
           "tree_is_leaf", "PyTree", "SUPPORTED_NODES"]

PyTree = Any


@dataclasses.dataclass(frozen=True)
class NodeDef:
    """One registered node type, with PyTorch's field names (libraries read ``SUPPORTED_NODES[t].flatten_fn``)."""
    type: Any
    flatten_fn: Callable
    unflatten_fn: Callable
    flatten_with_keys_fn: Callable | None = None


SUPPORTED_NODES: dict = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None) -> None:
    """``flatten_fn(obj) -> (children, context)``, ``unflatten_fn(children, context) -> obj``."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)


_register_pytree_node = register_pytree_node


def _namedtuple_flatten(t):
    return list(t), type(t)


# the built-in containers' functions, by PyTorch's names (diffusers registers its output classes with the dict's)
def _tuple_flatten(t: tuple):
    return list(t), None


def _tuple_unflatten(values, context) -> tuple:
    return tuple(values)


def _list_flatten(t: list):
    return list(t), None


def _list_unflatten(values, context) -> list:
    return list(values)


def _dict_flatten(d: dict):
    return list(d.values()), list(d.keys())


def _dict_unflatten(values, context) -> dict:
    return dict(zip(context, values, strict=True))


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """A child's place in a list or tuple, in a key path."""
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    """A child's key in a dict, in a key path."""
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """A child's attribute name, in a key path."""
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def _tuple_flatten_with_keys(t: tuple):
    values, context = _tuple_flatten(t)
    return [(SequenceKey(i), v) for i, v in enumerate(values)], context


def _list_flatten_with_keys(t: list):
    values, context = _list_flatten(t)
    return [(SequenceKey(i), v) for i, v in enumerate(values)], context


def _dict_flatten_with_keys(d: dict):
    values, context = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context, values)], context


register_pytree_node(tuple, _tuple_flatten, _tuple_unflatten, flatten_with_keys_fn=_tuple_flatten_with_keys)
register_pytree_node(list, _list_flatten, _list_unflatten, flatten_with_keys_fn=_list_flatten_with_keys)
register_pytree_node(dict, _dict_flatten, _dict_unflatten, flatten_with_keys_fn=_dict_flatten_with_keys)
register_pytree_node(collections.OrderedDict, lambda d: (list(d.values()), list(d.keys())),
                     lambda c, keys: collections.OrderedDict(zip(keys, c)))
register_pytree_node(collections.defaultdict,
                     lambda d: (list(d.values()), (d.default_factory, list(d.keys()))),
                     lambda c, ctx: collections.defaultdict(ctx[0], zip(ctx[1], c)))
register_pytree_node(collections.deque, lambda d: (list(d), d.maxlen),
                     lambda c, maxlen: collections.deque(c, maxlen=maxlen))


def _is_namedtuple(obj) -> bool:
    return isinstance(obj, tuple) and hasattr(type(obj), "_fields") and type(obj) is not tuple


# every namedtuple class is one node type, keyed (as in PyTorch) by the ``collections.namedtuple`` function
register_pytree_node(collections.namedtuple, _namedtuple_flatten, lambda c, cls: cls(*c))


def _get_node_type(tree):
    """The key of ``tree``'s node type in ``SUPPORTED_NODES`` (``collections.namedtuple`` for a namedtuple)."""
    if _is_namedtuple(tree):
        return collections.namedtuple
    return type(tree)


_node_type = _get_node_type


def _get_node(node_type):
    return SUPPORTED_NODES.get(node_type)


def tree_is_leaf(tree, is_leaf: Callable | None = None) -> bool:
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node(_node_type(tree)) is None


class TreeSpec:
    """The structure of a flattened tree: node type, its context (keys...), one spec per child."""

    def __init__(self, type, context, children_specs):  # noqa: A002 - PyTorch's name
        self.type = type
        self.context = context
        self.children_specs = list(children_specs)
        self.num_children = len(self.children_specs)
        self.num_leaves = sum(c.num_leaves for c in self.children_specs)
        self.num_nodes = 1 + sum(c.num_nodes for c in self.children_specs)

    def is_leaf(self) -> bool:
        return False

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)

    def flatten_up_to(self, tree):
        return tree_flatten(tree)[0]

    def __eq__(self, other):
        return isinstance(other, TreeSpec) and type(other) is type(self) and self.type == other.type and \
            self.context == other.context and self.children_specs == other.children_specs

    def __hash__(self):
        return id(self)

    def __repr__(self, indent: int = 0) -> str:
        name = "namedtuple" if self.type is collections.namedtuple else getattr(self.type, "__name__", str(self.type))
        # PyTorch's layout: each child after the first on its own line, indented two more per level
        inner = indent + 2
        children = [c.__repr__(inner) for c in self.children_specs]
        body = ",".join(children[:1] + [f"\n{' ' * inner}{c}" for c in children[1:]])
        return f"TreeSpec({name}, {self.context}, [{body}])"


class LeafSpec(TreeSpec):
    def __init__(self) -> None:
        super().__init__(None, None, [])
        self.num_leaves = 1
        self.num_nodes = 1

    def is_leaf(self) -> bool:
        return True

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __hash__(self):
        return 0

    def __repr__(self, indent: int = 0) -> str:
        return "*"


_LEAF = LeafSpec()


def tree_flatten(tree, is_leaf: Callable | None = None):
    """(leaves, spec): ``tree_unflatten(leaves, spec)`` rebuilds ``tree``."""
    leaves: list = []
    return leaves, _flatten(tree, is_leaf, leaves)


# (module-level recursions: a nested function that calls itself is a reference cycle, left to the garbage
# collector at every call, and a compiled step flattens its inputs at each call)
def _flatten(node, is_leaf, leaves: list):
    if is_leaf is not None and is_leaf(node):
        leaves.append(node)
        return _LEAF
    node_type = _node_type(node)
    impl = _get_node(node_type)
    if impl is None:
        leaves.append(node)
        return _LEAF
    children, context = impl.flatten_fn(node)
    return TreeSpec(node_type, context, [_flatten(c, is_leaf, leaves) for c in children])


def tree_unflatten(leaves, treespec: TreeSpec):
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but got "
                        f"item of type {type(treespec)}.")
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a "
                         f"pytree that holds {treespec.num_leaves} items ({treespec}).")
    return _unflatten(treespec, iter(leaves))


def _unflatten(spec, leaves):
    if spec.is_leaf():
        return next(leaves)
    children = [_unflatten(c, leaves) for c in spec.children_specs]
    return _get_node(spec.type).unflatten_fn(children, spec.context)


def tree_iter(tree, is_leaf: Callable | None = None):
    yield from tree_flatten(tree, is_leaf)[0]


def tree_leaves(tree, is_leaf: Callable | None = None) -> list:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf: Callable | None = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func: Callable, tree, *rests, is_leaf: Callable | None = None):
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def tree_map_only(type_or_types, func: Callable, tree, is_leaf: Callable | None = None):
    return tree_map(lambda x: func(x) if isinstance(x, type_or_types) else x, tree, is_leaf=is_leaf)


def tree_any(pred: Callable, tree, is_leaf: Callable | None = None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all(pred: Callable, tree, is_leaf: Callable | None = None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def treespec_dumps(treespec: TreeSpec, protocol: int | None = None) -> str:
    return repr(treespec)
