"""The LSTM layer's time loops (_ops/_kernels/lstm.py) against PyTorch and against each other, and its
gates' rounding against PyTorch's kernels.

Equal lengths kept for the backward run their states through the kept per-step arrays; unequal
lengths and forward-only calls run a running state. All must give the same floats for the same
arithmetic, and PyTorch's values, gradients and grad_fn names. The gate sigmoid rounds as PyTorch's
kernels do (float32: oneDNN's steps; float64: PyTorch's composite cell) for most values, the tanh gate
within 2 ulp: the activations are read off c_n of one step (x = 1, h0 = c0 = 0, W_ih holding the
pre-activations, the other gate saturated so that c = sigmoid(a) or tanh(a) exactly)."""
import warnings

import numpy as np
import pytest

import tinytorch as tt
import tinytorch.nn.utils.rnn as ur

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
from tinytorch._ops._core.paths import REFERENCE  # noqa: E402

# TINYTORCH_REFERENCE=1: the layers run the step cells (rnn.py's reference; the time loops are tinytorch/_cpu/rnn.py's
# path), with the cells' order of the biases and their sigmoid, not oneDNN's: fewer of PyTorch's floats, the same ulps
_ON_CELLS = "TINYTORCH_REFERENCE=1: the layers run the step cells, not the time loops of tinytorch/_cpu/rnn.py"
tur = torch.nn.utils.rnn

TOL = {np.float32: dict(rtol=1e-4, atol=2e-5), np.float64: dict(rtol=1e-10, atol=1e-11)}


