"""Ops that assemble or reshape results from existing ops: ``block_diag``, ``combinations``,
``diagflat``, ``fill``, ``sum_to_size``, and the ``unsafe_`` splits (the same
pieces as ``split``/``chunk``, which PyTorch lets one modify in place). Each is written in tinytorch
ops, so its gradient is theirs."""
from __future__ import annotations

import itertools

import numpy as np

from ..._dtype_info import promote_types
from ...tensor import Tensor, _make
from .._core.batching import composite
from .._core.registry import op
from ...autograd.node import sum_to
from .join import cat, chunk, split
from .tri import diag


@op(variants="function", batch=composite)
def block_diag(*tensors) -> Tensor:
    """The tensors (0-d, 1-d read as one row, or 2-d) as blocks along the diagonal of a matrix."""
    blocks = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        blocks.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not blocks:
        return _make(np.zeros((1, 0), dtype=np.float32))
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = promote_types(dtype, b.dtype)
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        parts = [b.to(dtype)]
        if left:
            parts.insert(0, b.new_zeros((r, left), dtype=dtype))  # (meta for a meta block)
        if width - left - c:
            parts.append(b.new_zeros((r, width - left - c), dtype=dtype))
        rows.append(cat(parts, 1) if len(parts) > 1 else parts[0])
        left += c
    return cat(rows, 0)


@op(variants="function", meta="data_dependent:masked_select")
def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of the elements of a 1-d tensor, one per row (as
    ``itertools.combinations``, or ``combinations_with_replacement``)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape [{', '.join(map(str, input.shape))}]")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _make(np.empty((0,), dtype=input._data.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return input[_make(idx)]


@op(variants="function method", batch=composite)
def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The flattened input on diagonal ``offset`` of a square matrix."""
    return diag(input.reshape(-1), offset)


@op(variants="function")
def fill(input: Tensor, value) -> Tensor:
    """A tensor like ``input`` filled with ``value`` (a number or a 0-d tensor)."""
    return input.clone().fill_(value)


def _sum_to_size(input: Tensor, *size) -> Tensor:
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    have = tuple(input.shape)
    ok = len(shape) <= len(have) and all(s == 1 or s == h for s, h in zip(shape[::-1], have[::-1]))
    if not ok:
        raise RuntimeError(f"size {{[{', '.join(map(str, shape))}]}} is not expandable to size "
                           f"{{[{', '.join(map(str, have))}]}}.")
    if not shape:
        return input.sum()  # PyTorch's sum_to: an empty target is the full sum (bools count as int64)
    if shape == have:
        return input
    return sum_to(input.long() if input._data.dtype == np.bool_ else input, shape)


@op(variants="method", method=_sum_to_size)
def sum_to_size(input: Tensor, *size) -> Tensor:
    """``input`` summed over the dimensions where ``size`` has 1 (or lacks) to have shape ``size``."""
    return _sum_to_size(input, *size)


@op(variants="function method", batch=composite)
def unsafe_split(input: Tensor, split_size: int, dim: int = 0):
    return split(input, split_size, dim)


@op(variants="function method", batch=composite)
def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0):
    return chunk(input, chunks, dim)
