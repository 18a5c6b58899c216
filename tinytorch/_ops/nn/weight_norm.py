"""Weight normalisation: ``norm_except_dim`` (the 2-norm over every dim but one, kept as size-1
dims) and ``_weight_norm`` (w = v * g / ||v||), as PyTorch computes them. When the kept dim is the
first or the last, PyTorch runs a fused kernel recorded as ``WeightNormInterfaceBackward0``, whose
backward is g/||v|| * (dw - v * <dw, v>/||v||^2) for v and <dw, v>/||v|| for g; any other dim is the
composite v * (g / norm_except_dim(v)). The backward is tinytorch ops, so it can be differentiated."""
from __future__ import annotations

import numpy as np

from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.record import record
from .._core.registry import op
from ...autograd.node import sum_to


@op(variants="function")
def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """||v||_pow over every dim except ``dim`` (size-1 dims kept); dim=-1: the norm of the whole tensor."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = (v.size(0),) + (1,) * (v.dim() - 1)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = (1,) * (v.dim() - 1) + (v.size(-1),)
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


class WeightNormInterfaceBackward0(Node):
    def backward(self, grad):
        v, g, norm = self._unpacked_saved
        axes = tuple(i for i in range(v.dim()) if i != self.dim)
        along = (grad * v).sum(axes, keepdim=True) if axes else grad * v
        grad_v = (g / norm) * (grad - v * (along / (norm * norm))) if self.needs[0] else None
        grad_g = sum_to(along / norm, self.g_shape) if self.needs[1] else None
        return grad_v, grad_g


@op(variants="function")
def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """v * (g / ||v||), the norm over every dim except ``dim``."""
    if dim not in (0, v.dim() - 1) or v.dim() == 0:
        return v * (g / norm_except_dim(v, 2, dim))
    a = v._data
    axes = tuple(i for i in range(a.ndim) if i != dim)
    norm = np.sqrt((a * a).sum(axis=axes, keepdims=True)) if axes else np.abs(a)
    out = a * (g._data / norm)
    # the node keeps the norm too, as PyTorch's does
    return record(out.astype(a.dtype, copy=False), WeightNormInterfaceBackward0, (v, g),
                  (v, g, _make(norm.astype(a.dtype, copy=False))), dim=dim, needs=(v._requires_grad, g._requires_grad),
                  g_shape=g._data.shape)
