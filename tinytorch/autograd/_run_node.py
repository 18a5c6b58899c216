"""One node's backward with everything around it: tensor pre-hooks, retained gradients, node pre- and
post-hooks (PyTorch's order), and anomaly mode's NaN check and report of where the node was made.
The backward engine (engine.py) calls these for nodes that have any of them; the others it runs
inline."""
from __future__ import annotations

import warnings

import numpy as np

from .._dtype import FLOATING_NP
from ..tensor import _make
from .grad_mode import _State
from .node import Node


def _tensor_pre_hooks(node: Node, grads: list) -> list:
    """The hooks of the tensors this node made (``register_hook``), then their retained gradients
    (``retain_grad``): PyTorch's ``call_tensor_pre_hooks``."""
    if node._tensor_pre_hooks:
        for nr, hooks in node._tensor_pre_hooks.items():
            for hook in list(hooks.values()):
                if grads[nr] is not None:
                    new = hook(grads[nr])
                    if new is not None:
                        grads[nr] = new
    if node._retained:
        for nr, ref in node._retained.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                g = grads[nr]
                if t._grad is None:
                    # always a copy (recorded under create_graph, as PyTorch's CloneBackward0)
                    t._grad = g.clone() if g._requires_grad else _make_detached_copy(g)
                else:
                    t._grad = t._grad + g
    return grads


def _run_node(node: Node, grads: list, needed=None):
    """Apply pre-hooks, then the node's backward; returns one gradient per next_functions edge.

    ``needed`` (``autograd.grad``, ``backward(inputs=...)``): the nodes that lead to a wanted input. A built-in
    node then gives None along an edge into any other node, before its post-hooks see its gradients, as
    PyTorch's nodes compute only the gradients its engine asks for; a custom Function's backward is the
    user's, and its hooks see all it returned (PyTorch's engine then sends none of it along such an edge)."""
    grads = _tensor_pre_hooks(node, grads)
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            new = hook(tuple(grads))
            if new is not None:
                grads = list(new)
    if node._n_outputs == 1:
        out = node.backward(grads[0])
    else:
        out = node.backward(*grads)
    if type(out) is not tuple:
        out = (out,)
    if needed is not None and not node._user_backward:
        edges = node.next_functions
        out = tuple([None if i < len(edges) and edges[i][0] is not None and edges[i][0] not in needed else g
                     for i, g in enumerate(out)])
    if node._post_hooks:
        for hook in list(node._post_hooks.values()):
            new = hook(out, tuple(grads))
            if new is not None:
                out = tuple(new)
    return out


def _make_detached_copy(g):
    if g._sparse_layout:  # a sparse gradient stays sparse
        return g.detach().clone()
    return _make(g._data.copy())


def _run_node_in_anomaly_mode(node: Node, grads: list, needed=None):
    """``_run_node`` plus the NaN check; any failure first warns with where the node was made."""
    try:
        out = _run_node(node, grads, needed)
        if _State.check_nan:
            for i, g in enumerate(out):
                if g is not None and g._data.dtype in FLOATING_NP and np.isnan(g._data).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    except Exception:
        if node._trace:
            where = f"Traceback of forward call that caused the error:\n{node._trace}"
        else:
            where = ("No forward pass information available. Enable detect anomaly during forward pass for "
                     "more information.")
        warnings.warn(f"Error detected in {node.name()}. {where}", UserWarning, stacklevel=4)
        raise
    return out
