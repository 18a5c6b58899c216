"""Recurrent layers as fused graph nodes: one node per layer and direction, as PyTorch's CPU kernels.

A layer runs on a "packed" view of its input: rows ``x[off[t]:off[t] + bs[t]]`` are time step ``t``
for the first ``bs[t]`` sequences (a padded (T, B, I) input is the case ``bs = [B] * T``). The forward
runs the step cells composed of tinytorch ops (``_ops/nn/rnn_cells.py``, the formula) on the layer's arrays,
and the node's backward recomputes the layer through them and differentiates that, so gradients of any order
exist. ``tinytorch/_cpu/rnn.py`` binds PyTorch's CPU kernels onto the two steps (``_layer_arrays``,
``_layer_grads``): one GEMM for the input projection of every step, the time loop in numpy keeping the
activated gates, the backward's time loop in reverse on arrays (``_kernels/lstm.py``, ``_kernels/rnn_gru.py``),
with PyTorch's order of the biases and oneDNN's exp for a float32 LSTM.

Gate layouts are PyTorch's: LSTM (i, f, g, o), GRU (r, z, n), weights (gates * H, in)."""
from __future__ import annotations

import functools
import mmap

import numpy as np

from ... import _dtype
from ..._meta_array import MetaArray
from ..._quiet_fp import loud, quiet
from ...autograd.grad_mode import _State, enable_grad, no_grad
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.record import OUT, record
from ..creation.factory import zeros
from .._core.registry import aten_only
from .rnn_cells import layer_by_ops
from ...autograd.engine import grad


class _RnnLayerNode(Node):
    """One recurrent layer in one direction. Outputs: the sequence, the last h (and the last c)."""

    cache = None

    def backward(self, g_out, g_h=None, g_c=None):
        if not _State.enabled and _State.array_backward:
            return _layer_grads(self, g_out, g_h, g_c)
        return self._backward_by_ops(g_out, g_h, g_c)

    def _backward_by_ops(self, g_out, g_h, g_c, create_graph: bool = True):
        """Recompute the layer from tinytorch ops and differentiate it (``create_graph``: a graph of the
        gradient)."""
        saved = self._unpacked_saved[:8]
        with enable_grad():
            outs = layer_by_ops(self.mode, saved[0], self.bs, *saved[1:], self.reverse)
        pairs = [(o, g) for o, g in zip(outs, (g_out, g_h, g_c)) if o is not None and g is not None]
        wanted = [i for i, t in enumerate(saved) if t is not None and self.need[i]]
        got = grad([o for o, _ in pairs], [saved[i] for i in wanted], [g for _, g in pairs],
                   create_graph=create_graph, allow_unused=True)
        result = [None] * 8
        for i, g in zip(wanted, got):
            result[i] = g
        return tuple(result)

    def _release_extra(self):
        self.cache = None


def _layer_grads(node: _RnnLayerNode, g_out, g_h, g_c) -> tuple:
    """The gradients of (input, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr) where no graph of them is wanted: the
    formula (the layer recomputed through the cells), differentiated without a graph. ``tinytorch/_cpu/rnn.py``
    binds the time loop in reverse on arrays, which reuses the gates the forward kept (``node.cache``)."""
    return node._backward_by_ops(g_out, g_h, g_c, create_graph=False)


def _layer_arrays(mode: str, x, bs: list, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse: bool, keep: bool) -> tuple:
    """One layer on arrays (``x`` packed rows, ``bs`` the batch size of each step): (output rows, h_n, c_n or
    None, what the backward reuses or None). Here the formula: the step cells on tensors that record nothing.
    ``tinytorch/_cpu/rnn.py`` binds the time loop on arrays, which keeps the activated gates when ``keep``."""
    def tensor(a):
        return None if a is None else _make(a)
    with no_grad():
        out, h, c = layer_by_ops(mode, _make(x), bs, *(tensor(a) for a in (h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)),
                                 reverse)
    return out._data, h._data, None if c is None else c._data, None


def _layer_option(name: str):
    """A saved argument of PyTorch's ``mkldnn_rnn_layer`` from the module's options (a layer the backward
    operator reruns has none: one layer of one direction, as it runs)."""
    defaults = {"hidden_size": None, "num_layers": 1, "bidirectional": False, "batch_first": False, "train": True}

    def value(node):
        options = node.options or {}
        if name == "hidden_size" and name not in options:
            return node._unpacked_saved[4].shape[1]  # w_hh: (4 * hidden, hidden)
        return options.get(name, defaults[name])
    return value


