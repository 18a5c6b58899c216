"""Reductions that skip NaN: ``nansum`` (NaN counts as zero) and ``nanmean`` (the mean of the non-NaN
elements, a composite of ``nansum`` and a count as in PyTorch)."""
from __future__ import annotations

import numpy as np

from .. import _dtype
from ..autograd.grad_mode import _State
from ..autograd.node import Node
from ..tensor import Tensor, _make
from ._batching import composite
from ._registry import op
from ._util import as_array, normalize_dims


class NansumBackward0(Node):
    """The gradient spread back over the reduced dims, zero where the input was NaN."""

    def backward(self, g):
        (x,) = self.saved_tensors
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
        acc = x.dtype if x.dtype.kind == "f" else np.dtype(np.int64)
    out = as_array(np.nansum(x, axis=dims, keepdims=keepdim, dtype=acc) if x.dtype.kind == "f"
                   else x.sum(axis=dims, keepdims=keepdim, dtype=acc))
    if _State.enabled and input._requires_grad:
        node = NansumBackward0((input._edge(),))
        node.dims, node.keepdim = dims, keepdim
        node.save_for_backward(input)
        return _make(out, node)
    return _make(out)


@op(variants="function method out", batch=composite)
def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The mean over ``dim`` of the elements that are not NaN (NaN where all are)."""
    if not input.is_floating_point():
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input.dtype._legacy[:-6]}")
    count = (~input.isnan()).sum(dim, keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count
