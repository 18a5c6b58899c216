"""3-d convolution/pooling, transposed 1-d/3-d convolution, unpooling and power-average pooling,
compared with PyTorch: values, input/weight gradients and second derivatives (float64), and errors."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _pair(shapes, seed=0, positive=False):
    g = torch.Generator().manual_seed(seed)
    ts = []
    for s in shapes:
        if isinstance(s, torch.Tensor):
            ts.append(s)
            continue
        a = torch.randn(*s, generator=g, dtype=torch.float64)
        ts.append((a.abs() + 0.1 if positive else a).requires_grad_())
    ys = [tt.tensor(t.detach().numpy(), requires_grad=t.requires_grad) if t.is_floating_point()
          else tt.tensor(t.numpy()) for t in ts]
    return ts, ys


def compare(name, shapes, *args, positive=False, double=False, out_index=None, **kw):
    """F.<name>(*tensors, *args, **kw) in both libraries: values, gradients for a random cotangent and,
    with ``double``, the gradient of the gradients' sum."""
    ts, ys = _pair(shapes, positive=positive)
    a = getattr(torch.nn.functional, name)(*ts, *args, **kw)
    b = getattr(tt.nn.functional, name)(*ys, *args, **kw)
    if out_index is not None:
        a, b = a[out_index], b[out_index]
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-10, atol=1e-10)
    diff = [(t, y) for t, y in zip(ts, ys) if t.requires_grad]
    if not diff or not a.is_floating_point():
        assert b.dtype == tt.int64 and not b.requires_grad
        return
    g = torch.randn(a.shape, generator=torch.Generator().manual_seed(1), dtype=a.dtype)
    ga = torch.autograd.grad(a, [t for t, _ in diff], g, create_graph=double)
    gb = tt.autograd.grad(b, [y for _, y in diff], tt.tensor(g.numpy()), create_graph=double)
    for x, y in zip(ga, gb):
        np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy(), rtol=1e-10, atol=1e-10)
    if double and any(x.requires_grad for x in ga):
        gga = torch.autograd.grad(sum((x * x).sum() for x in ga), [t for t, _ in diff], allow_unused=True)
        total = sum((y * y).sum() for y in gb)
        if not total.requires_grad:  # the gradient is linear in the cotangent: no second derivative
            assert all(x is None or not x.any() for x in gga)
            return
        ggb = tt.autograd.grad(total, [y for _, y in diff], allow_unused=True)
        for x, y in zip(gga, ggb):
            if x is None:
                continue
            np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kw", [dict(), dict(stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1)),
                                dict(padding="same"), dict(padding="valid", groups=2), dict(stride=2)])
def test_conv3d(kw):
    w = (6, 2 if kw.get("groups") else 4, 2, 3, 2)
    compare("conv3d", [(2, 4, 5, 6, 7), w, (6,)], double=True, **kw)
    compare("conv3d", [(4, 5, 6, 7), w], **kw)  # unbatched, no bias


@pytest.mark.parametrize("kw", [dict(), dict(stride=(2, 2, 1), padding=(1, 0, 1), output_padding=(1, 1, 0),
                                              dilation=(2, 1, 1), groups=2), dict(stride=3, output_padding=1)])
def test_conv_transpose3d(kw):
    w = (4, 3, 2, 3, 2)
    compare("conv_transpose3d", [(2, 4, 3, 4, 5), w, (6 if kw.get("groups") else 3,)], double=True, **kw)
    compare("conv_transpose3d", [(4, 3, 4, 5), w], **kw)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, output_padding=1), dict(groups=2, dilation=2)])
def test_conv_transpose1d(kw):
    compare("conv_transpose1d", [(2, 4, 5), (4, 3, 3), (6 if kw.get("groups") else 3,)], double=True, **kw)
    compare("conv_transpose1d", [(4, 5), (4, 3, 3)], **kw)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=1),
                                dict(kernel_size=2, dilation=2, ceil_mode=True, stride=2),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)])
def test_max_pool3d(kw):
    compare("max_pool3d", [(2, 3, 6, 7, 5)], **kw)
    compare("max_pool3d", [(3, 6, 7, 5)], **kw)
    ts, ys = _pair([(2, 3, 6, 7, 5)])
    a = torch.nn.functional.max_pool3d(ts[0], return_indices=True, **kw)[1]
    b = tt.nn.functional.max_pool3d(ys[0], return_indices=True, **kw)[1]
    assert b.dtype == tt.int64 and np.array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=1),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                dict(kernel_size=2, divisor_override=3)])
def test_avg_pool3d(kw):
    compare("avg_pool3d", [(2, 3, 6, 7, 5)], double=True, **kw)
    compare("avg_pool3d", [(3, 6, 7, 5)], **kw)


