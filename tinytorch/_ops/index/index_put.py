"""``index_put`` (``input[indices] = values`` as a function, optionally accumulating) and ``put``
(the same on the flattened input). Without accumulation this is setitem on a clone; with it, the
values are added at the indices (repeats add up) by ``index_zeros_put``, gather's adjoint, so the
gradient is the indexing's."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor, _make
from .._core import overlap
from .._core.record import legacy_name
from .._core.registry import op
from .index import _check_bounds, _convert_key
from ..shape._adjoint import index_zeros_put


def _key(indices) -> tuple:
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' must be tuple of Tensors")
    return tuple(slice(None) if i is None else i for i in indices)


def _index_put_overlap(self: Tensor, args) -> None:
    """index_put_'s check of its index and values against ``self``: any overlap refused, but for one boolean mask
    and a one-element value, which PyTorch hands to masked_fill_ (it reads the value as a number)."""
    indices, values = args[0], args[1] if len(args) > 1 else None
    given = [i for i in indices if i is not None] if isinstance(indices, (tuple, list)) else []
    if (isinstance(values, Tensor) and values._data.size == 1 and len(given) == 1 and isinstance(given[0], Tensor)
            and given[0]._data.dtype in (np.bool_, np.uint8)):
        return
    overlap.check(self._data, self._vc, args, True)


@op(variants="function method inplace torch_inplace", overlap=_index_put_overlap, meta="cpu_args")
def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``values`` written (or, with ``accumulate``, added) at ``indices``, a
    tuple of index tensors as ``input[indices]`` reads them."""
    key = _key(indices)
    if len(key) > input.dim():
        raise IndexError(f"too many indices for tensor of dimension {input.dim()} (got {len(key)})")
    if values.dtype != input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{legacy_name(input._data.dtype)} for the destination and "
                           f"{legacy_name(values._data.dtype)} for the source.")
    if not accumulate:
        out = input.clone()
        out[key] = values
        return out
    np_key, _ = _convert_key(key)
    _check_bounds(input._data, np_key)
    shape = input._data[np_key].shape
    return input + index_zeros_put(input._data.shape, np_key, values.expand(shape), True)


@op(variants="function method inplace", overlap="any", meta="cpu_args")
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``source``'s elements written (or added) at the flat positions
    ``index`` (negative positions count from the end)."""
    n = int(input._data.size)
    idx = index._data.reshape(-1)
    if idx.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {legacy_name(idx.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{input.dtype} and source.dtype = {source.dtype}")
    if idx.size != source._data.size:
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source._data.size}, index.numel() = {idx.size}")
    bad = (idx >= n) | (idx < -n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {idx[bad][0]} on a tensor of {n} elements.")
    flat = input.reshape(-1)
    pos = _make(np.where(idx < 0, idx + n, idx).astype(np.int64))
    return index_put(flat, (pos,), source.reshape(-1), accumulate).reshape(input.shape)
