"""``interpolate``: nearest, nearest-exact, (bi/tri)linear, bicubic and area resizing of the spatial dims.

Every mode here is separable, so each spatial axis gets its own map (an index vector for the nearest
modes, ``pad.Taps`` for the others: two taps per output for the linear modes, four for bicubic, a window
for the antialiased ones and 3-d ``area``) and ``pad.axis_map`` applies them; source indices and weights
follow PyTorch's CPU kernels, computed in float32 for float32 input as PyTorch does, and the taps are
PyTorch's own (a tap of weight 0 is still one, which an inf turns into NaN). ``area`` over one or two
dims is adaptive average pooling, as in PyTorch."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ...tensor import Tensor, _make
from .._core.layout import suggested_of
from .._core.registry import aten_only, op
from .pool import _adaptive_empty, _bounds, _no_empty_dim, adaptive_avg_pool1d, adaptive_avg_pool2d
from .norm import _float_only
from .pad import Taps, _AxisMapBackward, _apply, axis_map, info_field, map_node


_LINEAR = {3: "linear", 4: "bilinear", 5: "trilinear"}
_NODES = {}


def _fields(mode: str, k: int) -> tuple:
    """PyTorch's ``_saved_<name>`` of the upsample node of ``mode`` over ``k`` spatial dims."""
    if mode == "area":
        return ()
    names = (() if mode.startswith("nearest") else ("align_corners",)) + ("output_size",) + _scale_names(k) + \
        ("self_sym_sizes",)
    return tuple((n, info_field(n)) for n in names)


# the ATen operator of each mode (``{}``: the number of spatial dims); its backward adds ``_backward``
UPSAMPLE_OPERATORS = {"nearest": "upsample_nearest{}d", "nearest-exact": "_upsample_nearest_exact{}d",
                      "linear": "upsample_linear1d", "bilinear": "upsample_bilinear2d",
                      "bicubic": "upsample_bicubic2d", "trilinear": "upsample_trilinear3d"}


class _UpsampleNode(_AxisMapBackward):
    """An upsampling's node: its gradient is the adjoint maps (a graph capture shows PyTorch's operator for it,
    ``upsample_<mode>_backward``, one node: ``fx/experimental/_graph_steps.py``)."""
    mode, k = "nearest", 2

    def grad_format(self, g):
        return upsample_grad_format(self.mode, self.k, g._data)


def upsample_grad_format(mode: str, k: int, g):
    """The memory format PyTorch's ``upsample_<mode>_backward`` writes its result in: the gradient's suggested
    format (channels-last kept), but contiguous from the bicubic and the 3-d nearest kernels; area's (an adaptive
    pooling's) left as the maps leave it."""
    if mode == "area":
        return False
    if mode == "bicubic" or (k == 3 and mode.startswith("nearest")):
        return None
    return suggested_of(g)


def _scale_names(k: int) -> tuple:
    return ("scales",) if k == 1 else ("scales_h", "scales_w") if k == 2 else ("scales_d", "scales_h", "scales_w")


def _node_for(mode: str, k: int):
    name = {"nearest": f"UpsampleNearest{k}DBackward0", "nearest-exact": f"UpsampleNearestExact{k}DBackward0",
            "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
            "trilinear": "UpsampleTrilinear3DBackward0", "bicubic": "UpsampleBicubic2DBackward0",
            "area": "AdaptiveAvgPool3DBackward0"}[mode]
    if name not in _NODES:
        _NODES[name] = map_node(name, fields=_fields(mode, k), base=_UpsampleNode)
        _NODES[name].mode, _NODES[name].k = mode, k
    return _NODES[name]


def _upsample_backward(mode: str, k: int):
    """``aten.upsample_<mode>_backward``: the gradient spread back through the adjoint of the forward's maps,
    rebuilt from the sizes and scales (the node's own formula)."""
    def run(grad_output, output_size, input_size, *rest):
        align = None
        if "nearest" not in mode:
            align, rest = rest[0], rest[1:]
        scales = list(rest) + [None] * (k - len(rest))
        spatial, out_size = tuple(input_size[2:]), tuple(output_size)
        maps, _ = _resize_maps(spatial, out_size, scales, mode, align, False, grad_output.dtype.np)
        if mode == "bicubic" and spatial == out_size:
            _, maps = _bicubic_same_size(maps)
        node = _node_for(mode, k)
        return axis_map(grad_output, maps[::-1], True, node.adjoint,
                        fmt=upsample_grad_format(mode, k, grad_output._data))
    return run


