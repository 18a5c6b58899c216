"""``replace_pattern``: find every occurrence of a pattern function's graph in a GraphModule and put the
replacement function's graph in its place.

Patterns match by data flow, not by names (``passes/utils/matcher_utils.py``); the pattern's parameters stand
for any values, and the replacement takes the same parameters. Overlapping occurrences are replaced once,
the first in graph order."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Callable, NamedTuple

from ..nn.modules.module import Module
from ._symbolic_trace import symbolic_trace
from .graph import Graph
from .graph_module import GraphModule
from .node import Node
from .passes.utils.matcher_utils import SubgraphMatcher

__all__ = ["Match", "replace_pattern", "replace_pattern_with_filters", "ReplacedPatterns"]


class Match(NamedTuple):
    anchor: Node     # the node of the graph that matched the pattern's returned value
    nodes_map: dict  # pattern node -> graph node


@dataclass
class ReplacedPatterns:
    anchor: Node
    nodes_map: dict
    replacements: list  # the nodes the replacement added


def _graph_of(f) -> Graph | None:
    if isinstance(f, GraphModule):
        return f.graph
    if isinstance(f, Graph):
        return f
    return symbolic_trace(f).graph if callable(f) else None


def replace_pattern(gm: GraphModule, pattern: Callable | GraphModule, replacement: Callable | GraphModule) -> list:
    """Replace each occurrence of ``pattern`` in ``gm``'s graph by ``replacement``, recompile ``gm``, and return
    the ``Match`` of each occurrence (empty when there was none)."""
    return [Match(anchor=m.anchor, nodes_map=m.nodes_map) for m in _replace_pattern(gm, pattern, replacement)]


def replace_pattern_with_filters(gm: GraphModule, pattern, replacement=None, match_filters: list | None = None,
                                 ignore_literals: bool = False, replacement_callback=None) -> list:
    """``replace_pattern``, keeping only the occurrences every ``match_filters(match, graph, pattern_graph)``
    accepts; ``replacement_callback(match, graph, pattern_graph)`` may build each replacement graph."""
    return _replace_pattern(gm, pattern, replacement, match_filters, ignore_literals, replacement_callback)


def _replace_pattern(gm: GraphModule, pattern, replacement=None, match_filters=None, ignore_literals=False,
                     replacement_callback=None) -> list:
    original = gm.graph
    pattern_graph = _graph_of(pattern)
    matcher = SubgraphMatcher(pattern_graph, match_output=False, match_placeholder=False,
                              remove_overlapping_matches=True, ignore_literals=ignore_literals)
    matches = [m for m in matcher.match(original)
               if all(f(m, original, pattern_graph) for f in match_filters or ())]
    common_replacement = _graph_of(replacement)
    if common_replacement is None and replacement_callback is None:
        raise AssertionError("Must provide either a replacement GraphModule or a replacement callback")

    changed: dict = {}  # a returned node of an earlier match -> the node that replaced it
    done = []
    for match in matches:
        graph = replacement_callback(match, original, pattern_graph) if replacement_callback else common_replacement
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        if len(match.placeholder_nodes) != len(placeholders):
            raise AssertionError(f"Placeholder count mismatch: {len(match.placeholder_nodes)} vs {len(placeholders)}")
        # the replacement's inputs are the values the pattern's placeholders matched (as since replaced)
        val_map: dict = {}
        for rn, gn in zip(placeholders, match.placeholder_nodes):
            if isinstance(gn, Node):
                val_map[rn] = changed.get(gn, gn)
                if gn is not val_map[rn]:
                    match.placeholder_nodes[match.placeholder_nodes.index(gn)] = changed[gn]
                    key = list(match.nodes_map)[list(match.nodes_map.values()).index(gn)]
                    match.nodes_map[key] = changed[gn]
            else:
                val_map[rn] = gn
        insert_point = _insert_point(original, match.returning_nodes)
        with original.inserting_before(insert_point):
            copied = original.graph_copy(graph, val_map)
        if isinstance(copied, Node):
            copied = (copied,)
        replacements = [v for v in val_map.values() if v not in match.placeholder_nodes]
        if len(match.returning_nodes) != len(copied):
            raise AssertionError(f"Returning nodes count mismatch: {len(match.returning_nodes)} vs {len(copied)}")
        for gn, new in zip(match.returning_nodes, copied):
            gn.replace_all_uses_with(new)
            changed[gn] = new
        for node in reversed(pattern_graph.nodes):  # the matched nodes, users before what they read
            if node.op not in ("placeholder", "output"):
                original.erase_node(match.nodes_map[node])
        done.append(ReplacedPatterns(anchor=match.anchors[0], nodes_map=match.nodes_map, replacements=replacements))
    gm.recompile()
    if isinstance(replacement, Module):
        _replace_attributes(gm, replacement)
    return done


def _insert_point(graph: Graph, returning: list) -> Node:
    """Before the first node that reads the matched values, or right after the last matched value."""
    users = {u for n in returning for u in n.users}
    if len(users) == 1:
        return next(iter(users))
    if users:
        return next(n for n in graph.nodes if n in users)
    following = None
    for n in reversed(graph.nodes):
        if n in returning:
            return following
        following = n
    raise AssertionError("The insert point can't be None")


def _replace_attributes(gm: GraphModule, replacement: Module) -> None:
    """Copy into ``gm`` the submodules and attributes the replacement's nodes name and ``gm`` lacks."""
    gm.delete_all_unused_submodules()
    if isinstance(replacement, GraphModule):
        replacement.graph.lint()

    def try_get(mod: Module, target: str):
        path, _, name = target.rpartition(".")
        try:
            owner = mod.get_submodule(path)
        except AttributeError:
            return None
        return getattr(owner, name, None)

    for node in gm.graph.nodes:
        if node.op in ("call_module", "get_attr"):
            if try_get(gm, node.target) is not None:
                continue
            value = try_get(replacement, node.target)
            if value is None:
                raise RuntimeError('Attempted to create a "', node.op, '" node during subgraph rewriting with target '
                                   f"{node.target}, but the referenced attribute does not exist in the replacement "
                                   "GraphModule")
            if isinstance(value, Module):
                gm.add_submodule(node.target, copy.deepcopy(value))
            else:
                setattr(gm, node.target, copy.deepcopy(value))
    gm.graph.lint()
