"""A picture of the backward graph: ``make_dot(output)`` as torchviz draws it, a ``graphviz.Digraph``.

The walk follows ``grad_fn`` and ``next_functions`` from the output back to the leaves: one box per
node with PyTorch's name (``AddmmBackward0``), a blue box per leaf that requires grad (labelled with
its parameter name when ``params`` names it, and its shape), green boxes for the outputs, orange ones
for saved tensors when ``show_saved`` is on. The result is torchviz's: a ``graphviz.Digraph`` whose
``.source`` is the DOT text (no Graphviz program needed) and whose ``.render()``/``.view()``/``.pipe()``
run Graphviz's ``dot``. Without the graphviz Python package (``pip install graphviz``) an object with
the same ``source``/``save``/``render`` face is returned; rendering then explains what to install."""
from __future__ import annotations

import os
import re
from ..autograd.node import AccumulateGrad
from ..tensor import Tensor

__all__ = ["make_dot", "Dot"]  # Dot: the stand-in used without the graphviz package

_GRAPH_ATTRS = {"size": "12,12"}
_NODE_ATTRS = {"style": "filled", "shape": "box", "align": "left", "fontsize": "10", "ranksep": "0.1",
               "height": "0.2", "fontname": "monospace"}
_INSTALL = ('rendering the graph needs the graphviz Python package and the Graphviz "dot" program: '
            'pip install "tinytorch[viz]" (or pip install graphviz) and install Graphviz '
            "(apt-get install graphviz, brew install graphviz, or https://graphviz.org/download/)")


_ID = re.compile(r"^([a-zA-Z_\x80-\U0010ffff][a-zA-Z0-9_\x80-\U0010ffff]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$")
_KEYWORDS = {"node", "edge", "graph", "digraph", "subgraph", "strict"}


def _quote(s: str) -> str:
    """A DOT ID as the graphviz package writes it: bare when it can be, else double-quoted."""
    if _ID.match(s) and s.lower() not in _KEYWORDS:
        return s
    return '"' + re.sub(r'(?<!\\)"', '\\"', s) + '"'


def _attrs(d: dict) -> str:
    return " ".join(f"{k}={_quote(str(v))}" for k, v in d.items())


def _size_to_str(size) -> str:
    return "(" + ", ".join(str(int(v)) for v in size) + ")"


class Dot:
    """The drawing when the graphviz package is missing: ``graphviz.Digraph``'s face (``source``,
    ``node``, ``edge``, ``save``, ``render``, ``pipe``, ``view``); rendering says what to install."""

    def __init__(self, name: str | None = None, format: str = "pdf") -> None:
        self.name = name
        self.format = format
        self.body: list[str] = []  # node and edge statements in call order, as graphviz keeps them
        self._seen: set = set()

    def node(self, ident: str, label: str | None = None, **attrs) -> None:
        if ident in self._seen:
            return
        self._seen.add(ident)
        label = ident if label is None else label
        extra = (" " + _attrs(attrs)) if attrs else ""
        self.body.append(f"\t{_quote(ident)} [label={_quote(label)}{extra}]")

    def edge(self, tail: str, head: str, **attrs) -> None:
        extra = (" [" + _attrs(attrs) + "]") if attrs else ""
        self.body.append(f"\t{_quote(tail)} -> {_quote(head)}{extra}")

    @property
    def source(self) -> str:
        head = f"digraph {_quote(self.name)} {{" if self.name else "digraph {"
        lines = [head, f"\tgraph [{_attrs(_GRAPH_ATTRS)}]", f"\tnode [{_attrs(dict(sorted(_NODE_ATTRS.items())))}]"]
        return "\n".join(lines + self.body) + "\n}\n"

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

    def render(self, filename=None, directory=None, view: bool = False, cleanup: bool = False, format=None,
               outfile=None, **kwargs) -> str:
        """Write the rendered graph (``outfile``, or ``filename.format``) and return its path."""
        if outfile is not None:
            path = str(outfile)
            format = format or os.path.splitext(path)[1].lstrip(".") or self.format
        else:
            path = f"{filename or (self.name or 'Digraph') + '.gv'}.{format or self.format}"
            if directory:
                path = os.path.join(directory, path)
        with open(path, "wb") as f:
            f.write(self.pipe(format or self.format))
        return path

    def view(self, *args, **kwargs):
        return self.render(*args, view=True, **kwargs)

    def save(self, filename=None, directory=None, **kwargs) -> str:
        """Write the DOT text to ``filename`` (as ``graphviz.Digraph.save``) and return its path."""
        path = filename or (self.name or "Digraph") + ".gv"
        if directory:
            path = os.path.join(directory, path)
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


_SAVED_PREFIX = "_saved_"


def _saved_attrs(fn) -> list:
    """(name, value) of the node's PyTorch ``_saved_<name>`` attributes, as torchviz reads them from
    ``dir(fn)``; [] once the graph has freed them."""
    if getattr(fn, "_freed", False):
        return []
    out = []
    for attr in dir(fn):
        if not attr.startswith(_SAVED_PREFIX):
            continue
        try:
            out.append((attr[len(_SAVED_PREFIX):], getattr(fn, attr)))
        except RuntimeError:  # a saved tensor modified in place since: nothing to show
            continue
    return out