def _zero_bias(weight_slot: int):
    """PyTorch's LSTM without biases hands oneDNN zeros shaped as the weights (``weight2``, ``weight3``)."""
    return lambda node: zeros(tuple(node._unpacked_saved[weight_slot].shape), dtype=node._unpacked_saved[3].dtype)


class MkldnnRnnLayerBackward0(_RnnLayerNode):
    """PyTorch's oneDNN LSTM layer (``aten.mkldnn_rnn_layer``): its edges in the operator's order (input, weight0
    to weight3 = w_ih, w_hh, b_ih, b_hh, hx_, cx_) and its arguments and results saved under its names; oneDNN's
    workspace (result3) has the size of PyTorch's and reads as zeros (``_workspace``). Saved in tinytorch's layer
    order: (input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, output, h_n, c_n, workspace); pack hooks see them in
    PyTorch's (hx_ and cx_ first; no zero biases where the layer has none)."""
    saved_fields = (("hx_", 1), ("cx_", 2), ("input", 0), ("weight0", 3), ("weight1", 4),
                    ("weight2", (5, _zero_bias(3))), ("weight3", (6, _zero_bias(4))), ("reverse", "reverse"),
                    ("batch_sizes", lambda n: ()), ("mode", lambda n: 2),
                    ("hidden_size", _layer_option("hidden_size")), ("num_layers", _layer_option("num_layers")),
                    ("has_biases", lambda n: n.need_bias), ("bidirectional", _layer_option("bidirectional")),
                    ("batch_first", _layer_option("batch_first")), ("train", _layer_option("train")),
                    ("result0", 8), ("result1", 9), ("result2", 10), ("result3", 11))
    _instance_attrs = ("options", "need_bias")
    options = None

    def backward(self, g_out, g_h=None, g_c=None):
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, _ = super().backward(g_out, g_h, g_c)
        return x, w_ih, w_hh, b_ih, b_hh, h0, c0


_NODE_CLASSES = {"MkldnnRnnLayerBackward0": MkldnnRnnLayerBackward0}


def _node_class(name: str):
    """The layer node under the name PyTorch's CPU build shows for the same output: its oneDNN LSTM
    layer node, or the Stack/Cat of per-step outputs its composite RNN/GRU (and packed) path ends in."""
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        cls = _NODE_CLASSES[name] = type(name, (_RnnLayerNode,), {"__module__": __name__})
    return cls


def rnn_layer(mode: str, input: Tensor, batch_sizes, hx: Tensor, cx, w_ih: Tensor, w_hh: Tensor, b_ih, b_hh,
              w_hr, reverse: bool, node_name: str = "StackBackward0", options: dict | None = None):
    """One layer in one direction: (output, h_n, c_n) with c_n None unless LSTM.

    ``input`` is (T, B, I) with ``batch_sizes`` None, or packed data (N, I) with its batch sizes;
    ``hx``/``cx`` are (B, Hr)/(B, H). ``options``: the module's (hidden_size, num_layers, bidirectional,
    batch_first, train) where the layer is PyTorch's oneDNN LSTM layer, which a graph capture records as the
    one operator ``aten.mkldnn_rnn_layer``."""
    tensors = (input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr)
    need = tuple(t is not None and t._requires_grad for t in tensors)
    recording = _State.enabled and any(need)  # the forward then keeps what the backward reuses
    x = input._data
    if type(x) is MetaArray:  # fake or meta inputs (a graph capture): the outputs' shapes, nothing computed
        shapes = [tuple(x.shape[:-1]) + (hx.shape[-1],), tuple(hx.shape)]
        if mode == "LSTM":
            shapes.append(tuple(cx.shape))
        arrays, bs, cache = [MetaArray(s, x.dtype) for s in shapes], None, None
    else:
        if batch_sizes is None:
            bs = [x.shape[1]] * x.shape[0]
            x2 = x.reshape(-1, x.shape[-1])
        else:
            bs = [int(b) for b in batch_sizes]
            x2 = x
        token = quiet()  # 1 / (1 + exp(-a)): the exp may overflow to inf, whose reciprocal is the right 0
        try:
            out2, h, c, cache = _layer_arrays(mode, x2, bs, *[None if t is None else t._data for t in tensors[1:]],
                                              reverse, recording)
        finally:
            loud(token)
        arrays = [out2.reshape(x.shape[:-1] + (out2.shape[-1],)), h] + ([c] if c is not None else [])
    outs = _layer_node(node_name, arrays, tensors, options, mode=mode, bs=bs, reverse=reverse, need=need, cache=cache)
    return outs if mode == "LSTM" else outs + (None,)


