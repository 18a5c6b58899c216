"""The compiled kernels (``tinytorch/_ops/_kernels/compiled/``, the optional ``[fast]`` extra: numba) give the
floats of the numpy paths they replace, bit for bit, on generated inputs: each case runs a public op (or
an optimizer step) with the kernels on and with them off in one process and compares every output,
gradient and updated state. Where the numpy path carries PyTorch's bits, the kernel then carries them too
(its distance to PyTorch is the numpy path's). The one exception, a float32 LSTM run on oneDNN by PyTorch
(its sigmoid gates take oneDNN's exp with the kernels on), is held to land closer to PyTorch's floats than
the numpy path does. Each case also checks that the kernels it is about ran.

Without numba these tests skip (``TINYTORCH_REQUIRE_NUMBA=1`` makes that a failure, as CI sets it); the
checks that the package works without numba, and never imports it on ``import tinytorch``, run always."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._ops._core.paths import REFERENCE
from tinytorch._ops._kernels import compiled

_REQUIRE = os.environ.get("TINYTORCH_REQUIRE_NUMBA") == "1"


def _numba_or_skip():
    if os.environ.get("TINYTORCH_NO_NUMBA", "") not in ("", "0"):
        pytest.skip("TINYTORCH_NO_NUMBA is set")
    try:
        import numba  # noqa: F401
    except ImportError:
        if _REQUIRE:
            pytest.fail("numba missing but TINYTORCH_REQUIRE_NUMBA=1")
        pytest.skip("numba is not installed (the [fast] extra)")
    for name in compiled.FAMILIES:
        if compiled.family(name) is None:
            pytest.fail(f"numba is installed but the compiled kernels {name!r} failed to load")


@pytest.fixture
def calls(monkeypatch):
    """{"family.kernel": number of calls}, counted while the test runs."""
    _numba_or_skip()
    counts = {}
    for name in compiled.FAMILIES:
        module = compiled.family(name)
        for attr in dir(module):
            fn = getattr(module, attr)
            # (a kernel's helpers, named _..., run only inside compiled code: no Python call to count)
            if type(fn).__name__ == "CPUDispatcher" and fn.__module__ == module.__name__ and attr[0] != "_":
                key = f"{name}.{attr}"
                counts[key] = 0

                def counted(*args, _fn=fn, _key=key):
                    counts[_key] += 1
                    return _fn(*args)

                monkeypatch.setattr(module, attr, counted)
    return counts


def _bits(a) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.reshape(-1).view(np.uint8)


def _assert_same(got, want, where, any_nan=False):
    """The same bits; with ``any_nan`` a NaN matches any NaN (sign and payload left out)."""
    assert len(got) == len(want), where
    for i, (a, b) in enumerate(zip(got, want)):
        assert a.dtype == b.dtype and a.shape == b.shape, (where, i, a.dtype, b.dtype, a.shape, b.shape)
        if any_nan:
            both = np.isnan(a) & np.isnan(b)
            a, b = np.where(both, np.nan, a).astype(a.dtype), np.where(both, np.nan, b).astype(b.dtype)
        if not np.array_equal(_bits(a), _bits(b)):
            differ = np.flatnonzero(_bits(a) != _bits(b))
            pytest.fail(f"{where}: output {i} differs from the numpy path's in {differ.size} bytes "
                        f"(first at byte {differ[0]}): {a.reshape(-1)[:4]} vs {b.reshape(-1)[:4]}")


def _both(run):
    """``run()``'s arrays with the compiled kernels on, then off."""
    got = [np.array(a) for a in run()]
    with compiled.disabled():
        want = [np.array(a) for a in run()]
    return got, want


# -- the cases: (kernels that must run, a function of a seed returning a runner) ---------------------
def _values(rng, shape, dt, kind):
    """Generated inputs: scaled and shifted normals, with exact ties, zeros and large offsets mixed in."""
    x = rng.standard_normal(shape) * rng.uniform(0.01, 50, shape[-1:]) + rng.uniform(-20, 20, shape[-1:])
    if kind == 1:  # repeated values and zeros (ties, exact cancellations, zero variances)
        x = np.round(x * 4) / 4
        x[..., 0] = 0.0
        x[..., -1] = 3.0
    elif kind == 2:  # a large common offset (cancellation in x - mean), tiny scales
        x = 1e4 + x * 1e-3
    return x.astype(dt)


def _batch_norm_case(seed):
    rng = np.random.default_rng(seed)
    n, c = [(32, 100), (32, 27), (2, 2), (64, 3), (200, 5), (7, 130)][seed % 6]
    dt = [np.float32, np.float64][seed % 2]
    affine, track, kind = seed % 3 != 2, seed % 4 != 3, seed % 3
    x = _values(rng, (n, c), dt, kind)
    g = rng.standard_normal((n, c)).astype(dt)
    w, b = rng.uniform(-2, 2, c).astype(dt), rng.uniform(-1, 1, c).astype(dt)
    rm, rv = rng.uniform(-1, 1, c).astype(dt), rng.uniform(0.5, 2, c).astype(dt)
    w_grad = seed % 5 != 4

    def run():
        X = tt.tensor(x, requires_grad=True)
        W = tt.tensor(w, requires_grad=w_grad) if affine else None
        B = tt.tensor(b, requires_grad=True) if affine else None
        RM, RV = (tt.tensor(rm.copy()), tt.tensor(rv.copy())) if track else (None, None)
        out = tt.nn.functional.batch_norm(X, RM, RV, W, B, True, 0.1 + 0.05 * (seed % 3), 1e-5)
        out.backward(tt.tensor(g))
        grads = [t.grad for t in (X, W, B) if t is not None and t.requires_grad]
        return [out.detach(), *grads, *([RM, RV] if track else [])]
    return run


def _batch_norm_module_case(seed):
    """BatchNorm1d through its module (the fast entry ``batch_norm_training``), several steps, then eval."""
    rng = np.random.default_rng(seed)
    dt = [np.float32, np.float64][seed % 2]
    xs = [_values(rng, (32, 27), dt, k % 3) for k in range(3)]

    def run():
        tt.manual_seed(seed)
        bn = tt.nn.BatchNorm1d(27, dtype=getattr(tt, np.dtype(dt).name))
        outs = []
        for x in xs:
            X = tt.tensor(x, requires_grad=True)
            y = bn(X)
            (y * y).sum().backward()
            outs += [y.detach(), X.grad]
        outs += [bn.weight.grad, bn.bias.grad, bn.running_mean, bn.running_var]
        bn.eval()
        outs.append(bn(tt.tensor(xs[0])).detach())
        return outs
    return run


# rows of every length class of PyTorch's float32 kernel: no whole vector of 8, vectors and leftovers, one
# chunk of 16 vectors and more, cascades of several levels
_FLOAT32_ROWS = [(64, 7), (40, 8), (33, 15), (32, 16), (31, 17), (9, 3, 127), (20, 128), (17, 129), (6, 1000),
                 (3, 2049), (2, 4100), (5, 255)]


