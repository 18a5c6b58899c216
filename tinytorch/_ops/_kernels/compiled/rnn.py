"""The arithmetic of the LSTM and GRU time steps (``_kernels/lstm.py`` and ``_ops/nn/rnn.py``), fused
around what stays numpy's: the GEMMs (numpy's OpenBLAS) and the tanh (and, but for one case, the exp) of
the gates (numpy's own float32/float64 functions, called on the same arrays as on the numpy path, since
numba's libm ones give other floats). Each kernel performs the numpy path's operations between two of those
calls, in their order and precision, so the floats are the same; a step's ~19 numpy calls (LSTM; GRU ~16
forward, ~20 backward) become ~6 (4, 3). The one case: a float32 LSTM whose steps all have every row, which
PyTorch runs on oneDNN, takes oneDNN's own exp in its sigmoid gates (``_common.sigmoid_onednn``), PyTorch's
floats where numpy's exp gives about 69% of them (``test_kernels_compiled.py`` checks that its results land
closer to PyTorch's than the numpy path's)."""
from __future__ import annotations

import numpy as np
from numba import float32, float64, int64, types

from ._common import bits_float, float_bits, jit, like, readonly, sigmoid_onednn

_SIGN = np.int32(-2 ** 31)
_ONE32, _ZERO32 = np.float32(1), np.float32(0)

_M32, _T32 = float32[:, ::1], float32[:, :, ::1]


@jit([types.void(_M32, _M32, readonly(float32, 1), _T32, _T32)])
def lstm_gates_onednn(g, prod, b, work, positive):
    """One float32 step's pre-activations, in oneDNN's order: g = (x W_ih + h W_hh) + b in place (``prod``:
    h W_hh; an empty ``b``: no bias), then the i, f, o gates' -|a| into ``work`` (3, n, H) and a > 0 (1 or
    0) into ``positive``, as ``_sigmoid_gates_onednn`` prepares them for numpy's exp."""
    n, width = g.shape
    hidden = width // 4
    for r in range(n):
        for j in range(width):
            v = g[r, j] + prod[r, j]
            if b.size:
                v = v + b[j]
            g[r, j] = v
        for gate in range(4):
            if gate == 2:
                continue
            slot = 2 if gate == 3 else gate
            base = gate * hidden
            for k in range(hidden):
                v = g[r, base + k]
                positive[slot, r, k] = _ONE32 if v > _ZERO32 else _ZERO32
                work[slot, r, k] = bits_float(np.int32(float_bits(v) | _SIGN))


@jit([types.void(_T32, int64, _M32, _M32)])
def lstm_cell(acts, row0, cp, c_new):
    """After numpy's tanh of the g gate: c_new = f cp + i g (``cp`` may be ``c_new``)."""
    n, hidden = cp.shape
    for r in range(n):
        t = row0 + r
        for k in range(hidden):
            c_new[r, k] = acts[1, t, k] * cp[r, k] + acts[0, t, k] * acts[3, t, k]


@jit([types.void(_T32, _T32, _T32, int64, _M32, _M32)])
def lstm_cell_onednn(work, positive, acts, row0, cp, c_new):
    """After numpy's exp of ``work`` (exp(-|a|)) and tanh of the g gate (into ``acts[3]``): the i, f, o
    gates |s - e / (e + 1)| into acts[0..2] (rows row0...), then the cell (``lstm_cell``)."""
    n, hidden = cp.shape
    for slot in range(3):
        for r in range(n):
            for k in range(hidden):
                e = work[slot, r, k]
                acts[slot, row0 + r, k] = abs(positive[slot, r, k] - e / (e + _ONE32))
    lstm_cell(acts, row0, cp, c_new)


@jit([types.void(_M32, _M32, readonly(float32, 1), _T32, int64)])
def lstm_gates(g, prod, b, acts, row0):
    """One float32 step's gates in oneDNN's order: a = (x W_ih + h W_hh) + b (``g``: x W_ih, ``prod``: h W_hh,
    an empty ``b``: no bias), the i, f, o gates' oneDNN logistic into acts[0..2] and the g gate's
    pre-activation into acts[3] (rows row0..., gate-major (i, f, o, g)), for numpy's tanh there."""
    n, width = g.shape
    hidden = width // 4
    with_b = b.size > 0
    for r in range(n):
        t = row0 + r
        for gate in range(4):
            base = gate * hidden
            if gate == 2:
                for k in range(hidden):
                    v = g[r, base + k] + prod[r, base + k]
                    acts[3, t, k] = v + b[base + k] if with_b else v
                continue
            slot = 2 if gate == 3 else gate
            for k in range(hidden):
                v = g[r, base + k] + prod[r, base + k]
                if with_b:
                    v = v + b[base + k]
                acts[slot, t, k] = sigmoid_onednn(v)


