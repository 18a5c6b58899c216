"""The faster array paths a GPT-style training step runs (gelu's float32 kernel steps, the embedding's
gradient, the attention softmax, layer_norm), against PyTorch: values bit for bit where the paths
are exact, and the share of bit-identical values where they follow a kernel's steps."""
import numpy as np
import pytest

import tinytorch as tt

import _paths

torch = pytest.importorskip("torch")


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


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
