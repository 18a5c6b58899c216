"""What a plan runs for an ATen op, where that can skip the op's public function.

A plan (``replay.py``) runs with autograd off, on inputs whose checks already passed when the graph was
traced at these shapes. For the ops a training step repeats most, the public function's argument checks,
dispatch and dtype cases cost more than the numpy work; a lowering goes straight to the array step the op
itself computes with, behind a guard for the common case, and calls the op otherwise::

    aten.t        a view of x._data.T            (a 2-d transpose; other ranks: the op)
    aten.addmm    linear's _addmm(x, W, b)       (what F.linear runs eagerly for x @ W.t() + b)
    aten.mm       matmul's _np_matmul(a, b)      (what mm runs)
    aten.unsqueeze, aten.squeeze.dim   views of x._data with the op's strides
    aten.transpose, aten.permute, aten.select   the same
    aten.tanh, aten.tanh_backward   np.tanh, and the node's formula on the arrays (float32/float64)
    aten.native_batch_norm(_backward)   batch_norm's _train_arrays / _train_backward_arrays (training, (N, C))
    aten.add_.Tensor   a counter's ``add_(1)`` (BatchNorm's num_batches_tracked): the sum written, the version on
    aten.sum.dim_IntList   sum's own steps for float32/float64 in its dtype below the size split across threads

Some backward operators recompute what their forward's node keeps (``gelu_backward`` GELU's erf, the flash
attention backward its weights) or read a result the eager node keeps in another form (max pooling's argmax
positions), as PyTorch's kernels do. Eager tinytorch reuses the kept arrays instead, so a
plan does the same: ``keep_forward_state`` pairs each such backward node with its forward node in the joint graph
and replaces both, the forward by one that also returns its node (``*_kept``), the backward by one that runs that
node's array backward; the node becomes a saved value of the plans. The same steps as eager, nothing recomputed.
``keep_cross_entropy`` does the same for a cross-entropy, which the joint graph holds as four operators (log-softmax
and nll_loss, forward and backward): eager's fused loss and its nodes run instead.

The array steps are read from their modules at each call (``matmul._np_matmul``), so a CPU path registered
onto them (``tinytorch/_cpu``), or the reference under ``TINYTORCH_REFERENCE=1``, is the one that runs, as
in the eager op. Each lowering gives its op's floats bit for bit; ``tests/compile/test_compile_plans.py``
holds them to the ops on random inputs."""
from __future__ import annotations

import operator as _operator

import numpy as np

from .._op_namespace import ops
from .._ops.linalg import matmul as _matmul
from .._ops.nn import (activation as _activation, attention as _attention_ops, batch_norm as _batch_norm,
                      linear as _linear, loss_nll as _loss_nll, pool as _pool_ops, rnn as _rnn_ops)
from .._ops._core.layout import laid_in_format, suggested_of
from .._ops._core.util import normalize_dims
from .._ops.reduce import reduce as _reduce
from .._ops.shape import shape as _shape
from .._ops._kernels.parallel import SPLIT_FROM as _SPLIT_FROM
from .._quiet_fp import silent
from ..autograd.grad_mode import NO_VERSION, enable_grad, version_counter
from ..tensor import _make, _view_of

__all__ = ["LOWERINGS", "lowering", "keep_cross_entropy", "keep_forward_state", "skip_renames"]

LOWERINGS: dict = {}  # "aten.<op>.<overload>" -> a function of the node's arguments


def lowering(*names: str):
    def register(fn):
        for name in names:
            LOWERINGS[name] = fn
        return fn
    return register


_REAL = (np.dtype(np.float32), np.dtype(np.float64))
_INT64 = np.dtype(np.int64)


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


@lowering("aten.unsqueeze.default")
def _unsqueeze(x, dim):
    a = x._data
    if -a.ndim - 1 <= dim <= a.ndim:
        return _view_of(x, _shape.unsqueezed(a, dim + a.ndim + 1 if dim < 0 else dim))
    return _UNSQUEEZE(x, dim)


