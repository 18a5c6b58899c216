"""max_pool2d's argmax on tie-heavy inputs against PyTorch: small integers, signed zeros and
infinities make most windows hold several maxima, so the first-in-row-major-order rule (the row
picked first, then the column inside it) decides the indices and where the gradient goes."""
import numpy as np
import pytest

import tinytorch as tt
import tinytorch.nn.functional as F

GEOMETRIES = [(2, 2, 0, 1), (3, 3, 0, 1), (3, 2, 1, 1), ((2, 3), (1, 2), 0, 1), (3, 1, 1, 2), ((3, 2), 1, (1, 0), (2, 1)),
              (2, 1, 0, 1), (4, 4, 2, 1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k,s,p,d", GEOMETRIES)
def test_max_pool2d_ties_match_torch(k, s, p, d, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for trial in range(6):
        shape = (2, 3, int(rng.integers(5, 11)), int(rng.integers(5, 11)))
        if trial % 3 == 0:
            x = rng.integers(-1, 2, shape).astype(dtype)
        elif trial % 3 == 1:
            x = rng.choice(np.array([0.0, -0.0, 1.0, np.inf], dtype), shape)
        else:
            x = np.round(rng.standard_normal(shape), 0).astype(dtype)
        kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, return_indices=True)
        xt, xo = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        (y, i), (ty, ti) = F.max_pool2d(xt, **kw), torch.nn.functional.max_pool2d(xo, **kw)
        assert y.detach().numpy().tobytes() == ty.detach().numpy().tobytes()
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        gy = rng.standard_normal(tuple(ty.shape)).astype(dtype)
        y.backward(tt.tensor(gy))
        ty.backward(torch.tensor(gy))
        # overlapping windows sum several gradients into one input: their order may round differently
        np.testing.assert_allclose(xt.grad.numpy(), xo.grad.numpy(), rtol=1e-6, atol=1e-6 * np.abs(gy).max())


@pytest.mark.parametrize("k,d", [((2, 3), (1, 2)), ((1, 3), (1, 15000)), ((2, 1), (1, 1))])
def test_max_pool2d_indices_of_very_wide_inputs_match_torch(k, d):
    """Offsets past 2**15 (the window's reach, or a row's length times the dilation) need wider integers."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal((1, 1, 2, 40000)).astype(np.float32)
    y, i = F.max_pool2d(tt.tensor(x), k, stride=1, dilation=d, return_indices=True)
    ty, ti = torch.nn.functional.max_pool2d(torch.tensor(x), k, stride=1, dilation=d, return_indices=True)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


@pytest.mark.parametrize("k,s,p,d,ceil", [(2, 1, 1, 1, False), (3, 2, 1, 1, True), (3, 1, (1, 0), (2, 1), False),
                                          ((2, 3), (1, 2), (1, 1), 1, True), (5, 2, 2, 1, False)])
def test_max_pool2d_all_lowest_windows_point_inside(k, s, p, d, ceil):
    """A padded window whose values are all -inf: PyTorch's argmax stays on the window's first tap inside
    the input (it starts there), so indices and gradients never point at the padding."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    for trial in range(5):
        x = rng.standard_normal((2, 2, int(rng.integers(4, 9)), int(rng.integers(4, 9)))).astype(np.float32)
        x[rng.random(x.shape) < 0.8] = -np.inf
        kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=ceil, return_indices=True)
        xt, xo = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        (y, i), (ty, ti) = F.max_pool2d(xt, **kw), torch.nn.functional.max_pool2d(xo, **kw)
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        assert y.detach().numpy().tobytes() == ty.detach().numpy().tobytes()
        g = rng.standard_normal(tuple(ty.shape)).astype(np.float32)
        (y * tt.tensor(g)).sum().backward()
        (ty * torch.tensor(g)).sum().backward()
        # where windows overlap, a cell's gradients are summed in another order than PyTorch's (1-ulp noise)
        np.testing.assert_allclose(xt.grad.numpy(), xo.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("k,s,p,d", [(3, 2, 1, 1), (2, 1, 1, 1), ((3, 2, 3), (1, 2, 1), (1, 1, 0), (1, 1, 2))])
def test_max_pool3d_all_lowest_windows_point_inside(k, s, p, d):
    """max_pool3d's padded windows of all -inf point at their first tap inside the input, as PyTorch's."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    for trial in range(4):
        x = rng.standard_normal((1, 2, 5, 4, 6)).astype(np.float32)
        x[rng.random(x.shape) < 0.85] = -np.inf
        kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, return_indices=True)
        xt, xo = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        (y, i), (ty, ti) = F.max_pool3d(xt, **kw), torch.nn.functional.max_pool3d(xo, **kw)
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        assert y.detach().numpy().tobytes() == ty.detach().numpy().tobytes()
        g = rng.standard_normal(tuple(ty.shape)).astype(np.float32)
        (y * tt.tensor(g)).sum().backward()
        (ty * torch.tensor(g)).sum().backward()
        np.testing.assert_allclose(xt.grad.numpy(), xo.grad.numpy(), rtol=1e-6, atol=1e-6)
