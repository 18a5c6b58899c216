"""``SubgraphMatcher``: find where a pattern graph occurs in a larger graph.

Matching starts from the pattern's anchors (the nodes its output returns) and walks backwards along arguments in
both graphs at once, since a value has one producer but may have many users. A pattern placeholder matches any
value; a call matches a call of the same op and target whose arguments match in turn. A match must be
self-contained: no value it computes, apart from the ones the pattern returns, may be read outside it."""
from __future__ import annotations

import copy
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ....tensor import Tensor
from ...graph import Graph
from ...graph_module import _get_attr
from ...node import Node

__all__ = ["SubgraphMatcher", "InternalMatch"]


@dataclass
class InternalMatch:
    anchors: list
    nodes_map: dict = field(default_factory=dict)  # pattern node -> graph node
    placeholder_nodes: list = field(default_factory=list)
    returning_nodes: list = field(default_factory=list)
    name_node_map: dict = field(default_factory=dict)

    def __copy__(self) -> InternalMatch:
        return InternalMatch(anchors=self.anchors, nodes_map=self.nodes_map.copy(),
                             placeholder_nodes=self.placeholder_nodes.copy(),
                             returning_nodes=self.returning_nodes.copy())


def _forms_cycle(partition: list) -> bool:
    """Whether some path leaves ``partition`` and comes back into it (fusing it would make a cycle)."""
    inside = set(partition)
    queue = [user for node in inside for user in node.users if user not in inside]
    visited: set = set()
    while queue:
        current = queue.pop()
        visited.add(current)
        if current in inside:
            return True
        queue.extend(u for u in current.users if u not in visited)
    return False


class SubgraphMatcher:
    """Matches ``pattern`` in graphs; see the module docstring. ``match_output``/``match_placeholder`` make the
    pattern's output and placeholders match only outputs and placeholders; ``ignore_literals`` matches any
    constant argument."""

    def __init__(self, pattern: Graph, match_output: bool = False, match_placeholder: bool = False,
                 remove_overlapping_matches: bool = True, ignore_literals: bool = False) -> None:
        self.pattern = pattern
        self.match_output = match_output
        self.match_placeholder = match_placeholder
        self.remove_overlapping_matches = remove_overlapping_matches
        self.ignore_literals = ignore_literals
        if len(pattern.nodes) == 0:
            raise ValueError("SubgraphMatcher cannot be initialized with an empty pattern")
        for node in pattern.nodes:
            if node.op != "output" and not node.is_impure() and not node.users:
                raise AssertionError("SubgraphMatcher cannot be initialized with an pattern with dead code")
        self.pattern_placeholder_nodes = [n for n in pattern.nodes if n.op == "placeholder"]
        output_node = next(iter(reversed(pattern.nodes)))
        self.pattern_returning_nodes = output_node.all_input_nodes
        if match_output:
            self.pattern_anchors = [output_node]
        else:
            self.pattern_anchors = [n for n in output_node.all_input_nodes if len(n.users) == 1]

    def _match_attributes(self, pn: Node, gn: Node) -> bool:
        pn_value = _get_attr(pn.graph.owning_module, pn.target)
        gn_value = _get_attr(gn.graph.owning_module, gn.target)
        if type(pn_value) is not type(gn_value):
            return False
        if isinstance(pn_value, Tensor):
            return isinstance(gn_value, Tensor)
        raise RuntimeError(f"Unsupported type {pn_value} when matching attributes")

    def _nodes_are_equal(self, pn: Node, gn: Node) -> bool:
        if not self.match_placeholder and pn.op == "placeholder":
            return True
        if pn.op != gn.op:
            return False
        if pn.op in ("placeholder", "output"):
            return True
        if pn.op == "get_attr":
            return self._match_attributes(pn, gn)
        return pn.target == gn.target

    def _is_contained(self, nodes_map: dict) -> bool:
        lookup = {gn: pn for pn, gn in nodes_map.items() if pn.op != "placeholder"}
        for gn, pn in lookup.items():
            if pn in self.pattern_returning_nodes:
                continue
            if any(user not in lookup for user in gn.users):
                return False
        return True

    def _remove_overlapping_matches(self, matches: list) -> list:
        kept, taken = [], set()
        for match in matches:
            computed = [gn for pn, gn in match.nodes_map.items() if pn.op not in ("placeholder", "output")]
            if not any(gn in taken for gn in computed):
                kept.append(match)
                taken.update(computed)
        return kept

    def _match_literals(self, pn: Any, gn: Any, match: InternalMatch) -> bool:
        if isinstance(pn, Node):  # a pattern placeholder standing for a constant
            if pn.op != "placeholder":
                return False
            if pn in match.nodes_map:
                return match.nodes_map[pn] == gn
            match.nodes_map[pn] = gn
            return True
        if isinstance(gn, Node):
            return False
        return type(gn) is type(pn) and gn == pn

    def _match_nodes(self, pn: Node, gn: Node, match: InternalMatch) -> bool:
        if pn in match.nodes_map:
            return match.nodes_map[pn] == gn
        if gn in match.nodes_map.values() or not self._nodes_are_equal(pn, gn):
            return False
        match.nodes_map[pn] = gn
        if pn.op == "placeholder":
            return True

        def match_args(args1, args2) -> bool:
            if len(args1) != len(args2):
                return False
            for a1, a2 in zip(args1, args2):
                if isinstance(a1, Node) and isinstance(a2, Node):
                    matched = self._match_nodes(a1, a2, match)
                elif isinstance(a1, (list, tuple)) and isinstance(a2, (list, tuple)):
                    matched = match_args(a1, a2)
                else:
                    matched = self._match_literals(a1, a2, match) or self.ignore_literals
                if not matched:
                    return False
            return True

        if len(pn.args) != len(gn.args) or list(pn.kwargs) != list(gn.kwargs):
            return False
        return match_args([*pn.args, *pn.kwargs.values()], [*gn.args, *gn.kwargs.values()])

    def match(self, graph: Graph) -> list:
        """Every self-contained match of the pattern in ``graph`` (the first of overlapping ones, in graph
        order of their anchors, when ``remove_overlapping_matches``)."""
        candidates: dict = defaultdict(list)
        for anchor in self.pattern_anchors:
            for node in graph.nodes:
                if self._nodes_are_equal(anchor, node):
                    candidates[anchor].append(node)
        candidate_list = list(candidates.items())
        matches: list = []

        def backtrack(index: int, match: InternalMatch) -> None:
            # every anchor matched to a candidate, the matches agreeing on the nodes they share
            if index == len(candidate_list):
                match.placeholder_nodes = [match.nodes_map[pn] for pn in self.pattern_placeholder_nodes]
                match.returning_nodes = [match.nodes_map[pn] for pn in self.pattern_returning_nodes]
                matches.append(match)
                return
            anchor, nodes = candidate_list[index]
            saved = copy.copy(match)
            for node in nodes:
                if self._match_nodes(anchor, node, match):
                    backtrack(index + 1, match)
                match = copy.copy(saved)

        if candidate_list:
            backtrack(0, InternalMatch(anchors=self.pattern_anchors))
        matches = [m for m in matches if self._is_contained(m.nodes_map)]
        matches = [m for m in matches if not _forms_cycle([gn for pn, gn in m.nodes_map.items()
                                                            if pn.op not in ("placeholder", "output")])]
        if self.remove_overlapping_matches:
            matches = self._remove_overlapping_matches(matches)
        return matches
