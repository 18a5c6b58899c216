"""The RNN (tanh/relu) and GRU layers' time loops on arrays (forward and BPTT), for the fused layer node
of ``_ops/nn/rnn.py``, whose formula is the step cells of ``_ops/nn/rnn_cells.py`` (the node
differentiates those when a graph of the gradient is wanted). The biases are added as PyTorch's composite
cells add them, (x W_ih + b_ih) + (h W_hh + b_hh); the GRU's steps between the GEMMs may run compiled
(``compiled/rnn.py``, the same floats). ``tests/ops/_kernels/test_kernels_formulas.py`` compares both
loops with the formula on generated inputs."""
from __future__ import annotations

import numpy as np

from . import compiled as _compiled
from .lstm import steps


def _sigmoid_(a: np.ndarray) -> np.ndarray:
    """In place 1 / (1 + exp(-a)), the formula of PyTorch's CPU sigmoid kernel (its values far more often
    than 0.5 tanh(a / 2) + 0.5 gives them, and one transcendental pass cheaper than tanh)."""
    np.negative(a, out=a)
    np.exp(a, out=a)  # overflows to inf for a < -88 (warnings are off around the layer): 1 / inf is 0
    a += 1
    return np.divide(1, a, out=a)


_FLOATS = _compiled.FLOATS
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


def layer_forward(mode, x, bs, h0, w_ih, w_hh, b_ih, b_hh, reverse, keep):
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
            fast.gru_gates(g, gh, _compiled.NONE[dt] if b_hh is None else b_hh)
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


def layer_backward(mode, node, g_out, g_h):
    """BPTT on arrays (RNN/GRU): gradients for (x, h0, None, w_ih, w_hh, b_ih, b_hh, None)."""
    x, h0, _, w_ih, w_hh = (None if t is None else t._data for t in node._unpacked_saved[:5])
    cache = node.cache
    acts, h_prev = cache["acts"], cache["h_prev"]
    x2 = x.reshape(-1, x.shape[-1])
    hidden = w_hh.shape[0] // (3 if mode == "GRU" else 1)
    n_rows = x2.shape[0]
    go = None if g_out is None else g_out.reshape(n_rows, h0.shape[-1])
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
