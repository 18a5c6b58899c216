"""Recurrent layers as fused graph nodes: one node per layer and direction, as PyTorch's CPU kernels.

A layer runs on a "packed" view of its input: rows ``x[off[t]:off[t] + bs[t]]`` are time step ``t``
for the first ``bs[t]`` sequences (a padded (T, B, I) input is the case ``bs = [B] * T``). The forward
makes one GEMM for the input projection of every step, then loops over time in numpy, keeping the
activated gates. The node's backward runs the time loop in reverse on arrays (the loops are kernels:
``_kernels/lstm.py`` and ``_kernels/rnn_gru.py``); when a graph of the gradient is wanted
(``create_graph=True``) it instead recomputes the layer through the step cells composed of tinytorch ops
(``_ops/nn/rnn_cells.py``, the formula) and differentiates that, so gradients of any order exist.

Gate layouts are PyTorch's: LSTM (i, f, g, o), GRU (r, z, n), weights (gates * H, in)."""
from __future__ import annotations

import numpy as np

from ..._quiet_fp import loud, quiet
from ...autograd.grad_mode import _State
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.record import record
from .rnn_cells import layer_by_ops
from .._kernels.lstm import lstm_backward, lstm_forward
from .._kernels.rnn_gru import layer_backward, layer_forward
from ...autograd.engine import grad


class _RnnLayerNode(Node):
    """One recurrent layer in one direction. Outputs: the sequence, the last h (and the last c)."""

    cache = None

    def backward(self, g_out, g_h=None, g_c=None):
        if not _State.enabled and _State.array_backward:
            g_out, g_h, g_c = [None if g is None else g._data for g in (g_out, g_h, g_c)]
            if self.mode == "LSTM":
                x, h0, c0, w_ih, w_hh, _, _, w_hr = (None if t is None else t._data for t in self._unpacked_saved)
                grads = lstm_backward(self, x, h0, c0, w_ih, w_hh, w_hr, g_out, g_h, g_c)
            else:
                grads = layer_backward(self.mode, self, g_out, g_h)
            return tuple(None if g is None else _make(g) for g in grads)
        return self._backward_by_ops(g_out, g_h, g_c)

    def _backward_by_ops(self, g_out, g_h, g_c):
        """Recompute the layer from tinytorch ops and differentiate it: a graph of the gradient."""
        saved = self._unpacked_saved
        outs = layer_by_ops(self.mode, saved[0], self.bs, *saved[1:], self.reverse)
        pairs = [(o, g) for o, g in zip(outs, (g_out, g_h, g_c)) if o is not None and g is not None]
        wanted = [i for i, t in enumerate(saved) if t is not None and self.need[i]]
        got = grad([o for o, _ in pairs], [saved[i] for i in wanted], [g for _, g in pairs],
                   create_graph=True, allow_unused=True)
        result = [None] * 8
        for i, g in zip(wanted, got):
            result[i] = g
        return tuple(result)

    def _release_extra(self):
        self.cache = None


_NODE_CLASSES = {}


def _node_class(name: str):
    """The layer node under the name PyTorch's CPU build shows for the same output: its oneDNN LSTM
    layer node, or the Stack/Cat of per-step outputs its composite RNN/GRU (and packed) path ends in."""
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        cls = _NODE_CLASSES[name] = type(name, (_RnnLayerNode,), {"__module__": __name__})
    return cls


def rnn_layer(mode: str, input: Tensor, batch_sizes, hx: Tensor, cx, w_ih: Tensor, w_hh: Tensor, b_ih, b_hh,
              w_hr, reverse: bool, node_name: str = "StackBackward0"):
    """One layer in one direction: (output, h_n, c_n) with c_n None unless LSTM.

    ``input`` is (T, B, I) with ``batch_sizes`` None, or packed data (N, I) with its batch sizes;
    ``hx``/``cx`` are (B, Hr)/(B, H)."""
    x = input._data
    if batch_sizes is None:
        bs = [x.shape[1]] * x.shape[0]
        x2 = x.reshape(-1, x.shape[-1])
    else:
        bs = [int(b) for b in batch_sizes]
        x2 = x
    tensors = (input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr)
    need = tuple(t is not None and t._requires_grad for t in tensors)
    recording = _State.enabled and any(need)  # the forward then keeps what the backward reuses
    arrays = [None if t is None else t._data for t in tensors]
    token = quiet()  # 1 / (1 + exp(-a)): the exp may overflow to inf, whose reciprocal is the right 0
    try:
        if mode == "LSTM":
            out2, h, c, cache = lstm_forward(x2, bs, *arrays[1:], reverse, recording,
                                             w_hr is None and x.dtype == np.float32)
        else:
            _, h0, _, w_ih_a, w_hh_a, b_ih_a, b_hh_a, _ = arrays
            out2, h, cache = layer_forward(mode, x2, bs, h0, w_ih_a, w_hh_a, b_ih_a, b_hh_a, reverse, recording)
            c = None
    finally:
        loud(token)
    out = out2.reshape(x.shape[:-1] + (out2.shape[-1],))
    # one node of the layer's outputs: the sequence, the last h (and the last c)
    outs = record((out, h) if c is None else (out, h, c), _node_class(node_name), tensors, tensors, mode=mode, bs=bs,
                  reverse=reverse, need=need, cache=cache)
    return outs if c is not None else outs + (None,)
