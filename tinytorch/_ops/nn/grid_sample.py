"""affine_grid and grid_sample (spatial transformers), composed of tinytorch ops.

grid_sample maps each grid point to a source position (unnormalised from [-1, 1], then through the
padding mode: clipped for 'border', folded for 'reflection'), and reads the input there: the 2^d
corners weighted by distance ('bilinear', trilinear in 3-d), the nearest pixel (ties to even, as
``nearbyint``), or a 4x4 cubic convolution with A = -0.75 ('bicubic', 2-d). The integer corner
positions are numpy constants; the weights are tinytorch expressions of the grid, and the values a
``gather`` of the input, so gradients reach both the input and the grid."""
from __future__ import annotations

import itertools
import warnings

import numpy as np

from ...autograd.engine import grad as autograd_grad
from ...autograd.grad_mode import _State, enable_grad, no_grad
from ...autograd.node import Node
from ...tensor import Tensor, _make
from ..._dtype import FROM_NP
from ..creation.factory import linspace
from ..shape.join import stack
from .._core.registry import op
from .._core.record import record
from ..pointwise.compare import where

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


# ATen's modes as integers (interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border,
# 2 reflection), the order of the kernels' constants
_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


def _base_coords(n: int, align_corners: bool, dtype) -> np.ndarray:
    """PyTorch's ``linspace_from_neg_one``: linspace(-1, 1, n) in the dtype, times (n - 1), divided by n when
    not align_corners, each step rounded as PyTorch's (the grid's points then sit where PyTorch's do, on
    the same side of each pixel: bilinear gradients jump there)."""
    if n <= 1:
        return np.zeros(max(n, 0), dtype)
    v = linspace(-1, 1, n, dtype=FROM_NP[np.dtype(dtype)])
    if not align_corners:
        v = v * (n - 1) / n
    return v._data