@lowering("aten.squeeze.dim")
def _squeeze_dim(x, dim):
    a = x._data
    if a.ndim and -a.ndim <= dim < a.ndim:
        d = dim % a.ndim
        return _view_of(x, a.squeeze(d) if a.shape[d] == 1 else a.view())
    return _SQUEEZE(x, dim)


@lowering("aten.transpose.int")
def _transpose(x, dim0, dim1):
    a = x._data
    if a.ndim and -a.ndim <= dim0 < a.ndim and -a.ndim <= dim1 < a.ndim:
        return _view_of(x, a.swapaxes(dim0, dim1))
    return _TRANSPOSE(x, dim0, dim1)


@lowering("aten.permute.default")
def _permute(x, dims):
    a = x._data
    order = [d % a.ndim for d in dims] if a.ndim and all(-a.ndim <= d < a.ndim for d in dims) else None
    if order is not None and len(order) == a.ndim and len(set(order)) == a.ndim:
        return _view_of(x, a.transpose(order))
    return _PERMUTE(x, dims)


@lowering("aten.select.int")
def _select(x, dim, index):
    a = x._data
    if a.ndim and -a.ndim <= dim < a.ndim and -a.shape[dim] <= index < a.shape[dim]:
        return _view_of(x, a[(slice(None),) * (dim % a.ndim) + (index,)])
    return _SELECT(x, dim, index)


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


@lowering("aten.sum.dim_IntList")
@silent  # (as the op's: inf + -inf is NaN without numpy's warning)
def _sum_dims(x, dim, keepdim=False, *, dtype=None):
    """A float32/float64 sum in its own dtype below the size the op splits across threads: the op's own steps
    for that case, its dims normalised and its array step (a linear layer's bias gradient, ``sum(g, [0], True)``)."""
    a = x._data
    if dtype is None and a.dtype in _REAL and a.size < _SPLIT_FROM:
        return _make(_reduce._sum_result(a, normalize_dims(dim, a.ndim), keepdim, a.dtype))
    return _SUM(x, dim, keepdim, dtype=dtype)


@lowering("aten.relu.default")
def _relu(x):
    return _make(_activation._relu(x._data))


@lowering("aten.threshold_backward.default")
def _threshold_backward(g, y, threshold):
    gd, yd = g._data, y._data
    if threshold == 0 and gd.dtype in _REAL and yd.dtype == gd.dtype:
        return _make(_activation._threshold_backward_array(gd, yd))
    return _THRESHOLD_BACKWARD(g, y, threshold)


@lowering("aten.tanh.default")
def _tanh(x):
    a = x._data
    if a.ndim and a.dtype in _REAL:
        return _make(np.tanh(a))
    return _TANH(x)


@lowering("aten.tanh_backward.default")
def _tanh_backward(g, y):
    gd, yd = g._data, y._data
    if gd.ndim and gd.dtype in _REAL and yd.dtype == gd.dtype and yd.shape == gd.shape:
        return _make(_TANH_NODE.formula(gd, None, yd))
    return _TANH_BACKWARD(g, y)


@lowering("aten.add_.Tensor")
def _add_inplace(x, other, *, alpha=1):
    """A counter's ``+= 1``: an int64 tensor of one element with no views and no history, a small int."""
    a, vc = x._data, x._vc
    if (type(other) is int and alpha == 1 and -(1 << 32) < other < 1 << 32 and a.dtype == _INT64 and a.ndim == 0
            and a.flags.writeable and vc is not NO_VERSION and len(vc) == 1 and not x._requires_grad):
        v = int(a) + other  # (a Python int: a 0-d ufunc call costs ten times more)
        a[()] = v - (1 << 64) if v >= 1 << 63 else v + (1 << 64) if v < -(1 << 63) else v  # int64's wrap
        version_counter(x)[0] += 1
        return x
    return _ADD_INPLACE(x, other, alpha=alpha)


