"""Embedding's weight gradient against PyTorch's CPU kernel: the rows of each index summed in index
order, bit for bit, on gradients whose magnitudes spread over many decades (any other summation order
rounds differently): evenly spread, heavily repeated and skewed indices, one column, signed zeros,
above and below the sort path's size, int32 indices; padding_idx and scale_grad_by_freq; create_graph
(the op path) and the double-backward node."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("num,shape,dim,skew", [(65, (32, 32), 64, False), (65, (32, 32), 64, True),
                                                (27, (32, 3), 10, False), (5, (300,), 20, True),
                                                (1000, (64, 8), 16, False)])
def test_embedding_weight_grad_matches_torch_bitwise(num, shape, dim, skew, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(num + len(shape))
    idx = rng.integers(0, num, shape)
    if skew:
        idx = np.where(rng.random(shape) < 0.6, 1, idx)
    w = rng.standard_normal((num, dim)).astype(dtype)
    g = (rng.standard_normal(shape + (dim,)) * 10.0 ** rng.uniform(-6, 6, shape + (dim,))).astype(dtype)
    ours, theirs = tt.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    tt.nn.functional.embedding(tt.tensor(idx), ours).backward(tt.tensor(g))
    torch.nn.functional.embedding(torch.tensor(idx), theirs).backward(torch.tensor(g))
    assert ours.grad.numpy().tobytes() == theirs.grad.numpy().tobytes()


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
