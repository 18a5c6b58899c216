"""nn.RNN / LSTM / GRU and their cells against PyTorch: init streams, outputs, states, every gradient,
grad_fn names, dropout streams, state_dict round trips, reprs, errors, and gradcheck/gradgradcheck.

grad_fn names: PyTorch's CPU build ends a float32 LSTM's padded output in oneDNN's layer node
(``MkldnnRnnLayerBackward0``, batch-first: ``TransposeBackward0``) and every other configuration in
the ``StackBackward0`` of its composite path (batch-first RNN/GRU: an in-place ``TransposeBackward1``);
tinytorch's fused layer nodes carry those names, so the names compared here are equal."""
import warnings

import numpy as np
import pytest

import tinytorch as tt
from tinytorch.autograd import gradcheck, gradgradcheck

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

TOL = {np.float32: dict(rtol=1e-4, atol=2e-5), np.float64: dict(rtol=1e-10, atol=1e-11)}


def _pair(name, seed=0, double=False, **kw):
    """The same module in both libraries from the same seed; parameters must agree bit for bit (on
    PyTorch's FMA paths; within _paths.DRAW_ULPS elsewhere, and then tinytorch's takes PyTorch's)."""
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = getattr(torch.nn, name)(**kw)
        tt.manual_seed(seed)
        m = getattr(tt.nn, name)(**kw)
    if double:
        tm, m = tm.double(), m.double()
    names = [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in m.named_parameters()] == names
    for (n, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters()):
        assert p.dtype.__repr__().replace("tinytorch", "torch") == repr(tp.dtype)
        _paths.assert_drawn(p, tp, what=n)  # same seed, same draws (bit for bit on PyTorch's FMA paths)
    _paths.adopt_state(m, tm)  # DEFAULT path: what the tests compare next starts from PyTorch's parameters
    return m, tm


def _name(t):
    return type(t.grad_fn).__name__


def _flat(out):
    """Output tensors of a module call in order: output, then the states."""
    o, h = out
    return [o] + (list(h) if isinstance(h, tuple) else [h])


def _run_both(m, tm, arrays, dtype, seed=3, train_seed=None):
    """Forward both with the same inputs (and the same dropout seed); compare values, names, gradients."""
    tol = TOL[dtype]
    xs = [tt.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    txs = [torch.tensor(a.astype(dtype), requires_grad=True) for a in arrays]

    def call(mod, lib, ins):
        if train_seed is not None:
            lib.manual_seed(train_seed)
        if len(ins) == 1:
            return mod(ins[0])
        if len(ins) == 2:
            return mod(ins[0], ins[1])
        return mod(ins[0], (ins[1], ins[2]))

    outs, touts = _flat(call(m, tt, xs)), _flat(call(tm, torch, txs))
    rng = np.random.default_rng(seed)
    loss, tloss = 0, 0
    for o, to in zip(outs, touts):
        assert tuple(o.shape) == tuple(to.shape)
        np.testing.assert_allclose(o.detach().numpy(), to.detach().numpy(), **tol)
        assert _name(o) == _name(to)
        g = rng.standard_normal(tuple(to.shape)).astype(dtype)
        loss = loss + (o * tt.tensor(g)).sum()
        tloss = tloss + (to * torch.tensor(g)).sum()
    loss.backward()
    tloss.backward()
    for x, tx in zip(xs, txs):
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), **tol)
    for (n, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), err_msg=n, **tol)