def _channel_params(a, tensors) -> list | None:
    """The arrays of batch norm's weight, bias and running statistics (each None or an (C,) array of the input's
    dtype), or None where one is otherwise."""
    shape, dtype = a.shape[1:2], a.dtype
    arrays = []
    for t in tensors:
        d = None if t is None else t._data
        if d is not None and (d.shape != shape or d.dtype != dtype):
            return None
        arrays.append(d)
    return arrays


@lowering("aten.native_batch_norm.default")
@silent  # (as the op's: a channel of inf or NaN gives NaN statistics without numpy's warnings)
def _native_batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
    a = x._data
    if training and a.ndim == 2 and a.dtype in _REAL and a.shape[0] > 1 and a.shape[1] and eps > 0 and (
            type(momentum) is float):
        arrays = _channel_params(a, (weight, bias, running_mean, running_var))
        if arrays is not None:
            c = a.shape[1]
            out, _, invstd, mean = _batch_norm._train_arrays(a, *arrays, momentum, eps, (0,), (1, c), a.shape[0])
            # laid out as the op lays out its result (the input's suggested memory format: C order at 2-d)
            return (_make(laid_in_format(out, suggested_of(a))), _make(mean.reshape(-1)),
                    _make(invstd.reshape(-1)))
    return _NATIVE_BATCH_NORM(x, weight, bias, running_mean, running_var, training, momentum, eps)


@lowering("aten.native_batch_norm_backward.default")
@silent
def _native_batch_norm_backward(g, x, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
                                output_mask):
    gd, a = g._data, x._data
    if (train and a.ndim == 2 and a.dtype in _REAL and gd.dtype == a.dtype and gd.shape == a.shape and a.shape[1]
            and save_mean is not None and save_invstd is not None):
        arrays = _channel_params(a, (weight, save_mean, save_invstd))
        if arrays is not None:
            c = a.shape[1]
            grads = _batch_norm._train_backward_arrays(gd, a - arrays[1].reshape(1, c), arrays[2].reshape(1, c),
                                                       arrays[0], a.shape[0], (1, c), (0,),
                                                       tuple(bool(m) for m in output_mask))
            return tuple(None if t is None else _make(t) for t in grads)
    return _NATIVE_BATCH_NORM_BACKWARD(g, x, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
                                       output_mask)


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
    # (a row every key of which is masked takes the math path, which computes no log-sum-exp: only the kept
    # backward reads this value, and it reads the node)
    return out.detach(), _make(lse[0]) if lse else None, out.grad_fn


def _flash_backward_kept(g, q, k, v, mask, node):
    return _attention_ops._grads_without_graph(node, g, q, k, v, mask, [True] * 3)[:3]


def _max_pool_kept(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False, indices_used=True):
    """max_pool2d's (values, argmax positions or None where only the backward read them) and its autograd node
    (which keeps the positions in the whole input)."""
    with enable_grad():
        out = _MAX_POOL2D(x.detach().requires_grad_(), kernel_size, stride or None, padding, dilation, ceil_mode)
    node = out.grad_fn
    return out.detach(), _pool_ops._result1(node) if indices_used else None, node


def _node_backward(g, node):
    return node.backward(g)[0]


def _lstm_kept(input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse, batch_sizes, mode, hidden_size, num_layers,
               has_biases, bidirectional, batch_first, train, needs=(True,) * 7):
    """The oneDNN LSTM layer's (output, h_n, c_n, workspace) and its autograd node (which keeps the activated
    gates), its inputs marked for the gradients the backward operator's users read (``needs``, in that
    operator's order: input, w_ih, w_hh, b_ih, b_hh, hx, cx)."""
    order = (input, w_ih, w_hh, b_ih, b_hh, hx, cx)
    leaves = [t.detach().requires_grad_(bool(n)) for t, n in zip(order, needs)]
    with enable_grad():
        out = _MKLDNN_RNN_LAYER(leaves[0], *leaves[1:5], leaves[5], leaves[6], reverse, batch_sizes, mode,
                                hidden_size, num_layers, has_biases, bidirectional, batch_first, train)
    node = out[0].grad_fn
    return (*(t.detach() for t in out), node)


