"""``with trace() as tr: loss.backward()``: the engine's steps, in the order it takes them.

PyTorch has no public "a backward begins" hook, and a node's hooks must be registered before the
engine reaches it. So while the block runs, the lens wraps the two ways into the engine
(``autograd.backward``, which ``Tensor.backward`` calls, and ``autograd.grad``) of tinytorch, and of
PyTorch when it is imported. Each wrapped call walks the graph from the tensors it was given, registers a pre-hook and a
hook on every node (``Node.register_prehook`` / ``Node.register_hook``, the public API), runs the real
call, and removes them again. Outside the block nothing is wrapped and nothing is recorded.

What each hook sees is what the engine hands it, so the record is the engine's own order:
- a node's pre-hook fires after the tensor hooks and ``retain_grad`` of the tensors it made, with the
  gradient the node received (the sum of what every edge into it carried);
- its hook fires after the node ran, with what it sends along each of its edges (``next_functions``);
- on an ``AccumulateGrad`` node the pre-hook sees ``.grad`` before, the hook ``.grad`` after, and the
  leaf's post-accumulate-grad hooks have fired in between;
- once the node's hooks returned, without ``retain_graph``, reading its ``_saved_*`` tensors says they
  were freed (seen when the next hook fires)."""
from __future__ import annotations

import inspect
import threading
from dataclasses import dataclass

from . import describe
from .. import autograd
from ..tensor import bind_backward
from .graph import Graph, node_name, read_saved, saved_attributes, walk
from .html import trace_fragment, trace_page
from .libraries import libraries


@dataclass
class Step:
    """One thing the engine did: ``kind`` (call, tensor_hook, retain_grad, run, send, accumulate,
    post_accumulate_hook, release, result, graph), the index of the node it concerns (or None),
    and the line of the walk-through."""

    kind: str
    node: int | None
    text: str


def _holds_tensors(value) -> bool:
    """A saved tensor, or a tuple of them (a custom Function's ``saved_tensors``)."""
    return describe.is_tensor(value) or (isinstance(value, tuple) and any(describe.is_tensor(v) for v in value))


def _as_list(value) -> list:
    if value is None:
        return []
    return [value] if describe.is_tensor(value) else list(value)


