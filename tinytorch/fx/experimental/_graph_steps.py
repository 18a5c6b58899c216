"""The ops' steps as a graph capture shows them: PyTorch's backward operators, and the views and scatters its
formulas are made of, where tinytorch's nodes compute otherwise.

A node's backward in tinytorch computes its formula on arrays or in whichever tensor ops are clearest; PyTorch's
tracers see the operators its autograd calls: ``aten.gelu_backward`` (one node), ``aten.select_backward`` for each
view step undone, ``new_zeros`` then ``scatter_add`` for gather's adjoint. The op files do not ask whether a capture
runs: what the capture shows instead is registered here onto their node classes and steps
(``_ops/_core/graph_steps.py``), bound while a capture runs and acting only in the thread that records. Each
returns the same values as the op's own backward (the operators it calls run the node's formula), so a captured
program computes what the eager one does, bit for bit."""
from __future__ import annotations

import numpy as np

from ..._ops._core import graph_steps
from ..._ops._core.members import strided
from ..._ops._core.registry import CAPTURE
from ..._ops._core.util import fit_grad
from ..._ops.creation.factory import scalar_tensor, zeros
from ..._ops.index import index as _index, scatter_gather as _scatter_gather
from ..._ops.nn import activation_smooth as _smooth, embedding as _embedding, multihead_attention as _mha
from ..._ops.nn import resize as _resize, rnn as _rnn
from ..._ops.nn.activation import ThresholdBackward0, threshold_backward
from ..._ops.nn.attention import _AttentionBackward, _flash_attention_for_cpu_backward
from ..._ops.nn.batch_norm import NativeBatchNormBackward0, native_batch_norm_backward
from ..._ops.nn.pool import AvgPool2DBackward0, MaxPool2DWithIndicesBackward0, avg_pool2d_backward, \
    max_pool2d_with_indices_backward
from ..._ops.pointwise import inplace as _inplace
from ..._ops.pointwise.clamp import ClampBackward1
from ..._ops.pointwise.compare import MaximumBackward0, where
from ...tensor import Tensor, _make

_INT64_MAX = (1 << 63) - 1


# -- activations: PyTorch's backward operator, one node --------------------------------------------------------
@graph_steps.backward(_smooth.GeluBackward0)
def _gelu(node, g):
    (x,) = node._unpacked_saved
    if node.approximate == "none":
        return (_smooth.gelu_backward(g, x),)
    return (_smooth.gelu_backward(g, x, approximate=node.approximate),)


@graph_steps.backward(_smooth.SiluBackward0)
def _silu(node, g):
    return (_smooth.silu_backward(g, node._unpacked_saved[0]),)


@graph_steps.backward(_smooth.MishBackward0)
def _mish(node, g):
    return (_smooth.mish_backward(g, node._unpacked_saved[0]),)


@graph_steps.step(_smooth, "_elu_node_grad")
def _elu(step, g, saved, alpha, scale, input_scale, is_result):
    """elu's, selu's and celu's nodes (from the input, or from the in-place form's result): ``aten.elu_backward``."""
    return _smooth.elu_backward(g, alpha, scale, input_scale, is_result, saved)


@graph_steps.backward(_smooth.HardswishBackward0)
def _hardswish(node, g):
    return (_smooth.hardswish_backward(g, node._unpacked_saved[0]),)


@graph_steps.backward(_smooth.HardsigmoidBackward0)
def _hardsigmoid(node, g):
    return (_smooth.hardsigmoid_backward(g, node._unpacked_saved[0]),)


@graph_steps.backward(ThresholdBackward0)
def _threshold(node, g):
    """relu's and threshold's nodes (and the in-place forms')."""
    return (threshold_backward(g, node._unpacked_saved[0], node.threshold),)


# -- pointwise: PyTorch's formula as its tracers show it ------------------------------------------------------
@graph_steps.backward(MaximumBackward0)
def _extremum(node, g):
    """maximum and minimum: ties split the gradient, the losing side gets zeros; other's gradient first, as PyTorch's
    generated node computes them, each from its own comparison of self with other."""
    a, b = node._unpacked_saved
    grads = [None, None]
    for i, lose in ((1, node.wins_op), (0, node.loses_op)):
        if node.next_functions[i][0] is not None:
            half = g / 2
            grads[i] = fit_grad(where(a == b, half, g).masked_fill_(getattr(a, lose)(b), 0),
                                (node.a_meta, node.b_meta)[i])
    return tuple(grads)


@graph_steps.backward(ClampBackward1)
def _clamp(node, g):
    """clamp with number bounds (and clamp_min, clamp_max): PyTorch's clamp_backward, one select in tensor ops."""
    (x,) = node._unpacked_saved
    zero = scalar_tensor(0.0, dtype=g.dtype, layout=strided, device=g.device)  # (grad.options())
    keep = None if node.lo is None else x >= node.lo
    if node.hi is not None:
        keep = x <= node.hi if keep is None else keep.logical_and_(x <= node.hi)
    return (where(keep, g, zero),)


