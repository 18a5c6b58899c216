"""3-d pooling (max_pool3d, avg_pool3d, adaptive_avg/max_pool3d), adaptive_max_pool1d and the
power-average pools lp_pool1d/2d/3d.

Max pooling finds the argmax of each window in numpy (a loop over the kernel's offsets, vectorised
over the output; a later NaN or a strictly larger value wins, as in PyTorch's CPU kernel) and records
the 2-d pools' node, whose backward scatters to the argmax positions (and whose own backward gathers
from them). Average pooling and adaptive average pooling are the 2-d ones' n-dim machinery (pool.py),
each recorded as PyTorch's one node."""
from __future__ import annotations

import numpy as np

from ..._dtype import FLOATING_NP
from ..._meta_array import MetaArray
from ...tensor import Tensor, _make
from .._core.layout import as_format, suggested_of
from .._core.registry import op
from .activation import relu
from .pool import (AdaptiveMaxPool3DBackward0, MaxPool3DWithIndicesBackward0, _adaptive_avg, _avg_pool, _bounds,
                   _record_max, adaptive_max_pool2d)
from .pool import _adaptive_empty, _dims_between, _no_empty_dim, one_cell_mean
from .pool import _divisor, _out_size, _stride_omitted, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d


def _triple(v):
    if isinstance(v, int):
        return (v, v, v)
    v = tuple(v)
    return v * 3 if len(v) == 1 else v


def _stride(stride, k):
    return k if _stride_omitted(stride) else _triple(stride)


def _positive3(shape, name: str) -> None:
    """PyTorch's check of a 3-d pool's input: no empty dim but the batch (its message names the length, 0)."""
    if any(n == 0 for n in shape[len(shape) - 4:]):
        raise RuntimeError(f"{name}: Expected input's non-batch dimensions to have positive length, but input has a "
                           f"shape of {list(shape)} and non-batch dimension 0 has length zero!")


def _check3(x, k, s, p, d, out):
    if any(v == 0 for v in s):
        raise RuntimeError("stride should not be zero")
    for pi, ki, di in zip(p, k, d):
        if pi > ((ki - 1) * di + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pi}, "
                               f"kernel_size={ki} and dilation={di}")
    if any(o < 1 for o in out):
        c, dd, h, w = x.shape[-4:]
        raise RuntimeError(f"Given input size: ({c}x{dd}x{h}x{w}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")


