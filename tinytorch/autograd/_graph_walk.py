"""What the backward engine knows before it runs a node: the roots' edges and gradients (checked as
PyTorch checks them), the dependency count of every node below the roots, and, for ``autograd.grad``
and ``backward(inputs=...)``, the nodes from which a wanted one can be reached."""
from __future__ import annotations

import numpy as np

from .._dtype import FLOATING_NP
from ..tensor import Size, Tensor, _make


def _make_grads(outputs, grad_outputs):
    grads = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
            if out._requires_grad and out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._data.dtype not in FLOATING_NP and out._requires_grad:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
            grads.append(_make(np.ones(out._data.shape, dtype=out._data.dtype)) if out._requires_grad else None)
            continue
        if not isinstance(g, Tensor):
            g = _make(np.asarray(g, dtype=out._data.dtype))
        if g._data.shape != out._data.shape:
            i = len(grads)
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} and "
                               f"output[{i}] has a shape of {Size(out._data.shape)}.")
        grads.append(g)
    return grads


def _check_count(outputs: list, grads: list) -> list:
    """PyTorch ignores surplus gradients and refuses missing ones."""
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return grads[:len(outputs)]


def _root_edges(outputs):
    edges = []
    for i, t in enumerate(outputs):
        if not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(t._edge())
    return edges


def _collect(roots):
    """Dependency counts (edges into each node) for the graph below ``roots``; iterative DFS.
    Roots start at 0, so the keys are every node reached."""
    deps = {n: 0 for n in roots if n is not None}
    stack = list(deps)
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is not None:
                if nxt not in deps:
                    stack.append(nxt)
                deps[nxt] = deps.get(nxt, 0) + 1
    return deps


def _needed(roots, targets: set) -> set:
    """Nodes from which some target node can be reached (only those run in ``autograd.grad``)."""
    order = []
    visited = set()
    for root in roots:
        if root is None or root in visited:
            continue
        stack = [(root, iter(root.next_functions))]
        visited.add(root)
        while stack:
            node, it = stack[-1]
            advanced = False
            for nxt, _ in it:
                if nxt is not None and nxt not in visited:
                    visited.add(nxt)
                    stack.append((nxt, iter(nxt.next_functions)))
                    advanced = True
                    break
            if not advanced:
                stack.pop()
                order.append(node)
    needed = set()
    for node in order:  # children before parents
        if node in targets or any(nxt in needed for nxt, _ in node.next_functions if nxt is not None):
            needed.add(node)
    return needed