CONFIGS = [
    ("RNN", {}),
    ("RNN", dict(nonlinearity="relu", num_layers=2)),
    ("RNN", dict(bidirectional=True, batch_first=True)),
    ("GRU", {}),
    ("GRU", dict(num_layers=2, bidirectional=True)),
    ("GRU", dict(bias=False, batch_first=True)),
    ("LSTM", {}),
    ("LSTM", dict(num_layers=2, bidirectional=True, batch_first=True)),
    ("LSTM", dict(proj_size=2)),
    ("LSTM", dict(proj_size=3, num_layers=2, bidirectional=True, bias=False)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kw", CONFIGS)
def test_modules_match_pytorch(name, kw, dtype):
    m, tm = _pair(name, input_size=3, hidden_size=5, double=dtype == np.float64, **kw)
    rng = np.random.default_rng(1)
    T, B = 4, 3
    x = rng.standard_normal((B, T, 3) if kw.get("batch_first") else (T, B, 3))
    _run_both(m, tm, [x], dtype)
    # explicit initial states
    m.zero_grad(), tm.zero_grad()
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    h0 = rng.standard_normal((layers, B, kw.get("proj_size") or 5))
    states = [h0, rng.standard_normal((layers, B, 5))] if name == "LSTM" else [h0]
    _run_both(m, tm, [x] + states, dtype)
    # unbatched input
    m.zero_grad(), tm.zero_grad()
    _run_both(m, tm, [x[0] if kw.get("batch_first") else x[:, 0]] + [s[:, 0] for s in states], dtype)


@pytest.mark.parametrize("name", ["RNN", "GRU", "LSTM"])
def test_dropout_between_layers_same_stream(name):
    m, tm = _pair(name, input_size=3, hidden_size=6, num_layers=3, dropout=0.4, bidirectional=True)
    x = np.random.default_rng(2).standard_normal((5, 4, 3))
    _run_both(m, tm, [x], np.float32, train_seed=11)
    m.eval(), tm.eval()
    m.zero_grad(), tm.zero_grad()
    _run_both(m, tm, [x], np.float32)


@pytest.mark.parametrize("name,kw", [("RNNCell", {}), ("RNNCell", dict(nonlinearity="relu", bias=False)),
                                     ("LSTMCell", {}), ("GRUCell", {}), ("GRUCell", dict(bias=False))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cells_match_pytorch(name, kw, dtype):
    m, tm = _pair(name, input_size=3, hidden_size=4, double=dtype == np.float64, **kw)
    rng = np.random.default_rng(0)
    x, h, c = rng.standard_normal((2, 3)), rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    for ins in ([x], [x, h] + ([c] if name == "LSTMCell" else []), [x[0], h[0]] + ([c[0]] if name == "LSTMCell" else [])):
        m.zero_grad(), tm.zero_grad()
        xs = [tt.tensor(a.astype(dtype), requires_grad=True) for a in ins]
        txs = [torch.tensor(a.astype(dtype), requires_grad=True) for a in ins]
        if name == "LSTMCell":
            out = m(xs[0], None if len(xs) == 1 else (xs[1], xs[2]))
            tout = tm(txs[0], None if len(txs) == 1 else (txs[1], txs[2]))
        else:
            out, tout = m(*xs), tm(*txs)
        out = list(out) if isinstance(out, tuple) else [out]
        tout = list(tout) if isinstance(tout, tuple) else [tout]
        loss, tloss = 0, 0
        for k, (o, to) in enumerate(zip(out, tout)):
            np.testing.assert_allclose(o.detach().numpy(), to.detach().numpy(), **TOL[dtype])
            assert _name(o) == _name(to)
            loss, tloss = loss + (o * (k + 1.5)).sum(), tloss + (to * (k + 1.5)).sum()
        loss.backward(), tloss.backward()
        for a, ta in zip(xs, txs):
            np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), **TOL[dtype])
        for (n, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters()):
            np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), err_msg=n, **TOL[dtype])


def test_parameter_bookkeeping_and_repr():
    kw = dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True, proj_size=2)
    m, tm = _pair("LSTM", **kw)
    assert m._flat_weights_names == tm._flat_weights_names
    assert [[tuple(w.shape) for w in ws] for ws in m.all_weights] == [[tuple(w.shape) for w in ws]
                                                                     for ws in tm.all_weights]
    assert all(a is b for a, b in zip(m._flat_weights, m.parameters()))
    m.flatten_parameters()
    for name, kwargs in [("LSTM", dict(input_size=3, hidden_size=4, num_layers=2, dropout=0.5, bidirectional=True,
                                       proj_size=2, batch_first=True, bias=False)),
                         ("RNN", dict(input_size=3, hidden_size=4, nonlinearity="relu")), ("GRU", {"input_size": 2,
                                                                                                   "hidden_size": 3}),
                         ("LSTMCell", dict(input_size=3, hidden_size=4, bias=False)),
                         ("RNNCell", dict(input_size=3, hidden_size=4, nonlinearity="relu")),
                         ("GRUCell", dict(input_size=2, hidden_size=3))]:
        a, b = _pair(name, **kwargs)
        assert repr(a) == repr(b)
    seq = tt.nn.Sequential(tt.nn.GRU(2, 3))
    assert repr(seq) == repr(torch.nn.Sequential(torch.nn.GRU(2, 3)))


