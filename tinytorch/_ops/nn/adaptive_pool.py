"""Adaptive pooling: adaptive_avg_pool1d/2d and adaptive_max_pool2d.

Output cell i of n covers input rows floor(i*H/n) to ceil((i+1)*H/n), as in PyTorch. Average
pooling sums windows from an integral image and spreads gradients back with a 2-d difference
array (both vectorised); max pooling loops over the output cells (windows differ in size), and
shares max pooling's scatter/gather backward."""
from __future__ import annotations

import numpy as np

from ...autograd.grad_mode import _State
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.registry import op
from .pool import AdaptiveMaxPool2DBackward0, _as4, _max_result, _pair


def _adaptive_size(output_size, hw):
    o = _pair(output_size) if output_size is not None else (None, None)
    return tuple(hw[i] if o[i] is None else int(o[i]) for i in range(2))


def _bounds(n: int, out: int):
    i = np.arange(out)
    return (i * n) // out, -((-(i + 1) * n) // out)


class AdaptiveAvgPool2DBackward0(Node):
    def backward(self, g):
        return (_adaptive_spread(g, self.in_shape),)


class AdaptiveAvgPool2DBackwardBackward0(Node):
    def backward(self, h):
        return (_adaptive_avg(h, self.out_hw),)


def _adaptive_avg(input: Tensor, out_hw) -> Tensor:
    x = input._data
    x4 = _as4(x)
    h, w = x.shape[-2:]
    (hs, he), (ws, we) = _bounds(h, out_hw[0]), _bounds(w, out_hw[1])
    # sums over windows from an integral image (float64 keeps the differences exact enough)
    ii = np.zeros((*x4.shape[:2], h + 1, w + 1), np.float64)
    np.cumsum(np.cumsum(x4, axis=2, dtype=np.float64), axis=3, out=ii[:, :, 1:, 1:])
    tot = ii[:, :, he[:, None], we] - ii[:, :, hs[:, None], we] - ii[:, :, he[:, None], ws] + ii[:, :, hs[:, None], ws]
    area = (he - hs)[:, None] * (we - ws)[None, :]
    out = (tot / area).astype(x.dtype).reshape(x.shape[:-2] + tuple(out_hw))
    if not (_State.enabled and input._requires_grad):
        return _make(out)
    node = AdaptiveAvgPool2DBackward0((input._edge(),))
    node.in_shape = x.shape
    return _make(out, node)


def _adaptive_spread(g: Tensor, in_shape) -> Tensor:
    gd = _as4(g._data)
    h, w = in_shape[-2:]
    oh, ow = gd.shape[-2:]
    (hs, he), (ws, we) = _bounds(h, oh), _bounds(w, ow)
    v = gd / ((he - hs)[:, None] * (we - ws)[None, :])
    # a 2-d difference array: +v at each window's corner, cumulative sums spread it over the window
    diff = np.zeros((*gd.shape[:2], h + 1, w + 1), np.float64)
    for a, b, sign in ((hs, ws, 1), (hs, we, -1), (he, ws, -1), (he, we, 1)):
        for i in range(oh):  # windows overlap: accumulate row by row of the output
            np.add.at(diff, (slice(None), slice(None), a[i], b), sign * v[:, :, i, :])
    out = np.cumsum(np.cumsum(diff, axis=2), axis=3)[:, :, :h, :w].astype(gd.dtype).reshape(in_shape)
    if not (_State.enabled and g._requires_grad):
        return _make(out)
    node = AdaptiveAvgPool2DBackwardBackward0((g._edge(),))
    node.out_hw = (oh, ow)
    return _make(out, node)


@op(variants="functional")
def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Mean over the windows that split (H, W) into ``output_size`` cells as evenly as possible."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    out_hw = _adaptive_size(output_size, input.shape[-2:])
    if out_hw == (1, 1):
        return input.mean((-1, -2), keepdim=True)  # PyTorch's shortcut, recorded as MeanBackward1
    return _adaptive_avg(input, out_hw)


@op(variants="function functional")
def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """adaptive_avg_pool2d over the last dim of (N, C, L) or (C, L)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {list(input.shape)}")
    o = output_size if isinstance(output_size, int) else tuple(output_size)[0]
    return _adaptive_avg(input.unsqueeze(-2), (1, o)).squeeze(-2)


@op(variants="functional")
def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Max over the windows that split (H, W) into ``output_size`` cells as evenly as possible."""
    x = input._data
    if x.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(x.shape)}")
    h, w = x.shape[-2:]
    oh, ow = _adaptive_size(output_size, (h, w))
    x4 = _as4(x)
    (hs, he), (ws, we) = _bounds(h, oh), _bounds(w, ow)
    vals = np.empty((*x4.shape[:2], oh, ow), x.dtype)
    idx = np.empty((*x4.shape[:2], oh, ow), np.int64)
    for i in range(oh):  # one loop per output cell: adaptive windows differ in size
        for j in range(ow):
            win = x4[:, :, hs[i]:he[i], ws[j]:we[j]].reshape(*x4.shape[:2], -1)
            a = win.argmax(axis=-1)
            vals[:, :, i, j] = np.take_along_axis(win, a[..., None], axis=-1)[..., 0]
            idx[:, :, i, j] = (hs[i] + a // (we[j] - ws[j])) * w + ws[j] + a % (we[j] - ws[j])
    unique = h % oh == 0 and w % ow == 0
    # corners at 0: the local offsets are then the indices themselves
    return _max_result(input, vals, idx, (0, 0), (0, 0), AdaptiveMaxPool2DBackward0, unique, return_indices)


@op(variants="functional")
def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """adaptive_max_pool2d that also returns the argmax positions."""
    return adaptive_max_pool2d(input, output_size, True)
