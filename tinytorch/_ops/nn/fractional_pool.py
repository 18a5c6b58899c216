"""Fractional max pooling (Graham, 2014): windows of a fixed size whose start positions follow a
pseudo-random sequence, one per (sample, channel, spatial dim).

The sequence is PyTorch's: with u the plane's sample in [0, 1) and alpha = (in - k) / (out - 1),
start[i] = int((i + u) * alpha) - int(u * alpha) for i < out - 1, and start[out - 1] = in - k, all in
the input's floating dtype (float32 arithmetic for a float32 input). When no ``_random_samples`` are
given they are drawn as PyTorch does, ``rand(N, C, dims, dtype=input.dtype)``, so a seeded call takes
the same windows. The max keeps the first maximum in row-major window order, and a NaN wins (as
PyTorch's kernel); the backward scatters into the argmax positions (windows may overlap)."""
from __future__ import annotations

import numpy as np

from ..._dtype import FLOATING_NP
from ..._meta_array import MetaArray, no_meta_kernel
from ..._random import draws as _draws
from ...autograd.node import Node
from ...random import _engine
from ...tensor import Tensor, _make
from .._core.record import record, wants_grad
from .._core.registry import op
from .pool import _SCATTER_NODES as _POOL_SCATTER_NODES, _named

_SPATIAL_NAMES = ("time", "height", "width")


def _result1(node) -> Tensor:
    """The argmax positions (int64, per plane) PyTorch's node keeps as its second result."""
    plane = int(np.prod(node.in_shape[-node.nd:]))
    return _make((node.flat % plane).reshape(node.out_shape))


class _FractionalBackward(Node):
    """The gradient added into each argmax position one output element at a time, in output order and
    in the gradient's dtype, as PyTorch's kernel does (windows overlap: float32 sums keep its rounding)."""

    _scatter_name = ""
    _no_meta_kernel = ""  # the ATen backward's name where PyTorch has no meta kernel for it
    saved_fields = (("self", 0), ("kernel_size", "kernel_size"), ("output_size", "output_size"),
                    ("result1", _result1))

    def backward(self, g):
        if type(g._data) is MetaArray and self._no_meta_kernel:  # PyTorch has no meta kernel for it
            raise NotImplementedError(no_meta_kernel(self._no_meta_kernel))
        summed = np.zeros_like(g._data, shape=(int(np.prod(self.in_shape)),), order="C")  # (a meta g: meta)
        np.add.at(summed, self.flat, g._data.reshape(-1))
        # its own backward gathers from the same positions (pool.py's node, under PyTorch's name)
        return (record(summed.reshape(self.in_shape), _SCATTER_NODES[self._scatter_name], (g,), flat=self.flat,
                       out_shape=g._data.shape, in_shape=tuple(self.in_shape)),)


class FractionalMaxPool2DBackward0(_FractionalBackward):
    _scatter_name = "FractionalMaxPool2DBackwardBackward0"


class FractionalMaxPool3DBackward0(_FractionalBackward):
    _scatter_name = "FractionalMaxPool3DBackwardBackward0"
    _no_meta_kernel = "fractional_max_pool3d_backward"


# pool.py's gather node under this file's names (a table of its own: pool.py's is pool.py's)
_SCATTER_NODES = {n: _named(n, _POOL_SCATTER_NODES["_MaxScatter"])
                  for n in ("FractionalMaxPool2DBackwardBackward0", "FractionalMaxPool3DBackwardBackward0")}


