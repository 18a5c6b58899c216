"""The faster array paths a GPT-style training step runs (gelu's float32 kernel steps, the embedding's
gradient, the attention softmax, layer_norm), against PyTorch: values bit for bit where the paths
are exact, and the share of bit-identical values where they follow a kernel's steps."""
import numpy as np
import pytest

import tinytorch as tt

import _paths
from test_kernels_linear_rows import GELU_ULPS

torch = pytest.importorskip("torch")


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


def _avx2_onednn() -> bool:
    """Whether PyTorch's float32 gelu runs oneDNN's AVX2 polynomial here (tinytorch's steps)."""
    return _paths.onednn_path() in _paths.ONEDNN_GELU_PATHS


def _gelu_both(x: np.ndarray, g: np.ndarray):
    tx, px = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ty, py = tt.nn.functional.gelu(tx), torch.nn.functional.gelu(px)
    ty.backward(tt.tensor(g))
    py.backward(torch.tensor(g))
    return (ty.detach().numpy(), py.detach().numpy()), (tx.grad.numpy(), px.grad.numpy())


def test_gelu_float32_edge_values_bit_for_bit():
    """Infinities, NaN, signed zeros, tiny and huge values (where exp(-x^2/2) underflows), repeated so
    that the kernel path (contiguous, more than one element) runs: bit for bit where PyTorch runs
    oneDNN's AVX2 gelu, within GELU_ULPS (test_kernels_linear_rows.py) under another oneDNN ISA."""
    vals = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-8, 20.0, -20.0, 13.2, -13.2, 9.0, -9.0,
            5.5, -5.5, 1e30, -1e30, 3e19, -3e19]
    x = np.array(vals * 3, dtype=np.float32)
    for a, c in _gelu_both(x, np.ones_like(x)):
        keep = np.ones(x.shape, bool)
        if not _avx2_onednn():  # oneDNN's AVX-512 gelu gives NaN at +inf (its AVX2 one and tinytorch inf)
            keep = ~(np.isposinf(x) & np.isnan(c))
        _paths.assert_bits(a[keep], c[keep], ulps=GELU_ULPS, scale=1.0, exact_on=_paths.ONEDNN_GELU_PATHS,
                           path=_paths.onednn_path(), nan_payload=False)


@pytest.mark.parametrize("scale,share", [(0.5, 0.69), (1.0, 0.75), (4.0, 0.9)])
def test_gelu_float32_share_of_pytorchs_bits(scale, share):
    """The kernel's last fused multiply-adds (1 - e p and S + S erf) are single roundings here, its sign an
    xor: 72% / 77% / 92% of values bit for bit at these scales (the separate roundings gave 61 / 69 / 89),
    where PyTorch runs oneDNN's AVX2 gelu; within GELU_ULPS of PyTorch's under another oneDNN ISA."""
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((16, 32, 256)) * scale).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    for a, c in _gelu_both(x, g):
        _paths.assert_bits(a, c, ulps=GELU_ULPS, scale=1.0, exact_on=(), path=_paths.onednn_path())
        if _avx2_onednn():
            assert np.mean(a == c) > share


def test_embedding_gradient_with_repeats_bit_for_bit():
    """The rows of a repeated index add up in index order (PyTorch's and np.add.at's floats), whatever
    their magnitudes; unique indices and negative-free int32 indices too."""
    rng = np.random.default_rng(2)
    for n, count, dtype in ((65, 512, np.int64), (32, 32, np.int64), (7, 300, np.int32)):
        idx = rng.integers(0, n, count).astype(dtype) if count != n else rng.permutation(n).astype(dtype)
        scale = np.float32(1e3) ** rng.integers(-2, 3, (count, 1)).astype(np.float32)
        g = (rng.standard_normal((count, 16)) * scale).astype(np.float32)
        grads = []
        for lib in (tt, torch):
            lib.manual_seed(0)
            emb = lib.nn.Embedding(n, 16)
            emb(lib.tensor(idx)).backward(lib.tensor(g))
            grads.append(emb.weight.grad.numpy())
        np.testing.assert_array_equal(grads[0], grads[1])
        assert tt.nn.Embedding(n, 16)(tt.tensor(idx)).grad_fn.name() == "EmbeddingBackward0"


@pytest.mark.parametrize("p", [0.2, 0.5, 1 / 3, 0.999])
def test_dropout_masks_are_pytorchs_stream(p):
    """bernoulli_(1 - p) compared as integers (the draw's low 53 bits against ceil((1 - p) 2^53)) keeps
    PyTorch's masks and leaves the generator where PyTorch's does: F.dropout, then attention's."""
    x = np.random.default_rng(0).standard_normal((8, 4, 16, 16)).astype(np.float32) + 2
    outs = []
    for lib in (tt, torch):
        lib.manual_seed(123)
        a = lib.nn.functional.dropout(lib.tensor(x), p=p)
        q = lib.tensor(x)
        b = lib.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=p)
        outs.append((a.numpy(), b.numpy(), lib.rand(3).numpy()))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-5, atol=1e-5)  # the same weights dropped
    np.testing.assert_array_equal(outs[0][2], outs[1][2])


def test_last_axis_max_is_numpys_max():
    """The reduceat row max behind attention's and cross_entropy's softmax gives np.max's values
    (NaN, infinities, signed zeros; float16/32/64; empty and strided arrays take np.max itself)."""
    from tinytorch._ops._core.util import last_axis_max

    rng = np.random.default_rng(4)
    for dtype in (np.float16, np.float32, np.float64):
        for shape in ((4, 3, 32, 32), (512, 65), (7, 1), (5,), (3, 0), (0, 4)):
            x = rng.standard_normal(shape).astype(dtype)
            if x.size > 8:
                flat = x.reshape(-1)
                flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
                flat[-3:] = -np.inf
            for a in (x, x[..., ::2] if x.shape[-1] > 1 else x):
                if not a.shape[-1]:  # np.max's own error for an empty reduction: not a case for the path
                    continue
                got, want = last_axis_max(a), np.max(a, axis=-1, keepdims=True)
                np.testing.assert_array_equal(got, want)
                assert got.dtype == want.dtype and got.shape == want.shape


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


def test_flash_attention_output_scaled_after_the_value_product():
    """The flash path's exp(s - max) · V, then rows times 1 / (BLAS row sum of the exponentials), as
    PyTorch's CPU flash kernel orders it: ~34% of outputs bit for bit (normalising the weights first with
    numpy's row sums gave ~23%); gradients within float32 rounding. The same on PyTorch's DEFAULT, AVX2
    and AVX512 paths (46%, 46% and 44% measured)."""
    shares = []
    for seed in range(4):
        for mask in (False, True):
            (tn, *ta), (pn, *pa) = _sdpa_both(seed, mask=mask)
            assert tn == pn == "ScaledDotProductFlashAttentionForCpuBackward0"
            for a, c in zip(ta, pa):
                np.testing.assert_allclose(a, c, rtol=2e-5, atol=2e-5 * np.abs(c).max())
            shares.append(np.mean(ta[0] == pa[0]))
    assert np.mean(shares) > 0.3


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
