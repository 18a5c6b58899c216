"""embedding_bag: the sum, mean or max of the embedding rows of each bag of indices (bags given by
``offsets`` into a 1-d input, or the rows of a 2-d input), with per-sample weights (sum) and a
padding index that bags skip. Sum and mean are one product of a (bags x indices) numpy matrix with
the gathered rows; max reduces each bag; so every gradient is a tinytorch op."""
from __future__ import annotations

import numpy as np

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor, _make
from .._core.registry import op
from .activation import functional_spelling
from .embedding import _renorm_
from ..shape.join import stack

_MODES = {"sum": 0, "mean": 1, "max": 2}


def _bags(weight: Tensor, indices: Tensor, offsets: Tensor, mode: int, per_sample_weights, include_last_offset: bool,
          padding_idx: int) -> Tensor:
    idx = indices._data.astype(np.int64)
    off = offsets._data.astype(np.int64)
    n = idx.shape[0]
    if include_last_offset:
        starts, ends = off[:-1], off[1:]
    else:
        starts, ends = off, np.append(off[1:], n)
    bags = len(starts)
    rows = weight.index_select(0, _make(idx))
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    keep = idx != padding_idx
    if mode in (0, 1):
        m = np.zeros((bags, n), weight._data.dtype)
        for b in range(bags):
            sel = np.arange(starts[b], min(ends[b], n))
            sel = sel[keep[sel]]
            if len(sel):
                m[b, sel] = 1.0 / len(sel) if mode == 1 else 1.0
        return _make(m).matmul(rows)
    outs = []
    zero = _make(np.zeros(weight.shape[1:], weight._data.dtype))
    for b in range(bags):
        sel = np.arange(starts[b], min(ends[b], n))
        sel = sel[keep[sel]]
        outs.append(rows[_make(sel)].amax(0) if len(sel) else zero)
    if not outs:
        return _make(np.zeros((0, weight.shape[1]), weight._data.dtype))
    return stack(outs)


@functional_spelling("embedding_bag")
def _embedding_bag_functional(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                              max_norm: float | None = None, norm_type: float = 2, scale_grad_by_freq: bool = False,
                              mode: str = "mean", sparse: bool = False, per_sample_weights: Tensor | None = None,
                              include_last_offset: bool = False, padding_idx: int | None = None) -> Tensor:
    """The sum / mean / max of the embedding rows of each bag of indices: (bags, embedding_dim)."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type "
                             + ("<class 'tinytorch.Tensor'>" if isinstance(offsets, Tensor) else str(type(offsets))))
        offsets = _make(np.arange(0, input.numel(), input.shape[1], dtype=np.int64))
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        with no_grad():
            _renorm_(weight, input._data.astype(np.int64), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.shape[0] + padding_idx
    else:
        padding_idx = -1
    return _bags(weight, input, offsets, _MODES[mode], per_sample_weights, include_last_offset, padding_idx)


def _aux(indices: Tensor, offsets: Tensor, include_last_offset: bool, padding_idx: int, bags: int):
    """ATen's extra outputs: the bag of each index, each bag's size (padding excluded)."""
    idx, off = indices._data.astype(np.int64), offsets._data.astype(np.int64)
    starts = off[:-1] if include_last_offset else off
    offset2bag = np.zeros(len(idx), np.int64)
    size = np.zeros(bags, np.int64)
    for b, st in enumerate(starts):
        end = off[b + 1] if b + 1 < len(off) else len(idx)
        offset2bag[st:end] = b
        size[b] = int((idx[st:end] != padding_idx).sum())
    return _make(offset2bag), _make(size)


@op(variants="function functional", functional=_embedding_bag_functional)
def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False, mode: int = 0,
                  sparse: bool = False, per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None):
    """ATen's spelling: (output, offset2bag, bag_size, max_indices) for 1-d indices and offsets, mode 0/1/2
    (sum/mean/max)."""
    pad = -1 if padding_idx is None else padding_idx
    out = _bags(weight, indices, offsets, int(mode), per_sample_weights, include_last_offset, pad)
    offset2bag, size = _aux(indices, offsets, include_last_offset, pad, out.shape[0])
    if int(mode) == 0:  # ATen fills offset2bag and the bag sizes for mean and max only
        offset2bag, size = _make(np.zeros(0, np.int64)), _make(np.zeros(out.shape[0], np.int64))
    # the max mode's winning rows are not recorded (zeros); the other modes repeat the bag sizes, as ATen does
    max_indices = _make(np.zeros(tuple(out.shape), np.int64)) if int(mode) == 2 else size
    return out, offset2bag, size, max_indices
