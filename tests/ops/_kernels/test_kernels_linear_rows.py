"""The array fast paths against PyTorch: linear over flattened rows (the graph PyTorch
records, values, gradients), and the array backward of linear, layer_norm and gelu against their
create_graph=True formula (same bits) and PyTorch (values, second derivatives)."""
import numpy as np
import pytest

import tinytorch as tt

import _paths

torch = pytest.importorskip("torch")


def _chain(fn, depth=6):
    """grad_fn names along the first edge that is not a leaf."""
    names = []
    while fn is not None and len(names) < depth:
        names.append(type(fn).__name__)
        nxt = [f for f, _ in fn.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"]
        fn = nxt[0] if nxt else None
    return names


def _pair(a: np.ndarray, requires_grad=True):
    return tt.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)


CASES = {
    "3d_bias": ((2, 3, 4), True, None),
    "4d_bias": ((2, 2, 3, 4), True, None),
    "1d_bias": ((4,), True, None),
    "3d_nobias": ((2, 3, 4), False, None),
    "strided_bias": ((3, 2, 4), True, (1, 0, 2)),
    "strided_nobias": ((3, 2, 4), False, (1, 0, 2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_linear_flattened_rows_match_pytorch(name):
    shape, with_bias, perm = CASES[name]
    rng = np.random.default_rng(len(name))
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((5, 4)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    (tx, px), (tw, pw), (tb, pb) = _pair(x), _pair(w), _pair(b)
    outs = []
    for lib, xx, ww, bb in ((tt, tx, tw, tb), (torch, px, pw, pb)):
        inp = xx.permute(*perm) if perm else xx
        outs.append(lib.nn.functional.linear(inp, ww, bb if with_bias else None))
    assert _chain(outs[0].grad_fn) == _chain(outs[1].grad_fn)
    np.testing.assert_allclose(outs[0].detach().numpy(), outs[1].detach().numpy(), rtol=1e-5, atol=1e-5)
    g = rng.standard_normal(tuple(outs[1].shape)).astype(np.float32)
    outs[0].backward(tt.tensor(g))
    outs[1].backward(torch.tensor(g))
    for a, c in ((tx, px), (tw, pw)) + (((tb, pb),) if with_bias else ()):
        np.testing.assert_allclose(a.grad.numpy(), c.grad.numpy(), rtol=1e-5, atol=1e-5)


def _grads_both_ways(fn, inputs, g):
    """The gradients without create_graph (array path) and with it (tinytorch-op formula)."""
    fast = tt.autograd.grad(fn(*inputs), inputs, g)
    slow = tt.autograd.grad(fn(*inputs), inputs, g, create_graph=True)
    return fast, slow


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["linear3d", "layer_norm", "gelu"])
def test_array_backward_is_the_create_graph_formula(op, dtype):
    rng = np.random.default_rng(7)
    if op == "linear3d":
        arrays = (rng.standard_normal((2, 3, 6)), rng.standard_normal((4, 6)), rng.standard_normal(4))
        fn = tt.nn.functional.linear
        out_shape = (2, 3, 4)
    elif op == "layer_norm":
        arrays = (rng.standard_normal((2, 3, 6)) * 3 + 1, rng.standard_normal(6), rng.standard_normal(6))
        fn = lambda x, w, b: tt.nn.functional.layer_norm(x, (6,), w, b)  # noqa: E731
        out_shape = (2, 3, 6)
    else:
        arrays = (rng.standard_normal((3, 50)) * 2,)
        fn = tt.nn.functional.gelu
        out_shape = (3, 50)
    inputs = [tt.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    g = tt.tensor(rng.standard_normal(out_shape).astype(dtype))
    fast, slow = _grads_both_ways(fn, inputs, g)
    for a, c in zip(fast, slow):
        assert a.dtype == c.dtype and a.shape == c.shape
        if op == "gelu" and dtype == np.float32:  # the array path takes oneDNN's float32 steps (see below)
            np.testing.assert_allclose(a.detach().numpy(), c.detach().numpy(), rtol=2e-6, atol=1e-6)
        else:
            assert np.array_equal(a.detach().numpy(), c.detach().numpy())


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ia, ib = (v.view(np.int32).astype(np.int64) for v in (a, b))
    ia, ib = (np.where(v < 0, -(v & 0x7FFFFFFF), v) for v in (ia, ib))
    return np.abs(ia - ib)


# float32 gelu against PyTorch's on any of its paths: PyTorch's forward is oneDNN's polynomial for the
# ISA oneDNN runs (ONEDNN_MAX_CPU_ISA; its AVX2 one is what tinytorch's steps follow), each some ulps
# from the true value: tinytorch lies within this many ulps, counted at max(|value|, 1), of each
# (measured: AVX2's 2, SSE4.1's 4, AVX-512's 9.4 at gelu(-3.3) ~ -8e-4; the backward, ATen's, 4)
GELU_ULPS = 16


@pytest.mark.bitexact
def test_gelu_float32_takes_pytorchs_kernel_steps():
    """Contiguous float32 gelu (forward and backward) follows the float32 steps of the kernel PyTorch runs
    there (oneDNN's on AVX2): most values bit for bit, the rest an ulp or two away; under another oneDNN
    ISA (another polynomial) within GELU_ULPS of PyTorch's."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((64, 1024)) * 2).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    (tx, px) = _pair(x)
    ty, py = tt.nn.functional.gelu(tx), torch.nn.functional.gelu(px)
    ty.backward(tt.tensor(g))
    py.backward(torch.tensor(g))
    pairs = [(ty.detach().numpy(), py.detach().numpy()), (tx.grad.numpy(), px.grad.numpy())]
    for (a, c), what in zip(pairs, ("forward", "backward")):
        _paths.assert_bits(a, c, ulps=GELU_ULPS, scale=1.0, exact_on=(), path=_paths.onednn_path(), what=what)
    if _paths.onednn_path() in _paths.ONEDNN_GELU_PATHS:
        for a, c in pairs:
            close = np.abs(a - c) <= 1e-6 * np.abs(c) + 1e-9  # ulps are meaningless where the sign flips
            u = _ulps(a, c)
            assert np.mean(u == 0) > 0.75 and np.mean((u <= 1) | close) > 0.85


def test_layer_norm_and_gelu_double_backward_match_pytorch():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((4, 8)) * 2).astype(np.float64)
    w = rng.standard_normal(8)
    results = []
    for lib in (tt, torch):
        xx = lib.tensor(x, requires_grad=True)
        ww = lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.gelu(lib.nn.functional.layer_norm(xx, (8,), ww))
        (gx,) = lib.autograd.grad((y * y).sum(), [xx], create_graph=True)
        (ggx,) = lib.autograd.grad(gx.sum(), [xx])
        results.append((gx.detach().numpy(), ggx.numpy()))
    for a, c in zip(*results):
        np.testing.assert_allclose(a, c, rtol=1e-10, atol=1e-12)


def _graph_levels(fn, depth=14):
    """grad_fn names reachable from ``fn``, level by level (each level sorted)."""
    levels, frontier, seen = [], [fn], set()
    for _ in range(depth):
        names, nxt = [], []
        for f in frontier:
            if f is None or id(f) in seen:
                continue
            seen.add(id(f))
            names.append(type(f).__name__)
            nxt += [g for g, _ in f.next_functions if g is not None and type(g).__name__ != "AccumulateGrad"]
        levels.append(sorted(names))
        frontier = nxt
    return levels


@pytest.mark.parametrize("batch_first", [True, False])
def test_self_attention_graph_and_values_match_pytorch(batch_first):
    """MultiheadAttention's self-attention takes PyTorch's steps: one contiguous copy of the packed
    projection, views for the head split, the flash output laid out as the query (so the merge is a
    view): the whole graph matches PyTorch's, level by level, and the values and gradients."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 6, 16)).astype(np.float32)
    g = rng.standard_normal((4, 6, 16)).astype(np.float32)
    mask = np.triu(np.full((6, 6), -np.inf, np.float32), 1)
    runs = []
    for lib in (tt, torch):
        lib.manual_seed(0)
        m = lib.nn.MultiheadAttention(16, 4, batch_first=batch_first)
        xx = lib.tensor(x, requires_grad=True)
        out = m(xx, xx, xx, need_weights=False, attn_mask=lib.tensor(mask), is_causal=True)[0]
        out.backward(lib.tensor(g))
        runs.append((_graph_levels(out.grad_fn), out.detach().numpy(), xx.grad.numpy(), m.in_proj_weight.grad.numpy()))
    assert runs[0][0] == runs[1][0]
    for a, c in zip(runs[0][1:], runs[1][1:]):
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-6)


def test_flash_attention_output_strides_follow_the_query():
    rng = np.random.default_rng(6)
    base = rng.standard_normal((32, 16, 64)).astype(np.float32)
    kv = rng.standard_normal((16, 4, 32, 16)).astype(np.float32)
    for lib in (tt, torch):
        q = lib.tensor(base).view(32, 64, 16).transpose(0, 1).view(16, 4, 32, 16)
        out = lib.nn.functional.scaled_dot_product_attention(q, lib.tensor(kv), lib.tensor(kv), is_causal=True)
        if lib is tt:
            got = (tuple(out.stride()), out.is_contiguous(), out.numpy())
        else:
            want = (tuple(out.stride()), out.is_contiguous(), out.numpy())
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-5, atol=1e-6)
