"""The LSTM layer's time loops on arrays (forward and BPTT), for the fused layer node of ``_ops/nn/rnn.py``.

Per time step the forward makes one GEMM, gathers the three sigmoid gates' pre-activations side by
side (one contiguous block: the sigmoid's passes skip the g gate) and writes the activations straight
into the kept ones, stored gate-major in the order (i, f, o, g) (no copy of the step's gates); on
padded input kept for the backward it reads and writes h and c in the kept per-step states. The
backward precomputes every factor that does not depend on the incoming gradient for all steps at once
over contiguous gate blocks, then runs the recurrence. Both give the floats of the loops they replaced
(``_ops/nn/rnn.py`` before the split) bit for bit."""
from __future__ import annotations

import numpy as np

from ..._numpy_compat import exp_f64
from . import compiled as _compiled

# 0-d arrays: numpy resolves them faster than scalars (the onednn path is float32 throughout)
_SIGN, _ONE, _ZERO = np.array(-2 ** 31, np.int32), np.array(1, np.float32), np.array(0, np.float32)
_F32 = np.dtype(np.float32)
_FLOATS = _compiled.FLOATS
_PACKED_MNK = 10 ** 6  # multiply-adds above which OpenBLAS's small-matrix kernels step aside


def steps(bs, reverse: bool):
    """(offset, rows) per time step in the order the layer visits them."""
    pairs, off = [], 0
    for n in bs:  # plain Python: numpy's cumsum of a short list costs more than the loop
        pairs.append((off, n))
        off += n
    return pairs[::-1] if reverse else pairs


