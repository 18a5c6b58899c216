"""Flatten parameters into one vector and back."""
from __future__ import annotations

from ..._ops.shape.join import cat
from ...tensor import Tensor
from ..modules.module import typename


def parameters_to_vector(parameters) -> Tensor:
    """All parameters flattened and concatenated (differentiable)."""
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Make each parameter's data a slice of ``vec`` (the inverse of parameters_to_vector)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected tinytorch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
