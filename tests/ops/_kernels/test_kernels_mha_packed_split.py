"""MultiheadAttention's head split of the packed projection (proj[0], proj[1], proj[2]): without a graph of
the gradient the three SelectBackward0 nodes fill one gradient array instead of three zero-padded ones that
the engine sums. Compared with PyTorch bit for bit (signed zeros included: the sum made -0.0 gradients
+0.0), over full, partial and repeated backward passes, and the graph and double backward unchanged."""
from __future__ import annotations

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._ops.nn.multihead_attention import _split_packed

torch = pytest.importorskip("torch")


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
