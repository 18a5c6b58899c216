"""A picture of the backward graph: ``make_dot(output)`` as torchviz draws it, in Graphviz DOT.

The walk follows ``grad_fn`` and ``next_functions`` from the output back to the leaves: one box per
node with PyTorch's name (``AddmmBackward0``), a blue box per leaf that requires grad (labelled with
its parameter name when ``params`` names it, and its shape), green boxes for the outputs, orange ones
for saved tensors when ``show_saved`` is on. The DOT text needs nothing; rendering it to SVG or PNG
needs the optional ``graphviz`` Python package and Graphviz's ``dot`` program
(``pip install "tinytorch[viz]"`` and e.g. ``apt-get install graphviz``), imported only when asked."""
from __future__ import annotations

import os

__all__ = ["make_dot", "Dot"]

_GRAPH_ATTRS = {"size": "12,12"}
_NODE_ATTRS = {"style": "filled", "shape": "box", "align": "left", "fontsize": "10", "ranksep": "0.1",
               "height": "0.2", "fontname": "monospace"}
_INSTALL = ('rendering the graph needs the graphviz Python package and the Graphviz "dot" program: '
            'pip install "tinytorch[viz]" (or pip install graphviz) and install Graphviz '
            "(apt-get install graphviz, brew install graphviz, or https://graphviz.org/download/)")


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attrs(d: dict) -> str:
    return " ".join(f"{k}={_quote(str(v))}" for k, v in d.items())


def _size_to_str(size) -> str:
    return "(" + ", ".join(str(int(v)) for v in size) + ")"


class Dot:
    """The drawing: ``.source`` is the DOT text; ``render``/``pipe``/``save`` go through graphviz."""

    def __init__(self, name: str = "G") -> None:
        self.name = name
        self._nodes: list[str] = []
        self._edges: list[str] = []
        self._seen: set = set()

    def node(self, ident: str, label: str, **attrs) -> None:
        if ident in self._seen:
            return
        self._seen.add(ident)
        extra = (" " + _attrs(attrs)) if attrs else ""
        self._nodes.append(f"\t{_quote(ident)} [label={_quote(label)}{extra}]")

    def edge(self, tail: str, head: str, **attrs) -> None:
        extra = (" [" + _attrs(attrs) + "]") if attrs else ""
        self._edges.append(f"\t{_quote(tail)} -> {_quote(head)}{extra}")

    @property
    def source(self) -> str:
        lines = [f"digraph {self.name} {{", f"\tgraph [{_attrs(_GRAPH_ATTRS)}]", f"\tnode [{_attrs(_NODE_ATTRS)}]"]
        return "\n".join(lines + self._nodes + self._edges) + "\n}\n"

    def __str__(self) -> str:
        return self.source

    # -- rendering through the optional graphviz package --------------------------------------
    def to_graphviz(self):
        """The same graph as a ``graphviz.Source`` (needs the graphviz Python package)."""
        try:
            import graphviz
        except ImportError as e:
            raise RuntimeError(_INSTALL) from e
        return graphviz.Source(self.source)

    def pipe(self, format: str = "svg") -> bytes:
        """The rendered graph as bytes (``format`` is any Graphviz output format: svg, png, pdf)."""
        src = self.to_graphviz()
        import graphviz

        try:
            return src.pipe(format=format)
        except graphviz.ExecutableNotFound as e:
            raise RuntimeError(_INSTALL) from e

    def render(self, filename: str = "graph", format: str = "svg") -> str:
        """Write ``filename.format`` (rendered) and return its path."""
        path = f"{filename}.{format}"
        with open(path, "wb") as f:
            f.write(self.pipe(format))
        return path

    def save(self, path: str) -> str:
        """Write the drawing to ``path``: rendered for .svg/.png/.pdf, else the DOT text."""
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        if ext in ("svg", "png", "pdf", "jpg", "jpeg"):
            data = self.pipe("jpg" if ext == "jpeg" else ext)
            with open(path, "wb") as f:
                f.write(data)
        else:
            with open(path, "w") as f:
                f.write(self.source)
        return path

    # -- Jupyter shows the SVG inline, or the DOT text when graphviz is missing ---------------
    def _repr_svg_(self):
        try:
            return self.pipe("svg").decode("utf-8")
        except RuntimeError:
            return None

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": self.source}
        svg = self._repr_svg_()
        if svg is not None:
            bundle["image/svg+xml"] = svg
        return bundle