class Trace:
    """Context manager recording every backward run inside it; ``str()`` is the numbered walk-through,
    ``steps`` the records, ``save(path)`` an HTML page that steps through the graph."""

    def __init__(self, params: dict | None = None) -> None:
        self.params = dict(params or {})
        self.steps: list = []
        self._nodes: list = []     # every node seen, in the order it got its index
        self._index: dict = {}     # id(node) -> index
        self._names: dict = {}     # id(tensor) -> name
        self._roots: list = []
        self._unreleased: list = []  # (node, its saved tensor attributes) run and not yet seen freed
        self._saved_wrappers: list = []
        self._thread = None
        self._busy = False         # inside a wrapped call (a backward hook calling backward runs plain)
        self.graph = None

    # -- entering and leaving: wrap the engine's entry points -------------------------------------
    def __enter__(self) -> "Trace":
        self._thread = threading.get_ident()
        for lib in libraries():
            for name in ("backward", "grad"):
                original = getattr(lib.autograd, name)
                self._saved_wrappers.append((lib.autograd, name, original))
                setattr(lib.autograd, name, self._wrap(original, name))
        # PyTorch's Tensor.backward calls torch.autograd.backward; tinytorch's calls the function the
        # engine registered with bind_backward (the same one), so the wrapper is registered there too
        bind_backward(autograd.backward)
        return self

    def __exit__(self, *exc) -> None:
        for owner, name, original in reversed(self._saved_wrappers):
            setattr(owner, name, original)
        self._saved_wrappers.clear()
        bind_backward(autograd.backward)
        self.graph = Graph(self._roots, self.params, nodes=self._nodes)

    def _wrap(self, original, name):
        signature = inspect.signature(original)
        kind = f"autograd.{name}"

        def lens_entry(*args, **kwargs):
            if self._busy or threading.get_ident() != self._thread:
                return original(*args, **kwargs)
            call = signature.bind(*args, **kwargs)
            call.apply_defaults()
            self._busy = True
            try:
                return self._traced_call(original, kind, call)
            finally:
                self._busy = False

        lens_entry.__wrapped__ = original
        return lens_entry

    # -- one call into the engine -------------------------------------------------------------------
    def _traced_call(self, original, kind, call):
        a = call.arguments
        if kind == "autograd.backward":
            roots, seeds, inputs = _as_list(a["tensors"]), _as_list(a["grad_tensors"]), _as_list(a["inputs"])
        else:
            roots, seeds, inputs = _as_list(a["outputs"]), _as_list(a["grad_outputs"]), _as_list(a["inputs"])
        create_graph = bool(a["create_graph"])
        keep_graph = create_graph if a["retain_graph"] is None else bool(a["retain_graph"])
        self._learn(roots, inputs)
        self._record("call", None, self._call_text(kind, roots, seeds, inputs, keep_graph, create_graph))
        handles = self._instrument(roots, seeds, keep_graph)
        try:
            result = original(*call.args, **call.kwargs)
        finally:
            for h in handles:
                h.remove()
            self._note_releases()
            self._unreleased.clear()
        if kind == "autograd.grad":
            for t, g in zip(inputs, result):
                self._record("result", None, f"autograd.grad returns for {self._name(t)}: {describe.values(g)}")
        if create_graph:
            self._record_built_graphs(kind, inputs, result)
        return result

    def _learn(self, roots, inputs) -> None:
        """Give the new nodes their indices and the tensors their names (params first)."""
        for name, t in self.params.items():
            self._names.setdefault(id(t), name)
        for t in roots:
            self._names.setdefault(id(t), "root" if len(roots) == 1 and not self._roots else f"root{len(self._roots)}")
            self._roots.append(t)
        for node in walk(roots):
            if id(node) not in self._index:
                self._index[id(node)] = len(self._nodes)
                self._nodes.append(node)
                if hasattr(node, "variable"):
                    self._names.setdefault(id(node.variable), f"leaf{self._index[id(node)]}")

    def _name(self, t) -> str:
        return self._names.get(id(t), "(unnamed)")

    def _label(self, node) -> str:
        i = self._index[id(node)]
        text = f"[{i}] {node_name(node)}"
        if hasattr(node, "variable"):
            text += f" ({self._name(node.variable)})"
        return text

    def _call_text(self, kind, roots, seeds, inputs, keep_graph, create_graph) -> str:
        # Tensor.backward is autograd.backward on both libraries: one name for both
        text = f"{'backward' if kind == 'autograd.backward' else kind} from {', '.join(self._name(t) for t in roots)}"
        if seeds:
            text += f" with gradient {', '.join(describe.values(g) for g in seeds)}"
        if inputs:
            text += f", inputs=[{', '.join(self._name(t) for t in inputs)}]"
        return text + f", retain_graph={keep_graph}, create_graph={create_graph}"

    def _record(self, kind, node, text) -> None:
        self.steps.append(Step(kind, node, text))

    # -- the hooks ----------------------------------------------------------------------------------
    def _instrument(self, roots, seeds, keep_graph) -> list:
        """A pre-hook and a hook on every node reachable from the roots; their handles."""
        made = self._tensors_by_input()
        arriving: dict = {}  # (node index, input) -> what the edges into it carried so far
        for k, t in enumerate(roots):
            if t.grad_fn is not None:
                seed = seeds[k] if k < len(seeds) and seeds[k] is not None else t.detach().new_ones(t.shape)
                arriving[(self._index[id(t.grad_fn)], t.output_nr)] = seed.detach()
        handles = []
        for node in walk(roots):
            handles.append(node.register_prehook(self._pre_hook(node, made, arriving)))
            handles.append(node.register_hook(self._post_hook(node, arriving, keep_graph)))
        return handles

    def _tensors_by_input(self) -> dict:
        """(node index, input) -> the named tensors whose gradient enters the node there."""
        by_input: dict = {}
        tensors = list(self.params.values()) + self._roots
        tensors += [n.variable for n in self._nodes if hasattr(n, "variable")]
        seen = set()
        for t in tensors:
            if id(t) in seen:
                continue
            seen.add(id(t))
            key = self._input_of(t)
            if key is not None:
                by_input.setdefault(key, []).append(t)
        return by_input

    def _input_of(self, t):
        if t.grad_fn is not None:
            i = self._index.get(id(t.grad_fn))
            return None if i is None else (i, t.output_nr)
        for i, n in enumerate(self._nodes):
            if hasattr(n, "variable") and n.variable is t:
                return (i, 0)
        return None

    def _pre_hook(self, node, made, arriving):
        i = self._index[id(node)]

        def lens_pre_hook(grad_outputs):
            self._note_releases()
            for k, g in enumerate(grad_outputs):
                before = arriving.pop((i, k), None)
                for t in made.get((i, k), ()):
                    hooks, _ = describe.hook_count(t)
                    if hooks:
                        self._record("tensor_hook", i, f"tensor hook(s) of {self._name(t)} ran ({hooks}): "
                                     f"{describe.values(before)} -> {describe.values(g)}")
                    if not t.is_leaf and t.retains_grad:
                        self._record("retain_grad", i, f"retain_grad: {self._name(t)}.grad = "
                                     f"{describe.values(t.grad)}")
            received = "; ".join(describe.values(g) for g in grad_outputs)
            if hasattr(node, "variable"):
                received += f"; .grad before: {describe.values(node.variable.grad)}"
            self._record("run", i, f"{self._label(node)} runs, receives {received}")

        return lens_pre_hook

    def _post_hook(self, node, arriving, keep_graph):
        i = self._index[id(node)]
        saved = [a for a in saved_attributes(node) if read_saved(node, a)[1] is None
                 and _holds_tensors(read_saved(node, a)[0])]

        def lens_hook(grad_inputs, grad_outputs):
            self._note_releases()
            if hasattr(node, "variable"):
                leaf = node.variable
                self._record("accumulate", i, f"{self._label(node)}: {self._name(leaf)}.grad = "
                             f"{describe.values(leaf.grad)}")
                _, post = describe.hook_count(leaf)
                if post:
                    self._record("post_accumulate_hook", i,
                                 f"post-accumulate-grad hook(s) of {self._name(leaf)} fired ({post})")
            for k, ((nxt, nr), g) in enumerate(zip(node.next_functions, grad_inputs)):
                if nxt is None:
                    continue
                j = self._index[id(nxt)]
                if g is not None:
                    key = (j, nr)
                    arriving[key] = g.detach() if key not in arriving else arriving[key] + g.detach()
                self._record("send", i, f"{self._label(node)} sends along edge {k} to {self._label(nxt)} "
                             f"input {nr}: {describe.values(g)}")
            if saved and not keep_graph:
                self._unreleased.append((node, saved))

        return lens_hook

    def _note_releases(self) -> None:
        """Record the nodes whose saved tensors are freed by now. The engine frees them once the node's
        hooks have returned, so this runs when the next hook fires, and when the call returns."""
        still = []
        for node, saved in self._unreleased:
            freed = [a for a in saved if read_saved(node, a)[1] == describe.FREED]
            if freed:
                self._record("release", self._index[id(node)],
                             f"{self._label(node)} released its saved tensors: {', '.join(freed)}")
            else:
                still.append((node, saved))
        self._unreleased = still

    def _record_built_graphs(self, kind, inputs, result) -> None:
        """With create_graph=True the gradients themselves have a graph: show each one."""
        if kind == "autograd.grad":
            pairs = list(zip(inputs, result))
        else:
            leaves = inputs or [n.variable for n in self._nodes if hasattr(n, "variable")]
            pairs = [(t, t.grad) for t in leaves]
        for t, g in pairs:
            if g is not None and g.grad_fn is not None:
                names = {**self.params, f"gradient of {self._name(t)}": g}
                built = Graph([g], names, title=f"graph of the gradient of {self._name(t)} (built during backward):")
                self._record("graph", None, str(built))

    # -- what a learner reads ---------------------------------------------------------------------
    def __str__(self) -> str:
        lines = []
        for k, step in enumerate(self.steps, 1):
            first, *rest = step.text.split("\n")
            lines.append(f"{k:3d}. {first}")
            lines += [f"       {r}" for r in rest]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def save(self, path) -> str:
        """Write the step-through page (self-contained HTML) and return its path."""
        if self.graph is None:
            self.graph = Graph(self._roots, self.params, nodes=self._nodes)
        with open(path, "w", encoding="utf-8") as f:
            f.write(trace_page(self))
        return str(path)

    def _repr_html_(self) -> str:
        if self.graph is None:
            self.graph = Graph(self._roots, self.params, nodes=self._nodes)
        return trace_fragment(self)


def trace(params: dict | None = None) -> Trace:
    """Record the engine's steps for every backward / autograd.grad run inside the ``with`` block;
    ``params`` names tensors (``dict(model.named_parameters())``)."""
    return Trace(params)
