"""``diff``: n-th forward differences along a dimension, with optional ``prepend``/``append``. A
composite of ``narrow`` and subtraction in PyTorch too (its graph ends in SubBackward0)."""
from __future__ import annotations

from ...tensor import Tensor
from .._core.batching import composite
from .._core.registry import op
from ..shape.join import cat


@op(variants="function method out", batch=composite, overlap="partial")
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """out[i] = input[i + 1] - input[i] along ``dim``, applied ``n`` times (``!=`` for bool tensors)."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for extra in (prepend, append):
        if extra is not None and extra.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if n == 0:
        return input.clone()  # a copy, with prepend/append ignored, as PyTorch's
    if prepend is not None or append is not None:
        input = cat([t for t in (prepend, input, append) if t is not None], dim)
    d = dim + input.dim() if dim < 0 else dim
    out = input
    for _ in range(n):
        length = out.shape[d]
        if length == 0:
            break
        hi, lo = out.narrow(d, 1, length - 1), out.narrow(d, 0, length - 1)
        out = hi != lo if out.dtype.name == "bool" else hi - lo
    return out