def _bptt_sig(t):
    m, c = t[:, ::1], t[:, :, ::1]
    return types.void(m, m, c, m, m, m, int64)


@jit([_bptt_sig(float32), _bptt_sig(float64)])
def lstm_bptt_step(dht, dc, acts, c_prev, tanh_c, d_gates, row0):
    """One step of the LSTM's BPTT without projection, before its GEMM (``lstm_backward``'s loop body):
    dct = dht dc/dh + dc, the (i, f, g, o) pre-activation gradients into ``d_gates`` (rows row0...), and
    dc = dct f in place. ``dht`` is dh + go, summed by numpy (LLVM leaves a loop that also reads go, of any
    strides, unvectorised: 5 us a step at (32, 128)). The factors that do not depend on the gradient
    (``lstm_bptt_factors``'s) are made here from the step's kept gates and states, in the same operations
    and order: the same floats, without a pass writing five arrays of every step and this loop reading
    them back (0.2 ms of a T=32, B=32, H=128 backward)."""
    n, hidden = dht.shape
    if n == 0 or hidden == 0:
        return
    one = like(dht[0, 0], 1.0)
    for r in range(n):
        t = row0 + r
        for k in range(hidden):
            i = acts[0, t, k]
            f = acts[1, t, k]
            o = acts[2, t, k]
            gg = acts[3, t, k]
            tc = tanh_c[t, k]
            h = dht[r, k]
            dct = h * (o * (one - tc * tc)) + dc[r, k]
            d_gates[t, k] = dct * (gg * i * (one - i))
            d_gates[t, hidden + k] = dct * (c_prev[t, k] * f * (one - f))
            d_gates[t, 2 * hidden + k] = dct * (i * (one - gg * gg))
            d_gates[t, 3 * hidden + k] = h * (tc * o * (one - o))
            dc[r, k] = dct * f


def _gru_a_sig(t):
    m = t[:, ::1]
    return types.void(m, m, readonly(t, 1))


def _gru_b_sig(t):
    m = t[:, ::1]
    return types.void(m, m, m, int64)


def _gru_c_sig(t):
    m = t[:, ::1]
    return types.void(m, m, m, m)


