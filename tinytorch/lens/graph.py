"""``show(t)``: the backward graph of a tensor, as text, a table, an SVG and an HTML page.

The walk uses only what ``torch.autograd.graph`` offers every PyTorch user: a tensor's ``grad_fn``,
a node's ``name()`` and ``next_functions`` (pairs of the next node and which of its inputs the gradient
enters), its ``_saved_*`` attributes, and ``variable`` on the ``AccumulateGrad`` node that ends the path
at each leaf. So the same function reads a PyTorch graph and a tinytorch graph, and prints the same.

Nodes are numbered in the order of a breadth-first walk from the root(s), following ``next_functions``
in their order: ``[0]`` is the root's node, and the numbers are the same on every run."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import describe
from .html import graph_fragment, graph_page, graph_svg, table_html

_VERSIONS = re.compile(r"is at version (\d+); expected version (\d+) instead")


def walk(roots) -> list:
    """Every node reachable from the roots' ``grad_fn``, breadth first, each once."""
    order, seen = [], set()
    queue = [t.grad_fn for t in roots if t.grad_fn is not None]
    while queue:
        node = queue.pop(0)
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        queue.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
    return order


def node_name(node) -> str:
    """PyTorch's ``name()`` without a C++ namespace: ``AccumulateGrad``, not ``torch::autograd::AccumulateGrad``."""
    return node.name().rsplit("::", 1)[-1]


def saved_attributes(node) -> list:
    """The names of the node's ``_saved_*`` attributes, as ``dir()`` lists them (alphabetically); a custom
    Function's node is its ``ctx``, whose tensors are ``saved_tensors``."""
    names = [a for a in dir(node) if a.startswith("_saved_")]
    if not names and hasattr(type(node), "saved_tensors"):
        names = ["saved_tensors"]
    return names


def read_saved(node, attr):
    """(value, None), or (None, why it cannot be read): "freed" after a backward without
    ``retain_graph``, or the versions of a tensor modified in place since it was saved."""
    try:
        return getattr(node, attr), None
    except RuntimeError as e:
        versions = _VERSIONS.search(str(e))
        if versions:
            return None, f"modified in place: now version {versions.group(1)}, saved at version {versions.group(2)}"
        if "freed" in str(e) or "second time" in str(e):
            return None, describe.FREED
        raise


def saved_text(node, attr) -> str:
    value, problem = read_saved(node, attr)
    if problem:
        return problem
    if isinstance(value, tuple) and value and all(describe.is_tensor(v) for v in value):
        return "(" + ", ".join(describe.tensor_summary(v) for v in value) + ")"
    return describe.value_text(value)


@dataclass
class TensorInfo:
    """What the learner asks of one tensor: leaf or not, does it require grad, is ``.grad`` set."""

    name: str
    is_leaf: bool
    requires_grad: bool
    retains_grad: bool
    has_grad: bool
    shape: str
    dtype: str
    node: int | None  # the index of its grad_fn (or of its AccumulateGrad for a leaf)
    hooks: int
    post_accumulate_hooks: int
    grad: str  # the values of .grad, or "None"

    def line(self) -> str:
        kind = "leaf" if self.is_leaf else "non-leaf"
        text = (f"{self.name}: {kind} {self.shape} {self.dtype} requires_grad={self.requires_grad} "
                f"retains_grad={self.retains_grad} grad={self.grad}")
        if self.hooks:
            text += f" tensor_hooks={self.hooks}"
        if self.post_accumulate_hooks:
            text += f" post_accumulate_grad_hooks={self.post_accumulate_hooks}"
        return text

    def why(self) -> str:
        """Why ``.grad`` is (or is not) there: the rule of autograd that decides it."""
        if not self.requires_grad:
            return "does not require grad: autograd does not track it, so no gradient is computed for it"
        if self.is_leaf:
            if self.has_grad:
                return "leaf that requires grad: backward accumulated into .grad"
            return "leaf that requires grad: .grad is set by the first backward that reaches it"
        if self.retains_grad:
            if self.has_grad:
                return "non-leaf, retain_grad() was called: backward kept its gradient in .grad"
            return "non-leaf, retain_grad() was called: the next backward keeps its gradient in .grad"
        return ("non-leaf: its gradient flows through it during backward and is not kept "
                "(call retain_grad() before backward to keep it)")


def tensor_info(name: str, t, node: int | None) -> TensorInfo:
    """A tensor's row. A non-leaf's ``.grad`` is read only when it retains it (else PyTorch warns)."""
    grad = t.grad if t.is_leaf or t.retains_grad else None
    hooks, post = describe.hook_count(t)
    return TensorInfo(name=name, is_leaf=t.is_leaf, requires_grad=t.requires_grad, retains_grad=t.retains_grad,
                      has_grad=grad is not None, shape=describe.shape_text(t), dtype=describe.dtype_name(t.dtype),
                      node=node, hooks=hooks, post_accumulate_hooks=post, grad=describe.values(grad))


