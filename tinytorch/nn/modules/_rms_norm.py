"""``RMSNorm``: root-mean-square normalisation over the trailing dims, with a weight of ones."""
from __future__ import annotations

import numbers

from ... import _dtype
from ..._ops.creation.factory import empty
from ..._ops.nn.rms_norm import rms_norm
from .. import init
from ..parameter import Parameter
from .module import Module


class RMSNorm(Module):
    """y = x / sqrt(mean(x², trailing ``normalized_shape`` dims) + eps) · weight; ``eps`` None means the
    machine epsilon of the input's dtype."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps: float | None = None, elementwise_affine: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            dtype = dtype if dtype is not None else _dtype.get_default_dtype()
            self.weight = Parameter(empty(self.normalized_shape, dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight ones."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


RMSNorm.__module__ = "tinytorch.nn.modules.normalization"
