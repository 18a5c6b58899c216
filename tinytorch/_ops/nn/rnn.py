"""Recurrent layers as fused graph nodes: one node per layer and direction, as PyTorch's CPU kernels.

A layer runs on a "packed" view of its input: rows ``x[off[t]:off[t] + bs[t]]`` are time step ``t``
for the first ``bs[t]`` sequences (a padded (T, B, I) input is the case ``bs = [B] * T``). The forward
makes one GEMM for the input projection of every step, then loops over time in numpy, keeping the
activated gates. The node's backward runs the time loop in reverse on arrays; when a graph of the
gradient is wanted (``create_graph=True``) it instead recomputes the layer through the step cells
composed of tinytorch ops (``_ops/nn/rnn_cells.py``) and differentiates that, so gradients of any order
exist.

Gate layouts are PyTorch's: LSTM (i, f, g, o), GRU (r, z, n), weights (gates * H, in)."""
from __future__ import annotations

import numpy as np

from ..._quiet_fp import loud, quiet
from ...autograd.grad_mode import _State
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .rnn_cells import layer_by_ops
from .._kernels import compiled as _compiled
from .._kernels.lstm import lstm_backward, lstm_forward, steps
from ...autograd.engine import grad


def _sigmoid_(a: np.ndarray) -> np.ndarray:
    """In place 1 / (1 + exp(-a)), the formula of PyTorch's CPU sigmoid kernel (its values far more often
    than 0.5 tanh(a / 2) + 0.5 gives them, and one transcendental pass cheaper than tanh)."""
    np.negative(a, out=a)
    np.exp(a, out=a)  # overflows to inf for a < -88 (warnings are off around the layer): 1 / inf is 0
    a += 1
    return np.divide(1, a, out=a)


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_NONE = {t: np.empty(0, t) for t in _FLOATS}  # a compiled kernel's "None"
_NO_ROWS = {t: np.empty((0, 0), t) for t in _FLOATS}


def _compiled_dtypes(dt, w_hh: np.ndarray, b_hh) -> bool:
    """Whether the compiled GRU step takes a layer of this dtype and these recurrent parameters."""
    return dt in _FLOATS and w_hh.dtype == dt and (b_hh is None or (b_hh.dtype == dt and b_hh.ndim == 1
                                                                    and b_hh.flags.c_contiguous))


def _recurrent(h: np.ndarray, whh_t: np.ndarray, b_hh) -> np.ndarray:
    """h W_hh^T + b_hh, a new array."""
    m = h @ whh_t
    if b_hh is not None:
        m += b_hh
    return m


def _layer_forward(mode, x, bs, h0, w_ih, w_hh, b_ih, b_hh, reverse, keep):
    """RNN/GRU, arrays in, arrays out: (out (N, H), h_n, cache for the backward or None). The biases are
    added as PyTorch's composite cells add them, (x W_ih + b_ih) + (h W_hh + b_hh)."""
    hidden = w_hh.shape[0] // (3 if mode == "GRU" else 1)
    xw = x @ w_ih.T
    if b_ih is not None:
        xw += b_ih
    whh_t = w_hh.T  # the product with the transposed view rounds as with a contiguous copy
    n_rows, dt = x.shape[0], x.dtype
    out = np.empty((n_rows, h0.shape[1]), dt)
    h = h0.copy()
    h_prev = np.empty_like(out) if keep else None
    gh_n = np.empty((n_rows, hidden), dt) if keep and mode == "GRU" else None
    fast = None  # the compiled GRU step (``_kernels/compiled/rnn.py``): the same operations between the GEMM,
    if mode == "GRU" and xw.dtype == dt and h.dtype == dt and _compiled_dtypes(dt, w_hh, b_hh):  # numpy's exp, tanh
        fast = _compiled.family("rnn")
    for s, n in steps(bs, reverse):
        hp = h[:n]
        if keep:
            h_prev[s:s + n] = hp
        g = xw[s:s + n]
        if fast is not None:
            gh = hp @ whh_t
            fast.gru_gates(g, gh, _NONE[dt] if b_hh is None else b_hh)
            rz = g[:, :2 * hidden]
            np.exp(rz, out=rz)
            fast.gru_candidate(g, gh, gh_n if keep else _NO_ROWS[dt], s)
            nn_ = g[:, 2 * hidden:]
            np.tanh(nn_, out=nn_)
            fast.gru_output(g, hp, out[s:s + n], hp)
            continue
        if mode == "GRU":
            gh = _recurrent(hp, whh_t, b_hh)
            g[:, :2 * hidden] += gh[:, :2 * hidden]
            _sigmoid_(g[:, :2 * hidden])
            r, z = g[:, :hidden], g[:, hidden:2 * hidden]
            nn_ = g[:, 2 * hidden:]
            nn_ += r * gh[:, 2 * hidden:]
            np.tanh(nn_, out=nn_)
            if keep:
                gh_n[s:s + n] = gh[:, 2 * hidden:]
            hn = nn_ + z * (hp - nn_)
        else:
            g += _recurrent(hp, whh_t, b_hh)
            hn = np.tanh(g, out=g) if mode == "RNN_TANH" else np.maximum(g, 0, out=g)
        out[s:s + n] = hn
        h[:n] = hn
    cache = None
    if keep:  # xw holds the activated steps (not the output, which callers may edit in place)
        cache = {"acts": xw, "h_prev": h_prev, "gh_n": gh_n}
    return out, h, cache