def _layer_node(node_name: str, arrays: list, tensors: tuple, options: dict | None, **fields) -> tuple:
    """One node of the layer's outputs: the sequence, the last h (and the last c). A step by its module-level
    name: a graph capture writes a oneDNN layer down as ``aten.mkldnn_rnn_layer`` there
    (``fx/experimental/_graph_steps.py``)."""
    input, hx, cx, w_ih, w_hh, b_ih, b_hh, _ = tensors
    node_cls = _node_class(node_name)
    if node_cls is MkldnnRnnLayerBackward0:  # PyTorch's operator: its order of edges, its results saved
        # (oneDNN's workspace is made only where the node is: a forward without a graph saves nothing)
        recording = _State.enabled and any(fields["need"])
        saved = tensors + (OUT[0], OUT[1], OUT[2], _workspace(input, w_hh.shape[1])) if recording else ()
        return record(tuple(arrays), node_cls, (input, w_ih, w_hh, b_ih, b_hh, hx, cx), saved, options=options,
                      need_bias=b_ih is not None, **fields)
    return record(tuple(arrays), node_cls, tensors, tensors, **fields)


def _workspace(input: Tensor, hidden: int) -> Tensor:
    """oneDNN's workspace (what its backward reads of the forward) for the layer on ``input`` (T, B, I): a byte
    tensor of the size PyTorch's oneDNN makes, read as zeros. tinytorch's node keeps what its backward needs
    itself (the activated gates), so nothing is written here: the buffer is an anonymous mapping, pages the
    system maps only when written, so it costs next to no memory or time (numpy's zeros would come from the
    heap, which ``_malloc.py`` keeps large blocks in, and clear every byte: 0.5 ms for T = B = 32, H = 128).
    Fake or meta inputs give PyTorch's meta result: empty."""
    if type(input._data) is MetaArray:
        return _make(MetaArray((0,), np.dtype(np.uint8)))
    steps, batch, features = input.shape
    nbytes = onednn_workspace_nbytes(steps, batch, features, hidden, input.element_size())
    return _make(np.frombuffer(mmap.mmap(-1, nbytes), np.uint8) if nbytes else np.zeros(0, np.uint8))


