"""max_unpool1d/2d/3d: the values put back at the positions max pooling's indices name, zeros
elsewhere (a scatter into the flattened spatial dims; its gradient is the matching gather)."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor
from .._core.registry import op
from .pool import _no_empty_dim


def _ntuple(v, n: int) -> tuple:
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    return v * n if len(v) == 1 else v


def _default_size(input: Tensor, k, s, p, output_size, nd: int) -> list:
    spatial = list(input.shape[-nd:])
    default = [(spatial[i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(nd)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    elif len(output_size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                         f"length of '{len(output_size)}'")
    for d in range(nd):
        lo, hi = default[d] - s[d], default[d] + s[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be between {lo} and {hi})')
    return output_size


def _check_input(input: Tensor, nd: int) -> None:
    """PyTorch's checks, which see a 1-d unpooling as the 2-d one of the input with a trailing dim of 1."""
    if input.ndim < nd:
        raise IndexError("tuple index out of range")
    shape, kd = (tuple(input.shape) + (1,), 2) if nd == 1 else (tuple(input.shape), nd)
    if len(shape) not in (kd + 1, kd + 2):
        raise RuntimeError(f"Input to max_unpooling{kd}d should be a {kd + 1}d or {kd + 2}d Tensor, but got a tensor "
                           f"with {len(shape)} dimensions.")
    _no_empty_dim(shape, f"max_unpooling{kd}d_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                  "dimensions, but got {shape} with dimension {dim} being empty.")


def _unpool(input: Tensor, indices: Tensor, kernel_size, stride, padding, output_size, nd: int) -> Tensor:
    _check_input(input, nd)
    k = _ntuple(kernel_size, nd)
    s = k if stride is None else _ntuple(stride, nd)
    p = _ntuple(padding, nd)
    size = _default_size(input, k, s, p, output_size, nd)
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    batched = input.ndim == nd + 2
    x = input if batched else input.unsqueeze(0)
    idx = indices if batched else indices.unsqueeze(0)
    n, c = x.shape[:2]
    total = int(np.prod(size))
    flat_idx = idx.reshape(n, c, int(np.prod(x.shape[2:])))  # (-1 cannot say how long a batch of 0's rows are)
    raw = flat_idx._data
    if raw.size and (raw.min() < 0 or raw.max() >= total):
        bad = raw[(raw < 0) | (raw >= total)].flat[0]
        shown = list(size) + ([1] if nd == 1 else [])
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, shown))})")
    out = x.new_zeros((n, c, total)).scatter(2, flat_idx, x.reshape(flat_idx.shape))
    out = out.reshape(n, c, *size)
    return out if batched else out.squeeze(0)


@op(variants="functional", autocast="fp32")
def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool1d: (N, C, L) values at their indices, zeros elsewhere."""
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 1)


@op(variants="functional", autocast="fp32")
def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool2d."""
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 2)


@op(variants="functional", autocast="fp32")
def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool3d."""
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 3)
