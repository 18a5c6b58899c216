"""``broadcast_shapes`` and ``broadcast_tensors``: PyTorch's broadcasting rule applied to shapes, and
each tensor expanded to the common shape (composites of ``expand``, as in PyTorch)."""
from __future__ import annotations

from ..._size import Size
from .._core.batching import composite
from .._core.registry import op


@op(variants="function", batch=composite)
def broadcast_shapes(*shapes) -> Size:
    """The shape tensors of the given shapes broadcast to (ints stand for 1-d shapes)."""
    dims = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    result = [1] * max((len(d) for d in dims), default=0)
    for arg, d in enumerate(dims):
        for i in range(-1, -1 - len(d), -1):
            if d[i] < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if d[i] == 1 or d[i] == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {d[i]} at {i}! Mismatching "
                                   f"argument at index {arg} had {d}; but expected shape should be broadcastable "
                                   f"to {result}")
            result[i] = d[i]
    return Size(result)


@op(variants="function", batch=composite)
def broadcast_tensors(*tensors):
    """Each tensor expanded (a view) to the shape they broadcast to together."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = tuple(tensors[0].shape) if tensors else ()
    for i, t in enumerate(tensors[1:], 1):
        a, b = shape, tuple(t.shape)
        n = max(len(a), len(b))
        a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
        merged = []
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y and x != 1 and y != 1:
                raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                                   f"non-singleton dimension {k}")
            merged.append(y if x == 1 else x)
        shape = tuple(merged)
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in tensors)