_BACKWARD_OPS = {}
for _mode, _name in UPSAMPLE_OPERATORS.items():
    for _k in ((1,) if _mode == "linear" else (2,) if _mode in ("bilinear", "bicubic") else
               (3,) if _mode == "trilinear" else (1, 2, 3)):
        _op_name = _name.format(_k) + "_backward"
        _BACKWARD_OPS[_op_name] = aten_only(_op_name, recorded=True)(_upsample_backward(_mode, _k))


def _nearest_index(n_in: int, n_out: int, scale, exact: bool, ft) -> np.ndarray:
    s = ft(1.0 / scale) if scale is not None and scale > 0 else ft(n_in) / ft(n_out)
    j = np.arange(n_out, dtype=ft)
    if exact:
        src = np.floor((j + ft(0.5)) * s)
    elif n_out == n_in:
        return np.arange(n_out)
    elif n_out == 2 * n_in:
        return np.arange(n_out) >> 1
    else:
        src = np.floor(j * s)
    return np.minimum(src.astype(np.int64), n_in - 1)


def _linear_taps(n_in: int, n_out: int, scale, align_corners: bool, ft) -> Taps:
    """Two taps per output: the pixel at or left of its source position and the next one (the same pixel at
    the last one), weighted 1 - l and l. At an unchanged size PyTorch takes each pixel twice, with weights 1
    and 0, whatever the scale."""
    if n_in == n_out:
        j = np.arange(n_out)
        return Taps(np.stack([j, j], 1), np.tile(np.array([1, 0], ft), (n_out, 1)), n_in)
    if align_corners:
        s = ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
    else:
        s = ft(1.0 / scale) if scale is not None and scale > 0 else ft(n_in) / ft(n_out)
    j = np.arange(n_out, dtype=ft)
    src = j * s if align_corners else np.maximum(s * (j + ft(0.5)) - ft(0.5), ft(0))
    i0 = src.astype(np.int64)
    i1 = i0 + (i0 < n_in - 1)
    l1 = np.clip(src - i0.astype(ft), ft(0), ft(1)).astype(ft)
    return Taps(np.stack([i0, i1], 1), np.stack([ft(1) - l1, l1], 1), n_in)


_CUBIC_A = -0.75  # PyTorch's bicubic kernel constant


def _cubic_taps(n_in: int, n_out: int, scale, align_corners: bool, ft) -> Taps:
    """Four taps per output (Keys' cubic convolution, A = -0.75), source indices clamped to the edge; at an
    unchanged size too (a scale factor other than 1 still moves the source positions, as in PyTorch)."""
    if align_corners:
        s = ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
    else:
        s = ft(1.0 / scale) if scale is not None and scale > 0 else ft(n_in) / ft(n_out)
    j = np.arange(n_out, dtype=ft)
    src = j * s if align_corners else s * (j + ft(0.5)) - ft(0.5)  # not clamped at 0 for cubic
    i0 = np.floor(src)
    t = (src - i0).astype(ft)
    a = ft(_CUBIC_A)

    def near(x):   # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):    # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    coeffs = np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], 1).astype(ft)
    index = np.clip(i0.astype(np.int64)[:, None] - 1 + np.arange(4), 0, n_in - 1)
    return Taps(index, coeffs, n_in)


# the antialiased modes' arithmetic, each a kernel path of tinytorch/_cpu/resize.py: the cubic filter's
# multiply-adds (one rounding each on PyTorch's FMA builds) and the forward's window walk
def _fma(a, b, c):
    """``a * b + c`` in the dtype of the array ``b``, rounded twice."""
    return a * b + c


def _antialias_kernel(windows):
    """The forward of an antialiased float resize over ``windows`` ((axis, (xmin, w, xsize)) per axis): PyTorch's
    order, the last axis first, each output the sum over its window taken in the window's order (a product and a
    sum per step, as its DEFAULT build rounds them; only the window's inputs reach it, so a NaN or inf spreads
    exactly as far as PyTorch's)."""
    def forward(data):
        for axis, (xmin, w, xsize) in windows[::-1]:
            data = _window_sums(data, axis, xmin, w, xsize)
        return np.ascontiguousarray(data) if windows else data.copy()  # never the input's own array
    return forward