def _pair(dtype, input_size, hidden_size, **kw):
    """The same LSTM in both libraries (PyTorch's initial weights copied over)."""
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = torch.nn.LSTM(input_size, hidden_size, **kw)
    m = tt.nn.LSTM(input_size, hidden_size, **kw)
    if dtype == np.float64:
        tm, m = tm.double(), m.double()
    m.load_state_dict({k: tt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return m, tm


def _step(lib, m, x, states=None, packed=None, batch_first=False):
    """Output, h_n, c_n and every gradient of a weighted sum of them (weights from a fixed seed)."""
    inp = x if packed is None else lib.nn.utils.rnn.pack_padded_sequence(x, packed, batch_first=batch_first)
    out, (h, c) = m(inp) if states is None else m(inp, states)
    out = out if packed is None else out.data
    rng = np.random.default_rng(7)
    loss = 0
    for t in (out, h, c):
        loss = loss + (t * lib.tensor(rng.standard_normal(tuple(t.shape)).astype(x.detach().numpy().dtype))).sum()
    loss.backward()
    leaves = [x] + ([] if states is None else list(states)) + list(m.parameters())
    return [out, h, c], [t.grad for t in leaves]


def _arrays(ts):
    return [t.detach().numpy() for t in ts]


@pytest.mark.parametrize("kw", [{}, dict(bidirectional=True), dict(num_layers=2, bidirectional=True, batch_first=True),
                                dict(proj_size=3, bidirectional=True)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_pytorch_with_states_and_grads(kw, dtype):
    m, tm = _pair(dtype, 6, 5, **kw)
    rng = np.random.default_rng(1)
    T, B = 7, 3
    dirs = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    raw = [rng.standard_normal((B, T, 6) if kw.get("batch_first") else (T, B, 6)),
           rng.standard_normal((dirs, B, kw.get("proj_size") or 5)), rng.standard_normal((dirs, B, 5))]
    ours = [tt.tensor(a.astype(dtype), requires_grad=True) for a in raw]
    theirs = [torch.tensor(a.astype(dtype), requires_grad=True) for a in raw]
    outs, grads = _step(tt, m, ours[0], tuple(ours[1:]))
    touts, tgrads = _step(torch, tm, theirs[0], tuple(theirs[1:]))
    for o, to in zip(outs, touts):
        np.testing.assert_allclose(o.detach().numpy(), to.detach().numpy(), **TOL[dtype])
        assert type(o.grad_fn).__name__ == type(to.grad_fn).__name__
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), **TOL[dtype])


@pytest.mark.parametrize("kw", [dict(bidirectional=True), dict(proj_size=2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_packed_recorded_and_forward_only_give_the_same_floats(kw, dtype):
    # unequal lengths: both run the running state, one keeping every step for the backward
    m, tm = _pair(dtype, 4, 6, **kw)
    xs = np.random.default_rng(2).standard_normal((5, 3, 4)).astype(dtype)
    lengths = [5, 3, 2]
    outs, grads = _step(tt, m, tt.tensor(xs, requires_grad=True), packed=lengths)
    with tt.no_grad():
        out0, (h0, c0) = m(ur.pack_padded_sequence(tt.tensor(xs), lengths))
    for a, b in zip(_arrays(outs), _arrays([out0.data, h0, c0])):
        np.testing.assert_array_equal(a, b)
    touts, tgrads = _step(torch, tm, torch.tensor(xs, requires_grad=True), packed=lengths)
    for a, b in zip(_arrays(outs) + _arrays(grads), _arrays(touts) + _arrays(tgrads)):
        np.testing.assert_allclose(a, b, **TOL[dtype])


@pytest.mark.parametrize("kw", [{}, dict(bidirectional=True), dict(proj_size=2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_only_and_recorded_forward_give_the_same_floats(kw, dtype):
    m, tm = _pair(dtype, 4, 7, **kw)
    xs = np.random.default_rng(3).standard_normal((6, 5, 4)).astype(dtype)
    out, (h, c) = m(tt.tensor(xs, requires_grad=True))
    with tt.no_grad():
        out0, (h0, c0) = m(tt.tensor(xs))
    for a, b in zip(_arrays([out, h, c]), _arrays([out0, h0, c0])):
        np.testing.assert_array_equal(a, b)
    tout, (th, tc) = tm(torch.tensor(xs))
    for a, b in zip(_arrays([out0, h0, c0]), _arrays([tout, th, tc])):
        np.testing.assert_allclose(a, b, **TOL[dtype])


def test_packed_runs_in_both_directions_match_pytorch():
    m, tm = _pair(np.float32, 3, 8, bidirectional=True)
    xs = np.random.default_rng(4).standard_normal((6, 4, 3)).astype(np.float32)
    lengths = [6, 4, 4, 1]
    outs, grads = _step(tt, m, tt.tensor(xs, requires_grad=True), packed=lengths)
    touts, tgrads = _step(torch, tm, torch.tensor(xs, requires_grad=True), packed=lengths)
    for o, to in zip(outs, touts):
        np.testing.assert_allclose(o.detach().numpy(), to.detach().numpy(), **TOL[np.float32])
        assert type(o.grad_fn).__name__ == type(to.grad_fn).__name__
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), **TOL[np.float32])


def test_float32_layer_mostly_on_pytorchs_floats():
    # PyTorch's oneDNN kernel against numpy's exp/tanh and OpenBLAS's products: a floor under the share of
    # bit-identical floats (measured here: 0.275 of out/h/c, 0.14 of the gradients), so that a change of
    # formula that moves values off PyTorch's floats shows
    m, tm = _pair(np.float32, 16, 32)
    xs = np.random.default_rng(5).standard_normal((8, 4, 16)).astype(np.float32)
    outs, grads = _step(tt, m, tt.tensor(xs, requires_grad=True))
    touts, tgrads = _step(torch, tm, torch.tensor(xs, requires_grad=True))
    same_out = np.mean(np.concatenate([(a == b).ravel() for a, b in zip(_arrays(outs), _arrays(touts))]))
    same_grad = np.mean(np.concatenate([(a == b).ravel() for a, b in zip(_arrays(grads), _arrays(tgrads))]))
    # (the cells' plain formulas: 0.22 and 0.125 on AVX-512, 0.196 and 0.122 on AVX2 with PyTorch's DEFAULT path)
    out_floor, grad_floor = (0.18, 0.1) if REFERENCE else (OUT_FLOOR, GRAD_FLOOR)
    assert same_out >= out_floor and same_grad >= grad_floor, (same_out, same_grad)


OUT_FLOOR, GRAD_FLOOR = 0.25, 0.12


# -- the gates' rounding

H = 4096


def _read_gates(lib, vals, which, dtype):
    lstm = lib.nn.LSTM(1, H)
    if dtype == np.float64:
        lstm = lstm.double()
    sd = {k: np.zeros(tuple(v.shape), dtype) for k, v in lstm.state_dict().items()}
    w = sd["weight_ih_l0"]
    if which == "tanh":
        w[0:H, 0], w[2 * H:3 * H, 0] = 30, vals  # i saturated at 1: c = tanh(g)
    else:
        w[0:H, 0], w[2 * H:3 * H, 0] = vals, 30  # g saturated at 1: c = sigmoid(i)
    lstm.load_state_dict({k: lib.tensor(v) for k, v in sd.items()})
    _, (_, c) = lstm(lib.ones(1, 1, 1, dtype=lib.float64 if dtype == np.float64 else lib.float32))
    return c.detach().numpy()[0, 0]


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype, least", [(np.float32, 0.62), (np.float64, 0.9)])
@pytest.mark.parametrize("scale", [0.5, 4.0])
def test_sigmoid_gates_round_as_pytorch(dtype, least, scale):
    # float32: oneDNN's steps e = exp(-|a|), e / (e + 1), 1 - y for a > 0 (0.5 tanh(a/2) + 0.5 gave 43-61%);
    # float64: PyTorch's composite cell, 1 / (1 + exp(-a))
    vals = (np.random.default_rng(0).standard_normal(H) * scale).astype(dtype)
    ref, got = _read_gates(torch, vals, "sigmoid", dtype), _read_gates(tt, vals, "sigmoid", dtype)
    if REFERENCE:  # the cells' sigmoid (measured: float32 52-58%, float64 72-76% PyTorch's floats)
        least = {np.float32: 0.45, np.float64: 0.65}[dtype]
    assert np.mean(ref == got) >= least
    ulps = np.abs(ref.view(np.int64 if dtype == np.float64 else np.int32).astype(np.int64)
                  - got.view(np.int64 if dtype == np.float64 else np.int32))
    assert ulps.max() <= 4


@pytest.mark.bitexact
def test_tanh_gate_close():
    # numpy's tanh against oneDNN's table-driven one: two in three bit for bit, none over 2 ulp apart
    vals = (np.random.default_rng(1).standard_normal(H) * 2).astype(np.float32)
    ref, got = _read_gates(torch, vals, "tanh", np.float32), _read_gates(tt, vals, "tanh", np.float32)
    assert np.mean(ref == got) >= 0.6
    assert np.abs(ref.view(np.int32).astype(np.int64) - got.view(np.int32)).max() <= 2


# -- the recurrent product's weight layout


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_contiguous_recurrent_weight_gives_the_views_floats(dtype):
    # the forward multiplies by a contiguous copy of W_hh^T from packed_rows(W_hh) rows up, by the
    # transposed view below: the copy must round as the view does wherever it is taken
    from tinytorch._ops._kernels.lstm import packed_rows

    rng = np.random.default_rng(11)
    for _ in range(40):
        gates, k = int(rng.integers(1, 5)) * int(rng.integers(8, 300)), int(rng.integers(8, 300))
        w = rng.standard_normal((gates, k)).astype(dtype)
        lo = packed_rows(w)
        for n in (lo, lo + int(rng.integers(1, 40))):
            h = rng.standard_normal((n, k)).astype(dtype)
            np.testing.assert_array_equal(h @ np.ascontiguousarray(w.T), h @ w.T)


@pytest.mark.bitexact
@pytest.mark.parametrize("scale", [0.5, 4.0, 40.0])
def test_compiled_sigmoid_gates_are_pytorchs(scale):
    # with the compiled kernels the float32 gates take oneDNN's own exp: PyTorch's floats, every one
    from tinytorch._ops._kernels import compiled

    if compiled.family("rnn") is None:
        pytest.skip("no compiled kernels (numba missing or switched off)")
    if REFERENCE:
        pytest.skip(_ON_CELLS)
    vals = (np.random.default_rng(2).standard_normal(H) * scale).astype(np.float32)
    vals[:8] = [0.0, -0.0, 88.0, -88.0, 87.3, -87.3, 1e-30, -1e-30]
    ref, got = _read_gates(torch, vals, "sigmoid", np.float32), _read_gates(tt, vals, "sigmoid", np.float32)
    np.testing.assert_array_equal(got.view(np.int32), ref.view(np.int32))