def _layer_norm_case(seed, dt=None, shapes=None):
    """A layer_norm forward and backward; float32 and float64 by turns unless ``dt`` is given (float32's
    forward is PyTorch's kernel with the compiled kernels on, the reference's steps with them off: such a case
    is compared with PyTorch, not with the numpy path). ``run(lib)`` runs it in tinytorch or PyTorch."""
    rng = np.random.default_rng(seed)
    shapes = shapes or [(16, 32, 64), (5, 7), (3, 1, 130), (300, 2), (2, 3, 4, 9), (1, 1000)]
    shape = shapes[seed % len(shapes)]
    dt = [np.float32, np.float64][seed % 2] if dt is None else dt
    c = shape[-1]
    x = _values(rng, shape, dt, seed % 3)
    g = rng.standard_normal(shape).astype(dt)
    w, b = rng.uniform(-2, 2, c).astype(dt), rng.uniform(-1, 1, c).astype(dt)
    affine = [(True, True), (True, False), (False, True), (False, False)][seed % 4]
    permuted = seed % 4 == 1 and len(shape) == 3  # a gradient of permuted rows (batch_first attention)

    def run(lib=tt):
        X = lib.tensor(x, requires_grad=True)
        W = lib.tensor(w, requires_grad=seed % 5 != 0) if affine[0] else None
        B = lib.tensor(b, requires_grad=True) if affine[1] else None
        out = lib.nn.functional.layer_norm(X, (c,), W, B, 1e-5)
        G = lib.tensor(np.ascontiguousarray(g.swapaxes(0, 1))).transpose(0, 1) if permuted else lib.tensor(g)
        out.backward(G)
        return [out.detach(), *[t.grad for t in (X, W, B) if t is not None and t.requires_grad]]
    return run


def _layer_norm_op_case(seed):
    """``aten.native_layer_norm_backward`` (what a compiled step runs) from the forward's statistics: the fused
    loops make the normalised rows on the way; float32 and float64, a weight or none, masks asking for the
    input's gradient and a parameter's. (A permuted gradient takes the numpy path's steps, as in the cases
    above.)"""
    rng = np.random.default_rng(seed)
    shape = [(16, 32, 64), (5, 7), (3, 1, 130), (300, 2), (2, 3, 9), (4, 1000)][seed % 6]
    dt = [np.float32, np.float64][seed % 2]
    c = shape[-1]
    x = _values(rng, shape, dt, seed % 3)
    g = rng.standard_normal(shape).astype(dt)
    w, b = rng.uniform(-2, 2, c).astype(dt), rng.uniform(-1, 1, c).astype(dt)
    mask = [[True, True, True], [True, False, True], [True, True, False]][seed % 3]
    aten = tt.ops.aten
    X, W, B = tt.tensor(x), tt.tensor(w) if seed % 4 else None, tt.tensor(b)
    # (the statistics made once: float32's forward is PyTorch's kernel with the compiled kernels only)
    _, mean, rstd = aten.native_layer_norm.default(X, [c], W, B, 1e-5)

    def run():
        out = aten.native_layer_norm_backward.default(tt.tensor(g), X, [c], mean, rstd, W, B, mask)
        return [t for t in out if t is not None]
    return run


def _layer_norm_swapped_case(seed):
    """layer_norm's backward for a gradient whose two leading dims are swapped (a batch_first=False transformer's
    residual stream): the node's backward and ``aten.native_layer_norm_backward`` alike, float32 and float64, a
    weight and bias or not, the parameters' gradients summed by the kernels in numpy's orders (the bias's in the
    gradient's memory order, the weight's in C order)."""
    rng = np.random.default_rng(seed)
    shape = [(16, 32, 64), (2, 3, 5), (7, 2, 130), (3, 40, 9)][seed % 4]
    dt = [np.float32, np.float64][seed % 2]
    c = shape[-1]
    x = _values(rng, shape, dt, seed % 3)
    g = np.ascontiguousarray(rng.standard_normal(shape).astype(dt).swapaxes(0, 1))
    w, b = rng.uniform(-2, 2, c).astype(dt), rng.uniform(-1, 1, c).astype(dt)
    affine = [(True, True), (True, False), (False, True)][seed % 3]  # (the parameters given)

    aten = tt.ops.aten
    G = tt.tensor(g).transpose(0, 1)
    W0 = tt.tensor(w) if affine[0] else None
    B0 = tt.tensor(b) if affine[1] else None
    # (the statistics made once: float32's forward is PyTorch's kernel with the compiled kernels only)
    _, mean, rstd = aten.native_layer_norm.default(tt.tensor(x), [c], W0, B0, 1e-5)

    def run():
        grads = []
        if dt == np.float64:  # through the node, whose forward is the reference's steps on both sides
            X = tt.tensor(x, requires_grad=True)
            W = tt.tensor(w, requires_grad=True) if affine[0] else None
            B = tt.tensor(b, requires_grad=True) if affine[1] else None
            tt.nn.functional.layer_norm(X, (c,), W, B, 1e-5).backward(G)
            grads = [t.grad for t in (X, W, B) if t is not None]
        op = aten.native_layer_norm_backward.default(G, tt.tensor(x), [c], mean, rstd, W0, B0, [True, *affine])
        return [*grads, *[t for t in op if t is not None]]
    return run


def _rows_at_case(seed):
    """An embedding's weight gradient (the lookup's gradient rows added at their indices, repeats included) and
    the gradient of ``t[idx]``, float32 and float64 by turns: the kernel adds each row in index order, as
    ``np.add.at`` and the sort-and-pad reduction do."""
    rng = np.random.default_rng(seed)
    n, lookups, width = [(65, (16, 32), 64), (27, (32, 3), 10), (5, (2, 3), 2), (300, (4000,), 3)][seed % 4]
    dt = [np.float32, np.float64][seed % 2]
    w = rng.standard_normal((n, width)).astype(dt)
    idx = rng.integers(0, n, lookups)
    g = (rng.standard_normal(lookups + (width,)) * 10.0 ** rng.uniform(-3, 3, lookups + (width,))).astype(dt)

    def run():
        W = tt.tensor(w, requires_grad=True)
        tt.nn.functional.embedding(tt.tensor(idx), W).backward(tt.tensor(g))
        V = tt.tensor(w, requires_grad=True)
        V[tt.tensor(idx.reshape(-1) - n)].backward(tt.tensor(g.reshape(-1, width)))
        return [W.grad, V.grad]
    return run