def _window_sums(x: np.ndarray, axis: int, xmin: np.ndarray, w: np.ndarray, xsize: np.ndarray) -> np.ndarray:
    """Output ``o`` along ``axis``: ``x[xmin[o]] * w[o, 0] + x[xmin[o] + 1] * w[o, 1] + ...`` for the window's
    ``xsize[o]`` inputs, left to right (``w``: (n_out, width) in ``x``'s dtype)."""
    x = np.moveaxis(x, axis, -1)
    last = x.shape[-1] - 1
    with np.errstate(all="ignore"):
        out = x[..., xmin] * w[:, 0]
        for j in range(1, w.shape[1]):
            out = np.where(j < xsize, out + x[..., np.minimum(xmin + j, last)] * w[:, j], out)
    return np.moveaxis(out, -1, axis)


def _aa_filter(mode: str):
    if mode == "bilinear":
        return lambda x: np.where(np.abs(x) < 1, 1 - np.abs(x), 0)

    def cubic(x):  # Keys' kernel with a = -0.5 (PIL's; PyTorch's _upsample_bicubic2d_aa)
        t = x.dtype.type
        a, x = t(-0.5), np.abs(x)
        near = _fma(_fma(a + t(2), x, -(a + t(3))) * x, x, t(1))      # ((a + 2) x - (a + 3)) x x + 1
        far = _fma(_fma(_fma(a, x, t(-5) * a), x, t(8) * a), x, t(-4) * a)  # ((a x - 5a) x + 8a) x - 4a
        return np.where(x < 1, near, np.where(x < 2, far, t(0)))

    return cubic


def _aa_ranges(n_in: int, n_out: int, scale, align_corners: bool, mode: str, ft):
    """PyTorch's antialiased weights (PIL's resampling): per output, a window of inputs whose width grows with
    the downscale factor, the filter evaluated at the window's pixel centres and normalised to sum 1.
    Returns (xmin, weights) with ``weights`` (n_out, max window) in ``ft``, zero past each window."""
    interp = 2 if mode == "bilinear" else 4
    if align_corners:
        s = ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
    else:
        s = ft(1.0 / scale) if scale is not None and scale > 0 else ft(n_in) / ft(n_out)
    support = ft(interp / 2) * s if s >= 1 else ft(interp / 2)
    invscale = ft(1) / s if s >= 1 else ft(1)
    filt = _aa_filter(mode)
    i = np.arange(n_out, dtype=ft)
    center = s * (i + ft(0.5))
    xmin = np.maximum((center - support + ft(0.5)).astype(np.int64), 0)
    xsize = np.minimum((center + support + ft(0.5)).astype(np.int64), n_in) - xmin
    width = int(xsize.max()) if n_out else 0
    j = np.arange(width, dtype=ft)
    # PyTorch adds the half and scales in double (C++'s 0.5 literal), then hands the filter a scalar_t
    offset = (j[None, :] + xmin[:, None].astype(ft) - center[:, None]).astype(np.float64)
    w = filt(((offset + 0.5) * np.float64(invscale)).astype(ft)).astype(ft)
    w = np.where(j[None, :] < xsize[:, None], w, ft(0)).astype(ft)
    total = np.zeros((n_out, 1), dtype=ft)
    for k in range(width):  # summed in the window's order, as PyTorch's loop does
        total += w[:, k:k + 1]
    w = np.where(total != 0, w / np.where(total != 0, total, ft(1)), w).astype(ft)
    return xmin, w, xsize


def _aa_taps(n_in: int, n_out: int, scale, align_corners: bool, mode: str, ft) -> Taps:
    xmin, w, xsize = _aa_ranges(n_in, n_out, scale, align_corners, mode, ft)
    return Taps(xmin[:, None] + np.arange(w.shape[1]), w, n_in, xsize)


