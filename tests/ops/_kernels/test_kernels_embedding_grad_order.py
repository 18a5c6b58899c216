"""Embedding's weight gradient sums the rows of each index in index order, as PyTorch's CPU kernel does:
bit-identical to PyTorch with many repeats (the grouped fast path), with heavy skew and one column
(its np.add.at fallback), under padding_idx / scale_grad_by_freq, and with create_graph (the op path)."""
import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


def _grads(idx, g, num, dtype, **kw):
    w = np.random.default_rng(1).standard_normal((num, g.shape[-1])).astype(dtype)
    wt = torch.tensor(w, requires_grad=True)
    torch.nn.functional.embedding(torch.tensor(idx), wt, **kw).backward(torch.tensor(g))
    wx = tt.tensor(w, requires_grad=True)
    tt.nn.functional.embedding(tt.tensor(idx), wx, **kw).backward(tt.tensor(g))
    return wt.grad.numpy(), wx.grad.numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", ["uniform", "skewed", "one_column", "negative_zero"])
def test_weight_grad_bit_identical(dtype, case):
    rng = np.random.default_rng(0)
    num, n, dim = 65, 1024, 64
    if case == "skewed":
        idx = np.where(rng.random(n) < 0.9, 3, rng.integers(0, num, n))
    else:
        idx = rng.integers(0, num, n)
    if case == "one_column":
        dim = 1
    g = (rng.standard_normal((n, dim)) * 10.0 ** rng.integers(-4, 5, (n, 1))).astype(dtype)
    if case == "negative_zero":
        g[rng.random(g.shape) < 0.5] = -0.0
    ref, got = _grads(idx.reshape(32, 32), g.reshape(32, 32, dim), num, dtype)
    assert ref.dtype == got.dtype
    assert np.array_equal(ref.view(np.uint8), got.view(np.uint8))


@pytest.mark.parametrize("kw", [{"padding_idx": 2}, {"scale_grad_by_freq": True}])
def test_weight_grad_options(kw):
    rng = np.random.default_rng(2)
    idx = rng.integers(0, 10, (8, 50))
    g = rng.standard_normal((8, 50, 16)).astype(np.float32)
    ref, got = _grads(idx, g, 10, np.float32, **kw)
    if "scale_grad_by_freq" in kw:  # PyTorch fuses the scaling into its add (one rounding); here two
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-7)
    else:
        assert np.array_equal(ref, got)


def test_weight_grad_create_graph():
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 5, (40,))
    w = tt.tensor(rng.standard_normal((5, 4)).astype(np.float32), requires_grad=True)
    wt = torch.tensor(w.detach().numpy(), requires_grad=True)
    (gw,) = tt.autograd.grad((tt.nn.functional.embedding(tt.tensor(idx), w) ** 2).sum(), w, create_graph=True)
    (gwt,) = torch.autograd.grad((torch.nn.functional.embedding(torch.tensor(idx), wt) ** 2).sum(), wt,
                                 create_graph=True)
    assert np.array_equal(gw.detach().numpy(), gwt.detach().numpy())


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 1}, {"scale_grad_by_freq": True},
                                {"padding_idx": -2, "scale_grad_by_freq": True}])
def test_double_backward_node_and_values(kw):
    # the weight gradient under create_graph is PyTorch's EmbeddingDenseBackwardBackward0 over the incoming
    # gradient's node, and its own gradient reads the rows back (zero at the padding row, no frequency scale)
    rng = np.random.default_rng(4)
    idx = rng.integers(0, 5, (3, 4))
    w0 = rng.standard_normal((5, 3))
    out = []
    for lib in (torch, tt):
        w = lib.tensor(w0, requires_grad=True)
        (gw,) = lib.autograd.grad((lib.nn.functional.embedding(lib.tensor(idx), w, **kw) ** 3).sum(), w,
                                  create_graph=True)
        names = (type(gw.grad_fn).__name__, [type(f).__name__ for f, _ in gw.grad_fn.next_functions])
        (gg,) = lib.autograd.grad((gw * lib.arange(15.0, dtype=lib.float64).reshape(5, 3)).sum(), w)
        out.append((names, gw.detach().numpy(), gg.numpy()))
    assert out[0][0] == out[1][0]
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-12)
    np.testing.assert_allclose(out[1][2], out[0][2], rtol=1e-12)