@pytest.mark.parametrize("size", [(2, 3, 4), 3, (None, 2, 5), 1])
def test_adaptive_pool3d(size):
    compare("adaptive_avg_pool3d", [(2, 3, 6, 7, 5)], size, double=True)
    compare("adaptive_avg_pool3d", [(3, 6, 7, 5)], size)
    compare("adaptive_max_pool3d", [(2, 3, 6, 7, 5)], size)
    compare("adaptive_max_pool3d", [(2, 3, 6, 7, 5)], size, return_indices=True, out_index=1)


# (op, input shape, args, kwargs): each pool records one node named as PyTorch's, whose backward is again
# recorded as PyTorch's backward-of-backward node
_NODE_CASES = [
    ("adaptive_avg_pool3d", (2, 3, 6, 7, 5), ((4, 5, 3),), {}),
    ("adaptive_avg_pool3d", (3, 5, 6, 7), ((7, 4, 9),), {}),
    ("adaptive_avg_pool3d", (2, 2, 4, 5, 6), ((None, 3, 2),), {}),
    ("avg_pool3d", (2, 3, 6, 7, 5), (2,), {}),
    ("avg_pool3d", (3, 6, 7, 5), ((3, 2, 2),), dict(stride=(2, 1, 2), padding=1)),
    ("avg_pool3d", (2, 2, 7, 6, 5), (3,), dict(stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool3d", (2, 2, 5, 6, 7), ((2, 3, 2),), dict(divisor_override=5, ceil_mode=True)),
    ("max_pool3d", (2, 3, 6, 7, 5), (2,), {}),
    ("max_pool3d", (3, 6, 7, 5), ((3, 2, 2),), dict(stride=(2, 1, 2), padding=1)),
    ("max_pool3d", (2, 2, 7, 6, 5), (3,), dict(stride=1, padding=1, dilation=(1, 2, 1), ceil_mode=True)),
    ("max_pool3d", (2, 2, 7, 6, 5), (2,), dict(stride=2, ceil_mode=True)),
    ("adaptive_max_pool3d", (2, 3, 6, 7, 5), ((3, 7, 5),), {}),
    ("adaptive_max_pool3d", (3, 6, 7, 5), ((4, 5, 3),), {}),
    ("adaptive_max_pool3d", (2, 2, 4, 5, 6), ((None, 7, 2),), {}),
]


@pytest.mark.parametrize("name, shape, args, kw", _NODE_CASES)
def test_pool3d_nodes(name, shape, args, kw):
    compare(name, [shape], *args, double=True, **kw)
    ts, ys = _pair([shape])
    a = getattr(torch.nn.functional, name)(ts[0], *args, **kw)
    b = getattr(tt.nn.functional, name)(ys[0], *args, **kw)
    assert type(b.grad_fn).__name__ == type(a.grad_fn).__name__
    for field in [f for f in dir(a.grad_fn) if f.startswith("_saved_")]:
        want, got = getattr(a.grad_fn, field), getattr(b.grad_fn, field)
        if isinstance(want, torch.Tensor):
            assert np.array_equal(got.detach().numpy(), want.detach().numpy()), field
        else:
            assert got == want, field
    if name.startswith("max") or name.startswith("adaptive_max"):  # the argmax positions, as PyTorch returns them
        ia = getattr(torch.nn.functional, name)(ts[0], *args, return_indices=True, **kw)[1]
        ib = getattr(tt.nn.functional, name)(ys[0], *args, return_indices=True, **kw)[1]
        assert ib.dtype == tt.int64 and np.array_equal(ib.numpy(), ia.numpy())
    g = torch.randn(a.shape, generator=torch.Generator().manual_seed(2), dtype=a.dtype, requires_grad=True)
    ga = torch.autograd.grad(a, ts[0], g, create_graph=True)[0]
    gt = tt.tensor(g.detach().numpy(), requires_grad=True)
    gb = tt.autograd.grad(b, ys[0], gt, create_graph=True)[0]
    assert type(gb.grad_fn).__name__ == type(ga.grad_fn).__name__
    for field in [f for f in dir(ga.grad_fn) if f.startswith("_saved_") and "sym" not in f]:
        want, got = getattr(ga.grad_fn, field), getattr(gb.grad_fn, field)
        if isinstance(want, torch.Tensor):  # the argmax positions
            assert np.array_equal(got.detach().numpy(), want.detach().numpy()), field
        else:  # the pooling arguments
            assert got == want, field
    # the backward's own backward (to the cotangent): the pool again, or the gather from the argmax positions
    hh = torch.randn(ga.shape, generator=torch.Generator().manual_seed(3), dtype=ga.dtype)
    want = torch.autograd.grad(ga, g, hh)[0]
    got = tt.autograd.grad(gb, gt, tt.tensor(hh.numpy()))[0]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
@pytest.mark.parametrize("name, shape, args, kw", _NODE_CASES)
def test_pool3d_nonfinite(name, shape, args, kw, value):
    """An inf or NaN stays in the windows that hold it, as in PyTorch: values and input gradients agree,
    non-finite positions included."""
    x = np.random.default_rng(0).standard_normal(shape)
    x.reshape(-1)[[3, x.size // 2]] = value
    t, y = torch.tensor(x, requires_grad=True), tt.tensor(x, requires_grad=True)
    a = getattr(torch.nn.functional, name)(t, *args, **kw)
    b = getattr(tt.nn.functional, name)(y, *args, **kw)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-10, atol=1e-10)
    g = np.linspace(-1, 1, a.numel()).reshape(tuple(a.shape))
    a.backward(torch.tensor(g))
    b.backward(tt.tensor(g))
    np.testing.assert_allclose(y.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_adaptive_max_pool1d():
    compare("adaptive_max_pool1d", [(2, 3, 10)], 4)
    compare("adaptive_max_pool1d", [(3, 10)], 3, return_indices=True, out_index=1)


@pytest.mark.parametrize("nd,kw", [(1, dict(kernel_size=2)), (2, dict(kernel_size=3, stride=2, padding=1)),
                                   (3, dict(kernel_size=2)), (2, dict(kernel_size=2, stride=1))])
def test_max_unpool(nd, kw):
    x = torch.randn(2, 3, *([7 if kw.get("padding") else 6] * nd), dtype=torch.float64)
    pool = getattr(torch.nn.functional, f"max_pool{nd}d")
    v, i = pool(x, return_indices=True, **kw)
    v = v.detach().requires_grad_()
    compare(f"max_unpool{nd}d", [v, i], **kw)
    compare(f"max_unpool{nd}d", [v, i], output_size=list(x.shape[2:]), **kw)
    compare(f"max_unpool{nd}d", [v[0], i[0]], **kw)


@pytest.mark.parametrize("nd,p,kw", [(1, 2, dict(kernel_size=3)), (2, 3, dict(kernel_size=2, stride=1)),
                                     (3, 2.5, dict(kernel_size=2)), (2, float("inf"), dict(kernel_size=2)),
                                     (1, 1, dict(kernel_size=2, stride=2, ceil_mode=True))])
def test_lp_pool(nd, p, kw):
    compare(f"lp_pool{nd}d", [(2, 3, *([5] * nd))], p, positive=True, **kw)


def _same_error(f):
    with pytest.raises(Exception) as a:
        f(torch)
    with pytest.raises(type(a.value)) as b:
        f(tt)
    assert str(b.value) == str(a.value)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.max_pool3d(T.randn(2, 3), 2),
    lambda T: T.nn.functional.max_pool3d(T.randn(2, 3, 4, 4, 4), 2, padding=2),
    lambda T: T.nn.functional.max_pool3d(T.randn(2, 3, 4, 4, 4), 5),
    lambda T: T.nn.functional.avg_pool3d(T.randn(2, 3, 4, 4, 4), 5),
    lambda T: T.nn.functional.adaptive_avg_pool3d(T.randn(2, 3), 2),
    lambda T: T.nn.functional.adaptive_max_pool3d(T.randn(2, 3), 2),
    lambda T: T.nn.functional.adaptive_max_pool1d(T.randn(2, 3, 4, 5), 2),
    lambda T: T.nn.functional.max_unpool2d(T.randn(1, 1, 2, 2), T.zeros(1, 1, 2, 2, dtype=T.long) + 100, 2),
    lambda T: T.nn.functional.max_unpool3d(T.randn(1, 1, 2, 2, 2), T.zeros(1, 1, 2, 2, 2, dtype=T.long) + 100, 2),
    lambda T: T.nn.functional.max_unpool1d(T.randn(1, 1, 2), T.zeros(1, 1, 2, dtype=T.long) + 100, 2),
    lambda T: T.nn.functional.max_unpool2d(T.randn(1, 1, 2, 2), T.zeros(1, 1, 2, 2, dtype=T.long), 2,
                                           output_size=(9, 9)),
    lambda T: T.nn.functional.max_unpool2d(T.randn(1, 1, 2, 2), T.zeros(1, 1, 2, 3, dtype=T.long), 2),
    lambda T: T.nn.functional.conv_transpose3d(T.randn(2, 3, 4, 4, 4), T.randn(3, 2, 2, 2, 2), output_padding=2,
                                               stride=2),
    lambda T: T.nn.functional.conv_transpose1d(T.randn(2, 3, 4), T.randn(3, 2, 2), output_padding=2, stride=2),
    lambda T: T.nn.functional.conv3d(T.randn(2, 3, 4, 4, 4), T.randn(3, 2, 2, 2, 2)),
    lambda T: T.nn.functional.conv3d(T.randn(2, 3), T.randn(3, 2, 2, 2, 2)),
])
def test_errors(call):
    _same_error(call)