def _uint8_resize(x: np.ndarray, out_size, scales, align_corners: bool, mode: str, antialias: bool) -> np.ndarray:
    """uint8 bilinear/bicubic as PyTorch's CPU kernel computes it (PIL-SIMD's integer resampling): per axis,
    the weights in fixed point (int16, the most fractional bits that keep the largest weight below 2^15),
    sums in int32 with half an ulp added, shifted back and clamped to [0, 255]; the width first, an
    intermediate uint8 image, then the height. Without antialiasing the window is the plain kernel's."""
    out = x.astype(np.int64)
    for axis, n_out, s in ((3, out_size[1], scales[1]), (2, out_size[0], scales[0])):
        n_in = out.shape[axis]
        if n_in == n_out and not antialias and s is None:
            continue
        if antialias:
            xmin, w, _ = _aa_ranges(n_in, n_out, s, align_corners, mode, np.float64)
        else:
            w = (_linear_taps if mode == "bilinear" else _cubic_taps)(n_in, n_out, s, align_corners, np.float64).dense
            xmin = np.zeros(n_out, dtype=np.int64)
        max_w = float(np.abs(w).max()) if w.size else 0.0
        precision = 0
        for precision in range(22):
            if int(0.5 + max_w * (1 << (precision + 1))) >= (1 << 15):
                break
        wi = np.where(w >= 0, np.floor(w * (1 << precision) + 0.5), np.ceil(w * (1 << precision) - 0.5))
        wi = wi.astype(np.int64)
        moved = np.moveaxis(out, axis, -1)
        acc = np.full(moved.shape[:-1] + (n_out,), 1 << (precision - 1) if precision > 0 else 0, dtype=np.int64)
        for k in range(wi.shape[1]):
            cols = np.minimum(xmin + k, n_in - 1)
            acc += moved[..., cols] * wi[:, k]
        res = np.clip(acc >> precision, 0, 255)
        out = np.moveaxis(res, -1, axis)
    return out.astype(np.uint8)


def _area_taps(n_in: int, n_out: int, ft) -> Taps:
    """Adaptive average pooling along one axis: output i averages [floor(i n/o), ceil((i+1) n/o))."""
    lo, hi = _bounds(n_in, n_out)
    size = hi - lo
    width = np.arange(size.max())
    return Taps(lo[:, None] + width, np.ones(len(width), ft) / size[:, None].astype(ft), n_in, size)


def _resize_maps(spatial, out_size, scales, mode: str, align_corners, antialias: bool, dtype):
    """Each spatial axis's map (axis, index or taps, input size) from ``spatial`` to ``out_size``, and the
    antialiased modes' windows; positions and weights in float32 for float32 data, as PyTorch's kernels."""
    ft = np.float64 if dtype == np.float64 else np.float32
    maps, windows = [], []
    for i, (n_in, n_out, s) in enumerate(zip(spatial, out_size, scales)):
        if antialias:
            m = _aa_taps(n_in, n_out, s, align_corners, mode, ft)
            if n_in != n_out:  # PyTorch's kernel leaves an axis of unchanged size alone
                windows.append((2 + i, _aa_ranges(n_in, n_out, s, align_corners, mode, ft)))
        elif mode.startswith("nearest"):
            m = _nearest_index(n_in, n_out, s, mode == "nearest-exact", ft)
        elif mode == "bicubic":
            m = _cubic_taps(n_in, n_out, s, align_corners, ft)
        elif mode == "area":
            m = _area_taps(n_in, n_out, ft)
        else:
            m = _linear_taps(n_in, n_out, s, align_corners, ft)
        maps.append((2 + i, m, n_in))
    return maps, windows