@pytest.mark.parametrize("name,kw", [("LSTM", dict(proj_size=2, num_layers=2, bidirectional=True)),
                                     ("GRU", dict(bias=False)), ("RNNCell", {})])
def test_state_dict_round_trips(name, kw):
    m, tm = _pair(name, input_size=3, hidden_size=4, **kw)
    tm2 = getattr(torch.nn, name)(input_size=3, hidden_size=4, **kw)
    tm2.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
    m2 = getattr(tt.nn, name)(input_size=3, hidden_size=4, **kw)
    m2.load_state_dict({k: tt.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    assert list(m2.state_dict()) == list(tm.state_dict())
    for k, v in tm2.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), tm.state_dict()[k].numpy())
        np.testing.assert_array_equal(m2.state_dict()[k].numpy(), v.numpy())


ERROR_CASES = [
    ("RNN", {}, lambda lib, m: m(lib.randn(4, 2, 3, 1))),
    ("LSTM", {}, lambda lib, m: m(lib.randn(4))),
    ("GRU", {}, lambda lib, m: m(lib.randn(4, 2, 5))),
    ("GRU", {}, lambda lib, m: m(lib.randn(4, 2, 3).double())),
    ("RNN", {}, lambda lib, m: m(lib.randn(4, 2, 3), lib.randn(1, 3, 4))),
    ("RNN", {}, lambda lib, m: m(lib.randn(4, 3), lib.randn(1, 1, 4))),
    ("GRU", {}, lambda lib, m: m(lib.randn(4, 2, 3), lib.randn(2, 4))),
    ("LSTM", {}, lambda lib, m: m(lib.randn(4, 2, 3), (lib.randn(1, 2, 4), lib.randn(1, 2, 5)))),
    ("LSTM", {}, lambda lib, m: m(lib.randn(4, 2, 3), (lib.randn(1, 3, 4), lib.randn(1, 2, 4)))),
    ("LSTM", {}, lambda lib, m: m(lib.randn(4, 3), (lib.randn(1, 2, 4), lib.randn(1, 2, 4)))),
    ("LSTM", {}, lambda lib, m: m(lib.randn(4, 2, 3), (lib.randn(2, 4), lib.randn(2, 4)))),
    ("RNNCell", {}, lambda lib, m: m(lib.randn(2, 5))),
    ("RNNCell", {}, lambda lib, m: m(lib.randn(2, 3), lib.randn(3, 4))),
    ("GRUCell", {}, lambda lib, m: m(lib.randn(2, 3), lib.randn(2, 5))),
    ("GRUCell", {}, lambda lib, m: m(lib.randn(2, 2, 3))),
    ("LSTMCell", {}, lambda lib, m: m(lib.randn(2, 3), (lib.randn(2, 4), lib.randn(2, 5)))),
    ("LSTMCell", {}, lambda lib, m: m(lib.randn(2, 3), (lib.randn(2, 4), lib.randn(1, 2, 4)))),
    # a sequence of length 0: refused after the argument checks (a bad hidden state is named first)
    ("LSTM", {}, lambda lib, m: m(lib.randn(0, 2, 3))),
    ("LSTM", {"batch_first": True, "num_layers": 2}, lambda lib, m: m(lib.randn(2, 0, 3))),
    ("LSTM", {"proj_size": 2}, lambda lib, m: m(lib.randn(0, 3))),
    ("LSTM", {}, lambda lib, m: m(lib.randn(0, 2, 3), (lib.zeros(1, 2, 4), lib.zeros(1, 2, 4)))),
    ("LSTM", {}, lambda lib, m: m(lib.randn(0, 2, 3), (lib.zeros(1, 3, 4), lib.zeros(1, 3, 4)))),
    ("RNN", {"bidirectional": True}, lambda lib, m: m(lib.randn(0, 2, 3))),
    ("RNN", {"nonlinearity": "relu"}, lambda lib, m: m(lib.randn(0, 3))),
    ("GRU", {"batch_first": True}, lambda lib, m: m(lib.randn(2, 0, 3))),
    ("GRU", {}, lambda lib, m: m(lib.randn(0, 2, 5))),
]