@op(variants="functional")
def affine_grid(theta: Tensor, size, align_corners=None) -> Tensor:
    """The sampling grid (N, H, W, 2) / (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3) / (N, 3, 4)."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {tuple(size)}. "
                             f"Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {tuple(size)}. "
                             f"Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {tuple(size)}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=3)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {tuple(size)}")
    dtype = theta._data.dtype
    axes = [_base_coords(s, align_corners, dtype) for s in reversed(spatial)]  # x (width) first
    mesh = np.meshgrid(*reversed(axes), indexing="ij")                        # (D,) H, W order
    cols = [_make(c.reshape(1, -1)) for c in reversed(mesh)]                   # x, y, (z,): (1, points)
    # each output coordinate as PyTorch's CPU kernel rounds it: the products of the base coordinates
    # summed left to right, then the translation (x * t0 + y * t1) + t2
    outs = []
    for d in range(len(spatial)):
        acc = None
        for k, col in enumerate(cols):
            term = col * theta[:, d, k].unsqueeze(1)
            acc = term if acc is None else acc + term
        outs.append(acc + theta[:, d, len(cols)].unsqueeze(1))
    grid = stack(outs, -1)                                                    # (N, points, d)
    return grid.reshape(size[0], *spatial, len(spatial))


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(x: Tensor, twice_low: int, twice_high: int) -> Tensor:
    if twice_low == twice_high:
        return x * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    x = (x - low).abs()
    extra = x.fmod(span)
    flips = np.floor(x._data / span)
    return _where(flips % 2 == 0, extra + low, (extra * -1) + (span + low))


def _where(cond: np.ndarray, a: Tensor, b: Tensor) -> Tensor:
    c = _make(cond)
    return a * c + b * (~c)


def _source(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    x = _unnormalize(coord, size, align_corners)
    return _pad_coord(x, size, padding_mode, align_corners)


def _clip(x: Tensor, size: int) -> Tensor:
    """x clamped to [0, size - 1], its gradient zero on the borders too (PyTorch's ``clip_coordinates_set_grad``
    counts them out of bounds; a clamp's gradient passes there); NaN (a reflection of an infinity too) to 0, as
    PyTorch's vectorised clip gives it."""
    clamped = x.clamp(0, size - 1)
    nan = np.isnan(x._data)
    if nan.any():
        clamped = where(_make(nan), _make(np.zeros_like(x._data)), clamped)
    return where(_make((x._data > 0) & (x._data < size - 1)), clamped, clamped.detach())


def _pad_coord(x: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    if padding_mode == "border":
        return _clip(x, size)
    if padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        return _clip(x, size)
    return x


def _read(flat: Tensor, positions: list, sizes: list) -> Tensor:
    """flat (N, C, prod(sizes)) at integer positions (one (N, *out) array per dim, x first), zero
    outside the input; (N, C, *out)."""
    n, c = flat.shape[:2]
    out_shape = positions[0].shape
    inside, index, stride = True, 0, 1  # (arrays from the positions: data-less ones for meta positions)
    for p, s in zip(positions, sizes):
        p = np.where(np.isfinite(p), p, -1)  # non-finite: read outside (PyTorch's safe_downgrade_to_int_range)
        inside = inside & (p >= 0) & (p < s)
        index = index + np.clip(p, 0, s - 1).astype(np.int64) * stride
        stride *= s
    idx = np.broadcast_to(index.reshape(n, 1, -1), (n, c, index[0].size))
    vals = flat.gather(2, _make(np.ascontiguousarray(idx)))
    vals = vals.reshape(n, c, *out_shape[1:])
    # a select, not a product with the mask: a point outside reads 0 even where the clipped place holds inf or NaN
    return where(_make(np.broadcast_to(inside[:, None], vals.shape)), vals, _make(np.zeros((), flat._data.dtype)))


def _cubic_weights(t: Tensor) -> list:
    a = -0.75

    def near(x):
        return ((x * (a + 2) - (a + 3)) * x) * x + 1

    def far(x):
        return ((x * a - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


@op(variants="functional", autocast="fp32")
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners=None) -> Tensor:
    """input (N, C, H, W) / (N, C, D, H, W) read at grid (N, Ho, Wo, 2) / (N, Do, Ho, Wo, 3) in [-1, 1]."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        align_corners = False
    if input._data.dtype != grid._data.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    nd = input.ndim - 2
    if grid.shape[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if nd == 2 and mode != "bicubic" and input._data.dtype in (np.float32, np.float64):
        return _sample_2d(input, grid, mode, _PADDINGS.index(padding_mode), bool(align_corners))
    return _composite(input, grid, mode, padding_mode, align_corners)


class GridSampler2DBackward0(Node):
    """2-d grid_sample (bilinear, nearest): the gradients of the composite's graph (``_composite``), built again from
    the saved input and grid; twice differentiable."""
    saved_fields = (("grid", 1), ("input", 0), ("align_corners", "align_corners"),
                    ("interpolation_mode", lambda n: _MODES.index(n.mode)), ("padding_mode", "padding"))

    def backward(self, g):
        inp, grid = self._unpacked_saved
        create = _State.enabled
        with enable_grad():
            leaves = [t if create else t.detach().requires_grad_(need) for t, need in zip((inp, grid), self.need)]
            out = _composite(*leaves, self.mode, _PADDINGS[self.padding], self.align_corners)
            wanted = [t for t, need in zip(leaves, self.need) if need]
            got = iter(autograd_grad(out, wanted, g, create_graph=create, allow_unused=True))
        res = tuple(next(got) if need else None for need in self.need)
        if self.need[1] and res[1] is None:  # nearest: PyTorch's grid gradient is zeros
            res = (res[0], grid.detach() * 0)
        return res


def _sample_2d_arrays(inp: np.ndarray, grid: np.ndarray, mode: str, padding: int, align_corners: bool) -> np.ndarray:
    """The 2-d forward on arrays: the composite's values (``tinytorch/_cpu/grid_sample.py``: PyTorch's kernel's
    roundings)."""
    with no_grad():
        return _composite(_make(inp), _make(grid), mode, _PADDINGS[padding], align_corners)._data


def _sample_2d(input: Tensor, grid: Tensor, mode: str, padding: int, align_corners: bool) -> Tensor:
    out = _sample_2d_arrays(input._data, grid._data, mode, padding, align_corners)
    return record(out, GridSampler2DBackward0, (input, grid), (input, grid), mode=mode, padding=padding,
                  align_corners=align_corners, need=(input._requires_grad, grid._requires_grad))


def _composite(input: Tensor, grid: Tensor, mode: str, padding_mode: str, align_corners: bool) -> Tensor:
    """grid_sample as tinytorch ops (the modes and dims the exact kernel does not cover)."""
    nd = input.ndim - 2
    n, c = input.shape[:2]
    sizes = list(reversed(input.shape[2:]))                  # W, H, (D): the grid's x, y, z order
    flat = input.reshape(n, c, -1)
    coords = [grid[..., i] for i in range(nd)]
    if mode == "bicubic":
        raw = [_unnormalize(coords[i], sizes[i], align_corners) for i in range(nd)]
        base = [np.floor(r._data) for r in raw]
        wx = _cubic_weights(raw[0] - _make(base[0]))
        wy = _cubic_weights(raw[1] - _make(base[1]))
        total = None
        for j in range(4):
            for i in range(4):
                pos = []
                for d, off in ((0, i), (1, j)):
                    p = base[d] - 1 + off
                    if padding_mode != "zeros":
                        p = _pad_coord(_make(p), sizes[d], padding_mode, align_corners)._data
                    pos.append(p)
                term = _read(flat, pos, sizes) * (wx[i] * wy[j]).unsqueeze(1)
                total = term if total is None else total + term
        return total
    src = [_source(coords[i], sizes[i], padding_mode, align_corners) for i in range(nd)]
    if mode == "nearest":
        return _read(flat, [np.round(s._data) for s in src], sizes)
    low = [np.floor(s._data) for s in src]
    frac = [s - _make(lo) for s, lo in zip(src, low)]     # distance from the lower corner, per dim
    total = None
    for corner in itertools.product((0, 1), repeat=nd):
        w = None
        for d, hi in enumerate(corner):
            f = frac[d] if hi else 1 - frac[d]
            w = f if w is None else w * f
        term = _read(flat, [low[d] + corner[d] for d in range(nd)], sizes) * w.unsqueeze(1)
        total = term if total is None else total + term
    return total


def _grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool,
                  nd: int) -> Tensor:
    if input.dim() != nd + 2:
        raise RuntimeError(f"grid_sampler_{nd}d(): expected {nd + 2}D input, but got input with sizes "
                           f"{list(input.shape)}")
    return grid_sample(input, grid, _MODES[interpolation_mode], _PADDINGS[padding_mode], bool(align_corners))


@op(variants="function")
def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """grid_sample of a 4-d input, the modes as ATen's integers."""
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, 2)


@op(variants="function")
def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """grid_sample of a 5-d input, the modes as ATen's integers."""
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, 3)


@op(variants="function")
def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """grid_sample with ATen's integer modes (4-d or 5-d input)."""
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, input.dim() - 2)
