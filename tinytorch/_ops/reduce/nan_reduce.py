"""Reductions that skip NaN: ``nansum`` (NaN counts as zero) and ``nanmean`` (the mean of the non-NaN
elements, a composite of ``nansum`` and a count as in PyTorch); and the two-result moments
``var_mean``/``std_mean`` (one graph node with two outputs, as PyTorch's)."""
from __future__ import annotations

import numpy as np

from ..._dtype import FLOATING_NP
from ... import _dtype
from ..._quiet_fp import loud, quiet, silent
from ...autograd.node import Node
from ...tensor import Tensor
from .._core.batching import composite
from .._core.record import OUT, record
from .._core.registry import op
from .._core.util import as_array, c_order, normalize_dims, saved_correction, saved_dims
from .reduce import mean_of, warn_dof


class NansumBackward0(Node):
    """The gradient spread back over the reduced dims, zero where the input was NaN."""
    saved_fields = (("dim", lambda n: saved_dims(n.dim_arg)), ("keepdim", "keepdim"), ("self", 0))

    def backward(self, g):
        (x,) = self._unpacked_saved
        if not self.keepdim and self.dims:
            g = g.reshape(tuple(1 if i in self.dims else s for i, s in enumerate(x.shape)))
        return (g.expand(tuple(x.shape)) * (~x.isnan()),)