def _same_error(fn):
    try:
        fn(torch)
    except Exception as e:  # noqa: BLE001
        expected = e
    else:
        raise AssertionError("PyTorch did not raise")
    with pytest.raises(type(expected)) as got:
        fn(tt)
    assert str(got.value).replace("tinytorch", "torch") == str(expected)


@pytest.mark.parametrize("i", range(len(ERROR_CASES)))
def test_errors_match(i):
    name, kw, call = ERROR_CASES[i]
    _same_error(lambda lib: call(lib, getattr(lib.nn, name)(3, 4, **kw)))


@pytest.mark.parametrize("args", [dict(dropout=1.5), dict(num_layers=0), dict(proj_size=4), dict(proj_size=-1),
                                  dict(bias=1), dict(batch_first=None)])
def test_constructor_errors(args):
    _same_error(lambda lib: lib.nn.LSTM(3, 4, **args))
    _same_error(lambda lib: lib.nn.GRU(3, 4, proj_size=2))
    _same_error(lambda lib: lib.nn.RNN(3, 4, nonlinearity="sigmoid"))
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        tt.nn.GRU(3, 4, dropout=0.5)


@pytest.mark.parametrize("name,kw", [("RNN", dict(bidirectional=True)), ("RNN", dict(nonlinearity="relu")),
                                     ("GRU", dict(num_layers=2)), ("LSTM", dict(proj_size=1, bidirectional=True))])
def test_gradcheck_and_gradgradcheck(name, kw):
    """First and second derivatives of the fused layers (the second through the op-composed recompute),
    for the input, the initial states and every parameter (second: the recurrent weight)."""
    tt.manual_seed(0)
    m = getattr(tt.nn, name)(2, 2, **kw).double()
    names = [n for n, _ in m.named_parameters()]
    layers = m.num_layers * (2 if m.bidirectional else 1)
    x = tt.randn(2, 1, 2, dtype=tt.float64, requires_grad=True)
    h0 = tt.randn(layers, 1, m.proj_size or m.hidden_size, dtype=tt.float64, requires_grad=True)
    c0 = tt.randn(layers, 1, m.hidden_size, dtype=tt.float64, requires_grad=True)
    ps = [p.detach().clone().requires_grad_() for p in m.parameters()]

    def f(x, h0, c0, *ps):
        hx = (h0, c0) if name == "LSTM" else h0
        o, h = tt.func.functional_call(m, dict(zip(names, ps)), (x, hx))
        return (o, h) if not isinstance(h, tuple) else (o, h[0], h[1])

    assert gradcheck(f, (x, h0, c0, *ps))
    k = names.index("weight_hh_l0")
    rest = [p.detach() for p in ps]
    assert gradgradcheck(lambda x, h0, c0, w: f(x, h0, c0, *rest[:k], w, *rest[k + 1:]), (x, h0, c0, ps[k]))


def test_output_edited_in_place_then_backward():
    """PyTorch's RNN output is a fresh stack of the steps: editing it in place leaves the gradient intact."""
    m, tm = _pair("RNN", input_size=2, hidden_size=3)
    x = np.random.default_rng(0).standard_normal((4, 2, 2)).astype(np.float32)
    grads = []
    for lib, mod in ((tt, m), (torch, tm)):
        xt = lib.tensor(x, requires_grad=True)
        out, h = mod(xt)
        out.mul_(2)
        (out.sum() + h.sum()).backward()
        grads.append(xt.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], **TOL[np.float32])


def test_forward_mode_tangent_matches_pytorch():
    import tinytorch.autograd.forward_ad as fw
    tfw = torch.autograd.forward_ad
    m, tm = _pair("LSTM", input_size=2, hidden_size=3, double=True, num_layers=2)
    rng = np.random.default_rng(1)
    x, v = rng.standard_normal((3, 2, 2)), rng.standard_normal((3, 2, 2))
    with fw.dual_level():
        o, (h, c) = m(fw.make_dual(tt.tensor(x), tt.tensor(v)))
        got = [fw.unpack_dual(t).tangent.detach().numpy() for t in (o, h, c)]
    with tfw.dual_level():
        o, (h, c) = tm(tfw.make_dual(torch.tensor(x), torch.tensor(v)))
        want = [tfw.unpack_dual(t).tangent.detach().numpy() for t in (o, h, c)]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, **TOL[np.float64])