def packed_rows(w: np.ndarray) -> int:
    """The fewest rows of ``h`` from which the product ``h @ w.T`` takes a contiguous copy of ``w.T``
    rather than the transposed view: the same floats, as both go through OpenBLAS's packed GEMM (one
    row is a GEMV, and below a million multiply-adds its SkylakeX small-matrix kernels take over, both
    reading the two layouts in different orders); with the copy, the step's product skips repacking the
    transposed weight (a third less time for (32, 128) x (128, 512) float32)."""
    return max(2, _PACKED_MNK // max(1, w.shape[0] * w.shape[1]) + 1)


def _aligned_copy(a: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of ``a`` that starts on a 64-byte line: OpenBLAS's packed GEMM reads the step's
    weight 5-10% faster from there than from the 16-byte boundaries malloc gives (which one a process got
    depended on its earlier allocations, moving whole-step times between processes by up to 0.2 ms)."""
    buf = np.empty(a.nbytes + 64, np.uint8)
    skip = -buf.ctypes.data % 64
    out = buf[skip:skip + a.nbytes].view(a.dtype).reshape(a.shape)
    np.copyto(out, a)
    return out


def _sigmoid_gates(gt: np.ndarray, out: np.ndarray) -> None:
    """out (3, n, H) = 1 / (1 + exp(-a)) of the i, f, o blocks of ``gt`` (the step's pre-activations
    viewed gate-major, (4, n, H) in PyTorch's (i, f, g, o) order): the formula of PyTorch's CPU sigmoid
    kernel, which its composite LSTM cell uses."""
    np.negative(gt[:2], out=out[:2])
    np.negative(gt[3], out=out[2])
    # overflows to inf for a < -88 (warnings are off around the layer): 1 / inf is 0
    if out.dtype == np.float64:
        exp_f64(out, out)  # glibc's rounding where numpy 1.x's SVML exp would not give it
    else:
        np.exp(out, out=out)
    out += 1
    np.divide(1, out, out=out)


def _sigmoid_gates_onednn(gt: np.ndarray, out: np.ndarray, work: np.ndarray, bits: np.ndarray,
                          positive: np.ndarray) -> None:
    """``_sigmoid_gates`` in the steps of oneDNN's LSTM cell (the kernel of PyTorch's float32 CPU LSTM):
    e = exp(-|a|), y = e / (e + 1), and 1 - y where a's sign bit is clear, here |s - y| with s = 1 there
    and 0 elsewhere (one rounding, as the kernel's 1 - y; np.where would cost ten passes). ``work`` and
    ``positive`` are contiguous float32 scratch of out's shape, ``bits`` work's int32 view. With numpy's
    exp in place of oneDNN's polynomial, 69% of the results are oneDNN's floats (0.5 tanh(a / 2) + 0.5:
    54%; 1 / (1 + exp(-a)): 46%), all within 3 ulp."""
    np.copyto(work[:2], gt[:2])  # the three gates side by side: every pass below runs contiguous
    np.copyto(work[2], gt[3])
    np.greater(work, _ZERO, out=positive)  # +0 counts as negative: both ways give 0.5
    np.bitwise_or(bits, _SIGN, out=bits)  # -|a|
    np.exp(work, out=work)
    np.add(work, _ONE, out=out)
    np.divide(work, out, out=out)
    np.subtract(positive, out, out=out)
    np.abs(out, out=out)


def lstm_forward(x, bs, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse, keep, onednn):
    """Arrays in, arrays out: (out (N, Hr), h_n, c_n, cache for the backward or None).

    The biases are added in the order PyTorch's kernels add them: ``onednn`` (a float32 LSTM without
    projection, which PyTorch hands to oneDNN; its packed runs of equal lengths give the same floats)
    (x W_ih + h W_hh) + (b_ih + b_hh), one bias after both products; its composite cells (x W_ih + b_ih)
    + (h W_hh + b_hh). On products that round exactly, that puts h and c on PyTorch's floats 1 to 5
    points more often than ((x W_ih + b_ih) + b_hh) + h W_hh did."""
    hidden = w_hh.shape[0] // 4
    xw = x @ w_ih.T
    b_step = None  # the bias each step adds: b_ih + b_hh after both products, or b_hh to h W_hh
    if b_ih is not None:
        if onednn:
            b_step = b_ih + b_hh
        else:
            xw += b_ih
            b_step = b_hh
    n_rows, dt, batch = x.shape[0], x.dtype, h0.shape[0]
    whh_t, big = w_hh.T, packed_rows(w_hh)
    whh_c = _aligned_copy(whh_t) if batch >= big else whh_t  # for the steps of ``big`` rows or more
    whr_t = None if w_hr is None else w_hr.T
    order = steps(bs, reverse)
    # padded input kept for the backward: each step reads its states from, and writes its new states to,
    # the kept per-step states (h_prev, c_prev) themselves: no running state and no copies into the cache
    equal = len(bs) > 0 and all(n == batch for n in bs)
    slots = keep and equal
    out = np.empty((n_rows, h0.shape[1]), dt)
    h, c = (np.empty_like(h0), np.empty_like(c0)) if slots else (h0.copy(), c0.copy())
    # the activated gates, gate-major (i, f, o, g): all steps' when kept for the backward, else one step's
    acts = np.empty((4, n_rows if keep else batch, hidden), dt)
    h_prev = np.empty_like(out) if keep else None
    c_prev = np.empty((n_rows, hidden), dt) if keep else None
    if slots:
        first = order[0][0]
        h_prev[first:first + batch], c_prev[first:first + batch] = h0, c0
    tanh_c = np.empty((n_rows, hidden), dt) if keep else np.empty((batch, hidden), dt)
    m_all = np.empty((n_rows, hidden), dt) if keep and w_hr is not None else None
    ig, prod = np.empty((batch, hidden), dt), np.empty((batch, 4 * hidden), dt)
    # the compiled step (``compiled/rnn.py``): the same operations between the GEMM and numpy's tanh; where
    # every step has all the rows (PyTorch's oneDNN layer), the sigmoid takes oneDNN's own exp, on PyTorch's
    # floats where numpy's exp gives 69% of them; unequal lengths keep numpy's exp between two kernels
    fast = None
    if (onednn and dt == _F32 and w_hh.dtype == _F32 and (b_step is None or b_step.dtype == _F32)
            and c0.flags.c_contiguous):
        fast = _compiled.family("rnn")
    scratch = {}  # rows -> the onednn sigmoid's scratch views (work, its int32 view, positive)
    if onednn and (fast is None or not equal):
        work, positive = np.empty(3 * batch * hidden, dt), np.empty(3 * batch * hidden, dt)

    def sigmoid_scratch(n: int) -> tuple:
        views = scratch.get(n)
        if views is None:
            size = 3 * n * hidden
            w3 = work[:size].reshape(3, n, hidden)
            views = scratch[n] = (w3, w3.view(np.int32), positive[:size].reshape(3, n, hidden))
        return views

    no_bias = _compiled.NONE[_F32] if b_step is None else b_step
    for k, (s, n) in enumerate(order):
        rows = slice(s, s + n) if keep else slice(0, n)
        if slots:
            hp, cp = h_prev[s:s + n], c_prev[s:s + n]
            nxt = order[k + 1][0] if k + 1 < len(order) else None
            h_new = h if nxt is None else h_prev[nxt:nxt + n]
            c_new = c if nxt is None else c_prev[nxt:nxt + n]
        else:
            hp = h_new = h[:n]
            cp = c_new = c[:n]  # c = f c + i g, in the running state itself
            if keep:
                h_prev[s:s + n] = hp
                c_prev[s:s + n] = cp
        g = xw[s:s + n]
        w_t = whh_c if n >= big else whh_t  # W_hh^T for this step's rows (same floats)
        if fast is not None and equal:  # oneDNN's own exp in the sigmoid gates: PyTorch's floats
            a3 = acts[3, rows]
            fast.lstm_gates(g, np.matmul(hp, w_t, out=prod[:n]), no_bias, acts, rows.start)
            np.tanh(a3, out=a3)
            fast.lstm_cell(acts, rows.start, cp, c_new)
        elif fast is not None:  # unequal lengths (PyTorch's composite cell, not oneDNN): the numpy path's floats
            w3, _, pos = sigmoid_scratch(n)
            fast.lstm_gates_onednn(g, np.matmul(hp, w_t, out=prod[:n]), no_bias, w3, pos)
            np.tanh(g.reshape(n, 4, hidden)[:, 2], out=acts[3, rows])
            np.exp(w3, out=w3)
            fast.lstm_cell_onednn(w3, pos, acts, rows.start, cp, c_new)
        else:
            if onednn:
                g += np.matmul(hp, w_t, out=prod[:n])
                if b_step is not None:
                    g += b_step
            else:
                m = hp @ w_t
                if b_step is not None:
                    m += b_step
                g += m
            gt = g.reshape(n, 4, hidden).transpose(1, 0, 2)  # (4, n, H) view, PyTorch's (i, f, g, o)
            a = acts[:, rows]
            i, f, _, gg = a
            np.tanh(gt[2], out=gg)
            if onednn:
                _sigmoid_gates_onednn(gt, a[:3], *sigmoid_scratch(n))
            else:
                _sigmoid_gates(gt, a[:3])
            np.multiply(f, cp, out=c_new)
            c_new += np.multiply(i, gg, out=ig[:n])
        o = acts[2, rows]
        tc = np.tanh(c_new, out=tanh_c[rows])
        if whr_t is None:
            hn = np.multiply(o, tc, out=h_new if slots else out[s:s + n])
        else:
            m = np.multiply(o, tc, out=m_all[s:s + n] if keep else ig[:n])
            hn = np.matmul(m, whr_t, out=h_new if slots else out[s:s + n])
        if not slots:
            h_new[...] = hn
    if slots:  # each step's output is the next step's kept h: copy them out at once
        last = order[-1][0]
        if reverse:
            out[batch:] = h_prev[:n_rows - batch]
        else:
            out[:n_rows - batch] = h_prev[batch:]
        out[last:last + batch] = h
    cache = None
    if keep:
        cache = {"acts": acts, "h_prev": h_prev, "c_prev": c_prev, "tanh_c": tanh_c, "m": m_all}
    return out, h, c, cache


def lstm_backward(node, x, h0, c0, w_ih, w_hh, w_hr, g_out, g_h, g_c):
    """BPTT on arrays: gradients for (x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)."""
    cache, need = node.cache, node.need
    acts, h_prev, c_prev, tanh_c, m_all = (cache[k] for k in ("acts", "h_prev", "c_prev", "tanh_c", "m"))
    x2 = x.reshape(-1, x.shape[-1])
    hidden = w_hh.shape[0] // 4
    n_rows, dt = x2.shape[0], acts.dtype
    go = None if g_out is None else g_out.reshape(n_rows, h0.shape[-1])
    dh = np.zeros_like(h0) if g_h is None else g_h.astype(h0.dtype, copy=True)
    dc = np.zeros_like(c0) if g_c is None else g_c.astype(c0.dtype, copy=True)
    d_gates = np.empty((n_rows, 4 * hidden), dt)
    d_h_all = np.empty((n_rows, dh.shape[1]), dt) if w_hr is not None else None
    i, f, o, gg = acts
    # the compiled kernels (``compiled/rnn.py``): without projection, the loop body below between its GEMMs,
    # each step's factors made from the kept gates as it goes; else the factors in one pass here
    fast = _compiled.family("rnn") if dt in _FLOATS else None
    fused = fast is not None and (w_hr is None and dh.dtype == dt and dc.dtype == dt and dh.flags.c_contiguous
                                  and dc.flags.c_contiguous and (go is None or go.dtype == dt))
    if fast is not None and not fused:
        dc_from_h, do_from_h, from_c = fast.lstm_bptt_factors(acts, c_prev, tanh_c)
    elif not fused:
        # every factor that does not depend on the incoming gradient, for all steps at once, gate-major so
        # that these passes run over contiguous blocks
        dc_from_h = o * (1 - tanh_c * tanh_c)  # dc/dh through h = o tanh(c)
        do_from_h = tanh_c * o * (1 - o)  # d(o's pre-activation)/dh
        from_c = np.empty((3, n_rows, hidden), dt)  # d(i, f, g pre-activations)/dc
        one_minus, work = np.empty_like(i), np.empty_like(i)
        np.multiply(np.multiply(gg, i, out=work), np.subtract(1, i, out=one_minus), out=from_c[0])
        np.multiply(np.multiply(c_prev, f, out=work), np.subtract(1, f, out=one_minus), out=from_c[1])
        np.multiply(i, np.subtract(1, np.multiply(gg, gg, out=work), out=work), out=from_c[2])
    batch = h0.shape[0]
    dht_buf, dct_buf = np.empty((batch, dh.shape[1]), dt), np.empty((batch, hidden), dt)
    d_ifg = d_gates.reshape(n_rows, 4, hidden)[:, :3].transpose(1, 0, 2)  # (3, N, H) view
    d_o = d_gates[:, 3 * hidden:]
    for s, n in reversed(steps(node.bs, node.reverse)):
        dh_n, dc_n = (dh, dc) if n == batch else (dh[:n], dc[:n])
        if fused:  # dh + go by numpy's add: a kernel's loop that reads go runs unvectorised
            dht = dh_n if go is None else np.add(dh_n, go[s:s + n], out=dht_buf[:n])
            fast.lstm_bptt_step(dht, dc_n, acts, c_prev, tanh_c, d_gates, s)
            np.matmul(d_gates[s:s + n], w_hh, out=dh_n)
            continue
        dht = dh_n if go is None else np.add(dh_n, go[s:s + n], out=dht_buf[:n])
        if d_h_all is not None:
            d_h_all[s:s + n] = dht
            dht = dht @ w_hr
        dct = np.multiply(dht, dc_from_h[s:s + n], out=dct_buf[:n])
        dct += dc_n
        np.multiply(dct, from_c[:, s:s + n], out=d_ifg[:, s:s + n])
        np.multiply(dht, do_from_h[s:s + n], out=d_o[s:s + n])
        np.multiply(dct, f[s:s + n], out=dc_n)
        np.matmul(d_gates[s:s + n], w_hh, out=dh_n)
    gx = (d_gates @ w_ih).reshape(x.shape) if need[0] else None
    gw_ih = d_gates.T @ x2 if need[3] else None
    gw_hh = d_gates.T @ h_prev if need[4] else None
    gb_ih = d_gates.sum(0) if need[5] else None
    gb_hh = None
    if need[6]:
        gb_hh = gb_ih.copy() if gb_ih is not None else d_gates.sum(0)
    gw_hr = d_h_all.T @ m_all if need[7] else None
    return (gx, dh if need[1] else None, dc if need[2] else None, gw_ih, gw_hh, gb_ih, gb_hh, gw_hr)