@jit([_gru_a_sig(float32), _gru_a_sig(float64)])
def gru_gates(g, gh, b_hh):
    """gh += b_hh (an empty one: none), then the r and z gates' -(x W_ih + b_ih + gh) into g's first 2H
    columns, for numpy's exp (``rnn_gru.layer_forward``'s GRU step, up to ``_sigmoid_``'s exp)."""
    n, width = g.shape
    two = 2 * (width // 3)
    for r in range(n):
        for j in range(width):
            v = gh[r, j] + b_hh[j] if b_hh.size else gh[r, j]
            gh[r, j] = v
            if j < two:
                g[r, j] = -(g[r, j] + v)


@jit([_gru_b_sig(float32), _gru_b_sig(float64)])
def gru_candidate(g, gh, gh_n, row0):
    """After numpy's exp: r, z = 1 / (1 + e) in place, then n's pre-activation += r (h W_hn + b_hn), and
    h W_hn + b_hn kept into gh_n (rows row0...; with no rows: not kept)."""
    n, width = g.shape
    hidden = width // 3
    one = like(g[0, 0], 1.0)
    keep = gh_n.shape[0] > 0
    for r in range(n):
        for j in range(2 * hidden):
            g[r, j] = one / (g[r, j] + one)
        for k in range(hidden):
            ghn = gh[r, 2 * hidden + k]
            g[r, 2 * hidden + k] = g[r, 2 * hidden + k] + g[r, k] * ghn
            if keep:
                gh_n[row0 + r, k] = ghn


@jit([_gru_c_sig(float32), _gru_c_sig(float64)])
def gru_output(g, hp, out, h):
    """After numpy's tanh of n: h' = n + z (h - n) into ``out`` and ``h`` (``h`` may be ``hp``)."""
    n, width = g.shape
    hidden = width // 3
    for r in range(n):
        for k in range(hidden):
            nn = g[r, 2 * hidden + k]
            v = nn + g[r, hidden + k] * (hp[r, k] - nn)
            out[r, k] = v
            h[r, k] = v


def _gru_bptt_sig(t):
    m = t[:, ::1]
    return types.void(m, readonly(t, 2, "A"), m, m, m, m, m, m, int64)  # go: any strides, read-only


@jit([_gru_bptt_sig(float32), _gru_bptt_sig(float64)])
def gru_bptt_step(dh, go, acts, h_prev, gh_n, d_gates, d_gh, dht_out, row0):
    """One step of the GRU's BPTT before its GEMM (``rnn_gru.layer_backward``'s loop body): dht = dh + go (``go``
    with no rows: none) into ``dht_out``, the (r, z, n) pre-activation gradients into ``d_gates`` and those
    of h W_hh + b_hh into ``d_gh`` (rows row0...)."""
    n, hidden = dh.shape
    with_go = go.shape[0] > 0
    one = like(dh[0, 0], 1.0) if dh.size else like(acts[0, 0], 1.0)
    for r in range(n):
        t = row0 + r
        for k in range(hidden):
            dht = dh[r, k] + go[r, k] if with_go else dh[r, k]
            dht_out[r, k] = dht
            rr = acts[t, k]
            z = acts[t, hidden + k]
            nn = acts[t, 2 * hidden + k]
            dnp = dht * (one - z) * (one - nn * nn)
            dz = dht * (h_prev[t, k] - nn) * z * (one - z)
            dr = dnp * gh_n[t, k] * rr * (one - rr)
            d_gates[t, k] = dr
            d_gates[t, hidden + k] = dz
            d_gates[t, 2 * hidden + k] = dnp
            d_gh[t, k] = dr
            d_gh[t, hidden + k] = dz
            d_gh[t, 2 * hidden + k] = dnp * rr


def _gru_dh_sig(t):
    m = t[:, ::1]
    return types.void(m, m, m, m, int64)


@jit([_gru_dh_sig(float32), _gru_dh_sig(float64)])
def gru_dh(dht, acts, through_w, dh, row0):
    """dh = dht z + (d_gh W_hh), ``through_w`` the GEMM's product."""
    n, hidden = dh.shape
    for r in range(n):
        for k in range(hidden):
            dh[r, k] = dht[r, k] * acts[row0 + r, hidden + k] + through_w[r, k]


def _factors_sig(t):
    m, c = t[:, ::1], t[:, :, ::1]
    return types.Tuple((m, m, c))(c, m, m)


@jit([_factors_sig(float32), _factors_sig(float64)])
def lstm_bptt_factors(acts, c_prev, tanh_c):
    """The factors of the LSTM's BPTT that do not depend on the incoming gradient, for every step at once
    (``lstm_backward``): dc/dh = o (1 - tanh(c)^2), d(o's pre-activation)/dh = tanh(c) o (1 - o), and the
    i, f, g pre-activations' d/dc: g i (1 - i), c_prev f (1 - f), i (1 - g^2)."""
    rows, hidden = c_prev.shape
    dc_from_h = np.empty((rows, hidden), acts.dtype)
    do_from_h = np.empty((rows, hidden), acts.dtype)
    from_c = np.empty((3, rows, hidden), acts.dtype)
    if rows == 0 or hidden == 0:
        return dc_from_h, do_from_h, from_c
    one = like(acts[0, 0, 0], 1.0)
    for r in range(rows):
        for k in range(hidden):
            i = acts[0, r, k]
            f = acts[1, r, k]
            o = acts[2, r, k]
            gg = acts[3, r, k]
            tc = tanh_c[r, k]
            dc_from_h[r, k] = o * (one - tc * tc)
            do_from_h[r, k] = tc * o * (one - o)
            from_c[0, r, k] = gg * i * (one - i)
            from_c[1, r, k] = c_prev[r, k] * f * (one - f)
            from_c[2, r, k] = i * (one - gg * gg)
    return dc_from_h, do_from_h, from_c
