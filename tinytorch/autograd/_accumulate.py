"""Gradients into leaves: ``AccumulateGrad``'s work for the engine (engine.py).

The first gradient a leaf receives becomes its ``.grad`` without a copy when nothing else can see its
memory (reference counts tell, as in PyTorch); later ones add into it in place; with create_graph the
sum is recorded. Tensor hooks, node pre-hooks and post-accumulate hooks run in PyTorch's order."""
from __future__ import annotations

import sys

import numpy as np

from .._meta_data import mark_meta
from ..tensor import _make
from .grad_mode import version_counter
from .node import AccumulateGrad

_getrefcount = sys.getrefcount


def _steal_or_copy(g, like: np.ndarray):
    """A gradient safe to keep as ``.grad``: the array itself when nothing else can see its memory.

    Reference counts tell, as in PyTorch's AccumulateGrad (whose engine hands the gradient over and
    keeps none): g is held by accumulate_grad's local, our argument and getrefcount's; its array by
    g._data, the local and the argument. A view qualifies when its base tensor is held by it alone.
    Only an array laid out like the leaf is kept (PyTorch's layout contract): a weight gradient
    arriving transposed is copied, or ``w.grad.view(-1)`` would fail after ``x @ w.t()``."""
    d = g._data
    if d.strides == like.strides and d.flags.writeable and _getrefcount(g) <= 3 and _getrefcount(d) <= 3:
        base = d.base
        if base is None:
            return _make(d)
        owner = g._base
        if (owner is not None and owner._data is base and base.base is None and type(base) is np.ndarray
                and _getrefcount(owner) <= 3 and _getrefcount(base) <= 4):
            return _make(d)
    out = np.empty_like(like)
    np.copyto(out, d)
    return _make(out)


# factory.empty_like: factories are ops, which build on this module; tinytorch.factory registers it when
# it loads (``bind_empty_like``)
_empty_like = None


def bind_empty_like(empty_like) -> None:
    global _empty_like
    _empty_like = empty_like


def _copy_in_graph(g):
    """A copy recorded as PyTorch records it (CopyBackwards): never the caller's own tensor."""
    return _empty_like(g).copy_(g)


def _in_dtype_of(g, t):
    """``g`` cast to ``t``'s dtype; a complex gradient of a real tensor keeps its real part (PyTorch)."""
    if g._data.dtype.kind == "c" and t._data.dtype.kind != "c":
        g = g.real
    return g.to(t.dtype)


def accumulate_grad(node: AccumulateGrad, g, create_graph: bool) -> None:
    """AccumulateGrad's apply: ``g`` into ``node.variable.grad``, with the leaf's tensor hooks, then the
    node's pre-hooks, the sum, the post-accumulate hooks and the node's hooks (PyTorch's order).

    The engine hands ``g`` over without keeping a reference, so that ``_steal_or_copy`` can tell from
    reference counts whether it may become ``.grad`` as it is."""
    var = node.variable
    if var._hooks:
        for hook in list(var._hooks.values()):
            new = hook(g)
            if new is not None:
                g = new
        new = None
    if node._hooked and node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            new = hook((g,))
            if new is not None:
                g = new[0]
        new = None
    # what the node's post-hooks are shown, as it arrived (held only when there are such hooks: a
    # reference kept here would make _steal_or_copy copy)
    arrived = (g,) if node._hooked and node._post_hooks else None
    if g._sparse_layout or var._sparse_layout:
        _accumulate_sparse(var, g, create_graph)
    else:
        if g._data.dtype != var._data.dtype:
            g = _in_dtype_of(g, var)
        old = var._grad
        if var._meta:  # a meta leaf's gradient is a meta tensor (the backward ran on its zeros)
            var._grad = g if g._meta else mark_meta(_copy_in_graph(g) if create_graph else g.detach())
        elif old is None:
            var._grad = _copy_in_graph(g) if create_graph else _steal_or_copy(g, var._data)
        elif create_graph or old._requires_grad:
            var._grad = old + g
        else:
            od = old._data
            if od.flags.writeable and od.shape == g._data.shape:
                od += g._data  # in place: the optimizer holds no copy of .grad, but users may (as in PyTorch)
                version_counter(old)[0] += 1
            else:
                var._grad = old + g
    if var._post_acc_hooks:
        for hook in list(var._post_acc_hooks.values()):
            hook(var)
    if arrived is not None:
        for hook in list(node._post_hooks.values()):
            hook((), arrived)


def _accumulate_sparse(var, g, create_graph: bool) -> None:
    """A sparse gradient, or any gradient of a sparse leaf: kept in the layout it arrives in (PyTorch keeps
    torch.mm's dense gradient of a sparse matrix dense) and summed by the layouts' own add, which makes a
    dense sum where PyTorch's is dense; never densified into an array here."""
    old = var._grad
    if old is None:
        var._grad = _copy_in_graph(g) if create_graph and not g._sparse_layout else g.clone()
    elif old._sparse_layout and not g._sparse_layout:
        var._grad = g + old  # dense + sparse: PyTorch refuses sparse + dense
    elif create_graph or old._requires_grad:
        var._grad = old + g
    else:
        old.add_(g)  # in place, as PyTorch's ``variable_grad += new_grad``