@dataclass
class NodeInfo:
    index: int
    name: str
    saved: list  # (attribute, text)
    edges: list  # (input_nr of the next node or None, index of the next node or None)
    makes: list = field(default_factory=list)  # names of the tensors this node produced

    def label(self) -> str:
        return f"[{self.index}] {self.name}"


class Graph:
    """A snapshot of a tensor's backward graph: ``str()`` is the text, ``table()`` the learner's table,
    ``_repr_html_()`` the picture in a notebook, ``save(path)`` a self-contained HTML page."""

    def __init__(self, roots, params: dict | None = None, title: str | None = None, nodes=None) -> None:
        roots = list(roots)
        nodes = walk(roots) if nodes is None else list(nodes)  # a trace passes the order it numbered
        index = {id(n): i for i, n in enumerate(nodes)}
        self.title = title
        self.nodes = [self._node_info(i, n, index) for i, n in enumerate(nodes)]
        self.tensors = self._tensor_infos(roots, params or {}, nodes, index)

    @staticmethod
    def _node_info(i, node, index) -> NodeInfo:
        saved = [(attr, saved_text(node, attr)) for attr in saved_attributes(node)]
        edges = [(None, None) if nxt is None else (nr, index[id(nxt)]) for nxt, nr in node.next_functions]
        return NodeInfo(i, node_name(node), saved, edges)

    def _tensor_infos(self, roots, params, nodes, index) -> list:
        """The roots, then the named tensors, then the leaves not named (as ``leaf[i]``), each once."""
        owner = {id(n.variable): i for i, n in enumerate(nodes) if hasattr(n, "variable")}
        named = [(f"root{i}" if len(roots) > 1 else "root", t) for i, t in enumerate(roots)]
        by_id = {id(t): name for name, t in params.items()}
        named = [(by_id.get(id(t), name), t) for name, t in named] + list(params.items())
        named += [(f"leaf{owner[id(n.variable)]}", n.variable) for n in nodes
                  if hasattr(n, "variable") and id(n.variable) not in by_id]
        infos, seen = [], set()
        for name, t in named:
            if id(t) in seen:
                continue
            seen.add(id(t))
            # a leaf's gradient ends in its AccumulateGrad node; a non-leaf's starts at its grad_fn
            node = owner.get(id(t)) if t.grad_fn is None else index.get(id(t.grad_fn))
            if node is not None:
                made = name if t.grad_fn is None or t.output_nr == 0 else f"{name} (output {t.output_nr})"
                self.nodes[node].makes.append(made)
            infos.append(tensor_info(name, t, node))
        return infos

    # -- text ---------------------------------------------------------------------------------------
    def __str__(self) -> str:
        lines = [self.title] if self.title else []
        lines.append("nodes (breadth first from the root):")
        for n in self.nodes:
            made = f"  <- {', '.join(n.makes)}" if n.makes else ""
            lines.append(f"  {n.label()}{made}")
            for attr, text in n.saved:
                lines.append(f"      saved {attr}: {text}")
            for k, (nr, j) in enumerate(n.edges):
                target = "None (this input does not require grad)" if j is None else \
                    f"{self.nodes[j].label()} input {nr}"
                lines.append(f"      edge {k} -> {target}")
        lines.append("tensors:")
        lines += [f"  {info.line()}" for info in self.tensors]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def table(self) -> "Table":
        """For each tensor: leaf or not, ``.grad`` set or not, and why."""
        return Table(self.tensors)

    # -- pictures -----------------------------------------------------------------------------------
    def svg(self, current: int | None = None) -> str:
        return graph_svg(self, current)

    def _repr_html_(self) -> str:
        return graph_fragment(self)

    def save(self, path) -> str:
        """Write a self-contained HTML page of the graph (no external resources) and return its path."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(graph_page(self))
        return str(path)


class Table:
    """The learner's table: one row per tensor."""

    HEAD = ("tensor", "leaf", "requires_grad", "grad_fn", ".grad", "why")

    def __init__(self, infos: list) -> None:
        self.infos = infos

    def rows(self) -> list:
        return [(i.name, "yes" if i.is_leaf else "no", str(i.requires_grad),
                 "-" if i.is_leaf or i.node is None else f"[{i.node}]",
                 "set" if i.has_grad else "None", i.why()) for i in self.infos]

    def __str__(self) -> str:
        rows = [self.HEAD] + self.rows()
        widths = [max(len(r[c]) for r in rows) for c in range(len(self.HEAD) - 1)]
        out = []
        for r in rows:
            out.append(" | ".join(cell.ljust(w) for cell, w in zip(r, widths)) + " | " + r[-1])
        out.insert(1, "-+-".join("-" * w for w in widths) + "-+-" + "-" * 3)
        return "\n".join(out)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return table_html(self)


def show(t, params: dict | None = None) -> Graph:
    """The backward graph of ``t`` (a tensor, or a list of them); ``params`` names tensors, as torchviz's
    ``make_dot(params=dict(model.named_parameters()))`` does."""
    roots = list(t) if isinstance(t, (list, tuple)) else [t]
    return Graph(roots, params, title=None)