def _attention_scores_case(seed):
    """scaled_dot_product_attention forward and backward, float32 and float64 by turns, causal, a bool mask, a
    float mask or none: the scores' row maxima from the compiled pass (rows of 8 keys or more) give the softmax
    numpy's maxima give; seeds 6 and 7 put a NaN and an infinity among the queries (the rows with a NaN take
    numpy's maximum again)."""
    rng = np.random.default_rng(seed)
    dt = (np.float32, np.float64)[seed % 2]
    b, h, l, s, e = [(16, 4, 32, 32, 16), (2, 3, 5, 9, 4), (1, 2, 9, 17, 8), (3, 2, 4, 8, 3)][seed % 4]
    q, k, v, g = ((rng.standard_normal(shape) * 3).astype(dt) for shape in
                  ((b, h, l, e), (b, h, s, e), (b, h, s, e), (b, h, l, e)))
    if seed >= 6:
        q[0, 0, 1, 0], q[0, 1, 2, 1] = np.nan, np.inf
    kind = ("causal", "bool", "float", "none")[seed % 4]
    allowed = rng.standard_normal((l, s)) > -0.5
    allowed[:, 0] = True  # every row attends to something
    mask = {"bool": allowed, "float": np.where(allowed, 0.0, -np.inf).astype(dt)}.get(kind)

    def run():
        Q, K, V = (tt.tensor(a, requires_grad=True) for a in (q, k, v))
        out = tt.nn.functional.scaled_dot_product_attention(Q, K, V, None if mask is None else tt.tensor(mask),
                                                             is_causal=kind == "causal")
        out.backward(tt.tensor(g))
        return [out.detach(), Q.grad, K.grad, V.grad]
    run.any_nan = seed >= 6
    return run


def _gelu_case(seed):
    rng = np.random.default_rng(seed)
    scale = [0.5, 1, 2, 4, 8, 1e-3][seed % 6]
    x = (rng.standard_normal((16, 32, 25)) * scale).astype(np.float32)
    # the edges: signed zeros, infinities, NaN, subnormals, huge values, exp's underflow threshold
    edges = [0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3e38, -3e38, 13.2, -13.2, 9.3, -9.3, 1e-20]
    x.reshape(-1)[:len(edges)] = edges
    g = rng.standard_normal(x.shape).astype(np.float32)

    def run():
        X = tt.tensor(x, requires_grad=True)
        y = tt.nn.functional.gelu(X)
        y.backward(tt.tensor(g))
        return [y.detach(), X.grad]
    return run