# -- indexing --------------------------------------------------------------------------------------------------
@graph_steps.backward(_index._IndexNode)
def _getitem(node, g):
    """A basic key: PyTorch's view steps undone in reverse, each by its own backward (a squeeze for an unsqueeze,
    select_backward, slice_backward; full slices only make an alias, whose gradient is g). A key of integer index
    tensors and full slices: PyTorch's index backward, the gradient added into zeros at the indices. Any other key:
    the node's own backward."""
    if not node.advanced:
        for kind, dim, item, sizes, full in reversed(_index._view_steps(node.key, node.in_shape)):
            if full:
                continue
            if kind == "unsqueeze":
                g = g.squeeze(dim)
            elif kind == "select":
                g = _index.select_backward(g, list(sizes), dim, int(item))
            else:
                g = _index.slice_backward(g, list(sizes), dim, 0 if item.start is None else int(item.start),
                                          _INT64_MAX if item.stop is None else int(item.stop),
                                          1 if item.step is None else int(item.step))
        return (g,)
    indices = _index_tensors(node.__dict__.get("given"))
    if indices is None:
        return None
    zeros_ = g.new_zeros(node.in_shape, dtype=g.dtype, layout=g.layout, device=g.device)
    return (zeros_.index_put(indices, g, True),)


def _index_tensors(given) -> list | None:
    """The indices of a key made of integer index tensors and full slices only (PyTorch's one ``index`` call, no
    view step), as ``index_put`` takes them (None for a full slice, the trailing ones left out); None for others."""
    items = list(given) if type(given) is tuple else [given]

    def integer_index(k) -> bool:
        return isinstance(k, Tensor) and k._data.dtype.kind in "iu" and k._data.dtype != np.uint8 and k.ndim > 0

    if given is None or not all(integer_index(k) or (isinstance(k, slice) and k == slice(None)) for k in items):
        return None
    while items and not isinstance(items[-1], Tensor):
        items.pop()
    return [None if isinstance(k, slice) else k for k in items] or None


@graph_steps.step(_scatter_gather, "_zeros_scatter")
def _zeros_scatter(step, shape, dim, index, src, distinct):
    """gather's adjoint (and max's, sort's, cummax's): ``new_zeros`` then ``scatter_add`` (``scatter`` for the
    distinct positions of a value-selecting reduction), as PyTorch's tracers show them."""
    zeros_ = src.new_zeros(shape)
    return zeros_.scatter(dim, index, src) if distinct else zeros_.scatter_add(dim, index, src)


@graph_steps.step(_inplace, "_on_copy", within_ops=True)
def _inplace_on_copy(step, self, old, op, args, kwargs):
    """An in-place op whose node keeps ``old`` (``self``'s value before the write): PyTorch's graph clones ``self``
    there (``saved_copy``: only for the call being recorded, not an op's own helpers)."""
    res = step(self, old, op, args, kwargs)
    fn = res.grad_fn
    if fn is not None and any(s is old for s in fn._saved):
        CAPTURE[0].saved_copy(self, old)
    return res


@graph_steps.backward(_embedding.EmbeddingBackward0)
def _embedding_backward(node, g):
    (indices,) = node._unpacked_saved
    return (_embedding.embedding_dense_backward(g, indices, node.weight_shape[0],
                                                -1 if node.padding_idx is None else node.padding_idx,
                                                node.flags[0]),)


@graph_steps.step(_embedding, "_by_declaration")
def _embedding_declared(step, input, weight) -> bool:
    """F.embedding without max_norm goes through the declared op, which is what is recorded (``aten.embedding``,
    as PyTorch's tracers show it)."""
    return True


# -- pooling, normalisation, attention: PyTorch's operator on the nodes the capture named ----------------------
@graph_steps.backward(MaxPool2DWithIndicesBackward0)
def _max_pool(node, g):
    """On the argmax positions' node (``graph_indices``: the forward's second result, named by its rule)."""
    positions = getattr(node, "graph_indices", None)
    if positions is None:
        return None
    (x,) = node._unpacked_saved
    k, s, p, d, ceil = node.args
    return (max_pool2d_with_indices_backward(g, x, list(k), [] if s is None else list(s), list(p), list(d), ceil,
                                             positions),)


@graph_steps.backward(AvgPool2DBackward0)
def _avg_pool(node, g):
    if type(node) is not AvgPool2DBackward0 or node.args is None:  # (avg_pool3d's node, the adaptive pools')
        return None
    k, s, p, _, ceil_mode, count_include_pad, divisor_override = node.args
    return (avg_pool2d_backward(g, node._unpacked_saved[0], list(k), [] if s is None else list(s), list(p),
                                ceil_mode, count_include_pad, divisor_override),)


@graph_steps.backward(_resize._UpsampleNode)
def _upsample(node, g):
    """``upsample_<mode>_backward(grad, output_size, input_size, [align_corners,] scales...)``, one node."""
    info = getattr(node, "info", None)
    if info is None or node.mode not in _resize.UPSAMPLE_OPERATORS or info.get("antialias"):
        return None
    args = [g, list(info["output_size"]), list(info["self_sym_sizes"])]
    if "nearest" not in node.mode:
        args.append(info["align_corners"])
    scales = [info[n] for n in _resize._scale_names(node.k)]
    if any(v is not None for v in scales):
        args += scales
    return (_resize._BACKWARD_OPS[_resize.UPSAMPLE_OPERATORS[node.mode].format(node.k) + "_backward"](*args),)