@op(variants="function functional", autocast="fp32", functional_apart=True)
def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Max over (kd, kh, kw) windows of (N, C, D, H, W) or (C, D, H, W)."""
    x = input._data
    if x.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    _positive3(x.shape, "max_pool3d_with_indices_out_cpu_template()")
    k = _triple(kernel_size)
    s, p, d = _stride(stride, k), _triple(padding), _triple(dilation)
    size = x.shape[-3:]
    out = tuple(_out_size(size[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(3))
    _check3(x, k, s, p, d, out)
    x5 = x if x.ndim == 5 else x[None]
    if type(x) is MetaArray:  # a meta tensor: the results' shapes only, no window read
        best, idx = MetaArray(x.shape[:-3] + out, x.dtype), MetaArray(x.shape[:-3] + out, np.int64)
        unique = all(si >= (ki - 1) * di + 1 for si, ki, di in zip(s, k, d))
        res = _record_max(input, best, idx, MaxPool3DWithIndicesBackward0, unique,
                          (k, None if _stride_omitted(stride) else s, p, d, bool(ceil_mode)))
        return (res, _make(idx)) if return_indices else res
    need = [max(size[i] + 2 * p[i], (out[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1) for i in range(3)]
    fill = -np.inf if x.dtype in FLOATING_NP else np.iinfo(x.dtype).min
    xp = np.full(x5.shape[:2] + tuple(need), fill, x.dtype)
    xp[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1], p[2]:p[2] + size[2]] = x5
    best = np.full(x5.shape[:2] + out, fill, x.dtype)
    idx = np.zeros(x5.shape[:2] + out, np.int64)
    first = True
    pos = [np.arange(out[i]) * s[i] - p[i] for i in range(3)]
    for a in range(k[0]):
        for b in range(k[1]):
            for c in range(k[2]):
                o = (a * d[0], b * d[1], c * d[2])
                v = xp[:, :, o[0]:o[0] + (out[0] - 1) * s[0] + 1:s[0], o[1]:o[1] + (out[1] - 1) * s[1] + 1:s[1],
                       o[2]:o[2] + (out[2] - 1) * s[2] + 1:s[2]]
                here = ((pos[0] + o[0])[:, None, None] * size[1] + (pos[1] + o[1])[None, :, None]) * size[2] \
                    + (pos[2] + o[2])[None, None, :]
                take = np.ones(v.shape, bool) if first else (v > best) | np.isnan(v)
                first = False
                best = np.where(take, v, best)
                idx = np.where(take, here, idx)
    lowest = best == fill  # only there can a padding tap be the (first) maximum
    if lowest.any():  # PyTorch's kernel starts each argmax at the window's first tap inside the input
        start = [pos[i] + (np.maximum(-pos[i], 0) + d[i] - 1) // d[i] * d[i] for i in range(3)]
        inside = (start[0][:, None, None] * size[1] + start[1][None, :, None]) * size[2] + start[2][None, None, :]
        idx = np.where(lowest, inside, idx)
    # a channels-last-3d input (an unbatched one as its batch of one): channels-last-3d results, and for a batched
    # one the gradient too, as PyTorch's kernel writes them
    fmt = suggested_of(x5)
    best, idx = as_format(best, fmt), as_format(idx, fmt)
    if x.ndim == 4:
        best, idx, fmt = best[0], idx[0], None
    unique = all(si >= (ki - 1) * di + 1 for si, ki, di in zip(s, k, d))  # windows that never overlap
    out = _record_max(input, best, idx, MaxPool3DWithIndicesBackward0, unique,
                      (k, None if _stride_omitted(stride) else s,
                       p, d, bool(ceil_mode)), in_fmt=fmt)
    return (out, _make(idx if idx.flags.c_contiguous or fmt is not None else np.ascontiguousarray(idx))) \
        if return_indices else out


@op(variants="functional", autocast="fp32")
def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """max_pool3d that also returns the argmax positions."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@op(variants="functional", autocast="fp32")
def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None) -> Tensor:
    """Mean over (kd, kh, kw) windows of (N, C, D, H, W) or (C, D, H, W)."""
    x = input._data
    if x.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    _positive3(x.shape, "avg_pool3d()")
    k = _triple(kernel_size)
    s, p = _stride(stride, k), _triple(padding)
    size = x.shape[-3:]
    if any(size[i] + 2 * p[i] < k[i] for i in range(3)) and not any(p):
        raise RuntimeError(f"input image (T: {size[0]} H: {size[1]} W: {size[2]}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    out = tuple(_out_size(size[i], k[i], s[i], p[i], 1, ceil_mode) for i in range(3))
    _check3(x, k, s, p, (1, 1, 1), out)
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        div = np.asarray(divisor_override, x.dtype)
    elif type(x) is MetaArray:  # a meta tensor: an output volume of divisors, none computed
        div = MetaArray(out, x.dtype, value=np.ones((), x.dtype))
    else:
        ds = [_divisor(size[i], k[i], s[i], p[i], out[i], count_include_pad) for i in range(3)]
        div = (ds[0][:, None, None] * ds[1][None, :, None] * ds[2][None, None, :]).astype(x.dtype)
    args = (k, None if _stride_omitted(stride) else s, p, None,
            bool(ceil_mode), bool(count_include_pad), divisor_override)
    return _avg_pool(input, (k, s, p, out, div), args)


def _adaptive3(output_size, size):
    o = _triple(output_size) if output_size is not None else (None,) * 3
    return tuple(size[i] if o[i] is None else int(o[i]) for i in range(3))


@op(variants="functional", autocast="fp32")
def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Mean over the windows that split (D, H, W) into ``output_size`` cells as evenly as possible."""
    x = input._data
    if x.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(x.shape)}")
    _no_empty_dim(x.shape, _adaptive_empty("adaptive_avg_pool3d"))
    out = _adaptive3(output_size, x.shape[-3:])
    if out == (1, 1, 1):
        return one_cell_mean(input, (-1, -2, -3))
    return _adaptive_avg(input, out)


@op(variants="functional", autocast="fp32")
def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """Max over the windows that split (D, H, W) into ``output_size`` cells as evenly as possible."""
    x = input._data
    if x.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {list(x.shape)}")
    _no_empty_dim(x.shape, _adaptive_empty("adaptive_max_pool3d"))
    size = x.shape[-3:]
    out = _adaptive3(output_size, size)
    x5 = x if x.ndim == 5 else x[None]
    if type(x) is MetaArray:  # a meta tensor: the results' shapes only, no window read
        vals, idx = MetaArray(x.shape[:-3] + out, x.dtype), MetaArray(x.shape[:-3] + out, np.int64)
        res = _record_max(input, vals, idx, AdaptiveMaxPool3DBackward0, all(size[i] % out[i] == 0 for i in range(3)))
        return (res, _make(idx)) if return_indices else res
    b = [_bounds(size[i], out[i]) for i in range(3)]
    idx = np.zeros(x5.shape[:2] + out, np.int64)
    if x.size == 0:  # a batch of 0
        idx = idx.reshape(x.shape[:-3] + out)
        res = _record_max(input, idx.astype(x.dtype), idx, AdaptiveMaxPool3DBackward0, True)
        return (res, _make(idx)) if return_indices else res
    for i in range(out[0]):  # adaptive windows differ in size: one loop per output cell
        for j in range(out[1]):
            for l in range(out[2]):  # noqa: E741
                (d0, d1), (h0, h1), (w0, w1) = [(b[t][0][q], b[t][1][q]) for t, q in enumerate((i, j, l))]
                win = x5[:, :, d0:d1, h0:h1, w0:w1].reshape(*x5.shape[:2], -1)
                a = win.argmax(axis=-1)
                dh, hw = (h1 - h0) * (w1 - w0), w1 - w0
                idx[:, :, i, j, l] = ((d0 + a // dh) * size[1] + h0 + (a % dh) // hw) * size[2] + w0 + a % hw
    vals = np.take_along_axis(x5.reshape(*x5.shape[:2], -1), idx.reshape(*x5.shape[:2], -1), axis=-1)
    vals, idx = vals.reshape(x.shape[:-3] + out), idx.reshape(x.shape[:-3] + out)
    unique = all(size[i] % out[i] == 0 for i in range(3))  # windows that never overlap
    res = _record_max(input, vals, idx, AdaptiveMaxPool3DBackward0, unique)
    return (res, _make(idx)) if return_indices else res


@op(variants="functional", autocast="fp32")
def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """adaptive_max_pool3d that also returns the argmax positions."""
    return adaptive_max_pool3d(input, output_size, True)


@op(variants="function functional", functional_apart=True)
def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Max over the windows that split L into ``output_size`` cells as evenly as possible."""
    _dims_between(input, 2, 3, "adaptive_max_pool1d")
    _no_empty_dim(input.shape, _adaptive_empty("adaptive_max_pool1d"))
    o = output_size if isinstance(output_size, int) else tuple(output_size)[0]
    vals, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, o), True)
    vals, idx = vals.squeeze(-2), idx.squeeze(-2)
    return (vals, idx) if return_indices else vals


@op(variants="functional")
def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """adaptive_max_pool1d that also returns the argmax positions."""
    return adaptive_max_pool1d(input, output_size, True)


# -- power-average pooling: (sum of x^p over the window)^(1/p), through average pooling ----------
def _lp(input: Tensor, norm_type, kernel_size, stride, ceil_mode, avg, mx, nd: int) -> Tensor:
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return mx(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -mx(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    k = (kernel_size,) * nd if isinstance(kernel_size, int) else tuple(kernel_size)
    if len(k) == 1:
        k = k * nd
    if stride is not None:
        out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * relu(out.abs())).mul(int(np.prod(k))).pow(1.0 / norm_type)


@op(variants="functional")
def lp_pool1d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over each window of x^p)^(1/p) along the last dim."""
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, avg_pool1d, max_pool1d, 1)


@op(variants="functional")
def lp_pool2d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over each (kh, kw) window of x^p)^(1/p)."""
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, avg_pool2d, max_pool2d, 2)


@op(variants="functional")
def lp_pool3d(input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over each (kd, kh, kw) window of x^p)^(1/p)."""
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, avg_pool3d, max_pool3d, 3)