def _lstm_backward_kept(g_out, g_h, g_c, node):
    """The layer's gradients by its node's time loop, in the backward operator's order."""
    g_x, g_h0, g_c0, g_wih, g_whh, g_bih, g_bhh, _ = _rnn_ops._layer_grads(node, g_out, g_h, g_c)
    return g_x, g_wih, g_whh, g_bih, g_bhh, g_h0, g_c0


def _used_items(node, n: int) -> tuple:
    """Which of a node's ``n`` results its users read (its getitems' indices)."""
    used = {u.args[1] for u in node.users if u.target is _operator.getitem and u.users}
    return tuple(i in used for i in range(n))


def _args(node, n: int, defaults: tuple) -> list:
    """A recorded call's first ``n`` positional arguments, the ones its printed form left out as defaults
    filled in from ``defaults`` (for the positions past the given ones)."""
    given = list(node.args[:n])
    return given + list(defaults[len(given) - (n - len(defaults)):]) if len(given) < n else given


class _Pair:
    """A backward operator, the forward operator it differentiates, and how to rewrite both: ``match(fwd, bw)``
    (the same inputs and options), ``kept`` (the forward that also returns its node, called with the forward's
    arguments and ``extra(fwd, bw)``), ``backward`` (called with ``bw_args(bw)`` and the node)."""

    def __init__(self, fwd: str, kept, backward, match, bw_args, results: int, extra=lambda fwd, bw: {}):
        self.fwd, self.kept, self.backward, self.match, self.bw_args = fwd, kept, backward, match, bw_args
        self.results, self.extra = results, extra


_PAIRS = {
    "aten.gelu_backward.default": _Pair(
        "aten.gelu.default", _gelu_kept, _node_backward,
        lambda f, b: f.args[0] is b.args[1] and f.kwargs.get("approximate", "none") == b.kwargs.get(
            "approximate", "none"),
        lambda b: (b.args[0],), 1),
    "aten._scaled_dot_product_flash_attention_for_cpu_backward.default": _Pair(
        "aten._scaled_dot_product_flash_attention_for_cpu.default", _flash_kept, _flash_backward_kept,
        lambda f, b: list(f.args[:3]) == list(b.args[1:4]) and _args(f, 5, (0.0, False)) [3:] == list(b.args[6:8])
        and f.kwargs.get("attn_mask") is b.kwargs.get("attn_mask") and f.kwargs.get("scale") == b.kwargs.get("scale"),
        lambda b: (b.args[0], *b.args[1:4], b.kwargs.get("attn_mask")), 2),
    "aten.max_pool2d_with_indices_backward.default": _Pair(
        "aten.max_pool2d_with_indices.default", _max_pool_kept, _node_backward,
        lambda f, b: f.args[0] is b.args[1] and _args(f, 6, ([], [0, 0], [1, 1], False))[1:] == [
            list(v) if isinstance(v, (list, tuple)) else v for v in b.args[2:7]],
        lambda b: (b.args[0],), 2,
        lambda f, b: {"indices_used": any(u is not b for u in getattr(_item(f, 1), "users", ()))}),
    "aten.mkldnn_rnn_layer_backward.default": _Pair(
        "aten.mkldnn_rnn_layer.default", _lstm_kept, _lstm_backward_kept,
        lambda f, b: list(f.args[:7]) == list(b.args[:7]) and f.args[7] == b.args[13] and b.args[22] is _item(f, 3),
        lambda b: tuple(b.args[10:13]), 4,
        lambda f, b: {"needs": _used_items(b, 7)}),
}


def _item(node, i: int):
    """``node[i]``'s getitem node, or None."""
    return next((u for u in node.users if u.target is _operator.getitem and u.args[1] == i), None)


