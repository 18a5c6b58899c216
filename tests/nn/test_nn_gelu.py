"""GELU against PyTorch: float32 gelu (forward and backward) follows the steps of the kernel PyTorch
runs (oneDNN's AVX2 polynomial: most values bit for bit, edge values included; within GELU_ULPS under
another oneDNN ISA); gelu over layer_norm differentiated twice, in float64."""
import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _pair(a: np.ndarray, requires_grad=True):
    return tt.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)


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
    if _avx2_onednn():
        for a, c in pairs:
            close = np.abs(a - c) <= 1e-6 * np.abs(c) + 1e-9  # ulps are meaningless where the sign flips
            u = _ulps(a, c)
            assert np.mean(u == 0) > 0.75 and np.mean((u <= 1) | close) > 0.85


def _avx2_onednn() -> bool:
    """Whether PyTorch's float32 gelu runs oneDNN's AVX2 polynomial here and tinytorch its steps (not under
    ``TINYTORCH_REFERENCE=1``, where it runs the plain formula)."""
    return _paths.running(_paths.ONEDNN_GELU_PATHS, _paths.onednn_path())


def _gelu_both(x: np.ndarray, g: np.ndarray):
    tx, px = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ty, py = tt.nn.functional.gelu(tx), torch.nn.functional.gelu(px)
    ty.backward(tt.tensor(g))
    py.backward(torch.tensor(g))
    return (ty.detach().numpy(), py.detach().numpy()), (tx.grad.numpy(), px.grad.numpy())


@pytest.mark.bitexact
def test_gelu_float32_edge_values_bit_for_bit():
    """Infinities, NaN, signed zeros, tiny and huge values (where exp(-x^2/2) underflows), repeated so
    that the kernel path (contiguous, more than one element) runs: bit for bit where PyTorch runs
    oneDNN's AVX2 gelu, within GELU_ULPS under another oneDNN ISA."""
    vals = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-8, 20.0, -20.0, 13.2, -13.2, 9.0, -9.0,
            5.5, -5.5, 1e30, -1e30, 3e19, -3e19]
    x = np.array(vals * 3, dtype=np.float32)
    for a, c in _gelu_both(x, np.ones_like(x)):
        keep = np.ones(x.shape, bool)
        if not _avx2_onednn():  # oneDNN's AVX-512 gelu gives NaN at +inf (its AVX2 one and tinytorch inf)
            keep = ~(np.isposinf(x) & np.isnan(c))
        _paths.assert_bits(a[keep], c[keep], ulps=GELU_ULPS, scale=1.0, exact_on=_paths.ONEDNN_GELU_PATHS,
                           path=_paths.onednn_path(), nan_payload=False)


@pytest.mark.bitexact
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
