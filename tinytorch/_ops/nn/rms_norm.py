"""rms_norm: x / sqrt(mean(x², trailing dims) + eps) · weight.

PyTorch's CPU build computes it as a composite of pointwise ops and a mean (its graph ends in
``MulBackward0``), so it is written here with tinytorch ops: the same nodes, and gradients of any order."""
from __future__ import annotations

import numbers

import numpy as np

from ...tensor import Tensor
from .._core.layout import contiguous_format, suggested_of
from .._core.registry import op


def _dims(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


@op(variants="function functional", functional_apart=True)
def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """Normalise over the trailing ``normalized_shape`` dims by their root mean square; ``eps`` defaults to
    the machine epsilon of the input's dtype."""
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    norm = tuple(int(s) for s in normalized_shape)
    shape = tuple(input.shape)
    if weight is not None and tuple(weight.shape) != norm:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{_dims(weight.shape)} and normalized_shape = {_dims(norm)}")
    if len(shape) < len(norm) or shape[len(shape) - len(norm):] != norm:
        raise RuntimeError(f"Given normalized_shape={_dims(norm)}, expected input with shape "
                           f"[*{', '.join(str(s) for s in norm)}], but got input of size{_dims(shape)}")
    x = input._data
    if eps is None:  # the epsilon of the type it is computed in (PyTorch's opmath_t: float for half and bfloat16)
        eps = float(np.finfo(np.float64 if x.dtype == np.float64 else np.float32).eps)
    dims = tuple(range(len(shape) - 1, len(shape) - len(norm) - 1, -1))  # the last first, as PyTorch lists them
    # half and bfloat16 are computed in float, as PyTorch
    compute = input.float() if x.dtype.name in ("float16", "bfloat16") else input
    if compute._data.dtype != np.float64:  # eps in the computation's own precision, as PyTorch's opmath_t
        eps = float(np.float32(eps))
    out = compute * compute.pow(2).mean(dims, keepdim=True).add_(eps).rsqrt()
    # PyTorch's composite ends in ``.contiguous(input.suggest_memory_format())`` (a CloneBackward0 where that moves
    # anything): channels-last for a channels-last input, else contiguous, whatever the input's own layout
    fmt = suggested_of(x) or contiguous_format
    if compute is not input:
        out = out.contiguous(memory_format=fmt).type_as(input)
        return out * weight if weight is not None else out
    return (out * weight if weight is not None else out).contiguous(memory_format=fmt)