def _fn_label(fn, show_attrs: bool, max_attr_chars: int) -> str:
    name = type(fn).__name__
    if not show_attrs:
        return name
    attrs = {}
    for k, v in vars(fn).items():
        if k.startswith("_") or k in ("next_functions", "variable"):
            continue
        if isinstance(v, (bool, int, float, str, tuple, list)) or v is None:
            s = str(v)
            attrs[k] = s if len(s) <= max_attr_chars else s[:max_attr_chars - 3] + "..."
    if not attrs:
        return name
    width = max(len(k) for k in attrs)
    return name + "\n" + "-" * max(len(name), width + 2) + "\n" + "\n".join(
        f"{k.ljust(width)}: {v}" for k, v in attrs.items())


def _saved_of(fn) -> list:
    """(label, tensor) for each tensor the node saved, while the graph still holds them."""
    if getattr(fn, "_freed", False) or not getattr(fn, "_saved", ()):
        return []
    try:
        saved = fn.saved_tensors
    except RuntimeError:
        return []
    return [(f"saved[{i}]", t) for i, t in enumerate(saved) if t is not None]


def make_dot(var, params=None, show_attrs: bool = False, show_saved: bool = False, max_attr_chars: int = 50) -> Dot:
    """Draw the backward graph of ``var`` (a tensor or a tuple of them) as torchviz does.

    ``params`` maps names to the leaves that should be labelled with them, e.g.
    ``dict(model.named_parameters())``."""
    from ..autograd.node import AccumulateGrad
    from ..tensor import Tensor

    param_map = {}
    if params is not None:
        for k, v in params.items():
            if not isinstance(v, Tensor):
                raise TypeError(f"params must map names to Tensors, got {type(v).__name__} for {k!r}")
            param_map[id(v)] = k

    dot = Dot()

    def var_name(t, name=None) -> str:
        if name is None:
            name = param_map.get(id(t), "")
        return f"{name}\n {_size_to_str(t.shape)}"

    def add_nodes(root) -> None:
        stack, seen = [root], set()
        while stack:  # iterative: graphs of any depth
            fn = stack.pop()
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            if show_saved:
                for i, (label, t) in enumerate(_saved_of(fn)):
                    # one box per saved slot: a saved parameter keeps its own blue box, and a node's
                    # saved output (rebuilt on every unpack) is not a stable object to key on
                    ident = f"{id(fn)}_saved{i}"
                    dot.edge(str(id(fn)), ident, dir="none")
                    dot.node(ident, var_name(t, label), fillcolor="orange")
            if isinstance(fn, AccumulateGrad):
                u = fn.variable
                dot.node(str(id(u)), var_name(u), fillcolor="lightblue")
                dot.node(str(id(fn)), _fn_label(fn, show_attrs, max_attr_chars))
                dot.edge(str(id(u)), str(id(fn)))
            else:
                dot.node(str(id(fn)), _fn_label(fn, show_attrs, max_attr_chars))
            for nxt, _ in fn.next_functions:
                if nxt is not None:
                    dot.edge(str(id(nxt)), str(id(fn)))
                    stack.append(nxt)

    def add_base_tensor(t, color: str = "darkolivegreen1") -> None:
        if str(id(t)) in dot._seen:
            return
        dot.node(str(id(t)), var_name(t), fillcolor=color)
        if t.grad_fn is not None:
            add_nodes(t.grad_fn)
            dot.edge(str(id(t.grad_fn)), str(id(t)))
        if t._base is not None:
            add_base_tensor(t._base, "darkolivegreen3")
            dot.edge(str(id(t._base)), str(id(t)), style="dotted")

    for t in (var if isinstance(var, (tuple, list)) else (var,)):
        add_base_tensor(t)
    return dot
