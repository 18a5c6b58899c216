"""bilinear: y = x1^T A x2 + b for every output feature, as one einsum (its gradients are einsums)."""
from __future__ import annotations

from ...autograd.node import Node
from ...tensor import Tensor
from .._core.record import record
from .._core.registry import op
from .._core.util import complex_grad_error
from ..linalg.products import einsum


class _CGradLayout(Node):
    """An identity whose gradient leaves C-ordered: PyTorch's ``_trilinear`` gives the weight's gradient so, where
    the einsum's would be laid out as its permuted operand."""

    def backward(self, g):
        return (g.contiguous(),)


_CGradLayout.__name__ = _CGradLayout.__qualname__ = "CloneBackward0"  # a clone into a layout


@op(variants="function functional")
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """(..., in1) and (..., in2) with weight (out, in1, in2) -> (..., out)."""
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {input1.shape[i]} and "
                               f"{input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected "
                           f"{weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected "
                           f"{weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")
    if weight._requires_grad:
        weight = record(weight._data.copy(), _CGradLayout, (weight,))
    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    if out._requires_grad and out._data.dtype.kind == "c":  # PyTorch's _trilinear has real gradients only
        raise complex_grad_error("_trilinear")
    return out if bias is None else out + bias
