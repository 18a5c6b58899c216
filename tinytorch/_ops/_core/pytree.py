"""Nested tuples, lists and dicts of tensors flattened to a list of leaves and rebuilt (a small pytree)."""
from __future__ import annotations


def tree_flatten(tree):
    """(leaves, spec): ``tree_unflatten(leaves, spec)`` rebuilds ``tree``."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for el in tree:
            lv, sp = tree_flatten(el)
            leaves.extend(lv)
            specs.append((len(lv), sp))
        return leaves, (type(tree), None, specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        keys = list(tree)
        for k in keys:
            lv, sp = tree_flatten(tree[k])
            leaves.extend(lv)
            specs.append((len(lv), sp))
        return leaves, (dict, keys, specs)
    return [tree], None


def tree_unflatten(leaves, spec):
    if spec is None:
        return leaves[0]
    kind, keys, specs = spec
    out, i = [], 0
    for n, sp in specs:
        out.append(tree_unflatten(leaves[i:i + n], sp))
        i += n
    if kind is dict:
        return dict(zip(keys, out))
    if kind is tuple:
        return tuple(out)
    if hasattr(kind, "_fields"):  # a named tuple (max's (values, indices), ...) keeps its type
        return kind(*out)
    return out


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)