@op(variants="functional")
def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """Resize the spatial dims (all dims after the first two) to ``size`` or by ``scale_factor``."""
    x = input._data
    k = x.ndim - 2
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = x.shape[2:]
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        out_size = _sizes(size, k, spatial, "output size")
        scales = [None] * k
    elif scale_factor is not None:
        scales = _sizes(scale_factor, k, spatial, "scale_factor")
        out_size = [int(math.floor(float(n) * float(s))) for n, s in zip(spatial, scales)]
        if recompute_scale_factor:
            scales = [None] * k
    else:
        raise ValueError("either size or scale_factor should be defined")
    if antialias and (mode not in ("bilinear", "bicubic", "lanczos") or x.ndim != 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if mode in _LINEAR.values() and x.ndim in _LINEAR and _LINEAR[x.ndim] != mode:
        want = {"linear": 3, "bilinear": 4, "trilinear": 5}[mode]
        raise NotImplementedError(f"Got {x.ndim}D input, but {mode} mode needs {want}D input")
    if mode == "lanczos" and k in (1, 2, 3):
        raise NotImplementedError("tinytorch's interpolate does not implement mode 'lanczos'")
    known = mode in ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic", "area")
    if not known or k not in (1, 2, 3) or (mode == "bicubic" and k != 2):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.ndim}D) for the "
                                  f"modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")
    if mode == "area":  # PyTorch's adaptive average pools, with their checks
        if k == 1:
            return adaptive_avg_pool1d(input, out_size)
        if k == 2:
            return adaptive_avg_pool2d(input, out_size)
        _no_empty_dim(x.shape, _adaptive_empty("adaptive_avg_pool3d"))
    for n_in, n_out in zip(spatial, out_size):
        if n_in <= 0 or n_out <= 0:
            raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                               f"({_dhw(spatial)}) {'and ' if k == 1 else ''}output ({_dhw(out_size)})")
    if x.size == 0 and mode != "area" and x.shape[1] == 0:  # (a batch of 0 is fine)
        raise RuntimeError(f"Non-empty {x.ndim}D data tensor expected but got a tensor with sizes {list(x.shape)}")
    kind = "nearest" if mode.startswith("nearest") else "linear"
    if x.dtype == np.uint8 and mode in ("bilinear", "bicubic") and k == 2:
        return _make(_uint8_resize(x, out_size, scales, align_corners, mode, antialias))
    # PyTorch's 2-d kernels check the dtype in a channels-last path first, the others in the index setup
    if mode == "bicubic":
        _float_only(x, "upsample_bicubic2d_channels_last")
    elif mode == "area":
        _float_only(x, "adaptive_avg_pool3d_cpu")
    else:
        _float_only(x, f"upsample_{'nearest' if kind == 'nearest' else 'bilinear'}2d_channels_last" if k == 2
                    else f"compute_indices_weights_{kind}")
    maps, windows = _resize_maps(spatial, out_size, scales, mode, align_corners, antialias, x.dtype)
    # PyTorch's kernels interpolate along the last dim first
    info = {"align_corners": bool(align_corners), "output_size": tuple(int(n) for n in out_size),
            "self_sym_sizes": tuple(x.shape), "antialias": antialias}
    info.update((n, None if v is None else float(v)) for n, v in zip(_scale_names(k), scales))
    kernel = None
    if antialias and x.dtype in (np.float32, np.float64):
        kernel = _antialias_kernel(windows)
    elif mode == "bicubic" and tuple(spatial) == tuple(out_size):
        kernel, maps = _bicubic_same_size(maps)
    # PyTorch's kernels write the result in the input's suggested memory format (channels-last kept)
    return axis_map(input, maps[::-1], False, _node_for(mode, k), info, kernel=kernel,
                    fmt=False if mode == "area" else suggested_of(x))


def _bicubic_same_size(maps):
    """PyTorch's bicubic at an unchanged size: the forward resamples (a scale factor other than 1 moves the
    source positions; an inf reaches its neighbours through taps of weight 0), the backward copies the
    gradient. The node's maps are the identity then, and the forward a kernel."""
    def kernel(data):
        return _apply(data, maps[::-1], False)
    return kernel, [(axis, np.arange(n_in), n_in) for axis, _, n_in in maps]


def _dhw(sizes) -> str:
    names = ["D", "H", "W"][3 - len(sizes):]
    return ", ".join(f"{n}: {s}" for n, s in zip(names, sizes))


def _sizes(v, k: int, spatial, what: str) -> list:
    if isinstance(v, (list, tuple)):
        if len(v) != k:
            if what == "output size":
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(spatial)} and output size of {v}. Please provide "
                                 f"input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                                 f"format.")
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(spatial)} and scale_factor of shape {v}. Please "
                             f"provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
                             f"...,sK) format.")
        return list(v)
    return [v] * k


@op(variants="functional")
def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None):
    """Deprecated alias of ``interpolate``."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=3)
    return interpolate(input, size, scale_factor, mode, align_corners)


@op(variants="functional")
def upsample_nearest(input: Tensor, size=None, scale_factor=None):
    """Deprecated: ``interpolate(mode="nearest")``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=3)
    return interpolate(input, size, scale_factor, mode="nearest")


@op(variants="functional")
def upsample_bilinear(input: Tensor, size=None, scale_factor=None):
    """Deprecated: ``interpolate(mode="bilinear", align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=3)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
