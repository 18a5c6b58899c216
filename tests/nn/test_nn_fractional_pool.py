"""Fractional max pooling against PyTorch: the same windows from the same seed (the samples are drawn
from PyTorch's stream), values, indices, gradients (first and second order), modules, errors."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

from _raises_same import raises_same as _raises_same  # noqa: E402


CASES = [(2, (2, 3, 9, 11), (2, 3), dict(output_size=(5, 4))),
         (2, (3, 7, 7), 2, dict(output_size=3)),
         (2, (2, 3, 40, 37), 3, dict(output_ratio=(0.5, 0.75))),
         (2, (1, 2, 6, 6), 1, dict(output_size=6)),
         (3, (2, 2, 6, 7, 8), (2, 2, 3), dict(output_size=(3, 4, 4))),
         (3, (2, 6, 6, 6), 2, dict(output_ratio=0.5))]


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


@pytest.mark.parametrize("nd, shape, k, kw", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_functional_matches_pytorch_stream(nd, shape, k, kw, dtype):
    x = torch.randn(*shape, dtype=getattr(torch, dtype))
    x.view(-1)[0] = float("nan")  # a NaN wins its window, as in PyTorch's kernel
    x.view(-1)[5] = x.view(-1)[6]  # a tie: the first in window order wins
    fa = getattr(torch.nn.functional, f"fractional_max_pool{nd}d")
    fb = getattr(tt.nn.functional, f"fractional_max_pool{nd}d")
    if "output_ratio" in kw and nd == 2:  # F's 2-d form takes len() of the ratio
        kw = dict(output_ratio=tuple(kw["output_ratio"]))
    torch.manual_seed(4)
    tt.manual_seed(4)
    xa, xb = x.clone().requires_grad_(), tt.tensor(x.numpy(), requires_grad=True)
    ya, ia = fa(xa, k, return_indices=True, **kw)
    yb, ib = fb(xb, k, return_indices=True, **kw)
    np.testing.assert_array_equal(tt.rand(4).numpy(), torch.rand(4).numpy())  # streams in step
    np.testing.assert_array_equal(yb.detach().numpy(), ya.detach().numpy())
    np.testing.assert_array_equal(ib.numpy(), ia.numpy())
    assert ib.dtype == tt.int64 and type(yb.grad_fn).__name__ == type(ya.grad_fn).__name__
    g = torch.randn(ya.shape, dtype=x.dtype)
    ya.backward(g)
    yb.backward(tt.tensor(g.numpy()))
    np.testing.assert_array_equal(xb.grad.numpy(), xa.grad.numpy())


def test_random_samples_and_with_indices():
    x = torch.randn(2, 3, 8, 8, dtype=torch.float64)
    u = torch.rand(2, 3, 2, dtype=torch.float64)
    ya, ia = torch.nn.functional.fractional_max_pool2d_with_indices(x, 2, output_size=5, _random_samples=u)
    yb, ib = tt.nn.functional.fractional_max_pool2d_with_indices(tt.tensor(x.numpy()), 2, output_size=5,
                                                                 _random_samples=tt.tensor(u.numpy()))
    np.testing.assert_array_equal(yb.numpy(), ya.numpy())
    np.testing.assert_array_equal(ib.numpy(), ia.numpy())
    x3 = torch.randn(3, 5, 6, 7, dtype=torch.float64)
    u3 = torch.rand(1, 3, 3, dtype=torch.float64)
    ya = torch.nn.functional.fractional_max_pool3d(x3, (2, 3, 2), output_size=(3, 3, 4), _random_samples=u3)
    yb = tt.nn.functional.fractional_max_pool3d(tt.tensor(x3.numpy()), (2, 3, 2), output_size=(3, 3, 4),
                                                _random_samples=tt.tensor(u3.numpy()))
    np.testing.assert_array_equal(yb.numpy(), ya.numpy())


def test_double_backward():
    x = torch.randn(1, 2, 7, 7, dtype=torch.float64)
    u = torch.rand(1, 2, 2, dtype=torch.float64)
    res = []
    for lib, t, s in ((torch, x, u), (tt, tt.tensor(x.numpy()), tt.tensor(u.numpy()))):
        xi = t.clone().requires_grad_()
        y = lib.nn.functional.fractional_max_pool2d(xi, 3, output_size=4, _random_samples=s)
        g = lib.ones_like(y).requires_grad_()
        (gx,) = lib.autograd.grad(y, xi, g, create_graph=True)
        (gg,) = lib.autograd.grad((gx * gx).sum(), g)
        res.append((gx.detach().numpy(), gg.numpy(), type(gx.grad_fn).__name__))
    np.testing.assert_array_equal(res[1][0], res[0][0])
    np.testing.assert_array_equal(res[1][1], res[0][1])
    assert res[1][2] == res[0][2]


@pytest.mark.parametrize("nd", [2, 3])
def test_modules(nd):
    shape = (2, 3, 10, 9) if nd == 2 else (2, 3, 6, 7, 8)
    x = torch.randn(*shape)
    for kw in (dict(output_size=4), dict(output_ratio=0.6, return_indices=True)):
        torch.manual_seed(5)
        tt.manual_seed(5)
        a = getattr(torch.nn, f"FractionalMaxPool{nd}d")(2, **kw)
        b = getattr(tt.nn, f"FractionalMaxPool{nd}d")(2, **kw)
        assert repr(b) == repr(a) and list(b.state_dict()) == list(a.state_dict())
        assert (b.kernel_size, b.output_size, b.output_ratio) == (a.kernel_size, a.output_size, a.output_ratio)
        ya, yb = a(x), b(tt.tensor(x.numpy()))
        if kw.get("return_indices"):
            np.testing.assert_array_equal(yb[1].numpy(), ya[1].numpy())
            ya, yb = ya[0], yb[0]
        np.testing.assert_array_equal(yb.numpy(), ya.numpy())
    u = torch.rand(2, 3, nd)
    a = getattr(torch.nn, f"FractionalMaxPool{nd}d")(2, output_size=3, _random_samples=u)
    b = getattr(tt.nn, f"FractionalMaxPool{nd}d")(2, output_size=3, _random_samples=tt.tensor(u.numpy()))
    assert list(b.state_dict()) == list(a.state_dict()) == ["_random_samples"]
    np.testing.assert_array_equal(b(tt.tensor(x.numpy())).numpy(), a(x).numpy())


def test_errors():
    F, G = torch.nn.functional, tt.nn.functional
    x, y = torch.randn(2, 3, 7, 8), tt.randn(2, 3, 7, 8)
    cases = [
        (lambda f, t: f.fractional_max_pool2d(t, 2, output_size=7)),
        (lambda f, t: f.fractional_max_pool2d(t, 2)),
        (lambda f, t: f.fractional_max_pool2d(t, (2, 2, 2), output_size=4)),
        (lambda f, t: f.fractional_max_pool2d(t, 2, output_size=(4, 4, 4))),
        (lambda f, t: f.fractional_max_pool2d(t, 2, output_ratio=(0.5, 0.5, 0.5))),
        (lambda f, t: f.fractional_max_pool2d(t, 2, output_ratio=0.5)),
        (lambda f, t: f.fractional_max_pool2d(t[0, 0], 2, output_size=4)),
        (lambda f, t: f.fractional_max_pool2d(t[:, :0], 2, output_size=4)),
        (lambda f, t: f.fractional_max_pool3d(t, 2, output_size=3)),
        (lambda f, t: f.fractional_max_pool3d(t.reshape(2, 3, 7, 8, 1, 1), 1, output_size=1)),
    ]
    for case in cases:
        _raises_same(lambda: case(F, x), lambda: case(G, y))
    lib_samples = [(torch.rand(1, 3, 2), tt.rand(1, 3, 2)), (torch.rand(2, 4, 2), tt.rand(2, 4, 2)),
                   (torch.rand(2, 3, 3), tt.rand(2, 3, 3)), (torch.rand(2, 3), tt.rand(2, 3)),
                   (torch.rand(2, 3, 2, dtype=torch.float64), tt.rand(2, 3, 2, dtype=tt.float64))]
    for sa, sb in lib_samples:
        _raises_same(lambda: F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=sa),
                     lambda: G.fractional_max_pool2d(y, 2, output_size=4, _random_samples=sb))
    _raises_same(lambda: F.fractional_max_pool2d(torch.ones(2, 3, 7, 8, dtype=torch.long), 2, output_size=4),
                 lambda: G.fractional_max_pool2d(tt.ones(2, 3, 7, 8, dtype=tt.long), 2, output_size=4))
    for nd in (2, 3):
        for kw in (dict(), dict(output_size=3, output_ratio=0.5), dict(output_ratio=1.5), dict(output_ratio=0)):
            _raises_same(lambda: getattr(torch.nn, f"FractionalMaxPool{nd}d")(2, **kw),
                         lambda: getattr(tt.nn, f"FractionalMaxPool{nd}d")(2, **kw))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision(dtype):
    # the window sequence is computed in the input's dtype, as PyTorch's kernel does
    torch.manual_seed(0)
    x = torch.randn(2, 3, 70, 90).to(getattr(torch, dtype))
    torch.manual_seed(6)
    tt.manual_seed(6)
    xa = x.clone().requires_grad_()
    xb = tt.tensor(x.float().numpy()).to(getattr(tt, dtype)).requires_grad_()
    ya, ia = torch.nn.functional.fractional_max_pool2d(xa, 2, output_size=(50, 61), return_indices=True)
    yb, ib = tt.nn.functional.fractional_max_pool2d(xb, 2, output_size=(50, 61), return_indices=True)
    np.testing.assert_array_equal(ib.numpy(), ia.numpy())
    np.testing.assert_array_equal(yb.detach().float().numpy(), ya.detach().float().numpy())
    ya.float().sum().backward()
    yb.float().sum().backward()
    np.testing.assert_array_equal(xb.grad.float().numpy(), xa.grad.float().numpy())


def test_empty_batch():
    x = torch.randn(0, 1, 4, 5, 4)
    ya = torch.nn.functional.fractional_max_pool3d(x, (2, 2, 1), output_size=2)
    yb = tt.nn.functional.fractional_max_pool3d(tt.tensor(x.numpy()), (2, 2, 1), output_size=2)
    assert yb.shape == tuple(ya.shape)