def _layer_backward(mode, node, g_out, g_h):
    """BPTT on arrays (RNN/GRU): gradients for (x, h0, None, w_ih, w_hh, b_ih, b_hh, None)."""
    x, h0, _, w_ih, w_hh = (None if t is None else t._data for t in node.saved_tensors[:5])
    cache = node.cache
    acts, h_prev = cache["acts"], cache["h_prev"]
    x2 = x.reshape(-1, x.shape[-1])
    hidden = w_hh.shape[0] // (3 if mode == "GRU" else 1)
    n_rows = x2.shape[0]
    go = None if g_out is None else g_out.reshape(n_rows, -1)
    dh = np.zeros_like(h0) if g_h is None else g_h.astype(h0.dtype, copy=True)
    d_gates = np.empty((n_rows, acts.shape[1]), acts.dtype)
    d_gh = np.empty_like(acts) if mode == "GRU" else d_gates
    fast = None  # the compiled GRU loop body (``_kernels/compiled/rnn.py``): the same operations and GEMM
    dt = acts.dtype
    if (mode == "GRU" and _compiled_dtypes(dt, w_hh, None) and dh.dtype == dt and dh.flags.c_contiguous
            and (go is None or go.dtype == dt)):
        fast = _compiled.family("rnn")
        dht_buf = np.empty_like(dh)
    for s, n in reversed(steps(node.bs, node.reverse)):
        if fast is not None:
            dh_n, dht = dh[:n], dht_buf[:n]
            fast.gru_bptt_step(dh_n, _NO_ROWS[dt] if go is None else go[s:s + n], acts, h_prev, cache["gh_n"],
                               d_gates, d_gh, dht, s)
            fast.gru_dh(dht, acts, d_gh[s:s + n] @ w_hh, dh_n, s)
            continue
        dht = dh[:n] if go is None else dh[:n] + go[s:s + n]
        a = acts[s:s + n]
        dg = d_gates[s:s + n]
        if mode == "GRU":
            r, z, nn_ = a[:, :hidden], a[:, hidden:2 * hidden], a[:, 2 * hidden:]
            dnp = dht * (1 - z) * (1 - nn_ * nn_)
            dz = dht * (h_prev[s:s + n] - nn_) * z * (1 - z)
            dr = dnp * cache["gh_n"][s:s + n] * r * (1 - r)
            dg[:, :hidden] = dr
            dg[:, hidden:2 * hidden] = dz
            dg[:, 2 * hidden:] = dnp
            dgh = d_gh[s:s + n]
            dgh[:, :2 * hidden] = dg[:, :2 * hidden]
            dgh[:, 2 * hidden:] = dnp * r
            dh[:n] = dht * z + dgh @ w_hh
        else:
            hn = a  # the activated step, kept in acts (not the output, which callers may edit in place)
            dg[...] = dht * (1 - hn * hn) if mode == "RNN_TANH" else dht * (hn > 0)
            dh[:n] = dg @ w_hh
    need = node.need
    gx = (d_gates @ w_ih).reshape(x.shape) if need[0] else None
    gw_ih = d_gates.T @ x2 if need[3] else None
    gw_hh = d_gh.T @ h_prev if need[4] else None
    gb_ih = d_gates.sum(0) if need[5] else None
    gb_hh = None
    if need[6]:
        gb_hh = gb_ih.copy() if d_gh is d_gates and gb_ih is not None else d_gh.sum(0)
    return gx, dh if need[1] else None, None, gw_ih, gw_hh, gb_ih, gb_hh, None


class _RnnLayerNode(Node):
    """One recurrent layer in one direction. Outputs: the sequence, the last h (and the last c)."""

    cache = None

    def backward(self, g_out, g_h=None, g_c=None):
        if not _State.enabled:
            g_out, g_h, g_c = [None if g is None else g._data for g in (g_out, g_h, g_c)]
            if self.mode == "LSTM":
                x, h0, c0, w_ih, w_hh, _, _, w_hr = (None if t is None else t._data for t in self.saved_tensors)
                grads = lstm_backward(self, x, h0, c0, w_ih, w_hh, w_hr, g_out, g_h, g_c)
            else:
                grads = _layer_backward(self.mode, self, g_out, g_h)
            return tuple(None if g is None else _make(g) for g in grads)
        return self._backward_by_ops(g_out, g_h, g_c)

    def _backward_by_ops(self, g_out, g_h, g_c):
        """Recompute the layer from tinytorch ops and differentiate it: a graph of the gradient."""
        saved = self.saved_tensors
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
    record = _State.enabled and any(need)
    arrays = [None if t is None else t._data for t in tensors]
    token = quiet()  # 1 / (1 + exp(-a)): the exp may overflow to inf, whose reciprocal is the right 0
    try:
        if mode == "LSTM":
            out2, h, c, cache = lstm_forward(x2, bs, *arrays[1:], reverse, record,
                                             w_hr is None and x.dtype == np.float32)
        else:
            _, h0, _, w_ih_a, w_hh_a, b_ih_a, b_hh_a, _ = arrays
            out2, h, cache = _layer_forward(mode, x2, bs, h0, w_ih_a, w_hh_a, b_ih_a, b_hh_a, reverse, record)
            c = None
    finally:
        loud(token)
    out = out2.reshape(x.shape[:-1] + (out2.shape[-1],))
    if not record:
        return _make(out), _make(h), None if c is None else _make(c)
    node = _node_class(node_name)(tuple((None, 0) if t is None else t._edge() for t in tensors))
    node.mode, node.bs, node.reverse, node.need, node.cache = mode, bs, reverse, need, cache
    node._n_outputs = 3 if mode == "LSTM" else 2
    o, ht = _make(out, node), _make(h, node)
    ht._output_nr = 1
    ct = None
    if c is not None:
        ct = _make(c, node)
        ct._output_nr = 2
    node.save_for_backward(*tensors)
    return o, ht, ct
