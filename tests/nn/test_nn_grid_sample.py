"""affine_grid and grid_sample (every mode, padding mode and align_corners, 2-d and 3-d), bilinear
and local_response_norm against PyTorch: values, gradients with respect to the input and the grid
(or theta), and errors."""
import _paths
import _repo
import itertools
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import data_root

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
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


# how far PyTorch's DEFAULT build (no FMA) lies from the FMA builds' floats that tinytorch follows, in ulps
# of each array's largest magnitude (measured with TINYTORCH_ULP_REPORT on the DEFAULT path: see _paths.py)
GRID_ULPS = 48  # measured: 31 (reflection padding, float32 output)


@pytest.mark.bitexact
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_2d_kernel_is_pytorchs_bit_for_bit(mode, dtype, padding_mode, align_corners):
    """Bilinear and nearest 2-d sampling at training scale (an affine grid over a batch of images): the grid
    (where MKL runs its AVX2 kernel), the output and both gradients are the floats of PyTorch's CPU kernel on
    its FMA builds (AVX2, AVX-512),
    bit for bit; on its DEFAULT build, which rounds each product and sum apart, within ``GRID_ULPS`` ulps of
    the array's magnitude."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 28, 28)).astype(dtype)
    theta = (rng.standard_normal((4, 2, 3)) * 0.3 + np.eye(2, 3) * 1.1).astype(dtype)
    cot = rng.standard_normal((4, 3, 24, 26)).astype(dtype)
    grid = F.affine_grid(torch.tensor(theta), (4, 3, 24, 26), align_corners=align_corners).numpy()
    tg = tt.nn.functional.affine_grid(tt.tensor(theta), (4, 3, 24, 26), align_corners=align_corners).numpy()
    # PyTorch's affine_grid is a batched GEMM in MKL, whose kernel MKL picks by the CPU: tinytorch's sums
    # are its AVX2 kernel's (bit for bit); its AVX-512 kernels lie half an ulp of the magnitude away (measured)
    _paths.assert_bits(tg, grid, ulps=GRID_ULPS, scale="max", path=_paths.mkl_path(), exact_on=("AVX2",),
                       what="affine_grid")
    xa, ga = torch.tensor(x, requires_grad=True), torch.tensor(grid, requires_grad=True)
    a = F.grid_sample(xa, ga, mode, padding_mode=padding_mode, align_corners=align_corners)
    a.backward(torch.tensor(cot))
    xb, gb = tt.tensor(x, requires_grad=True), tt.tensor(grid, requires_grad=True)
    b = tt.nn.functional.grid_sample(xb, gb, mode, padding_mode=padding_mode, align_corners=align_corners)
    b.backward(tt.tensor(cot))
    assert type(b.grad_fn).__name__ == type(a.grad_fn).__name__ == "GridSampler2DBackward0"
    for what, ours, theirs in (("output", b.detach(), a.detach()), ("input grad", xb.grad, xa.grad),
                               ("grid grad", gb.grad, ga.grad)):
        _paths.assert_bits(ours.numpy(), theirs.numpy(), ulps=GRID_ULPS, scale="max", what=what)


def test_bilinear_2d_double_backward():
    x = torch.randn(1, 2, 5, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64, requires_grad=True)
    g = (torch.rand(1, 3, 4, 2, generator=torch.Generator().manual_seed(4), dtype=torch.float64) * 2 - 1).requires_grad_()
    xb, gb = tt.tensor(x.detach().numpy(), requires_grad=True), tt.tensor(g.detach().numpy(), requires_grad=True)
    ga = torch.autograd.grad(F.grid_sample(x, g, align_corners=False).pow(2).sum(), [x, g], create_graph=True)
    gt = tt.autograd.grad(tt.nn.functional.grid_sample(xb, gb, align_corners=False).pow(2).sum(), [xb, gb],
                          create_graph=True)
    (ga[0].sum() + ga[1].sum()).backward()
    (gt[0].sum() + gt[1].sum()).backward()
    np.testing.assert_allclose(xb.grad.numpy(), x.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gb.grad.numpy(), g.grad.numpy(), rtol=1e-10, atol=1e-12)


def _border_grid(nd, sizes, align_corners, rng):
    """Points on the corners, the borders and the centre (where the coordinate lands exactly on pixel 0 or
    size - 1), beside random ones inside and outside [-1, 1]."""
    pts = []
    for s in sizes:  # the grid values that land on pixel 0 and on pixel size - 1 along one dim (x first)
        edge = 1.0 if align_corners else 1.0 - 1.0 / s
        pts.append([-1.0, 1.0, -edge, edge, 0.0])
    grid = rng.uniform(-1.3, 1.3, (2, *[(3, 8), (2, 4, 8)][nd - 2], nd))
    flat = grid.reshape(-1, nd)  # a view: each combination once (5 ** nd of them)
    for i, combo in enumerate(itertools.product(*pts)):
        flat[i] = combo
    return grid


@pytest.mark.parametrize("nd", (2, 3))
@pytest.mark.parametrize("padding_mode", ("zeros", "border", "reflection"))
@pytest.mark.parametrize("align_corners", (False, True))
def test_composite_grid_gradient_on_the_borders(nd, padding_mode, align_corners):
    """The composite of tensor ops (3-d, and 2-d where a graph of the gradient is wanted) gives PyTorch's gradients
    where a point lands exactly on the first or last pixel: PyTorch's kernel counts the borders out of bounds there
    (a clamp's gradient would pass)."""
    rng = np.random.default_rng(nd * 10 + align_corners)
    x = rng.standard_normal((2, 2, *[4, 5, 6][:nd]))
    grid = _border_grid(nd, list(reversed(x.shape[2:])), align_corners, rng)
    xa, ga = torch.tensor(x, requires_grad=True), torch.tensor(grid, requires_grad=True)
    want = torch.autograd.grad(F.grid_sample(xa, ga, "bilinear", padding_mode, align_corners).sum(), [xa, ga])
    for create in (False, True):
        xb, gb = tt.tensor(x, requires_grad=True), tt.tensor(grid, requires_grad=True)
        got = tt.autograd.grad(tt.nn.functional.grid_sample(xb, gb, "bilinear", padding_mode, align_corners).sum(),
                               [xb, gb], create_graph=create)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.detach().numpy(), w.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("bad", (np.inf, -np.inf, np.nan))
def test_composite_on_non_finite_grids(bad):
    """The composite (what TINYTORCH_REFERENCE=1 runs in 2-d) reads a non-finite point as PyTorch's vectorised
    kernel does: outside the input (zeros), and at 0 where a clip meets NaN (border, reflection of an infinity)."""
    from tinytorch._ops.nn import grid_sample as gs
    rng = np.random.default_rng(7)
    for coord in (0, 1):
        x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
        grid = rng.uniform(-1.2, 1.2, (1, 2, 3, 2)).astype(np.float32)
        grid[0, 0, 1, coord] = bad
        for mode, padding, align in itertools.product(("bilinear", "nearest"), ("zeros", "border", "reflection"),
                                                      (False, True)):
            with np.errstate(invalid="ignore"):
                got = gs._composite(tt.tensor(x), tt.tensor(grid), mode, padding, align)
            want = F.grid_sample(torch.tensor(x), torch.tensor(grid), mode, padding, align)
            torch.testing.assert_close(torch.from_numpy(got.numpy()), want, equal_nan=True)


_FMNIST = os.path.join(data_root(), "FashionMNIST", "raw")


@pytest.mark.skipif(not os.path.exists(_FMNIST), reason="the shared FashionMNIST is not there")
def test_spatial_transformer_example_prints_pytorchs_losses():
    """examples/spatial_transformer.py (PyTorch's STN tutorial, float32) on 1,280 FashionMNIST images under both
    libraries: every logged loss within 5% of PyTorch's (in practice they agree to about 1e-4)."""
    root = _repo.ROOT
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    runs = []
    for extra in ([], ["--torch"]):
        proc = subprocess.run([sys.executable, os.path.join(root, "examples", "spatial_transformer.py"), "--data-root",
                               data_root(), "--limit", "1280", "--log-every", "4", *extra], capture_output=True,
                              text=True, timeout=600, cwd=root, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs.append({int(s): float(v) for s, v in re.findall(r"step +(\d+): train loss ([\d.]+)", proc.stdout)})
    ours, theirs = runs
    assert sorted(ours) == sorted(theirs) and len(theirs) == 6
    for step, loss in theirs.items():
        assert abs(ours[step] - loss) <= 0.05 * loss, (step, ours, theirs)