def keep_forward_state(graph) -> None:
    """Pair each backward operator of ``_PAIRS`` with the forward node it differentiates (the same inputs, the
    same arguments otherwise) and rewrite both to keep and reuse the forward's autograd node."""
    for bw in list(graph.nodes):
        pair = _PAIRS.get(str(bw.target)) if bw.op == "call_function" else None
        if pair is None:
            continue
        fwd = next((n for n in graph.nodes if n.op == "call_function" and str(n.target) == pair.fwd
                    and pair.match(n, bw)), None)
        if fwd is None:
            continue
        with graph.inserting_after(fwd):
            both = graph.call_function(pair.kept, fwd.args, {**fwd.kwargs, **pair.extra(fwd, bw)})
        with graph.inserting_after(both):
            results = [graph.call_function(_operator.getitem, (both, i)) for i in range(pair.results + 1)]
        _replace_results(graph, fwd, results[:-1])
        with graph.inserting_after(bw):
            new = graph.call_function(pair.backward, (*pair.bw_args(bw), results[-1]))
        items = [u.args[1] for u in bw.users if u.op == "call_function" and u.target is _operator.getitem]
        if isinstance(bw.meta.get("val"), (list, tuple)) or items:
            _replace_results(graph, bw, [None] * (max(items, default=-1) + 1), new)
        else:
            bw.replace_all_uses_with(new)
            graph.erase_node(bw)


# -- cross-entropy: the eager loss and its two nodes, for the four operators of its decomposition ------------------
def _cross_entropy_kept(x, target, weight, reduction, ignore_index):
    """``cross_entropy(x, target)``'s loss and its autograd node (``NllLossBackward0``, whose one edge leads to
    the ``LogSoftmaxBackward0`` node): the fused path eager tinytorch runs for ``nn.CrossEntropyLoss``."""
    with enable_grad():
        out = _loss_nll.cross_entropy(x.detach().requires_grad_(), target, weight, ignore_index=ignore_index,
                                      reduction=("none", "mean", "sum")[reduction])
    return out.detach(), out.grad_fn


def _cross_entropy_backward_kept(g, node):
    """The logits' gradient as the engine makes it from ``g``: the loss node's backward, then log-softmax's."""
    return node.next_functions[0][0].backward(node.backward(g)[0])[0]


def keep_cross_entropy(graph) -> None:
    """Rewrite each cross-entropy the joint graph holds as its decomposition (``_log_softmax`` over the classes,
    ``nll_loss_forward``; in the backward ``nll_loss_backward``, ``_log_softmax_backward_data``), where nothing
    else reads the log-probabilities or the total weight, into eager's fused loss, keeping its node for the
    backward: two calls instead of four, the same floats (those four operators are eager's cross-entropy, step
    by step)."""
    for lsm_bw in list(graph.nodes):
        if lsm_bw.op != "call_function" or str(lsm_bw.target) != "aten._log_softmax_backward_data.default":
            continue
        nll_bw, lsm = lsm_bw.args[0], lsm_bw.args[1]
        if (_target(nll_bw) != "aten.nll_loss_backward.default" or _target(lsm) != "aten._log_softmax.default"
                or len(nll_bw.users) != 1 or nll_bw.args[1] is not lsm or lsm_bw.args[2] != 1
                or list(lsm.args[1:]) != [1, False] or lsm.kwargs or nll_bw.kwargs
                or getattr(lsm.meta.get("val"), "ndim", None) != 2):
            continue
        total = nll_bw.args[6]
        fwd = total.args[0] if total.target is _operator.getitem and total.args[1] == 1 else None
        if (_target(fwd) != "aten.nll_loss_forward.default" or fwd.args[0] is not lsm or fwd.kwargs
                or list(fwd.args[1:5]) != list(nll_bw.args[2:6]) or set(total.users) != {nll_bw}
                or set(lsm.users) != {fwd, nll_bw, lsm_bw}):
            continue
        with graph.inserting_after(fwd):
            both = graph.call_function(_cross_entropy_kept, (lsm.args[0], *fwd.args[1:5]))
        with graph.inserting_after(both):
            loss, node = (graph.call_function(_operator.getitem, (both, i)) for i in range(2))
        with graph.inserting_after(lsm_bw):
            grad = graph.call_function(_cross_entropy_backward_kept, (nll_bw.args[0], node))
        lsm_bw.replace_all_uses_with(grad)
        for user in list(fwd.users):
            if user is not total:
                user.replace_all_uses_with(loss)
                graph.erase_node(user)
        for gone in (lsm_bw, nll_bw, total, fwd, lsm):
            graph.erase_node(gone)


