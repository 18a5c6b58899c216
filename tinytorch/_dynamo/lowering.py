"""What a plan runs for an ATen op, where that can skip the op's public function.

A plan (``replay.py``) runs with autograd off, on inputs whose checks already passed when the graph was
traced at these shapes. For the ops a training step repeats most, the public function's argument checks,
dispatch and dtype cases cost more than the numpy work; a lowering goes straight to the array step the op
itself computes with, behind a guard for the common case, and calls the op otherwise::

    aten.t        a view of x._data.T            (a 2-d transpose; other ranks: the op)
    aten.addmm    linear's _addmm(x, W, b)       (what F.linear runs eagerly for x @ W.t() + b)
    aten.mm       matmul's _np_matmul(a, b)      (what mm runs)

Some backward operators recompute what their forward's node keeps (``gelu_backward`` GELU's erf, the flash
attention backward its weights), as PyTorch's kernels do. Eager tinytorch reuses the kept arrays instead, so a
plan does the same: ``keep_forward_state`` pairs each such backward node with its forward node in the joint graph
and replaces both, the forward by one that also returns its node (``*_kept``), the backward by one that runs that
node's array backward; the node becomes a saved value of the plans. The same steps as eager, nothing recomputed.

The array steps are read from their modules at each call (``matmul._np_matmul``), so a CPU path registered
onto them (``tinytorch/_cpu``), or the reference under ``TINYTORCH_REFERENCE=1``, is the one that runs, as
in the eager op. Each lowering gives its op's floats bit for bit; ``tests/compile/test_compile_plans.py``
holds them to the ops on random inputs."""
from __future__ import annotations

import operator as _operator

import numpy as np

from .._op_namespace import ops
from .._ops.linalg import matmul as _matmul
from .._ops.nn import activation as _activation, attention as _attention_ops, linear as _linear
from ..autograd.grad_mode import enable_grad
from ..tensor import _make, _view_of

__all__ = ["LOWERINGS", "lowering", "keep_forward_state"]

LOWERINGS: dict = {}  # "aten.<op>.<overload>" -> a function of the node's arguments


def lowering(*names: str):
    def register(fn):
        for name in names:
            LOWERINGS[name] = fn
        return fn
    return register


_REAL = (np.dtype(np.float32), np.dtype(np.float64))


def _fallback(target):
    return target._packet._fn


@lowering("aten.t.default")
def _t(x):
    a = x._data
    if a.ndim == 2:
        return _view_of(x, a.T)
    return _T(x)


@lowering("aten.detach.default")
def _detach(x):
    return _make(x._data)


@lowering("aten.view.default", "aten._unsafe_view.default")
def _view(x, size):
    a = x._data
    if a.flags.c_contiguous:  # a row-major array reshapes to any size of its count as a view
        return _view_of(x, a.reshape(size))
    return _VIEW(x, size)


@lowering("aten.mm.default")
def _mm(a, b):
    ad, bd = a._data, b._data
    if ad.ndim == 2 and bd.ndim == 2 and ad.dtype in _REAL and bd.dtype == ad.dtype:
        return _make(np.asarray(_matmul._np_matmul(ad, bd, a._requires_grad, b._requires_grad)))
    return _MM(a, b)


@lowering("aten.addmm.default")
def _addmm(bias, x, wt, *, beta=1, alpha=1):
    b, xd, w = bias._data, x._data, wt._data.T
    if (beta == 1 and alpha == 1 and xd.ndim == 2 and w.ndim == 2 and b.ndim == 1 and xd.dtype in _REAL
            and w.dtype == xd.dtype == b.dtype and w.flags.c_contiguous):
        return _make(_linear._addmm(xd, w, b))
    return _ADDMM(bias, x, wt, beta=beta, alpha=alpha)


@lowering("aten.relu.default")
def _relu(x):
    return _make(_activation._relu(x._data))


@lowering("aten.threshold_backward.default")
def _threshold_backward(g, y, threshold):
    gd, yd = g._data, y._data
    if threshold == 0 and gd.dtype in _REAL and yd.dtype == gd.dtype:
        return _make(_activation._threshold_backward_array(gd, yd))
    return _THRESHOLD_BACKWARD(g, y, threshold)