def _layer_nodes(lib, m, x, h0):
    """The MkldnnRnnLayerBackward0 nodes of ``m(x, h0)``'s output, top layer first: (name, edges' node names,
    {_saved_<name>: value}, the shapes pack hooks saw), the values of oneDNN's workspace (_saved_result3) left
    out (tinytorch's reads as zeros)."""
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return t
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out, _ = m(x, h0)
    rows, node = [], out.grad_fn
    while node is not None and node.name() == "MkldnnRnnLayerBackward0":
        saved = {}
        for a in dir(node):
            if a.startswith("_saved_") and a != "_saved_result3":
                v = getattr(node, a)
                saved[a] = v.detach().numpy().tolist() if hasattr(v, "shape") else v
        rows.append((node.name(), [None if f is None else f.name() for f, _ in node.next_functions], saved))
        node = node.next_functions[0][0]
    return rows, packed


@pytest.mark.parametrize("kw, hx", [(dict(num_layers=2), False), (dict(bias=False), False), ({}, True)])
def test_lstm_layer_node_edges_and_saved_fields(kw, hx):
    # PyTorch's oneDNN layer node: 7 edges (input, weight0..3, hx_, cx_), the operator's arguments and results
    # saved under its names, packed hx_, cx_ first
    m, tm = _pair("LSTM", input_size=3, hidden_size=4, **kw)
    xs = np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32)
    layers = kw.get("num_layers", 1)
    hs = np.random.default_rng(1).standard_normal((2, layers, 2, 4)).astype(np.float32)

    def run(lib, module):
        x = lib.tensor(xs, requires_grad=True)
        h0 = tuple(lib.tensor(h, requires_grad=True) for h in hs) if hx else None
        return _layer_nodes(lib, module, x, h0)
    ours, theirs = run(tt, m), run(torch, tm)
    assert len(ours[0]) == layers and all(len(edges) == 7 for _, edges, _ in ours[0])
    for (name, edges, saved), (t_name, t_edges, t_saved) in zip(ours[0], theirs[0]):
        assert (name, edges, sorted(saved)) == (t_name, t_edges, sorted(t_saved))
        for key, value in saved.items():
            if isinstance(value, list):  # a tensor: the layer's floats, within the LSTM's tolerance
                np.testing.assert_allclose(value, t_saved[key], **TOL[np.float32], err_msg=key)
            else:
                assert value == t_saved[key], key
    if kw.get("bias", True):  # (PyTorch packs the zeros it hands oneDNN for missing biases; tinytorch has none)
        assert ours[1] == theirs[1]


