"""Recurrent step cells composed of tinytorch ops, and a whole layer run through them.

The cells are what ``nn.RNNCell``/``LSTMCell``/``GRUCell`` compute (their ``grad_fn`` names are
those of PyTorch's composite cells: Tanh/Relu, Mul and Add). ``layer_by_ops`` runs a layer through the
cells; the fused layer node (``_ops/nn/rnn.py``) differentiates it when a graph of its gradient is
wanted, so second derivatives of the fused layers exist."""
from __future__ import annotations

import numpy as np
from ..shape.join import cat


def _linear(x, w, b):
    y = x.matmul(w.t())
    return y if b is None else y + b


def rnn_cell(x, h, w_ih, w_hh, b_ih=None, b_hh=None, relu: bool = False):
    """h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    pre = _linear(x, w_ih, b_ih) + _linear(h, w_hh, b_hh)
    return pre.relu() if relu else pre.tanh()


def lstm_cell(x, h, c, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
    """(h', c') of one LSTM step; with ``w_hr`` h' is projected."""
    gates = _linear(x, w_ih, b_ih) + _linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, 1)
    c_new = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h_new = o.sigmoid() * c_new.tanh()
    if w_hr is not None:
        h_new = h_new.matmul(w_hr.t())
    return h_new, c_new


def gru_cell(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' = n + z (h - n), n = tanh(x_n + r (h W_hn^T + b_hn))."""
    i_r, i_z, i_n = _linear(x, w_ih, b_ih).chunk(3, 1)
    h_r, h_z, h_n = _linear(h, w_hh, b_hh).chunk(3, 1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return (h - n) * z + n


def layer_by_ops(mode, input, batch_sizes, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, reverse: bool):
    """The fused layer's (output, h_n, c_n), step by step in tinytorch ops (``batch_sizes`` as there)."""
    x2 = input.reshape(-1, input.shape[-1]) if input.ndim == 3 else input
    bs = batch_sizes
    off = np.concatenate(([0], np.cumsum(bs)[:-1])).tolist()
    order = range(len(bs) - 1, -1, -1) if reverse else range(len(bs))
    full = hx.shape[0]
    h, c = hx, cx
    outs = [None] * len(bs)
    for t in order:
        s, n = off[t], bs[t]
        xt = x2[s:s + n]
        hp = h if n == full else h[:n]
        if mode == "LSTM":
            cp = c if n == full else c[:n]
            hn, cn = lstm_cell(xt, hp, cp, w_ih, w_hh, b_ih, b_hh, w_hr)
            c = cn if n == full else cat([cn, c[n:]], 0)
        elif mode == "GRU":
            hn = gru_cell(xt, hp, w_ih, w_hh, b_ih, b_hh)
        else:
            hn = rnn_cell(xt, hp, w_ih, w_hh, b_ih, b_hh, relu=mode == "RNN_RELU")
        h = hn if n == full else cat([hn, h[n:]], 0)
        outs[t] = hn
    out = cat(outs, 0)
    if input.ndim == 3:
        out = out.reshape(input.shape[0], input.shape[1], h.shape[-1])
    return out, h, (c if mode == "LSTM" else None)
