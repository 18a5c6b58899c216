"""The recurrent layers' CPU paths (``_ops/nn/rnn.py`` runs the step cells, its formula, on tensors): PyTorch's
kernels as time loops on arrays (``_kernels/lstm.py``, ``_kernels/rnn_gru.py``, compiled steps where numba is
in use). The forward makes one GEMM for the input projection of every step and keeps the activated gates; the
backward runs the loop in reverse on them instead of recomputing the layer. The biases are added in PyTorch's
order (oneDNN's float32 LSTM: one bias b_ih + b_hh after both products; the composite cells' (x W_ih + b_ih) +
(h W_hh + b_hh)), and a float32 LSTM without projection takes oneDNN's exp in its sigmoid gates: PyTorch's
floats more often than the cells' order, a few ulps from it."""
from __future__ import annotations

import numpy as np

from .._ops._core import paths
from .._ops._kernels.lstm import lstm_backward, lstm_forward
from .._ops._kernels.rnn_gru import layer_backward, layer_forward
from .._ops.nn import rnn
from ..tensor import _make

_grads_reference = paths.reference_kernel(rnn, "_layer_grads")

# the loops sum the gates' products in another order than the cells (and oneDNN's exp is not numpy's): within
# these ulps of the largest magnitude of the layer's inputs and results (outputs in (-1, 1); gradients summed
# over the steps)
_RNN_ULPS = 64


@paths.kernel(rnn, "_layer_arrays", ulps=_RNN_ULPS, scale="program", when="every layer on real arrays",
              why="speed: one GEMM for the input projection, the time loop on arrays; PyTorch's bias order and "
              "oneDNN's exp (float32 LSTM)")
def layer_arrays(mode, x, bs, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse, keep):
    if mode == "LSTM":
        return lstm_forward(x, bs, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse, keep,
                            w_hr is None and x.dtype == np.float32)  # PyTorch hands that one to oneDNN
    out, h, cache = layer_forward(mode, x, bs, h0, w_ih, w_hh, b_ih, b_hh, reverse, keep)
    return out, h, None, cache


@paths.kernel(rnn, "_layer_grads", ulps=_RNN_ULPS, scale="program",
              when="no graph of the gradient wanted, after a forward that kept its gates (the loop above)",
              why="speed: the time loop in reverse on the kept gates, nothing recomputed")
def layer_grads(node, g_out, g_h, g_c):
    if node.cache is None:  # the forward ran the cells (its path off): nothing kept to run the loop on
        return _grads_reference(node, g_out, g_h, g_c)
    g_out, g_h, g_c = [None if g is None else g._data for g in (g_out, g_h, g_c)]
    if node.mode == "LSTM":
        x, h0, c0, w_ih, w_hh, _, _, w_hr = (None if t is None else t._data for t in node._unpacked_saved[:8])
        grads = lstm_backward(node, x, h0, c0, w_ih, w_hh, w_hr, g_out, g_h, g_c)
    else:
        grads = layer_backward(node.mode, node, g_out, g_h)
    return tuple(None if g is None else _make(g) for g in grads)