@op(variants="function method out")
def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum over ``dim`` (all dims when None) treating NaN as zero; ints and bools sum to int64."""
    x = input._data
    dims = normalize_dims(dim, x.ndim)
    if dtype is not None:
        acc = _dtype.to_np(dtype)
    else:
        acc = x.dtype if x.dtype in FLOATING_NP else np.dtype(np.int64)
    fp = quiet()  # inf + -inf: NaN without a numpy warning, as PyTorch
    try:
        out = c_order(as_array(np.nansum(x, axis=dims, keepdims=keepdim, dtype=acc) if x.dtype in FLOATING_NP
                               else x.sum(axis=dims, keepdims=keepdim, dtype=acc)))
    finally:
        loud(fp)
    return record(out, NansumBackward0, (input,), (input,), dims=dims, keepdim=keepdim, dim_arg=dim)


@op(variants="function method out", batch=composite)
def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The mean over ``dim`` of the elements that are not NaN (NaN where all are)."""
    if not input.is_floating_point():
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input.dtype._scalar}")
    count = (~input.isnan()).sum(dim, keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def _moment_args(input: Tensor, dim, unbiased, keepdim, correction, name: str):
    if isinstance(dim, bool):  # var_mean(input, unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise RuntimeError(f"{name}: can't specify both unbiased and correction")
    c = 1 if correction is None and unbiased is None else (correction if correction is not None else int(unbiased))
    if not input.is_floating_point():
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    return normalize_dims(dim, input.dim()), c, keepdim


def _spread(g: Tensor, shape: tuple, dims: tuple, keepdim: bool) -> Tensor:
    if not keepdim and dims:
        g = g.reshape(tuple(1 if i in dims else s for i, s in enumerate(shape)))
    return g.expand(shape)


class _MomentNode(Node):
    """Both outputs' gradients: var' = 2 (x - mean) / (N - c), mean' = 1 / N, spread over the reduced dims."""
    is_std = False

    def backward(self, g_first, g_mean=None):
        x, first, mean = self._unpacked_saved
        shape = tuple(x.shape)
        total = None
        if g_first is not None:
            g_var = g_first
            if self.is_std:
                g_var = (g_first / (first * 2)).masked_fill(first == 0, 0.0)
            if self.welford_nan:  # the saved mean holds the forward's NaN: PyTorch's backward takes x's mean
                centred = x - x.mean(self.dims, keepdim=True)
            else:
                centred = x - _spread(mean, shape, self.dims, self.keepdim)
            scale = 2.0 / (self.count - self.c) if self.count > self.c else float("inf")
            total = _spread(g_var, shape, self.dims, self.keepdim) * centred * scale
        if g_mean is not None:
            part = _spread(g_mean, shape, self.dims, self.keepdim) / self.count
            total = part if total is None else total + part
        return (total,)


class VarMeanBackward0(_MomentNode):
    saved_fields = (("correction", "correction"), ("dim", lambda n: saved_dims(n.dim_arg)), ("keepdim", "keepdim"),
                    ("self", 0))
    is_std = False


class StdMeanBackward0(_MomentNode):
    saved_fields = (("correction", "correction"), ("dim", lambda n: saved_dims(n.dim_arg)), ("keepdim", "keepdim"),
                    ("self", 0), ("result0", 1))
    is_std = True


@silent  # inf - inf in the mean and the centring: PyTorch's NaN, without numpy's warnings
def _moments(input: Tensor, dims, c, keepdim, node_cls, args=(None, None, None)):
    x = input._data
    count = int(np.prod([x.shape[d] for d in dims])) if x.ndim else 1
    warn_dof("std_mean" if node_cls.is_std else "var_mean", x, count, c, 4)
    axes = dims if x.ndim else None
    mean = as_array(mean_of(x, axes, keepdim))
    first = as_array(x.var(axis=axes, ddof=c, keepdims=keepdim)) if count - c > 0 else \
        as_array(np.full(mean.shape, np.nan if count - c <= 0 else 0, dtype=x.dtype))
    if node_cls.is_std:
        first = as_array(np.sqrt(first))
    first, mean = c_order(first.astype(x.dtype, copy=False)), c_order(mean.astype(x.dtype, copy=False))
    welford_nan = x.size > 0 and not np.isfinite(mean).all() and _welford_mean(x, dims, mean)
    dim, unbiased, correction = args  # as given: PyTorch's saved values show them
    return record((first, mean), node_cls, (input,), (input, OUT, OUT[1]), dims=dims, keepdim=keepdim, count=count,
                  c=c, dim_arg=None if isinstance(dim, bool) else dim,
                  correction=saved_correction(correction, unbiased, dim), welford_nan=welford_nan)


def _welford_mean(x: np.ndarray, dims: tuple, mean: np.ndarray) -> bool:
    """PyTorch's mean of a row holding inf, written into ``mean`` (whose rows the sum made non-finite):
    PyTorch's var_mean runs Welford's update over the row in order (one thread), and once the running mean
    is infinite every later element makes it NaN (finite - inf or inf - inf), so an inf keeps the mean
    infinite only as the row's last element (every reduced index at its end), which the sum's mean already
    gives. Whether a row was set to NaN (the backward centres on the sum's mean, as PyTorch's)."""
    nonfinite = ~np.isfinite(x)
    last = tuple(slice(-1, None) if d in dims else slice(None) for d in range(x.ndim))
    earlier = nonfinite.sum(axis=dims, keepdims=True) - nonfinite[last]
    earlier = earlier.reshape(mean.shape) > 0
    if not earlier.any():
        return False
    mean[earlier] = np.nan
    return True


@op(variants="function")
def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """(variance, mean) over ``dim`` in one pass; ``correction`` (default 1) is subtracted from N."""
    if input._data.dtype.kind == "c":
        if isinstance(dim, bool):  # the (var_mean(input, unbiased)) overload
            dim, unbiased = None, dim
        return input.var(dim, unbiased, keepdim, correction=correction), input.mean(dim, keepdim)
    dims, c, keepdim = _moment_args(input, dim, unbiased, keepdim, correction, "var_mean")
    return _moments(input, dims, c, keepdim, VarMeanBackward0, (dim, unbiased, correction))


@op(variants="function")
def std_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """(standard deviation, mean) over ``dim`` in one pass; ``correction`` (default 1) is subtracted from N."""
    if input._data.dtype.kind == "c":
        if isinstance(dim, bool):  # the (std_mean(input, unbiased)) overload
            dim, unbiased = None, dim
        return input.std(dim, unbiased, keepdim, correction=correction), input.mean(dim, keepdim)
    dims, c, keepdim = _moment_args(input, dim, unbiased, keepdim, correction, "std_mean")
    return _moments(input, dims, c, keepdim, StdMeanBackward0, (dim, unbiased, correction))