def _target(node) -> str:
    return str(node.target) if getattr(node, "op", None) == "call_function" else ""


_RENAMES = ("aten.detach.default", "aten.t.default")
_UNREAD = frozenset((*_RENAMES, "aten.empty.memory_format", "aten.stack.default", "aten.cat.default",
                     "aten.view.default", "aten._unsafe_view.default", "aten.select.int", "aten.unsqueeze.default"))


def skip_renames(graph) -> None:
    """Drop what only renames a value once autograd is off, as the plans run: ``detach(x)`` is ``x``'s data, and
    ``t(t(x))`` is ``x`` (``t`` takes tensors of two dims or fewer). Their users read the value itself, and the
    nodes left unused go. A value the graph hands out stays a tensor of its own: it is renamed only to a result
    of the graph's own that is handed out nowhere else (a gradient ``t(t(mm))`` is ``mm``). An allocation, a view
    or a stack nothing reads goes too (the reserve buffer PyTorch's graph shows before each batch norm, an LSTM's
    final states stacked for a caller that drops them): ops without effects, whose only work was their result."""
    output = next(n for n in graph.nodes if n.op == "output")
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        name, src = str(node.target), node.args[0] if node.args else None
        if name == "aten.t.default" and getattr(src, "op", None) == "call_function" and str(src.target) == name:
            src = src.args[0]
        elif name != "aten.detach.default":
            continue
        if output in node.users and (getattr(src, "op", None) != "call_function" or output in src.users):
            continue
        node.replace_all_uses_with(src)
    for node in reversed(list(graph.nodes)):
        if node.op == "call_function" and str(node.target) in _UNREAD and not node.users:
            graph.erase_node(node)


def _replace_results(graph, old, results: list, source=None) -> None:
    """``old``'s uses by ``results`` (one result: itself; several: each of its getitems by the one of that
    index, made from ``source`` where ``results`` holds None), then ``old`` erased."""
    if len(results) == 1 and source is None:
        old.replace_all_uses_with(results[0])
    else:
        for user in list(old.users):
            if user.op == "call_function" and user.target is _operator.getitem:
                item = results[user.args[1]]
                if item is None:
                    with graph.inserting_after(source):
                        item = graph.call_function(_operator.getitem, (source, user.args[1]))
                user.replace_all_uses_with(item)
                graph.erase_node(user)
    graph.erase_node(old)


def _op(name: str):
    packet, overload = name.split(".")[1:]
    return getattr(getattr(ops.aten, packet), overload)._packet._fn


_T, _VIEW, _MM, _ADDMM, _THRESHOLD_BACKWARD, _GELU, _UNSQUEEZE, _SQUEEZE = (_op(n) for n in (
    "aten.t.default", "aten.view.default", "aten.mm.default", "aten.addmm.default", "aten.threshold_backward.default",
    "aten.gelu.default", "aten.unsqueeze.default", "aten.squeeze.dim"))
_TRANSPOSE, _PERMUTE, _SELECT = (_op(n) for n in ("aten.transpose.int", "aten.permute.default", "aten.select.int"))
_SUM = _op("aten.sum.dim_IntList")
_TANH, _TANH_BACKWARD, _ADD_INPLACE, _NATIVE_BATCH_NORM, _NATIVE_BATCH_NORM_BACKWARD = (_op(n) for n in (
    "aten.tanh.default", "aten.tanh_backward.default", "aten.add_.Tensor", "aten.native_batch_norm.default",
    "aten.native_batch_norm_backward.default"))
_TANH_NODE = _TANH_BACKWARD.node_cls
_MAX_POOL2D = _pool_ops.max_pool2d
_MKLDNN_RNN_LAYER = _op("aten.mkldnn_rnn_layer.default")
