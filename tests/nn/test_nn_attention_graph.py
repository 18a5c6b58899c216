"""The flash attention path and MultiheadAttention's self-attention against PyTorch: the output scaled
after the value product (PyTorch's order: a floor under the share of its bits), strides that follow
the query, backward twice and under create_graph, MHA's whole graph level by level; the head split of
the packed projection (one gradient array filled by the three SelectBackward0 nodes) bit for bit over
full, partial and repeated backward passes, its graph and double backward."""
from __future__ import annotations

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._ops._core import paths
from tinytorch._ops.nn.multihead_attention import _split_packed

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _sdpa_both(seed: int, dtype=np.float32, mask: bool = False):
    r = np.random.default_rng(seed)
    q, k, v, g = [(r.standard_normal((4, 4, 32, 16)) * (1 + seed % 3)).astype(dtype) for _ in range(4)]
    m = r.standard_normal((32, 32)).astype(dtype) if mask else None
    out = []
    for lib in (tt, torch):
        ts = [lib.tensor(a, requires_grad=True) for a in (q, k, v)]
        y = lib.nn.functional.scaled_dot_product_attention(*ts, attn_mask=None if m is None else lib.tensor(m),
                                                           is_causal=not mask)
        y.backward(lib.tensor(g))
        out.append([type(y.grad_fn).__name__, y.detach().numpy()] + [t.grad.numpy() for t in ts])
    return out


@pytest.mark.bitexact
def test_flash_attention_output_scaled_after_the_value_product():
    """The flash path's exp(s - max) · V, then rows times 1 / (BLAS row sum of the exponentials), as
    PyTorch's CPU flash kernel orders it: ~34% of outputs bit for bit (normalising the weights first with
    numpy's row sums gave ~23%); gradients within float32 rounding. The same on PyTorch's DEFAULT, AVX2
    and AVX512 paths (46%, 46% and 44% measured). Under ``TINYTORCH_REFERENCE=1`` the math path's order runs
    (the kernel is ``tinytorch/_cpu/attention.py``'s): within the same rounding, a smaller share (25% measured)."""
    shares = []
    for seed in range(4):
        for mask in (False, True):
            (tn, *ta), (pn, *pa) = _sdpa_both(seed, mask=mask)
            assert tn == pn == "ScaledDotProductFlashAttentionForCpuBackward0"
            for a, c in zip(ta, pa):
                np.testing.assert_allclose(a, c, rtol=2e-5, atol=2e-5 * np.abs(c).max())
            shares.append(np.mean(ta[0] == pa[0]))
    assert np.mean(shares) > (0.2 if paths.REFERENCE else 0.3)


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_flash_attention_backward_twice_and_under_create_graph(dtype):
    """The node normalises the forward's exponentials once (in place) for its first backward: a second
    backward (retain_graph) and the create_graph formula give the same gradients."""
    r = np.random.default_rng(5)
    q, k, v, g = [r.standard_normal((2, 3, 8, 4)).astype(dtype) for _ in range(4)]
    ts = [tt.tensor(a, requires_grad=True) for a in (q, k, v)]
    y = tt.nn.functional.scaled_dot_product_attention(*ts, is_causal=True)
    first = tt.autograd.grad(y, ts, tt.tensor(g), retain_graph=True)
    second = tt.autograd.grad(y, ts, tt.tensor(g), retain_graph=True)
    graph = tt.autograd.grad(y, ts, tt.tensor(g), create_graph=True)
    for a, b, c in zip(first, second, graph):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        np.testing.assert_allclose(a.numpy(), c.detach().numpy(), rtol=1e-5 if dtype == np.float32 else 1e-12,
                                   atol=1e-6 if dtype == np.float32 else 1e-12)
    (_, *ta), (_, *pa) = _sdpa_both(1, dtype=np.float64)
    for a, c in zip(ta, pa):
        np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-12)


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


def _bits_equal(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and bool((a.view(np.int32) == b.view(np.int32)).all())


def _weights(rng, shape):
    w = [rng.standard_normal(shape).astype(np.float32) for _ in range(3)]
    w[0][0, 0, :] = -0.0  # a -0.0 gradient: the zero-padded sum gave +0.0 there
    w[2][1, 1, 1] = -0.0
    return w


def _split(lib, proj):
    return _split_packed(proj) if lib is tt else (proj[0], proj[1], proj[2])


@pytest.mark.parametrize("roots", [(0, 1, 2), (0,), (1,), (2, 0)])
def test_split_gradient_bits_match_pytorch(roots):
    """Each backward pass uses the parts in ``roots`` (one pass per root with retain_graph after the
    first entry; the rest in one pass): the accumulated gradient of the projection, bit for bit."""
    rng = np.random.default_rng(0)
    base = rng.standard_normal((5, 3, 4, 6)).astype(np.float32)  # (L, 3, N, E): proj's layout before the copy
    ws = _weights(rng, (5, 4, 6))
    grads = []
    for lib in (tt, torch):
        x = lib.tensor(base, requires_grad=True)
        proj = (x * 1).transpose(0, 1).contiguous()
        parts = _split(lib, proj)
        terms = [(parts[i] * lib.tensor(ws[i])).sum() for i in range(3)]
        terms[roots[0]].backward(retain_graph=True)  # one part alone
        sum(terms[i] for i in roots).backward(retain_graph=True)  # then together
        sum(terms).backward()  # then all three
        grads.append(x.grad.numpy())
    assert _bits_equal(*grads)


def test_split_graph_names_and_double_backward_match_pytorch():
    rng = np.random.default_rng(1)
    base = rng.standard_normal((2, 3, 2, 4)).astype(np.float64)
    out = []
    for lib in (tt, torch):
        x = lib.tensor(base, requires_grad=True)
        parts = _split(lib, (x * 1).transpose(0, 1).contiguous())
        y = (parts[0] * parts[1] * parts[2]).sum()
        names = [p.grad_fn.name() for p in parts]
        (g,) = lib.autograd.grad(y, [x], create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), [x])
        out.append((names, g.detach().numpy(), gg.numpy()))
    assert out[0][0] == out[1][0] == ["SelectBackward0"] * 3
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12)
    np.testing.assert_allclose(out[0][2], out[1][2], rtol=1e-12)


@pytest.mark.parametrize("batch_first", [True, False])
def test_mha_gradients_over_repeated_backward_match_pytorch(batch_first):
    """MultiheadAttention end to end: two backward passes of one retained graph, then a gradient of
    the packed weight alone; values against PyTorch."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 5, 16)).astype(np.float32)
    g = rng.standard_normal((3, 5, 16)).astype(np.float32)
    results = []
    for lib in (tt, torch):
        lib.manual_seed(0)
        m = lib.nn.MultiheadAttention(16, 4, batch_first=batch_first)
        xx = lib.tensor(x, requires_grad=True)
        mask = lib.nn.Transformer.generate_square_subsequent_mask(5)
        out = m(xx, xx, xx, need_weights=False, attn_mask=mask, is_causal=True)[0]
        out.backward(lib.tensor(g), retain_graph=True)
        first = (xx.grad.numpy().copy(), m.in_proj_weight.grad.numpy().copy())
        out.backward(lib.tensor(g))
        (gw,) = lib.autograd.grad(m(xx, xx, xx, need_weights=False)[0].sum(), [m.in_proj_weight])
        results.append(first + (xx.grad.numpy(), m.in_proj_weight.grad.numpy(), m.in_proj_bias.grad.numpy(),
                                gw.numpy()))
    for a, c in zip(*results):
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-5)