def _fn_label(fn, show_attrs: bool, max_attr_chars: int) -> str:
    """torchviz's label: the node's name and, with ``show_attrs``, a table of its saved values."""
    name = type(fn).__name__
    if not show_attrs:
        return name
    attrs = {}
    for attr, val in _saved_attrs(fn):
        if isinstance(val, Tensor):
            attrs[attr] = "[saved tensor]"
        elif isinstance(val, tuple) and any(isinstance(t, Tensor) for t in val):
            attrs[attr] = "[saved tensors]"
        else:
            attrs[attr] = str(val)
    if not attrs:
        return name
    max_attr_chars = max(max_attr_chars, 3)
    col1 = max(len(k) for k in attrs)
    col2 = min(max(len(str(v)) for v in attrs.values()), max_attr_chars)
    sep = "-" * max(col1 + col2 + 2, len(name))

    def truncate(v: str) -> str:
        return v[:col2 - 3] + "..." if len(v) > col2 else v

    return name + "\n" + sep + "\n" + "\n".join(f"{k:<{col1}}: {truncate(str(v)):>{col2}}" for k, v in attrs.items())


def _saved_of(fn) -> list:
    """(label, tensor) for each tensor the node saved, while the graph still holds them: its
    ``_saved_<name>`` tensors under their names (torchviz's labels), else (a node without PyTorch's
    attributes: a custom Function's) its saved tensors as ``saved[i]``."""
    if getattr(fn, "_freed", False):
        return []
    if getattr(type(fn), "_pt_saved", ()):
        out = []
        for attr, val in _saved_attrs(fn):
            if isinstance(val, Tensor):
                out.append((attr, val))
            elif isinstance(val, tuple):
                out.extend((f"{attr}[{i}]", t) for i, t in enumerate(val) if isinstance(t, Tensor))
        return out
    if not getattr(fn, "_saved", ()):
        return []
    try:
        saved = fn.saved_tensors if hasattr(fn, "saved_tensors") else fn._unpacked_saved
    except RuntimeError:
        return []
    return [(f"saved[{i}]", t) for i, t in enumerate(saved) if t is not None]


def _new_graph():
    """torchviz's ``Digraph`` (box nodes, monospace, 12x12 inches), or the stand-in without graphviz."""
    try:
        from graphviz import Digraph
    except ImportError:
        return Dot()
    return Digraph(node_attr=dict(_NODE_ATTRS), graph_attr=dict(_GRAPH_ATTRS))


def make_dot(var, params=None, show_attrs: bool = False, show_saved: bool = False, max_attr_chars: int = 50):
    """Draw the backward graph of ``var`` (a tensor or a tuple of them) as torchviz does: a
    ``graphviz.Digraph`` (``.source``, ``.render()``, ``.view()``, ``.format``).

    ``params`` maps names to the leaves that should be labelled with them, e.g.
    ``dict(model.named_parameters())``."""

    param_map = {}
    if params is not None:
        for k, v in params.items():
            if not isinstance(v, Tensor):
                raise TypeError(f"params must map names to Tensors, got {type(v).__name__} for {k!r}")
            param_map[id(v)] = k

    dot = _new_graph()
    seen: set = set()  # graphviz adds a node statement per call: each node once
    visited: set = set()  # the grad_fns walked (shared by the outputs and their views' bases)

    def node(ident: str, label: str, **attrs) -> None:
        if ident not in seen:
            seen.add(ident)
            dot.node(ident, label, **attrs)

    def var_name(t, name=None) -> str:
        if name is None:
            name = param_map.get(id(t), "")
        return f"{name}\n {_size_to_str(t.shape)}"

    def add_nodes(root) -> None:
        stack = [root]
        while stack:  # iterative: graphs of any depth
            fn = stack.pop()
            if id(fn) in visited:
                continue
            visited.add(id(fn))
            if show_saved:
                for i, (label, t) in enumerate(_saved_of(fn)):
                    # one box per saved slot: a saved parameter keeps its own blue box, and a node's
                    # saved output (rebuilt on every unpack) is not a stable object to key on
                    ident = f"{id(fn)}_saved{i}"
                    dot.edge(str(id(fn)), ident, dir="none")
                    node(ident, var_name(t, label), fillcolor="orange")
            if isinstance(fn, AccumulateGrad):
                u = fn.variable
                node(str(id(u)), var_name(u), fillcolor="lightblue")
                node(str(id(fn)), _fn_label(fn, show_attrs, max_attr_chars))
                dot.edge(str(id(u)), str(id(fn)))
            else:
                node(str(id(fn)), _fn_label(fn, show_attrs, max_attr_chars))
            for nxt, _ in fn.next_functions:
                if nxt is not None:
                    dot.edge(str(id(nxt)), str(id(fn)))
                    stack.append(nxt)

    def add_base_tensor(t, color: str = "darkolivegreen1") -> None:
        if str(id(t)) in seen:
            return
        node(str(id(t)), var_name(t), fillcolor=color)
        if t.grad_fn is not None:
            add_nodes(t.grad_fn)
            dot.edge(str(id(t.grad_fn)), str(id(t)))
        if t._base is not None:
            add_base_tensor(t._base, "darkolivegreen3")
            dot.edge(str(id(t._base)), str(id(t)), style="dotted")

    for t in (var if isinstance(var, (tuple, list)) else (var,)):
        add_base_tensor(t)
    return dot