def _starts(samples: np.ndarray, size: int, out: int, k: int) -> np.ndarray:
    """(N, C, out) int64 window starts from (N, C) samples, in the samples' dtype as PyTorch computes."""
    dt = samples.dtype.type
    starts = np.empty(samples.shape + (out,), dtype=np.int64)
    if out > 1:
        alpha = dt(size - k) / dt(out - 1)
        i = np.arange(out - 1).astype(samples.dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            starts[..., :-1] = ((i + samples[..., None]) * alpha).astype(np.int64) \
                - (samples * alpha).astype(np.int64)[..., None]
    if out > 0:
        starts[..., -1] = size - k
    return starts


def _expand(v, nd: int, what: str, name: str):
    if isinstance(v, int):
        return (v,) * nd
    v = tuple(v)
    if len(v) == 1:
        return v * nd
    if len(v) != nd:
        raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of Ints")
    return v


def _fractional_max_pool(input: Tensor, kernel_size, output_size, samples, nd: int, name: str, node_cls,
                         return_indices: bool):
    x = input._data
    where = f"{name}_out()" if nd == 3 else f"{name}()"
    k = _expand(kernel_size, nd, "kernel_size", name)
    out = _expand(output_size, nd, "output_size", name)
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}: Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(x.shape)}")
    for i in range(1, x.ndim):
        if x.shape[i] == 0:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{list(x.shape)} with dimension {i} being empty.")
    batched = x.ndim == nd + 2
    xb = x if batched else x[None]
    n, c, size = xb.shape[0], xb.shape[1], xb.shape[2:]
    for d in range(nd):
        dim_name = _SPATIAL_NAMES[3 - nd + d]
        if out[d] + k[d] - 1 > size[d]:
            raise RuntimeError(f"{where}: pool {dim_name} {k[d]} too large relative to input {dim_name} {size[d]}")
    u = samples._data
    if u.dtype != x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if u.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {u.ndim}")
    if u.shape[0] < n:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if u.shape[1] != c:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if u.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {u.shape[2]}.")
    # PyTorch's sample order: (w, h) for 2-d, (t, h, w) for 3-d
    sample_of = (1, 0) if nd == 2 else (0, 1, 2)
    starts = [_starts(u[:n, :, sample_of[d]], size[d], out[d], k[d]) for d in range(nd)]
    strides = [int(np.prod(size[d + 1:])) for d in range(nd)]
    # corner[n, c, o0, o1(, o2)]: flat in-plane index of each window's first element
    corner = np.zeros((n, c) + tuple(out), dtype=np.int64)
    for d in range(nd):
        shape = [n, c] + [1] * nd
        shape[2 + d] = out[d]
        corner = corner + starts[d].reshape(shape) * strides[d]
    planes = xb.reshape(n * c, int(np.prod(size)))
    row = np.arange(n * c, dtype=np.int64).reshape((n, c) + (1,) * nd)
    best = np.full(corner.shape, -np.inf, dtype=x.dtype)
    best_idx = corner.copy()
    for offset in np.ndindex(*k):
        flat = corner + sum(o * s for o, s in zip(offset, strides))
        v = planes[row, flat]
        better = (v > best) | np.isnan(v)
        best = np.where(better, v, best)
        best_idx = np.where(better, flat, best_idx)
    out_shape = best.shape if batched else best.shape[1:]
    if not wants_grad((input,)):
        result = _make(best.reshape(out_shape))  # nothing recorded: nothing of the node made
    else:
        # the node keeps the argmax positions in the whole input, and the input as PyTorch's does
        flat = (row * int(np.prod(size)) + best_idx).reshape(-1)
        result = record(best.reshape(out_shape), node_cls, (input,), (input,), flat=flat, in_shape=x.shape,
                        unique=False, out_shape=out_shape, nd=nd, kernel_size=tuple(k), output_size=tuple(out))
    if return_indices:
        return result, _make(np.ascontiguousarray(best_idx.reshape(out_shape)))
    return result


def _output_size(input: Tensor, output_size, output_ratio, nd: int, name: str):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return output_size
    if nd == 2 and len(output_ratio) > 2:
        raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
    ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * nd
    return [int(input.size(d - nd) * ratio[d]) for d in range(nd)]


def _samples(input: Tensor, samples, nd: int):
    if samples is not None:
        return samples
    n_batch = 1 if input.dim() == nd + 1 else input.size(0)
    shape = (n_batch, input.size(-nd - 1), nd)
    npd = input._data.dtype
    if npd not in FLOATING_NP:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{_torch_name(npd)}'")
    return _make(_draws.uniform_values(_engine(None), int(np.prod(shape)), npd, 0.0, 1.0).reshape(shape))


def _torch_name(npd) -> str:
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(npd.name, npd.name)


@op(variants="functional", autocast="fp32")
def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):
    """Fractional max pooling of (N, C, H, W) or (C, H, W), with the argmax indices (into each H*W plane)."""
    size = _output_size(input, output_size, output_ratio, 2, "fractional_max_pool2d")
    samples = _samples(input, _random_samples, 2)
    return _fractional_max_pool(input, kernel_size, size, samples, 2, "fractional_max_pool2d",
                                FractionalMaxPool2DBackward0, True)


@op(variants="functional", autocast="fp32")
def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    """Fractional max pooling of (N, C, H, W) or (C, H, W) (see the module docstring)."""
    size = _output_size(input, output_size, output_ratio, 2, "fractional_max_pool2d")
    samples = _samples(input, _random_samples, 2)
    return _fractional_max_pool(input, kernel_size, size, samples, 2, "fractional_max_pool2d",
                                FractionalMaxPool2DBackward0, return_indices)


@op(variants="functional", autocast="fp32")
def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):
    """Fractional max pooling of (N, C, T, H, W) or (C, T, H, W), with the argmax indices."""
    size = _output_size(input, output_size, output_ratio, 3, "fractional_max_pool3d")
    samples = _samples(input, _random_samples, 3)
    return _fractional_max_pool(input, kernel_size, size, samples, 3, "fractional_max_pool3d",
                                FractionalMaxPool3DBackward0, True)


@op(variants="functional", autocast="fp32")
def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    """Fractional max pooling of (N, C, T, H, W) or (C, T, H, W) (see the module docstring)."""
    size = _output_size(input, output_size, output_ratio, 3, "fractional_max_pool3d")
    samples = _samples(input, _random_samples, 3)
    return _fractional_max_pool(input, kernel_size, size, samples, 3, "fractional_max_pool3d",
                                FractionalMaxPool3DBackward0, return_indices)
