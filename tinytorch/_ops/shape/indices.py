"""Index arithmetic: ``tril_indices``/``triu_indices`` (coordinates of a matrix's triangle) and
``unravel_index`` (flat indices to coordinates)."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._size import _require_cpu
from ...tensor import Tensor, _make
from .._core.registry import op


def _triangle(row: int, col: int, offset: int, dtype, device, lower: bool) -> Tensor:
    if device is not None:
        _require_cpu(device)
    d = _dtype.int64 if dtype is None else dtype
    if d not in (_dtype.int32, _dtype.int64):
        raise NotImplementedError(f"\"{'tril' if lower else 'triu'}_indices\" not implemented for "
                           f"'{d._scalar}'")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    r, c = np.indices((row, col))
    keep = (c - r <= offset) if lower else (c - r >= offset)
    return _make(np.stack([r[keep], c[keep]]).astype(d.np))


@op(variants="function")
def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 pin_memory=False) -> Tensor:
    """The (2, N) coordinates of the lower triangle of a row x col matrix, row by row."""
    return _triangle(row, col, offset, dtype, device, True)


@op(variants="function")
def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 pin_memory=False) -> Tensor:
    """The (2, N) coordinates of the upper triangle of a row x col matrix, row by row."""
    return _triangle(row, col, offset, dtype, device, False)


@op(variants="function")
def unravel_index(indices: Tensor, shape):
    """Flat ``indices`` into a tensor of ``shape`` as a tuple of coordinate tensors (one per dim);
    out-of-range indices wrap around, as PyTorch's floor-divide-and-remainder does."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be integer dtype, but got {type(indices)}")
    if indices.is_floating_point() or indices.dtype is _dtype.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in dims):
        raise ValueError("'shape' cannot have negative values, but got " + str(dims))
    flat = indices._data.astype(np.int64)
    coefs = np.cumprod((dims[1:] + (1,))[::-1])[::-1] if dims else np.zeros(0, np.int64)
    return tuple(_make(np.floor_divide(flat, c) % s) for c, s in zip(coefs, dims))