def _adam_case(seed):
    rng = np.random.default_rng(seed)
    dt = [np.float32, np.float64][seed % 2]
    cls = [tt.optim.Adam, tt.optim.AdamW][(seed // 2) % 2]
    kw = [{}, {"weight_decay": 0.1}, {"amsgrad": True, "maximize": True}, {"betas": (0.3, 0.5), "lr": 0.1},
          {"betas": (0.7, 0.9), "weight_decay": 1e-3, "eps": 1e-3, "amsgrad": True}][seed % 5]
    shapes = [(7, 5), (5,), (300,), ()]
    init = [rng.standard_normal(s).astype(dt) for s in shapes]
    grads = [[(rng.standard_normal(s) * 10.0 ** rng.uniform(-4, 2)).astype(dt) for s in shapes] for _ in range(5)]
    grads[1][2][:3] = 0.0, -0.0, np.finfo(dt).smallest_subnormal  # zeros of both signs, a subnormal

    def run():
        params = [tt.tensor(a.copy(), requires_grad=True) for a in init]
        opt = cls(params, **kw)
        for step in grads:
            for p, g in zip(params, step):
                p.grad = tt.tensor(g)
            opt.step()
        out = [p.detach() for p in params]
        for p in params:
            out += [v for k, v in sorted(opt.state[p].items())]
        return out
    return run


def _rnn_case(seed):
    rng = np.random.default_rng(seed)
    mode = ["LSTM", "GRU"][seed % 2]
    dt = [np.float32, np.float64][(seed // 2) % 2]
    T, B, inp, hid = (int(v) for v in rng.integers(1, 9, 4))
    bias, packed, bidir = seed % 3 != 0, seed % 5 == 0, seed % 4 == 1
    proj = mode == "LSTM" and seed % 7 == 3 and hid > 1
    layers = 2 if seed % 6 == 2 else 1
    x = (rng.standard_normal((T, B, inp)) * 2).astype(dt)
    lengths = sorted(rng.integers(1, T + 1, B).tolist(), reverse=True)
    lengths[0] = T
    with_state = seed % 3 == 1
    hout = hid - 1 if proj else hid
    h0 = rng.standard_normal((layers * (2 if bidir else 1), B, hout)).astype(dt)
    # a float32 LSTM without projection whose steps all have every row takes oneDNN's exp with the kernels on
    # (test_float32_lstm_kernels_land_closer_to_pytorch), numpy's without
    oned = mode == "LSTM" and dt == np.float32 and not proj and (not packed or len(set(lengths)) == 1)

    def run(lib=tt):  # lib: tinytorch, or PyTorch (the same weights from the seed)
        lib.manual_seed(seed)
        kw = {"proj_size": hid - 1} if proj else {}
        m = getattr(lib.nn, mode)(inp, hid, bias=bias, bidirectional=bidir, num_layers=layers, **kw)
        m = m.to(getattr(lib, np.dtype(dt).name))
        X = lib.tensor(x, requires_grad=True)
        inp_ = lib.nn.utils.rnn.pack_padded_sequence(X, lengths) if packed else X
        H = lib.tensor(h0, requires_grad=True)
        if with_state:
            state = (H, lib.tensor(np.zeros(h0.shape[:2] + (hid,), dt) + 0.5, requires_grad=True)) if mode == "LSTM" else H
            out, st = m(inp_, state)
        else:
            out, st = m(inp_)
        if packed:
            out = lib.nn.utils.rnn.pad_packed_sequence(out)[0]
        hn = st[0] if mode == "LSTM" else st
        loss = (out * out).sum() + (hn * 1.5).sum() + (st[1].sum() if mode == "LSTM" else 0)
        loss.backward()
        return [out.detach(), hn.detach(), X.grad, *[p.grad for p in m.parameters()]]
    run.onednn_exp = oned
    if mode == "LSTM":  # the step kernel makes its factors itself; a projection's loop takes them from one pass
        run.kernels = ("rnn.lstm_bptt_factors",) if proj else ("rnn.lstm_bptt_step",)
    return run


def _lstm_packed_case(seed):
    """A float32 LSTM on packed sequences of unequal lengths: numpy's exp between the step's kernels."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((9, 6, 5)).astype(np.float32)
    lengths = [9, 7, 7, 4, 2, 1]

    def run():
        tt.manual_seed(seed)
        m = tt.nn.LSTM(5, 11, bidirectional=seed % 2 == 1)
        X = tt.tensor(x, requires_grad=True)
        out, (h, c) = m(tt.nn.utils.rnn.pack_padded_sequence(X, lengths))
        ((out.data * out.data).sum() + h.sum() + (c * 0.5).sum()).backward()
        return [out.data.detach(), h.detach(), c.detach(), X.grad, *[p.grad for p in m.parameters()]]
    return run


def _lstm_float32_case(seed):
    """A float32 LSTM whose steps all have every row (padded, or packed runs of equal lengths), which PyTorch
    runs on oneDNN: bench_rnn's shapes for seed 0, generated ones after. ``run(lib)`` runs it in tinytorch
    or PyTorch with the same weights."""
    rng = np.random.default_rng(seed)
    T, B, inp, hid = (32, 32, 64, 128) if seed == 0 else (int(v) for v in rng.integers(1, 40, 4))
    kw = [{}, {"bidirectional": True}, {"num_layers": 2, "bias": False}][seed % 3]
    packed, with_state = seed % 4 == 3, seed % 2 == 1
    shapes = {k: tuple(v.shape) for k, v in tt.nn.LSTM(inp, hid, **kw).state_dict().items()}
    weights = {k: rng.uniform(-hid ** -0.5, hid ** -0.5, s).astype(np.float32) for k, s in shapes.items()}
    x = rng.standard_normal((T, B, inp)).astype(np.float32)
    dirs = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
    states = [rng.standard_normal((dirs, B, hid)).astype(np.float32) for _ in range(2)]
    scales = [rng.standard_normal(s).astype(np.float32) for s in ((T * B, hid * (2 if kw.get("bidirectional") else 1)), (dirs, B, hid), (dirs, B, hid))]

    def run(lib=tt):
        m = lib.nn.LSTM(inp, hid, **kw)
        m.load_state_dict({k: lib.tensor(v) for k, v in weights.items()})
        X = lib.tensor(x, requires_grad=True)
        leaves = [X] + ([lib.tensor(a, requires_grad=True) for a in states] if with_state else [])
        data = lib.nn.utils.rnn.pack_padded_sequence(X, [T] * B) if packed else X
        out, (h, c) = m(data, tuple(leaves[1:])) if with_state else m(data)
        out = (out.data if packed else out).reshape(T * B, -1)
        loss = sum((t * lib.tensor(w)).sum() for t, w in zip((out, h, c), scales))
        loss.backward()
        return [out.detach(), h.detach(), c.detach(), *[t.grad for t in leaves], *[p.grad for p in m.parameters()]]
    return run


def _resample_case(seed):
    """interpolate(antialias=True): shrinking and growing, both filters, float32 and float64, with a NaN and
    infinities among the inputs (they stay in their windows)."""
    rng = np.random.default_rng(seed)
    dt = [np.float32, np.float64][seed % 2]
    mode = ["bilinear", "bicubic"][(seed // 2) % 2]
    size = [(20, 25), (57, 9), (13, 71)][seed % 3]
    x = (rng.standard_normal((2, 3, 40, 50)) * 30).astype(dt)
    x[0, 0, 5, 7], x[1, 2, 30, 0], x[0, 1, 0, 49] = np.nan, np.inf, -np.inf

    def run():
        return [tt.nn.functional.interpolate(tt.tensor(x), size=size, mode=mode, antialias=True,
                                             align_corners=bool(seed % 5 == 0))]
    return run


def _with_edges(a, rng, count=6):
    """``a`` with signed zeros and infinities put at random places (NaNs follow where an inf meets a zero)."""
    flat = a.reshape(-1)
    at = rng.choice(flat.size, 4 * count, replace=False)
    flat[at[:count]], flat[at[count:2 * count]] = 0.0, -0.0
    flat[at[2 * count:3 * count]] = np.where(np.arange(count) % 2, np.inf, -np.inf)
    return a


_CONV_GEOMETRIES = [  # (input shape, weight shape, stride, padding, dilation, groups, bias, dtype)
    ((2, 32, 26, 26), (64, 32, 3, 3), 1, 0, 1, 1, True, np.float32),  # the MNIST net's second convolution
    ((3, 16, 30, 30), (8, 16, 3, 3), 1, 1, 1, 1, False, np.float64),
    ((2, 8, 40, 40), (6, 4, 5, 5), 1, 2, 1, 2, True, np.float32),  # groups, a 5x5 kernel
    ((2, 16, 3000), (4, 16, 7), 1, 3, 2, 1, True, np.float32),  # 1-d, dilated
    ((5, 3, 9, 8), (4, 3, 3, 2), 2, 1, 1, 1, True, np.float64),  # strided, several samples a chunk
]


def _conv_case(seed):
    """A convolution and both its gradients and its bias's, on the geometries above: each stride-1 one has
    chunks of one sample (the input gradient's fused col2im), every one takes the fused copy with the bias."""
    rng = np.random.default_rng(seed)
    xs, ws, stride, padding, dilation, groups, bias, dt = _CONV_GEOMETRIES[seed % len(_CONV_GEOMETRIES)]
    x = _with_edges(rng.standard_normal(xs).astype(dt), rng) if seed >= len(_CONV_GEOMETRIES) else \
        rng.standard_normal(xs).astype(dt)
    w = rng.standard_normal(ws).astype(dt)
    w.reshape(-1)[::7] = -0.0  # negative-zero products: the signs of zero sums are compared too
    b = rng.standard_normal(2 * ws[0]).astype(dt)
    conv = tt.nn.functional.conv1d if len(xs) == 3 else tt.nn.functional.conv2d

    def run():
        X, W = tt.tensor(x, requires_grad=True), tt.tensor(w, requires_grad=True)
        strided = seed % 3 == 0  # every third seed, the bias a strided view
        B = tt.tensor(b if strided else b[:ws[0]], requires_grad=True) if bias else None
        y = conv(X, W, B[::2] if bias and strided else B, stride, padding, dilation, groups)
        g = np.random.default_rng(seed + 1).standard_normal(y.shape).astype(dt)
        g.reshape(-1)[::5] = -0.0
        g[0] = -0.0 if seed % 2 else 0.0  # one sample's gradient all zeros
        y.backward(tt.tensor(g))
        return [y.detach(), X.grad, W.grad, *([B.grad] if bias else [])]
    run.any_nan = seed >= len(_CONV_GEOMETRIES)  # inf and zero inputs: NaNs, whose sign and payload are left out
    return run


def _relu_case(seed):
    """relu's backward on arrays large enough for the compiled select, with zeros, infinities and NaNs in
    the input and the gradient."""
    rng = np.random.default_rng(seed)
    dt = [np.float32, np.float64][seed % 2]
    x = _with_edges(rng.standard_normal((64, 32, 13, 13)).astype(dt), rng)
    x.reshape(-1)[rng.choice(x.size, 5, replace=False)] = [np.nan, -np.nan, np.nan, 0.0, -0.0]
    g = _with_edges(rng.standard_normal(x.shape).astype(dt), rng)
    g.reshape(-1)[:3] = np.nan

    def run():
        X = tt.tensor(x, requires_grad=True)
        y = tt.nn.functional.relu(X)
        y.backward(tt.tensor(g))
        return [y.detach(), X.grad]
    return run


def _outer_case(seed):
    """Products with an inner dimension of 1 (the weight gradients of a batch of one through two linear layers,
    and a matmul of a column by a row, both operands strided views on even seeds), with signed zeros,
    infinities and NaNs in the operands: each element the one rounded product, as the numpy path's ?ger."""
    rng = np.random.default_rng(seed)
    dt = [np.float32, np.float64][seed % 2]
    x = _with_edges(rng.standard_normal((1, 300)).astype(dt), rng, 3)
    x[0, 7] = np.nan
    w1 = rng.standard_normal((260, 300)).astype(dt)
    w2 = rng.standard_normal((5, 260)).astype(dt)
    u = _with_edges(rng.standard_normal((2, 400)).astype(dt), rng)
    v = _with_edges(rng.standard_normal((3, 290)).astype(dt), rng)

    def run():
        X = tt.tensor(x)
        W1, W2 = tt.tensor(w1, requires_grad=True), tt.tensor(w2, requires_grad=True)
        y = tt.nn.functional.linear(tt.nn.functional.linear(X, W1).tanh(), W2)
        y.sum().backward()
        col, row = (tt.tensor(u[1])[:, None], tt.tensor(v[2])[None]) if seed % 2 else (
            tt.tensor(u)[1:, ::2].t(), tt.tensor(v)[:1])
        return [y.detach(), W1.grad, W2.grad, col @ row]
    return run


_CE_SHAPES = [(32, 27), (1, 10), (300, 7), (1024, 65), (17, 200), (4097, 3), (3, 1000), (2, 129), (256, 9)]


def _cross_entropy_case(seed):
    """cross_entropy of (N, C) logits and class indices, mean and sum, with and without a gradient: rows of
    one to a thousand classes (pairwise sums of one block and of a tree; the char model's 1024x65), batches
    past 16, 256 and 4096 (the cascade's levels handing up), minus infinities in the logits, the targets a
    strided view on odd seeds; on every third seed a row whose max is a zero of both signs (either order), and
    a row with a NaN or +inf, which the kernels hand back to the numpy path for that call (its results still
    compared)."""
    rng = np.random.default_rng(seed)
    dt = [np.float32, np.float64][seed % 2]
    n, c = _CE_SHAPES[seed % len(_CE_SHAPES)]
    x = (rng.standard_normal((n, c)) * rng.uniform(0.1, 40) + rng.uniform(-30, 30)).astype(dt)
    x.reshape(-1)[rng.choice(x.size, min(5, x.size - 1), replace=False)] = -np.inf
    x[0, 0] = max(x[0].max(), 0) + 1  # a finite max in the first row, whatever the infinities
    variants = [x]
    if seed % 3 == 0:  # a row whose max is a zero of both signs, in turn; a row with a NaN or +inf
        zeros, odd = x.copy(), x.copy()
        r = n - 1
        zeros[r] = np.where(zeros[r] > 0, -1.0, zeros[r])
        zeros[r, ::2] = -0.0
        zeros[r, 1::2] = 0.0
        odd[r, -1] = [np.nan, np.inf][seed % 2]
        variants += [zeros, zeros[:, ::-1].copy(), odd]
    y = rng.integers(0, c, 2 * n)

    def run():
        out = []
        for logits in variants:
            for red in ("mean", "sum"):
                X = tt.tensor(logits, requires_grad=red == "mean")
                target = tt.tensor(y)[::2] if seed % 2 else tt.tensor(y[:n])
                loss = tt.nn.functional.cross_entropy(X, target, reduction=red)
                out.append(loss.detach())
                if X.requires_grad:
                    loss.backward()
                    out.append(X.grad)
        return out
    run.any_nan = seed % 3 == 0
    return run


def _max_pool_case(seed):
    """max_pool2d with 2x2 windows and stride 2 (the compiled kernel's): odd sizes, padding, ceil_mode, ties
    between signed zeros and between equal values, infinities, and on every fourth seed one NaN, at each tap
    of a window in turn (the kernel reports it and the numpy path's general rule takes over); the indices
    and the input gradient too."""
    rng = np.random.default_rng(seed)
    dt = [np.float32, np.float64][seed % 2]
    shape = [(8, 16, 24, 24), (3, 5, 13, 17), (2, 3, 7, 9), (64, 4, 6, 6)][(seed // 2) % 4]
    padding, ceil_mode = [(0, False), (1, False), (0, True), (1, True)][seed % 4]
    x = np.round(rng.standard_normal(shape) * 2).astype(dt)  # many equal values in a window
    x.reshape(-1)[::11] = -0.0
    x = _with_edges(x, rng)
    if seed % 4 == 3:  # one NaN, at tap t (row-major) of the window (1, 1) of every plane
        t = (seed // 4 + 1) % 4
        x[..., 2 - padding + t // 2, 2 - padding + t % 2] = np.nan

    def run():
        X = tt.tensor(x, requires_grad=True)
        y, idx = tt.nn.functional.max_pool2d(X, 2, padding=padding, ceil_mode=ceil_mode, return_indices=True)
        y.backward(tt.tensor(np.random.default_rng(seed + 1).standard_normal(y.shape).astype(dt)))
        return [y.detach(), idx, X.grad]
    return run


def _mersenne_twister_case(seed):
    """Large draws from the default generator and from a Generator of its own, after a small draw that leaves
    the stream at an odd or even word of its block (64-bit values then straddle the blocks' ends, or not):
    float32 and float64 uniforms and normals, dropout and bernoulli_ (p 0, 1 and between), randperm, randint,
    and each generator's state after."""
    rng = np.random.default_rng(seed)
    sizes = [4096, 5000, 32768 + 313, 100_003, 2048, 624 * 7 + 1][seed % 6], int(rng.integers(2048, 70_000))
    pre = int(rng.integers(0, 1300))
    p = [0.0, 1.0, 0.3, float(rng.uniform())][seed % 4]

    def run():
        tt.manual_seed(seed)
        g = tt.Generator().manual_seed(seed + 1000)
        out = [tt.randint(0, 7, (pre,)), tt.rand(sizes[0]), tt.rand(sizes[1], dtype=tt.float64, generator=g),
               tt.randn(sizes[1]), tt.randn(sizes[0], dtype=tt.float64),
               tt.nn.functional.dropout(tt.ones(sizes[1]), 1 - p if p < 1 else 0.5),
               tt.empty(sizes[0], dtype=tt.float64).bernoulli_(p, generator=g),
               tt.randperm(sizes[0] + 1), tt.randint(-5, 5, (sizes[1],), generator=g)]
        # p on a drawn value: the next draw's element ``k`` compares its value's low 53 bits with themselves
        ahead = tt.Generator()
        ahead.set_state(g.get_state())
        with compiled.disabled():
            m = int(ahead._engine.u64(sizes[0])[seed] & np.uint64((1 << 53) - 1))
        out.append(tt.empty(sizes[0], dtype=tt.float64).bernoulli_(m / 2.0 ** 53, generator=g))
        return [t.numpy() for t in out] + [tt.get_rng_state().numpy(), g.get_state().numpy()]
    return run


CASES = {
    "batch_norm": (("batch_norm.train_forward", "batch_norm.train_backward"), _batch_norm_case, 12),
    "batch_norm_module": (("batch_norm.train_forward", "batch_norm.train_backward"), _batch_norm_module_case, 4),
    "layer_norm": (("layer_norm.forward_into", "layer_norm.input_grad_into"),
                   lambda seed: _layer_norm_case(seed, np.float64), 12),
    # (seeds 0, 4, 8 of the case above: a weight or bias with a gradient, which the kernel sums)
    "layer_norm_params": (("layer_norm.param_grads_into",), lambda seed: _layer_norm_case(4 * seed, np.float64), 3),
    # (the kernels making the normalised rows on the way from the statistics)
    "layer_norm_op": (("layer_norm.input_grad_into", "layer_norm.param_grads_into"), _layer_norm_op_case, 12),
    # (a gradient of two swapped leading dims, whose parameter gradients the kernels sum in numpy's orders)
    "layer_norm_swapped": (("layer_norm.input_grad_into", "layer_norm.param_grads_into"), _layer_norm_swapped_case,
                           8),
    "gelu": (("gelu.forward_into", "gelu.backward_into"), _gelu_case, 6),
    "rows_at": (("reduce.add_rows_at",), _rows_at_case, 8),
    "attention_scores": (("reduce.row_max_into",), _attention_scores_case, 8),
    "adam": (("adam.update",), _adam_case, 10),
    "resample": (("resample.walk",), _resample_case, 8),
    # (each seed's run names the one of the two it takes: ``run.kernels``)
    "lstm": (("rnn.lstm_bptt_step", "rnn.lstm_bptt_factors"), _rnn_case, 14),
    "lstm_packed": (("rnn.lstm_gates_onednn", "rnn.lstm_cell_onednn", "rnn.lstm_bptt_step"), _lstm_packed_case, 2),
    "lstm_onednn": (("rnn.lstm_gates", "rnn.lstm_cell", "rnn.lstm_bptt_step"), _lstm_float32_case, 6),
    "gru": (("rnn.gru_gates", "rnn.gru_candidate", "rnn.gru_output", "rnn.gru_bptt_step", "rnn.gru_dh"), _rnn_case, 14),
    "conv": (("conv.product_into",), _conv_case, 2 * len(_CONV_GEOMETRIES)),
    # (the stride-1 geometries: chunks of one sample, whose input gradient takes the fused col2im)
    "conv_col2im": (("conv.product_into", "conv.col2im_one"), lambda seed: _conv_case(seed + seed // 4), 8),
    "relu": (("relu.threshold_backward",), _relu_case, 4),
    "outer": (("outer.outer_into",), _outer_case, 4),
    "cross_entropy": (("cross_entropy.shift_rows", "cross_entropy.row_sums", "cross_entropy.finish"),
                      _cross_entropy_case, 13),
    "max_pool": (("pool.max_2x2",), _max_pool_case, 16),
    "mersenne_twister": (("mersenne_twister.words", "mersenne_twister.words64", "mersenne_twister.below53"), _mersenne_twister_case, 12),
}


def _params(onednn_exp=False):
    """The (case, seed) pairs whose kernels give the numpy path's floats, or with ``onednn_exp`` those of a
    float32 LSTM taking oneDNN's exp with the kernels on."""
    for name, (_, make, count) in CASES.items():
        for seed in range(count):
            if name in ("lstm", "gru") and seed % 2 != (name == "gru"):
                continue  # _rnn_case: even seeds are LSTMs, odd ones GRUs
            if (name == "lstm_onednn" or getattr(make(seed), "onednn_exp", False)) == onednn_exp:
                yield pytest.param(name, seed, id=f"{name}-{seed}")


# the families whose kernels only CPU paths call (tinytorch/_cpu/), none of them registered under
# TINYTORCH_REFERENCE=1: there both sides of a comparison run the reference
_CPU_PATH_FAMILIES = {"batch_norm", "conv", "layer_norm", "pool", "reduce", "outer", "cross_entropy", "resample",
                      "gelu", "relu", "rnn"}


@pytest.mark.bitexact
@pytest.mark.parametrize("name, seed", list(_params()))
def test_compiled_kernel_gives_the_numpy_paths_floats(calls, name, seed):
    _, make, _ = CASES[name]
    run = make(seed)
    kernels = getattr(run, "kernels", CASES[name][0])
    got, want = _both(run)
    _assert_same(got, want, f"{name} seed {seed}", any_nan=getattr(run, "any_nan", False))
    ran = {k: calls[k] for k in kernels}
    if REFERENCE and {k.partition(".")[0] for k in kernels} <= _CPU_PATH_FAMILIES:
        assert not any(ran.values()), f"kernels of CPU paths that ran under TINYTORCH_REFERENCE=1: {ran}"
        return
    assert all(ran.values()), f"kernels that did not run: {ran}"


@pytest.mark.parametrize("name, seed", list(_params(onednn_exp=True)))
def test_float32_lstm_kernels_land_closer_to_pytorch(calls, name, seed):
    """A float32 LSTM's sigmoid gates take oneDNN's own exp with the kernels on (PyTorch runs the layer on
    oneDNN), numpy's exp without: the outputs and gradients then land on PyTorch's floats at least as
    often as the numpy path's, and no farther from them in total. (The floats between the gates are the
    numpy path's operations: test_kernels_lstm.py holds the gates themselves to PyTorch's bits.)"""
    torch = pytest.importorskip("torch")
    if REFERENCE:
        pytest.skip("TINYTORCH_REFERENCE=1: the layers run the step cells (the kernels are tinytorch/_cpu/rnn.py's)")
    torch.set_num_threads(1)
    _, make, _ = CASES[name]
    run = make(seed)
    kernels = getattr(run, "kernels", CASES[name][0])
    got, want = _both(run)
    ref = [t.detach().numpy() for t in run(torch)]
    same, dist = [0, 0], [0.0, 0.0]
    for r, *ours in zip(ref, got, want):
        for k, a in enumerate(ours):
            same[k] += int((a == r).sum())
            dist[k] += float(np.abs(a.astype(np.float64) - r).sum())
    assert same[0] >= same[1] and dist[0] <= dist[1], (same, dist)
    ran = {k: calls[k] for k in kernels}
    assert all(ran.values()), f"kernels that did not run: {ran}"


@pytest.mark.bitexact
@pytest.mark.parametrize("seed", range(12))
def test_float32_layer_norm_kernel_is_pytorchs(calls, seed):
    """float32 layer_norm's forward with the compiled kernels is PyTorch's kernel (``pytorch_forward_into``:
    RowwiseMoments' 8-lane Welford statistics, the fused scale and shift), which the numpy path does not
    emulate (in numpy passes it cost 3.5-9x the plain formula; without numba the reference's steps run): held
    to PyTorch's output on rows of every length class of the kernel, bit for bit on PyTorch's FMA paths. (On
    its other paths the kernel rounds its multiply-adds twice, and these rows' large offsets make the float32
    statistics ill-conditioned: PyTorch's own paths differ by up to 10^5 ulps here; test_nn_norm holds the bound
    there on well-conditioned rows. The backward kernels it hands its statistics to give the numpy path's
    floats: the layer_norm_op case.)"""
    torch = pytest.importorskip("torch")
    import _paths

    if not _paths.running(_paths.FMA_PATHS):
        pytest.skip(f"PyTorch runs its {_paths.torch_path()} path here (or TINYTORCH_REFERENCE=1): the kernel "
                    f"follows its FMA paths, and these rows are ill-conditioned elsewhere")
    run = _layer_norm_case(seed, np.float32, _FLOAT32_ROWS)
    ours, theirs = run()[0], run(torch)[0]
    _paths.assert_bits(ours, theirs, ulps=0, what=f"layer_norm float32 seed {seed}")
    assert calls["layer_norm.pytorch_forward_into"], "the float32 kernel did not run"


@pytest.mark.bitexact
def test_every_kernel_is_tested(calls):
    """Each compiled kernel has a case above that checks it ran."""
    tested = {k for kernels, _, _ in CASES.values() for k in kernels} | {"layer_norm.pytorch_forward_into"}
    # (PyTorch's cascade sum, which the numpy path does not emulate: held to PyTorch's bits on each of its CPU
    # paths by tests/ops/reduce/test_reduce_cascade_sum.py, which also checks that these ran)
    tested |= {"cascade_sum.rows_into", "cascade_sum.columns_into"}
    # (the compiled whole step's fused SGD update: tests/compile/test_compile_step_plan.py holds it to the product
    # and SGD's update one after the other, and its 200 steps to eager's)
    tested |= {"outer.outer_fma_into"}
    # (nll_loss's cascade over ignored targets, which the numpy path does not emulate: held to PyTorch's bits by
    # tests/nn/test_nn_nll_sums.py, which also checks that it ran)
    tested |= {"cross_entropy.cascade_kept"}
    assert set(calls) == tested


def test_gelu_kernel_matches_exhaustively_on_a_float32_sweep():
    """GELU's kernel against the numpy steps on a sweep of float32 bit patterns (every 4099th one, both
    signs: about 2 million values across every exponent): the same bits, NaN where NaN. (A NaN's sign bit is
    left out: numpy 1.24's SIMD loops give a NaN input's NaN another sign in the elements they take one by one,
    whose place moves with the arrays' alignment and with a split across threads.)"""
    _numba_or_skip()
    from tinytorch._ops._kernels import gelu_onednn

    fast = compiled.family("gelu")
    bits = np.arange(0, 2 ** 32, 4099, dtype=np.uint64).astype(np.uint32)
    s = bits.view(np.float32)
    got = [np.empty_like(s) for _ in range(3)]
    fast.forward_into(s, *got)
    want = gelu_onednn.gelu_forward(s)
    _assert_same(got, list(want), "gelu forward sweep", any_nan=True)
    g, d = np.ones_like(s), np.empty_like(s)
    fast.backward_into(g, s, got[1], got[2], d)
    with np.errstate(all="ignore"):
        _assert_same([d], [gelu_onednn.gelu_backward(g, s, want[1], want[2])], "gelu backward sweep", any_nan=True)


def test_pairwise_sum_is_numpys():
    """The kernels' row sum against ``np.add.reduce`` for every length to 300 and some longer ones (up to
    numpy 1.x's buffer of 8192 elements: numpy 1.x sums a longer row in pieces of that size, numpy 2 in one
    pairwise sum; the layer_norm kernel takes rows of at most 8192)."""
    _numba_or_skip()
    from numba import njit

    from tinytorch._ops._kernels.compiled._common import row_sum

    @njit
    def summed(a, stride):
        return row_sum(a, 0, a.size // stride, stride)

    rng = np.random.default_rng(0)
    longer = [12345, 100000] if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else []
    for n in [*range(1, 300), 1000, 4096, 8192, *longer]:
        for dt in (np.float32, np.float64):
            a = (rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n)).astype(dt)
            assert summed(a, 1) == np.add.reduce(a), (n, dt)
            assert summed(np.stack([a, a], 1).reshape(-1), 2) == np.add.reduce(a), (n, dt)
    assert str(summed(np.full(3, -0.0), 1)) == str(np.add.reduce(np.full(3, -0.0)))  # +0.0, as numpy


def test_kernel_cache_follows_every_source_file(tmp_path):
    """numba checks a cached kernel against its own file only; the kernels are cached in a directory named
    by a hash of all their sources, so a change to a shared helper (``_common.py``) is a fresh compile."""
    import shutil

    here = os.path.dirname(compiled.__file__)
    copy = tmp_path / "compiled"
    copy.mkdir()
    for f in os.listdir(here):
        if f.endswith(".py"):
            shutil.copy(os.path.join(here, f), copy / f)
    shutil.copy(os.path.join(os.path.dirname(here), "gelu_onednn.py"), tmp_path / "gelu_onednn.py")
    first = compiled.fingerprint(str(copy))
    assert first == compiled.fingerprint(here)  # names and contents, not places
    (copy / "_common.py").write_text((copy / "_common.py").read_text() + "\n# a change\n")
    assert compiled.fingerprint(str(copy)) != first
    (copy / "_common.py").write_text(open(os.path.join(here, "_common.py")).read())
    assert compiled.fingerprint(str(copy)) == first
    (tmp_path / "gelu_onednn.py").write_text("# another constant\n")
    assert compiled.fingerprint(str(copy)) != first


def test_kernels_are_cached_under_their_fingerprint():
    _numba_or_skip()
    from numba.core import config

    where = compiled.cache_dir()
    assert os.path.basename(where).endswith(compiled.fingerprint())
    if not os.access(os.path.dirname(where), os.W_OK):
        pytest.skip("the cache's parent directory is not writable here (numba falls back to its own places)")
    assert any(os.scandir(where)), "no kernel was cached in the fingerprinted directory"
    assert config.CACHE_DIR == os.environ.get("NUMBA_CACHE_DIR", "")  # numba's own setting put back after loading


# -- without numba --------------------------------------------------------------------------------------
# (LayerNorm in float64: its float32 forward is PyTorch's kernel with the compiled kernels, the reference's steps
# without, by design: test_float32_layer_norm_kernel_is_pytorchs; and the results printed as numpy's float64 sums
# of their values: tinytorch's own sums are PyTorch's cascade with the compiled kernels, numpy's without, by
# design too: tests/ops/reduce/test_reduce_cascade_sum.py)
_STEP = ("import numpy as np, tinytorch as tt\n"
         "tt.manual_seed(0)\n"
         "m = tt.nn.Sequential(tt.nn.Linear(5, 8), tt.nn.BatchNorm1d(8), tt.nn.GELU())\n"
         "ln = tt.nn.LayerNorm(8, dtype=tt.float64)\n"
         "opt = tt.optim.AdamW([*m.parameters(), *ln.parameters()])\n"
         "x = tt.randn(16, 5)\n"
         "f = lambda: ln(m(x).double())\n"
         "for _ in range(3):\n"
         "    opt.zero_grad(); f().pow(2).sum().backward(); opt.step()\n"
         "total = lambda t: float(t.detach().numpy().astype(np.float64).sum())\n"
         "print(total(f()), *(total(p) for p in [*m.parameters(), *ln.parameters()]))\n")


def _run(code: str, **env) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=dict(os.environ, **env)).stdout


def test_import_never_imports_numba():
    code = "import sys, tinytorch\nprint('numba' in sys.modules)"
    assert _run(code).strip() == "False"


def test_large_draws_never_import_numba():
    """The generator's kernels ride along where another family has imported numba; draws alone never import it."""
    code = ("import sys, tinytorch as t\nt.rand(100_000); t.randn(50_000, dtype=t.float64)\n"
            "t.nn.functional.dropout(t.ones(100_000), 0.2); t.randperm(60_000)\nprint('numba' in sys.modules)")
    assert _run(code).strip() == "False"


def test_quickstart_steps_never_import_numba():
    """The quickstart MLP's small batches (cross_entropy's compiled steps, the bias gradients' sums) use kernels
    only where another family has imported numba: a step of such a model alone never imports it (its import
    costs more than the microseconds those kernels save in a short program)."""
    code = ("import sys, tinytorch as t\nm = t.nn.Sequential(t.nn.Flatten(), t.nn.Linear(784, 64), t.nn.ReLU(), "
            "t.nn.Linear(64, 10))\nopt = t.optim.SGD(m.parameters(), lr=0.1)\nfor _ in range(2):\n"
            "    t.nn.functional.cross_entropy(m(t.rand(8, 1, 28, 28)), t.randint(0, 10, (8,))).backward()\n"
            "    opt.step(); opt.zero_grad()\nprint('numba' in sys.modules)")
    assert _run(code).strip() == "False"


def test_quickstart_epoch_and_evaluation_never_import_numba():
    """The job's own ``train`` and ``test`` (``train_fashion_mnist.py``: the quickstart MLP, batches of 64, its
    accuracy line ``(pred.argmax(1) == y).type(torch.float).sum().item()`` and the loss's mean) never import
    numba: the sums there (64 elements, a bias gradient's 64 rows) are below the sizes the cascade sum's kernel
    pays for, so numpy sums them without loading it."""
    pytest.importorskip("tqdm")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    code = ("import sys\nsys.path.insert(0, %r)\nimport tinytorch as t\n"
            "from tinytorch.data import DataLoader, TensorDataset\nimport train_fashion_mnist as job\n"
            "t.manual_seed(0)\ndata = TensorDataset(t.rand(256, 1, 28, 28), t.randint(0, 10, (256,)))\n"
            "model, loss_fn = job.NeuralNetwork(), job.make_loss('mlp')\n"
            "opt = t.optim.SGD(model.parameters(), lr=1e-3)\n"
            "job.train(DataLoader(data, batch_size=64, shuffle=True), model, loss_fn, opt, 0, job.StopFlag(), None)\n"
            "job.test(DataLoader(data, batch_size=64), model, loss_fn, False)\n"
            "t.rand(64).mean().item(); t.rand(4096).sum().item()\n"
            "print('numba' in sys.modules)\n") % root
    assert _run(code).strip().splitlines()[-1] == "False"


def test_generator_state_is_read_in_place():
    """numpy's MT19937 (1.x and 2.x) keeps the state layout the kernels read in place: the draws never pay the
    ``state`` property's two conversions (the check once failed on a wrong expectation, and every draw went
    through the property unnoticed)."""
    from tinytorch._random import engine

    assert engine._state_layout_holds()
    bitgen = np.random.MT19937(3)
    bitgen.random_raw(5)
    key, pos = engine._live_state(bitgen)
    st = bitgen.state["state"]
    assert np.array_equal(key, st["key"]) and int(pos[0]) == st["pos"]


@pytest.mark.bitexact
def test_generator_kernels_through_the_state_property(calls, monkeypatch):
    """Where numpy's MT19937 state could not be read in place, the kernels draw through its ``state``
    property: the same draws and states."""
    from tinytorch._random import engine

    run = _mersenne_twister_case(5)
    got = [np.array(a) for a in run()]
    monkeypatch.setattr(engine, "_state_layout_holds", lambda: False)
    again = [np.array(a) for a in run()]
    _assert_same(again, got, "mersenne_twister through the state property")
    assert calls["mersenne_twister.words"] >= 2 and calls["mersenne_twister.words64"] >= 2 and calls["mersenne_twister.below53"] >= 2


def test_without_numba_the_numpy_path_runs_and_prints_the_same_numbers():
    """numba unimportable (a stand-in that fails), or switched off: the step runs on numpy, silently, and
    gives the numbers it gives with the compiled kernels."""
    blocked = "import sys\nsys.modules['numba'] = None\n" + _STEP + "print('numba' in sys.modules and sys.modules['numba'] is not None)\n"
    out_blocked = _run(blocked).split()
    assert out_blocked[-1] == "False"
    off = _STEP + "import sys\nprint('numba' in sys.modules)\n"
    out_off = _run(off, TINYTORCH_NO_NUMBA="1").split()
    assert out_off[-1] == "False"
    assert out_blocked[:-1] == out_off[:-1]
    on = _run(_STEP + "from tinytorch._ops._kernels import compiled\nprint(compiled.available())\n").split()
    if on[-1] == "True":
        assert on[:-1] == out_off[:-1]


def test_switching_off_inside_a_process():
    assert compiled.set_enabled(False) in (True, False)
    try:
        assert compiled.family("batch_norm") is None
    finally:
        compiled.set_enabled(os.environ.get("TINYTORCH_NO_NUMBA", "") in ("", "0"))


@pytest.mark.bitexact
def test_read_only_inputs(calls):
    """Tensors over read-only arrays reach the kernels that only read them (and give the same floats)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 6)).astype(np.float32)
    x.flags.writeable = False
    x64 = x.astype(np.float64)
    x64.flags.writeable = False

    def run():
        X = tt.from_numpy(x)
        W = tt.from_numpy(x[0].copy())
        X64 = tt.from_numpy(x64)
        return [tt.nn.functional.gelu(X), tt.nn.functional.layer_norm(X64, (6,), tt.from_numpy(x64[0].copy()), None),
                tt.nn.functional.batch_norm(X, None, None, W, None, True)]
    got, want = _both(run)
    _assert_same(got, want, "read-only inputs")
    # float32 layer_norm's kernel is PyTorch's (no numpy twin): the read-only input gives a writable copy's floats
    w = tt.from_numpy(x[0].copy())
    _assert_same([tt.nn.functional.layer_norm(tt.from_numpy(x), (6,), w, None).numpy()],
                 [tt.nn.functional.layer_norm(tt.from_numpy(x.copy()), (6,), w, None).numpy()], "read-only float32")
    assert REFERENCE or (calls["gelu.forward_into"] and calls["layer_norm.forward_into"] and calls["layer_norm.pytorch_forward_into"]
                         and calls["batch_norm.train_forward"])