def _onednn_ld(n: int, itemsize: int) -> int:
    """oneDNN's leading dimension for rows of ``n`` elements: whole 64-byte lines, one line more where that
    comes to a multiple of 256 elements (against 4K aliasing)."""
    per_line = 64 // itemsize
    ld = -(-n // per_line) * per_line
    return ld + per_line if ld % 256 == 0 else ld


@functools.lru_cache(maxsize=256)  # a pure function of the layer's sizes, asked once per layer per forward
def onednn_workspace_nbytes(steps: int, batch: int, input_size: int, hidden: int, itemsize: int) -> int:
    """Bytes of oneDNN's training workspace for one LSTM layer in one direction (PyTorch 2.13's oneDNN 3.12,
    as PyTorch runs each layer and direction apart), its elements ``itemsize`` bytes (float32 4, bfloat16 2).

    Seven parts, each starting on a 4096-byte page: the gates of every step (T * B rows of 4H), the hidden
    outputs (T * B rows of H), and five blocks of states, (T + 1) steps for two layers (the input's and this
    one's), B rows each: h states (rows of max(I, H)), c states (rows of H), then for the backward, in
    float32, the gradients of the layer and iteration states (rows of max(I, H)) and of c (rows of H).
    Measured against PyTorch on grids of (T, B, I, H), layers, directions and dtypes: tests/nn/test_nn_rnn.py."""
    rows, widest = 2 * (steps + 1) * batch, max(input_size, hidden)
    parts = (steps * batch * _onednn_ld(4 * hidden, itemsize) * itemsize,
             steps * batch * _onednn_ld(hidden, itemsize) * itemsize,
             rows * _onednn_ld(widest, itemsize) * itemsize,
             rows * hidden * itemsize,
             rows * _onednn_ld(widest, 4) * 4,
             rows * _onednn_ld(widest, 4) * 4,
             rows * hidden * 4)
    page = 4096
    return sum(-(-part // page) * page for part in parts)


def layer_options(hidden_size, num_layers, bidirectional, batch_first, train) -> dict:
    return {"hidden_size": hidden_size, "num_layers": num_layers, "bidirectional": bidirectional,
            "batch_first": batch_first, "train": train}


def _check_onednn_dtype(dtype) -> None:
    """PyTorch's oneDNN LSTM runs float32 and bfloat16 (this build's CPU has no float16 LSTM); other dtypes are
    PyTorch's errors (the workspace's size is known for those two only)."""
    if dtype in (_dtype.float32, _dtype.bfloat16):
        return
    if dtype == _dtype.float16:
        raise RuntimeError("could not create a primitive descriptor for the LSTM forward propagation primitive. "
                           "Run workload with environment variable ONEDNN_VERBOSE=all to get additional diagnostic "
                           "information.")
    if dtype in (_dtype.int8, _dtype.uint8):
        raise RuntimeError("itensor_view_from_dense expects float, bfloat16 or half tensor input")
    raise RuntimeError("get_mkldnn_dtype: unsupported data type")


@aten_only("mkldnn_rnn_layer")
def mkldnn_rnn_layer(input: Tensor, weight0: Tensor, weight1: Tensor, weight2: Tensor, weight3: Tensor, hx_: Tensor,
                     cx_: Tensor, reverse: bool, batch_sizes, mode: int, hidden_size: int, num_layers: int,
                     has_biases: bool, bidirectional: bool, batch_first: bool, train: bool) -> tuple:
    """``torch.ops.aten.mkldnn_rnn_layer``: one direction of one LSTM layer (``mode`` 2) on a sequence-first
    (T, B, I) input, as PyTorch's CPU LSTM calls it: (output, h_n, c_n, workspace)."""
    if mode != 2 or batch_sizes:
        raise NotImplementedError("mkldnn_rnn_layer: tinytorch runs the LSTM mode (2) on padded input")
    if type(input._data) is not MetaArray:  # (PyTorch's meta function checks no dtype)
        _check_onednn_dtype(input.dtype)
    options = layer_options(hidden_size, num_layers, bidirectional, batch_first, train)
    if not has_biases:
        options["no_bias"] = (weight2, weight3)
    out, h, c = rnn_layer("LSTM", input, None, hx_, cx_, weight0, weight1, weight2 if has_biases else None,
                          weight3 if has_biases else None, None, reverse, "MkldnnRnnLayerBackward0", options)
    return out, h, c, _workspace(input, weight1.shape[1])


@aten_only("mkldnn_rnn_layer_backward", recorded=True)
def mkldnn_rnn_layer_backward(input: Tensor, weight1: Tensor, weight2: Tensor, weight3: Tensor, weight4: Tensor,
                              hx_: Tensor, cx_tmp: Tensor, output: Tensor, hy_: Tensor, cy_: Tensor, grad_output,
                              grad_hy, grad_cy, reverse: bool, mode: int, hidden_size: int, num_layers: int,
                              has_biases: bool, train: bool, bidirectional: bool, batch_sizes, batch_first: bool,
                              workspace: Tensor) -> tuple:
    """``torch.ops.aten.mkldnn_rnn_layer_backward``: the gradients of (input, w_ih, w_hh, b_ih, b_hh, hx, cx).
    The layer runs again (as the node that PyTorch's kernel reads its workspace from) and its time loop on arrays
    gives them: the floats of the forward's own node."""
    leaves = [t.detach().requires_grad_() for t in (input, hx_, cx_tmp, weight1, weight2)]
    biases = [t.detach().requires_grad_() for t in (weight3, weight4)] if has_biases else [None, None]
    with enable_grad():
        out, _, _ = rnn_layer("LSTM", leaves[0], None, leaves[1], leaves[2], leaves[3], leaves[4], *biases, None,
                              reverse, "MkldnnRnnLayerBackward0")
    node = out.grad_fn
    if type(input._data) is MetaArray:  # meta inputs: the gradients' shapes
        g = [_make(MetaArray(tuple(t.shape), t._data.dtype)) for t in (input, hx_, cx_tmp, weight1, weight2)]
        gb = [_make(MetaArray(tuple(t.shape), t._data.dtype)) for t in (weight3, weight4)]
    else:
        with no_grad():
            g = _layer_grads(node, grad_output, grad_hy, grad_cy)
        gb = [g[5], g[6]] if has_biases else [_make(np.zeros_like(weight3._data)), _make(np.zeros_like(weight4._data))]
        g = g[:5]
    return g[0], g[3], g[4], gb[0], gb[1], g[1], g[2]
