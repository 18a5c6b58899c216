"""``immutable_list`` and ``immutable_dict``: a node's ``args`` and ``kwargs`` hold these, so that editing a graph
goes through ``node.args = ...`` (which keeps every node's ``users`` right), never through an in-place change."""
from __future__ import annotations

from ..utils._pytree import register_pytree_node

__all__ = ["immutable_list", "immutable_dict"]

_HELP = """
If you are attempting to modify the kwargs or args of a torch.fx.Node object,
instead create a new copy of it and assign the copy to the node:

    new_args = ...  # copy and mutate args
    node.args = new_args
""".strip()


def _no_mutation(self, *args, **kwargs):
    raise TypeError(f"{type(self).__name__!r} object does not support mutation. {_HELP}")


class immutable_list(list):
    """A list that refuses changes."""

    __delitem__ = __iadd__ = __imul__ = __setitem__ = _no_mutation
    append = clear = extend = insert = pop = remove = reverse = sort = _no_mutation

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __reduce__(self):
        return (type(self), (tuple(self),))


class immutable_dict(dict):
    """A dict that refuses changes."""

    __delitem__ = __ior__ = __setitem__ = _no_mutation
    clear = pop = popitem = setdefault = update = _no_mutation

    def __hash__(self) -> int:
        return hash(frozenset(self.items()))

    def __reduce__(self):
        return (type(self), (tuple(self.items()),))


register_pytree_node(immutable_list, lambda t: (list(t), None), lambda children, _: immutable_list(children))
register_pytree_node(immutable_dict, lambda d: (list(d.values()), list(d)),
                     lambda children, keys: immutable_dict(zip(keys, children)))