def _workspaces(lib, module, x):
    """(shape, dtype, strides) of _saved_result3 of every MkldnnRnnLayerBackward0 under ``module(x)``'s
    output, in the order a walk of the graph meets them."""
    out, _ = module(x)
    rows, seen, todo = [], set(), [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if node.name() == "MkldnnRnnLayerBackward0":
            w = node._saved_result3
            rows.append((tuple(w.shape), str(w.dtype).split(".")[-1], tuple(w.stride())))
        todo.extend(f for f, _ in node.next_functions)
    return rows


def _workspace_grid():
    """LSTM configurations: widths on oneDNN's padding edges (64-byte lines, 256-element rows, 4096-byte
    pages) and a seeded random draw of sizes, layers, directions, layouts, biases and modes."""
    edges = [(1, 1, 1, 1), (2, 1, 2, 3), (3, 2, 64, 64), (1, 3, 256, 63), (2, 2, 255, 65), (1, 1, 257, 256),
             (4, 5, 16, 250), (1, 1, 1000, 3), (2, 1, 3, 300)]
    grid = [dict(steps=t, batch=b, input_size=i, hidden_size=h) for t, b, i, h in edges]
    rng = np.random.default_rng(78)
    for _ in range(24):
        grid.append(dict(steps=int(rng.integers(1, 7)), batch=int(rng.integers(1, 6)),
                         input_size=int(rng.integers(1, 400)), hidden_size=int(rng.integers(1, 300)),
                         num_layers=int(rng.integers(1, 4)), bidirectional=bool(rng.random() < .5),
                         batch_first=bool(rng.random() < .5), bias=bool(rng.random() < .7),
                         train=bool(rng.random() < .8)))
    return grid


@pytest.mark.parametrize("cfg", _workspace_grid(), ids=lambda c: "-".join(f"{k[:3]}{int(v)}" for k, v in c.items()))
def test_lstm_workspace_shape_matches_pytorch(cfg):
    # PyTorch's oneDNN layer saves its workspace (_saved_result3): a byte tensor sized by oneDNN's layout for
    # that layer's (steps, batch, input width, hidden); tinytorch's has the same shape, dtype and strides
    cfg = dict(cfg)
    steps, batch, train = cfg.pop("steps"), cfg.pop("batch"), cfg.pop("train", True)
    shape = (batch, steps, cfg["input_size"]) if cfg.get("batch_first") else (steps, batch, cfg["input_size"])
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    rows = []
    for lib in (tt, torch):
        lib.manual_seed(0)
        module = lib.nn.LSTM(**cfg).train(train)
        rows.append(_workspaces(lib, module, lib.tensor(x, requires_grad=True)))
    layers = cfg.get("num_layers", 1) * (2 if cfg.get("bidirectional") else 1)
    assert len(rows[1]) == layers and all(r[1] == "uint8" and r[0][0] > 0 for r in rows[1])
    assert rows[0] == rows[1]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("steps, batch, inp, hidden", [(1, 1, 2, 3), (3, 2, 64, 64), (2, 3, 500, 7), (1, 2, 9, 256),
                                                       (5, 1, 1000, 250), (2, 4, 31, 513)])
def test_mkldnn_rnn_layer_workspace_matches_pytorch(dtype, steps, batch, inp, hidden):
    # the operator itself, also in bfloat16 (whose states take two bytes, its gradients' blocks four)
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((steps, batch, inp), (4 * hidden, inp),
              (4 * hidden, hidden), (4 * hidden,), (4 * hidden,), (batch, hidden), (batch, hidden))]
    got = []
    for lib in (tt, torch):
        ts = [lib.tensor(a).to(getattr(lib, dtype)) for a in arrays]
        for t in ts[1:5]:
            t.requires_grad_()
        try:
            out = lib.ops.aten.mkldnn_rnn_layer(*ts, False, [], 2, hidden, 1, True, False, False, True)
        except RuntimeError as e:  # a CPU without oneDNN's bfloat16 LSTM
            pytest.skip(f"PyTorch's oneDNN LSTM in {dtype}: {e}")
        got.append([(tuple(w.shape), str(w.dtype).split(".")[-1]) for w in (out[3], out[0].grad_fn._saved_result3)])
    assert got[0] == got[1]


@pytest.mark.parametrize("dtype", ["float64", "float16", "int8", "int32"])
def test_mkldnn_rnn_layer_refuses_dtypes_onednn_lacks(dtype):
    # PyTorch's oneDNN LSTM runs float32 and bfloat16; other dtypes are its errors (float16 where the CPU
    # has no float16 LSTM)
    errors = []
    for lib in (tt, torch):
        ts = [lib.ones(s, dtype=getattr(lib, dtype)) for s in ((2, 1, 2), (12, 2), (12, 3), (12,), (12,), (1, 3),
                                                               (1, 3))]
        try:
            lib.ops.aten.mkldnn_rnn_layer(*ts, False, [], 2, 3, 1, True, False, False, True)
            errors.append(None)
        except RuntimeError as e:
            errors.append(str(e))
    if errors[1] is None:
        pytest.skip(f"PyTorch's oneDNN runs an LSTM in {dtype} on this CPU")
    assert errors[0] == errors[1]


@pytest.mark.parametrize("kw", [{}, dict(num_layers=2, bidirectional=True), dict(batch_first=True)])
def test_lstm_on_an_empty_batch_takes_the_composite_path(kw):
    # PyTorch's oneDNN path wants a non-empty input: an empty batch ends in the composite path's nodes
    names = []
    for lib in (tt, torch):
        module = lib.nn.LSTM(3, 4, **kw)
        x = lib.zeros((0, 5, 3) if kw.get("batch_first") else (5, 0, 3), requires_grad=True)
        out, (h, c) = module(x)
        names.append([_name(t) for t in (out, h, c)] + [tuple(out.shape), tuple(h.shape)])
        (out.sum() + h.sum() + c.sum()).backward()
        names[-1].append(tuple(module.weight_ih_l0.grad.shape))
    assert names[0] == names[1]
