"""affine_grid and grid_sample (every mode, padding mode and align_corners, 2-d and 3-d), bilinear
and local_response_norm against PyTorch: values, gradients with respect to the input and the grid
(or theta), and errors."""
import itertools

import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")
F = torch.nn.functional

GRID_CASES = [(nd, m, p, a) for nd, m, p, a in itertools.product((2, 3), ("bilinear", "nearest", "bicubic"),
                                                                   ("zeros", "border", "reflection"), (False, True))
              if not (nd == 3 and m == "bicubic")]


def _grads(a, b, ins_t, ins_tt, seed=5):
    cot = torch.randn(a.shape, generator=torch.Generator().manual_seed(seed), dtype=a.dtype)
    ga = torch.autograd.grad(a, ins_t, cot)
    gb = tt.autograd.grad(b, ins_tt, tt.tensor(cot.numpy()), allow_unused=True)
    for x, y in zip(ga, gb):
        np.testing.assert_allclose(np.zeros(x.shape) if y is None else y.numpy(), x.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("nd,mode,padding_mode,align_corners", GRID_CASES)
def test_grid_sample(nd, mode, padding_mode, align_corners):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, *[4, 5, 6][:nd], generator=g, dtype=torch.float64, requires_grad=True)
    # points beyond [-1, 1] exercise the padding modes
    grid = (torch.rand(2, *[3, 4, 2][:nd], nd, generator=g, dtype=torch.float64) * 2.6 - 1.3).requires_grad_()
    a = F.grid_sample(x, grid, mode, padding_mode, align_corners)
    xb, gb = tt.tensor(x.detach().numpy(), requires_grad=True), tt.tensor(grid.detach().numpy(), requires_grad=True)
    b = tt.nn.functional.grid_sample(xb, gb, mode, padding_mode, align_corners)
    assert tuple(b.shape) == tuple(a.shape)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12, atol=1e-12)
    _grads(a, b, [x, grid], [xb, gb])


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 3, 4, 5, 3), (1, 1, 1, 3)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid(size, align_corners):
    shape = (size[0], 2, 3) if len(size) == 4 else (size[0], 3, 4)
    th = torch.randn(*shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64, requires_grad=True)
    thb = tt.tensor(th.detach().numpy(), requires_grad=True)
    with pytest.warns(UserWarning) if align_corners and min(size[2:]) == 1 else _nothing():
        a = F.affine_grid(th, size, align_corners)
    b = tt.nn.functional.affine_grid(thb, size, align_corners)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12, atol=1e-15)
    _grads(a, b, [th], [thb])


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_spatial_transformer_float32():
    # the usual pipeline: affine_grid then grid_sample, float32, default align_corners (with its warning)
    x = torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(2))
    th = torch.tensor([[[0.9, 0.2, 0.1], [-0.1, 1.1, 0.0]]] * 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        a = F.grid_sample(x, F.affine_grid(th, x.shape))
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        b = tt.nn.functional.grid_sample(tt.tensor(x.numpy()), tt.nn.functional.affine_grid(tt.tensor(th.numpy()),
                                                                                                list(x.shape)))
    assert b.dtype == tt.float32
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shapes", [[(4, 3), (4, 5), (2, 3, 5), (2,)], [(2, 4, 3), (2, 4, 5), (6, 3, 5), None]])
def test_bilinear(shapes):
    g = torch.Generator().manual_seed(3)
    ts = [None if s is None else torch.randn(*s, generator=g, dtype=torch.float64, requires_grad=True) for s in shapes]
    ys = [None if t is None else tt.tensor(t.detach().numpy(), requires_grad=True) for t in ts]
    a, b = F.bilinear(*ts), tt.nn.functional.bilinear(*ys)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12)
    _grads(a, b, [t for t in ts if t is not None], [y for y in ys if y is not None])


@pytest.mark.parametrize("shape,size", [((2, 5, 7), 3), ((2, 6, 4, 3), 2), ((1, 4, 2, 3, 2), 5)])
def test_local_response_norm(shape, size):
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(4), dtype=torch.float64, requires_grad=True)
    xb = tt.tensor(x.detach().numpy(), requires_grad=True)
    a = F.local_response_norm(x, size, alpha=0.1, beta=0.6, k=2.0)
    b = tt.nn.functional.local_response_norm(xb, size, alpha=0.1, beta=0.6, k=2.0)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12)
    _grads(a, b, [x], [xb])


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.affine_grid(T.randn(2, 2, 3), (2, 3, 4), align_corners=False),
    lambda T: T.nn.functional.affine_grid(T.randn(2, 3, 3), (2, 3, 4, 5), align_corners=False),
    lambda T: T.nn.functional.affine_grid(T.randn(2, 2, 3), (2, 3, 4, 5, 6), align_corners=False),
    lambda T: T.nn.functional.affine_grid(T.zeros(2, 2, 3, dtype=T.long), (2, 3, 4, 5), align_corners=False),
    lambda T: T.nn.functional.affine_grid(T.randn(2, 2, 3), (2, 3, 0, 5), align_corners=False),
    lambda T: T.nn.functional.grid_sample(T.randn(1, 1, 3, 3), T.randn(1, 2, 2, 2), mode="foo", align_corners=False),
    lambda T: T.nn.functional.grid_sample(T.randn(1, 1, 3, 3), T.randn(1, 2, 2, 2), padding_mode="foo",
                                          align_corners=False),
    lambda T: T.nn.functional.grid_sample(T.randn(1, 1, 3, 3), T.randn(1, 2, 2, 3), align_corners=False),
    lambda T: T.nn.functional.grid_sample(T.randn(1, 1, 3, 3), T.randn(2, 2, 2, 2), align_corners=False),
    lambda T: T.nn.functional.bilinear(T.randn(2, 3), T.randn(2, 4), T.randn(5, 3, 3)),
    lambda T: T.nn.functional.bilinear(T.randn(2, 4), T.randn(2, 3), T.randn(5, 3, 3)),
    lambda T: T.nn.functional.bilinear(T.randn(2, 3), T.randn(2, 3), T.randn(5, 3, 3), T.randn(4)),
    lambda T: T.nn.functional.local_response_norm(T.randn(2, 3), 2),
    lambda T: T.nn.Softmax2d()(T.randn(2, 3)),
])
def test_errors(call):
    with pytest.raises(Exception) as a:
        call(torch)
    with pytest.raises(type(a.value)) as b:
        call(tt)
    assert str(b.value) == str(a.value).replace("torch.", "tinytorch.")
