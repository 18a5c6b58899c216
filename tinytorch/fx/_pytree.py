"""``tree_flatten_spec``: the leaves of a structured input, taken in the order a known ``TreeSpec`` lists them.

A graph traced with structured ``concrete_args`` has one placeholder per leaf; its generated ``forward`` still
takes the structure, and flattens it with this (``fx_pytree.tree_flatten_spec([x], self._in_spec)``)."""
from __future__ import annotations

from ..utils._pytree import TreeSpec

__all__ = ["tree_flatten_spec"]


def _children(tree, spec: TreeSpec) -> list:
    """``tree``'s children in the spec's order: a dict by the spec's keys, a sequence by position."""
    if isinstance(tree, dict):
        return [tree[k] for k in spec.context]
    return [tree[i] for i in range(spec.num_children)]


def tree_flatten_spec(pytree, spec: TreeSpec, exact_structural_match: bool = False) -> list:
    if spec.is_leaf():
        return [pytree]
    if exact_structural_match and (not isinstance(pytree, dict) and len(pytree) != spec.num_children):
        raise RuntimeError(f"Cannot flatten pytree {pytree}, given spec: {spec}")
    leaves: list = []
    for child, child_spec in zip(_children(pytree, spec), spec.children_specs):
        leaves += tree_flatten_spec(child, child_spec, exact_structural_match)
    return leaves
