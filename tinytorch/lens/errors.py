"""``why(exc)``: the autograd errors learners hit most, explained in terms of *this* graph.

Each explanation says what happened (which node, which tensor, which versions), why autograd refuses,
and the usual fixes. The exception's message says which rule broke; the tensors passed after it
(``why(exc, loss)``) let the lens look into the graph for the node and the versions involved.

``explain_errors(True)`` appends the explanation to the message of these errors where they leave the
engine's entry points (``backward``, ``autograd.grad``) and ``Tensor.numpy``, and to the warning about
reading a non-leaf's ``.grad``. By default nothing is wrapped and PyTorch's messages stay exactly as
they are."""
from __future__ import annotations

import functools
import warnings

from . import describe
from .graph import node_name, read_saved, saved_attributes, walk
from .libraries import libraries

# the start of each message (as PyTorch words it; tinytorch words it the same), and what to explain
SECOND_BACKWARD = "Trying to backward through the graph a second time"
INPLACE_SAVED = "one of the variables needed for gradient computation has been modified by an inplace operation"
NONLEAF_GRAD = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"
NO_GRAD_FN = "does not require grad and does not have a grad_fn"
NOT_SCALAR = "grad can be implicitly created only for scalar outputs"
LEAF_INPLACE = "Variable that requires grad is being used in an in-place operation"
NUMPY = "Can't call numpy() on Tensor that requires grad"


def _message(exc) -> str:
    """The text of an exception, a warning, or a recorded ``warnings.WarningMessage``."""
    if isinstance(exc, warnings.WarningMessage):
        return str(exc.message)
    return str(exc)


def _graph_problems(tensors, problem) -> list:
    """"[i] Node: _saved_x (what is wrong)" for each saved tensor of the tensors' graphs whose reading
    fails for this reason (freed, or modified in place)."""
    found = []
    for i, node in enumerate(walk([t for t in tensors if describe.is_tensor(t)])):
        for attr in saved_attributes(node):
            _, why = read_saved(node, attr)
            if why is not None and why.startswith(problem):
                found.append(f"[{i}] {node_name(node)}: {attr} ({why})")
    return found


def _tensor_facts(t) -> str:
    node = "None" if t.grad_fn is None else node_name(t.grad_fn)
    return (f"the tensor: shape {describe.shape_text(t)}, is_leaf={t.is_leaf}, requires_grad={t.requires_grad}, "
            f"grad_fn={node}, version {t._version}")


def _second_backward(msg, tensors) -> list:
    lines = ["What happened: a backward already ran through this graph without retain_graph=True, and freed the",
             "tensors its nodes had saved for computing gradients (this keeps memory low)."]
    freed = _graph_problems(tensors, describe.FREED)
    if freed:
        lines.append("In this graph, already freed:")
        lines += [f"  {f}" for f in freed]
    lines += ["Usual fixes: build the graph again (run the forward pass again: one graph per training step);",
              "pass retain_graph=True to the first backward if you really need a second one through it;",
              "detach() a tensor you carry from one step to the next (an RNN's hidden state)."]
    return lines


def _inplace_saved(msg, tensors) -> list:
    lines = ["What happened: a tensor that a node saved for its gradient was changed in place afterwards.",
             "Every in-place op adds 1 to the tensor's version; the node remembers the version it saved and",
             "refuses to compute a gradient from values that are no longer the ones of the forward pass."]
    start = msg.find("[")
    if start >= 0:
        words = msg[start:msg.find("instead.") + len("instead.")]
        lines.append("The message says: " + words.replace("[torch.", "[").replace("[tinytorch.", "["))
    changed = _graph_problems(tensors, "modified in place")
    if changed:
        lines.append("In this graph:")
        lines += [f"  {c}" for c in changed]
    lines += ["Usual fixes: use the out-of-place op (x = x + 1 instead of x += 1, torch.relu instead of relu_,",
              "nn.ReLU(inplace=False)); or clone() the tensor before changing it."]
    return lines


def _nonleaf_grad(msg, tensors) -> list:
    lines = ["What happened: .grad was read on a non-leaf tensor (one made by an op: it has a grad_fn).",
             "Backward passes its gradient on to the nodes below and does not keep it, so .grad is None."]
    lines += [_tensor_facts(t) for t in tensors if describe.is_tensor(t)]
    lines += ["Usual fixes: call t.retain_grad() before backward to keep it; or read .grad of the leaf",
              "(a parameter, or a tensor you created with requires_grad=True)."]
    return lines


def _no_grad_fn(msg, tensors) -> list:
    lines = ["What happened: backward started from a tensor that autograd did not record: requires_grad is",
             "False and it has no grad_fn, so there is no graph to go back through."]
    lines += [_tensor_facts(t) for t in tensors if describe.is_tensor(t)]
    lines += ["Usual causes: no input had requires_grad=True; the forward ran under torch.no_grad() or",
              "inference_mode(); a tensor was detach()-ed or taken through .data or .item() on the way.",
              "Fix: create the leaves with requires_grad=True (or call w.requires_grad_()) and compute the",
              "loss with grad mode on."]
    return lines


