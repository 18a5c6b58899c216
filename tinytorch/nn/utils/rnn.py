"""Variable-length sequences: ``PackedSequence`` and packing/padding helpers (PyTorch's semantics).

A packed sequence stores, for each time step t, the rows of the ``batch_sizes[t]`` sequences still
running (sequences sorted by decreasing length), one step after the other. Packing and padding are
two linear maps, each the other's adjoint: their nodes' backwards call each other, so gradients of
any order exist."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import _dtype
from ...autograd.node import Node
from ...tensor import Tensor, _make
from ..._ops.creation.factory import arange
from ..._ops._core.record import record

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``; made by ``pack_padded_sequence`` and
    ``pack_sequence``, accepted and returned by every recurrent module."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def pin_memory(self):
        return self

    def to(self, *args, **kwargs):
        """``data.to(...)``; ``self`` when that changes nothing."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cuda(self, *args, **kwargs):
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=_dtype.float64)

    def float(self):
        return self.to(dtype=_dtype.float32)

    def half(self):
        return self.to(dtype=_dtype.float16)

    def long(self):
        return self.to(dtype=_dtype.int64)

    def int(self):
        return self.to(dtype=_dtype.int32)

    def short(self):
        return self.to(dtype=_dtype.int16)

    def char(self):
        return self.to(dtype=_dtype.int8)

    def byte(self):
        return self.to(dtype=_dtype.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The inverse of a 1-d permutation tensor (None for None)."""
    if permutation is None:
        return None
    p = permutation._data
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size, dtype=p.dtype)
    return _make(inv)


# -- the two linear maps and their nodes ---------------------------------------------------------
def _offsets(bs):
    return np.concatenate(([0], np.cumsum(bs)[:-1])).astype(int).tolist()


class PackPaddedSequenceBackward0(Node):
    def backward(self, g):
        return (_pad(g, self.bs, self.total, self.batch, self.batch_first, 0.0),)


class _PadPacked(Node):
    """Scatter of packed rows into a padded tensor; PyTorch's pad kernels copy into slices."""

    def backward(self, g):
        return (_pack(g, self.bs, self.batch_first),)


_PadPacked.__name__ = _PadPacked.__qualname__ = "CopySlices"


def _pack(padded: Tensor, bs, batch_first: bool) -> Tensor:
    """Rows ``padded[t, :bs[t]]`` step after step (seq-first view of ``padded``)."""
    x = padded._data.swapaxes(0, 1) if batch_first else padded._data
    out = np.concatenate([x[t, :n] for t, n in enumerate(bs)], 0) if bs else x[:0, 0]
    return record(out, PackPaddedSequenceBackward0, (padded,), bs=bs, total=x.shape[0], batch=x.shape[1],
                  batch_first=batch_first)


def _pad(data: Tensor, bs, total: int, batch: int, batch_first: bool, padding_value) -> Tensor:
    """The padded (T, B, *) (or (B, T, *)) tensor holding packed ``data``, ``padding_value`` elsewhere."""
    d = data._data
    out = np.full((total, batch) + d.shape[1:], padding_value, dtype=d.dtype)
    for s, (t, n) in zip(_offsets(bs), enumerate(bs)):
        out[t, :n] = d[s:s + n]
    if batch_first:
        out = np.ascontiguousarray(out.swapaxes(0, 1))
    return record(out, _PadPacked, (data,), bs=bs, batch_first=batch_first)


def _as_int64(lengths) -> Tensor:
    if isinstance(lengths, Tensor):
        return lengths.to(_dtype.int64)
    return _make(np.asarray([int(v) for v in lengths], dtype=np.int64))


# -- public functions -----------------------------------------------------------------------------
def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True):
    """Pack a padded batch of sequences of the given ``lengths`` (sorted decreasing unless
    ``enforce_sorted=False``, which sorts and remembers the permutation)."""
    lengths = _as_int64(lengths)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = lengths.sort(descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    lens = lengths._data.tolist()
    batch = input.shape[0 if batch_first else 1]
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={batch})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(a < b for a, b in zip(lens, lens[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    bs = [sum(1 for v in lens if v > t) for t in range(lens[0])]
    data = _pack(input, bs, batch_first)
    return PackedSequence(data, _make(np.asarray(bs, dtype=np.int64)), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None):
    """(padded, lengths): the inverse of ``pack_padded_sequence``, in the original batch order."""
    bs = sequence.batch_sizes._data.tolist()
    max_len = len(bs)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_len}")
        max_len = total_length
    batch = bs[0] if bs else 0
    padded = _pad(sequence.data, bs, max_len, batch, batch_first, padding_value)
    lengths = _make(np.asarray([sum(1 for n in bs if n > b) for b in range(batch)], dtype=np.int64))
    if sequence.unsorted_indices is not None:
        return (padded.index_select(0 if batch_first else 1, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices])
    return padded, lengths


class _PadSequence(Node):
    def backward(self, g):
        grads = []
        for i, (n, start) in enumerate(zip(self.lengths, self.starts)):
            piece = g[i] if self.batch_first else g[:, i]
            grads.append(piece[start:start + n])
        return tuple(grads)


_PadSequence.__name__ = _PadSequence.__qualname__ = "CopySlices"


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right"):
    """Stack sequences of different lengths (L_i, *) into (T, B, *) (or (B, T, *)), padded on the
    right (or left) with ``padding_value``."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    arrays = [s._data for s in sequences]
    trailing = arrays[0].shape[1:]
    for a in arrays[1:]:
        for dim, (x, y) in enumerate(zip(trailing, a.shape[1:]), start=1):
            if x != y:
                raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                                   f"non-singleton dimension {dim}")
    dt = np.result_type(*arrays)
    total = max(a.shape[0] for a in arrays)
    out = np.full((len(arrays), total) + trailing, padding_value, dtype=dt)
    starts = []
    for i, a in enumerate(arrays):
        start = 0 if padding_side == "right" else total - a.shape[0]
        out[i, start:start + a.shape[0]] = a
        starts.append(start)
    if not batch_first:
        out = np.ascontiguousarray(out.swapaxes(0, 1))
    return record(out, _PadSequence, tuple(sequences), lengths=[a.shape[0] for a in arrays], starts=starts,
                  batch_first=batch_first, _n_inputs=len(sequences))


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """The list of sequences ``padded[:, i][:lengths[i]]`` (inverse of ``pad_sequence``)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    max_length = padded_sequences.shape[1]
    idx = arange(max_length)
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences of decreasing lengths (any order with ``enforce_sorted=False``)."""
    lengths = _make(np.asarray([v.size(0) for v in sequences], dtype=np.int64))
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    # a slice bounded by a 0-d tensor indexes in PyTorch (IndexBackward0): a mask gives the same node
    steps = np.arange(padded.shape[1])
    return [x[_make(steps < int(length))] for x, length in zip(padded, lengths)]