# -- forward state kept for the backward ------------------------------------------------------------------
def _gelu_kept(x, approximate="none"):
    """gelu(x) and its autograd node (which keeps erf and oneDNN's exp(-x^2 / 2) for the backward)."""
    with enable_grad():
        out = _GELU(x.detach().requires_grad_(), approximate=approximate)
    return out.detach(), out.grad_fn


def _gelu_backward_kept(g, x, node):
    return node.backward(g)[0]


def _flash_kept(q, k, v, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None):
    """The flash attention's (output, log-sum-exp) and its autograd node (which keeps the weights)."""
    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    lse: list = []
    with enable_grad():
        out = _attention_ops._attention(*leaves, attn_mask, dropout_p, is_causal, scale, False, lse)
    return out.detach(), _make(lse[0]), out.grad_fn


def _flash_backward_kept(g, q, k, v, mask, node):
    return node._array_backward(g._data, q._data, k._data, v._data, mask, [True] * 3)[:3]


# backward operator: (its forward operator, the forward that keeps its node, the backward from it, the forward
# node's argument the backward also reads at the same position (the input(s) pairing them), result count)
_PAIRS = {
    "aten.gelu_backward.default": ("aten.gelu.default", _gelu_kept, _gelu_backward_kept, (1,), 1),
    "aten._scaled_dot_product_flash_attention_for_cpu_backward.default": (
        "aten._scaled_dot_product_flash_attention_for_cpu.default", _flash_kept, _flash_backward_kept, (1, 2, 3), 2),
}


def keep_forward_state(graph) -> None:
    """Pair each backward operator of ``_PAIRS`` with the forward node it differentiates (the same inputs, the
    same arguments otherwise) and rewrite both to keep and reuse the forward's autograd node."""
    for bw in list(graph.nodes):
        pair = _PAIRS.get(str(bw.target)) if bw.op == "call_function" else None
        if pair is None:
            continue
        fwd_name, kept, backward, positions, n_results = pair
        inputs = [bw.args[i] for i in positions]
        fwd = next((n for n in inputs[0].users if n.op == "call_function" and str(n.target) == fwd_name
                    and list(n.args[:len(inputs)]) == inputs and _same_options(n, bw, fwd_name)), None)
        if fwd is None:
            continue
        with graph.inserting_after(fwd):
            both = graph.call_function(kept, fwd.args, dict(fwd.kwargs))
        with graph.inserting_after(both):
            results = [graph.call_function(_operator.getitem, (both, i)) for i in range(n_results + 1)]
        node = results[-1]
        if n_results == 1:
            fwd.replace_all_uses_with(results[0])
        else:
            for user in list(fwd.users):  # the getitems of the forward's results
                if user.op == "call_function" and user.target is _operator.getitem:
                    user.replace_all_uses_with(results[user.args[1]])
                    graph.erase_node(user)
        graph.erase_node(fwd)
        with graph.inserting_after(bw):
            if fwd_name.startswith("aten.gelu"):
                new = graph.call_function(backward, (bw.args[0], inputs[0], node))
            else:
                new = graph.call_function(backward, (bw.args[0], *inputs, bw.kwargs.get("attn_mask"), node))
        if n_results == 1:
            bw.replace_all_uses_with(new)
        else:
            for user in list(bw.users):
                if user.op == "call_function" and user.target is _operator.getitem:
                    with graph.inserting_after(new):
                        item = graph.call_function(_operator.getitem, (new, user.args[1]))
                    user.replace_all_uses_with(item)
                    graph.erase_node(user)
        graph.erase_node(bw)


def _same_options(fwd, bw, fwd_name: str) -> bool:
    if fwd_name.startswith("aten.gelu"):
        return fwd.kwargs.get("approximate", "none") == bw.kwargs.get("approximate", "none")
    return (list(fwd.args[3:5]) == list(bw.args[6:8]) and fwd.kwargs.get("attn_mask") is bw.kwargs.get("attn_mask")
            and fwd.kwargs.get("scale") == bw.kwargs.get("scale"))


def _op(name: str):
    packet, overload = name.split(".")[1:]
    return getattr(getattr(ops.aten, packet), overload)._packet._fn


_T, _VIEW, _MM, _ADDMM, _THRESHOLD_BACKWARD, _GELU = (_op(n) for n in (
    "aten.t.default", "aten.view.default", "aten.mm.default", "aten.addmm.default", "aten.threshold_backward.default",
    "aten.gelu.default"))