def _not_scalar(msg, tensors) -> list:
    lines = ["What happened: backward() without a gradient argument needs a single number to start from;",
             "the gradient of a tensor with many elements is a Jacobian, and backward computes only a",
             "vector-Jacobian product, so it needs the vector."]
    for t in tensors:
        if describe.is_tensor(t):
            n = 1
            for d in t.shape:
                n *= int(d)
            lines.append(f"the output: shape {describe.shape_text(t)}, {n} elements")
    lines += ["Usual fixes: reduce to a scalar first (loss = out.sum() or out.mean()); or pass the vector:",
              "out.backward(gradient=torch.ones_like(out)) (sum of the rows of the Jacobian)."]
    return lines


def _leaf_inplace(msg, tensors) -> list:
    lines = ["What happened: an in-place op was applied to a leaf that requires grad (or a view of one).",
             "Autograd would lose the leaf's value that the gradient is defined at, so it refuses."]
    lines += [_tensor_facts(t) for t in tensors if describe.is_tensor(t)]
    lines += ["Usual fixes: update parameters under `with torch.no_grad():` (as optimizers do), or use the",
              "out-of-place op (w = w + 1 makes a new non-leaf)."]
    return lines


def _numpy(msg, tensors) -> list:
    lines = ["What happened: numpy() would share memory with a tensor that autograd tracks; numpy operations",
             "on it would be invisible to autograd, so PyTorch asks you to say you leave the graph."]
    lines += [_tensor_facts(t) for t in tensors if describe.is_tensor(t)]
    lines += ["Usual fix: t.detach().numpy() (same memory, no graph), or t.detach().cpu().numpy()."]
    return lines


_EXPLAINERS = ((SECOND_BACKWARD, _second_backward), (INPLACE_SAVED, _inplace_saved), (NONLEAF_GRAD, _nonleaf_grad),
               (NO_GRAD_FN, _no_grad_fn), (NOT_SCALAR, _not_scalar), (LEAF_INPLACE, _leaf_inplace), (NUMPY, _numpy))


def why(exc, *tensors) -> str:
    """Explain an autograd error or warning; pass the tensors involved (the loss, the leaf) to see the
    nodes, tensors and versions of this graph."""
    msg = _message(exc)
    for start, explain in _EXPLAINERS:
        if start in msg:
            return "\n".join(explain(msg, tensors))
    return "tinytorch.lens has no explanation for this error."


def _explained(exc, tensors):
    """The same exception with the explanation appended to its message (the type is kept)."""
    msg = _message(exc)
    if any(start in msg for start, _ in _EXPLAINERS) and "\n\nExplained by tinytorch.lens:\n" not in msg:
        exc.args = (msg + "\n\nExplained by tinytorch.lens:\n" + why(exc, *tensors),) + tuple(exc.args[1:])
    return exc


def _explaining(original, tensors_of):
    @functools.wraps(original)
    def lens_explaining(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        except RuntimeError as e:
            raise _explained(e, tensors_of(args, kwargs)) from None

    lens_explaining.__lens_original__ = original
    return lens_explaining


def _first_tensors(args, kwargs) -> list:
    first = args[0] if args else kwargs.get("tensors", kwargs.get("outputs", kwargs.get("self")))
    if describe.is_tensor(first):
        return [first]
    return [t for t in (first or ()) if describe.is_tensor(t)]


_ENTRY_POINTS = (("Tensor", "backward"), ("Tensor", "numpy"), ("autograd", "backward"), ("autograd", "grad"))
_wrapped: list = []  # (owner, name, original, whether owner itself held it) while explain_errors is on
_original_formatwarning = None


def _formatwarning(message, category, filename, lineno, line=None):
    text = _original_formatwarning(message, category, filename, lineno, line)
    if NONLEAF_GRAD in str(message):
        text += "Explained by tinytorch.lens:\n" + why(message) + "\n"
    return text


def explain_errors(on: bool = True) -> None:
    """Append the lens's explanation to these errors' messages (and the non-leaf ``.grad`` warning) in
    tinytorch, and in PyTorch when it is imported; ``explain_errors(False)`` restores the originals."""
    global _original_formatwarning
    _restore()
    if not on:
        return
    for lib in libraries():
        for owner_name, name in _ENTRY_POINTS:
            owner = getattr(lib, owner_name)
            original = getattr(owner, name)
            _wrapped.append((owner, name, original, name in vars(owner)))
            setattr(owner, name, _explaining(original, _first_tensors))
    _original_formatwarning = warnings.formatwarning
    warnings.formatwarning = _formatwarning


def _restore() -> None:
    """Put back every function ``explain_errors(True)`` wrapped."""
    global _original_formatwarning
    while _wrapped:
        owner, name, original, owned = _wrapped.pop()
        if owned:
            setattr(owner, name, original)
        else:  # PyTorch's Tensor.numpy lives on its C base class: drop the wrapper to uncover it
            delattr(owner, name)
    if _original_formatwarning is not None:
        warnings.formatwarning = _original_formatwarning
        _original_formatwarning = None