@graph_steps.backward(NativeBatchNormBackward0)
def _batch_norm(node, g):
    """On the statistics' nodes (``graph_stats``: native_batch_norm's results, named by its rule)."""
    stats = getattr(node, "graph_stats", None)
    if stats is None:
        return None
    x, w = node._unpacked_saved
    need = [e[0] is not None for e in node.next_functions]
    return native_batch_norm_backward(g, x, w, *node.running, *stats, bool(node.use_batch_stats), node.eps, need)


@graph_steps.backward(_AttentionBackward)
def _attention(node, g):
    """The flash operators' backward, on the (output, log-sum-exp) its rule recorded (``graph_call``)."""
    call = getattr(node, "graph_call", None)
    if call is None:
        return None
    q, k, v, mask = node._unpacked_saved
    out, lse, is_causal, scale = call
    grads = _flash_attention_for_cpu_backward(g, q, k, v, out, lse, 0.0, is_causal, attn_mask=mask, scale=scale)
    return (*grads, None) if len(node.next_functions) > 3 else grads


@graph_steps.step(_mha, "_split_packed")
def _split_packed(step, proj):
    """The packed projection's three selects keep their own backward (the shared gradient array would hide it)."""
    return proj[0], proj[1], proj[2]


# -- the oneDNN LSTM layer as PyTorch's CPU operators ----------------------------------------------------------
@graph_steps.step(_rnn, "_layer_arrays")
def _layer_arrays(step, *args):
    """A layer's arrays are computed below the ops, as PyTorch's layer kernel computes them: the reference's step
    cells (tensor ops on the arrays) are not the program's, so nothing they run is recorded; the layer is written
    down by ``_layer_node`` (below), one operator whichever path computed it."""
    return CAPTURE[0].unhooked(step, args, {})


@graph_steps.step(_rnn, "_layer_node")
def _lstm_layer(step, node_name, arrays, tensors, options, **fields):
    """A layer of PyTorch's oneDNN LSTM (``options`` given) is written down as ``aten.mkldnn_rnn_layer`` (its
    results: output, h_n, c_n and oneDNN's workspace, empty under a fake or meta trace); its node's backward
    then records ``aten.mkldnn_rnn_layer_backward``."""
    outs = step(node_name, arrays, tensors, options, **fields)
    if options is None:
        return outs
    rec = CAPTURE[0].recording
    input, hx, cx, w_ih, w_hh, b_ih, b_hh, _ = tensors
    has_biases = b_ih is not None
    workspace = _rnn._workspace(input, w_hh.shape[1])
    if has_biases:
        w2, w3 = b_ih, b_hh
    else:  # PyTorch's LSTM hands oneDNN zeros shaped as the weights (made where the layer is)
        w2, w3 = options.get("no_bias") or _no_bias(w_ih, w_hh)
    node = rec.call("mkldnn_rnn_layer.default", input, w_ih, w_hh, w2, w3, hx, cx, fields["reverse"], [], 2,
                    options["hidden_size"], options["num_layers"], has_biases, options["bidirectional"],
                    options["batch_first"], options["train"])
    items = rec.items(node, 4)
    for t, item in zip((*outs, workspace), items):
        rec.bind(t, item)
    fn = outs[0].grad_fn
    if isinstance(fn, _rnn._RnnLayerNode):
        for t, item in zip(outs, items):
            rec.saved_output(t, item)
        fn.graph_call = ((*outs, workspace), (w2, w3), options)
    return outs


def _no_bias(w_ih: Tensor, w_hh: Tensor) -> tuple:
    """Zeros of the weights' shapes, made by the op a capture records (so fake under a fake trace)."""
    z_hh = zeros(tuple(w_hh.shape), dtype=w_hh.dtype)
    return zeros(tuple(w_ih.shape), dtype=w_ih.dtype), z_hh


@graph_steps.backward(_rnn._RnnLayerNode)
def _lstm_layer_backward(node, g_out, g_h=None, g_c=None):
    call = getattr(node, "graph_call", None)
    if call is None:
        return None
    x, h0, c0, w_ih, w_hh, b_ih, b_hh, _ = node._unpacked_saved[:8]
    (out, h, c, workspace), (w2, w3), options = call
    # the outputs as the node's saved values unpack them (the capture shows a detach of their detach)
    saved = [_make(t._data) for t in (out, h, c)]
    grads = _rnn.mkldnn_rnn_layer_backward(
        x, w_ih, w_hh, w2 if b_ih is None else b_ih, w3 if b_hh is None else b_hh, h0, c0, *saved, g_out, g_h,
        g_c, node.reverse, 2, options["hidden_size"], options["num_layers"], b_ih is not None, options["train"],
        options["bidirectional"], [], options["batch_first"], workspace)
    g_x, g_wih, g_whh, g_bih, g_bhh, g_h0, g_c0 = grads
    return g_x, g_h0, g_c0, g_wih, g_whh, g_bih, g_bhh, None
