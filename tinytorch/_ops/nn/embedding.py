"""Embedding lookup: rows of a weight matrix picked by integer indices, one by one or summed, averaged
or maxed over bags.

The forward is one numpy ``take``; ``EmbeddingBackward0`` adds the gradient rows into a zero matrix in
index order, recorded as PyTorch's EmbeddingDenseBackwardBackward0 so second derivatives work.
``max_norm`` renormalises the looked-up rows of the weight in place first, outside autograd, as
PyTorch's ``embedding_renorm_``.

embedding_bag: the sum, mean or max of the embedding rows of each bag of indices (bags given by
``offsets`` into a 1-d input, or the rows of a 2-d input), with per-sample weights (sum) and a
padding index that bags skip. Sum and mean are one product of a (bags x indices) numpy matrix with
the gathered rows (a product per bag where a row holds inf or NaN); max gathers each bag's winning rows;
so every gradient is a tinytorch op."""
from __future__ import annotations

import numpy as np

from ..._dtype import SHOWN_AS
from ..._meta_array import MetaArray
from ...autograd.grad_mode import _Active, _State, version_counter, no_grad
from ...autograd.node import Node, u64
from ...tensor import Tensor, _make
from .._core.batching import level_of
from .._core.registry import aten_only, op
from .activation import functional_spelling
from .._core.util import complex_grad_error
from .._core.record import record
from ..shape import _adjoint
from ..shape._adjoint import _is_row_index
from ..shape.join import stack


class EmbeddingBackward0(Node):
    flags = (False, False)  # scale_grad_by_freq, sparse
    saved_fields = (("indices", 0), ("padding_idx", lambda n: u64(-1 if n.padding_idx is None else n.padding_idx)),
                    ("scale_grad_by_freq", lambda n: n.flags[0]), ("sparse", lambda n: n.flags[1]),
                    ("weight_sym_argsize_0", lambda n: n.weight_shape[0]))

    def backward(self, g):
        return (_dense_backward(g, self.indices, self.weight_shape, self.row_scale, self.padding_idx),)


@aten_only("embedding_dense_backward", recorded=True)
def embedding_dense_backward(grad_output: Tensor, indices: Tensor, num_weights: int, padding_idx: int,
                             scale_grad_by_freq: bool) -> Tensor:
    """``torch.ops.aten.embedding_dense_backward``: the weight's gradient from the lookup's gradient and indices
    (``padding_idx`` -1: none), as ``EmbeddingBackward0`` computes it."""
    flat = indices._data.reshape(-1).astype(np.int64, copy=False)
    padding = None if padding_idx == -1 else padding_idx
    g = grad_output._data
    dim = g.shape[-1] if g.ndim else 1
    return _dense_backward(grad_output, flat, (num_weights, dim), _row_scale(flat, num_weights, g.dtype, padding,
                                                                             scale_grad_by_freq), padding)


def _row_scale(flat: np.ndarray, num: int, dtype, padding_idx, scale_grad_by_freq: bool):
    """Each gradient row's scale (None: all 1): 1 / the index's count with ``scale_grad_by_freq``, 0 at the
    padding row."""
    if not (scale_grad_by_freq or padding_idx is not None):
        return None
    row_scale = np.ones(flat.shape, dtype=dtype)
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=num)
        row_scale = row_scale / counts[flat].astype(dtype)
    if padding_idx is not None:
        row_scale[flat == padding_idx] = 0
    return row_scale[:, None]


class EmbeddingDenseBackwardBackward0(Node):
    """The gradient of embedding's weight gradient with respect to the incoming gradient: the rows read
    back at the indices, zero at the padding row. PyTorch's formula (embedding_dense_double_backward)
    leaves out scale_grad_by_freq's scale, and so does this one."""

    def backward(self, gg):
        rows = gg.index_select(0, _make(self.indices))
        if self.padding_idx is not None:
            rows = rows.masked_fill(_make((self.indices == self.padding_idx)[:, None]), 0)
        return (rows.reshape(self.grad_shape),)


def _dense_backward(g: Tensor, indices: np.ndarray, weight_shape: tuple, row_scale, padding_idx) -> Tensor:
    """embedding_dense_backward: zeros of the weight's shape with each gradient row (times its scale)
    added at its index, in index order as PyTorch's CPU kernel adds them; differentiable in ``g``."""
    dim = g._data.shape[-1] if g._data.ndim else 1
    rows = g._data.reshape(-1, dim)
    if row_scale is not None:
        rows = rows * row_scale
    out = np.zeros_like(rows, shape=weight_shape, order="C")  # (a meta gradient: meta)
    if not (_is_row_index(indices, rows, weight_shape) and _adjoint._add_rows_at(out, indices, rows)):
        np.add.at(out, (indices,), rows)
    return record(out, EmbeddingDenseBackwardBackward0, (g,), indices=indices, padding_idx=padding_idx,
                  grad_shape=g._data.shape)


def _legacy_name(t: Tensor) -> str:
    return t.dtype._legacy


def _renorm_(weight: Tensor, idx: np.ndarray, max_norm: float, norm_type: float) -> None:
    w = weight._data
    rows = np.unique(idx)
    sel = w[rows]
    if norm_type == float("inf"):
        norms = np.abs(sel).max(axis=1)
    else:
        norms = (np.abs(sel) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    big = norms > max_norm
    if big.any():
        scale = (max_norm / (norms[big] + 1e-7)).astype(w.dtype)
        w[rows[big]] = sel[big] * scale[:, None]
    version_counter(weight)[0] += 1


def _by_declaration(input: Tensor, weight: Tensor) -> bool:
    """Whether F.embedding goes through the declared op: under vmap (an ensemble's stacked tables), which the
    transform dispatches (a graph capture too, which records it: ``fx/experimental/_graph_steps.py``)."""
    return bool(_Active.transforms and _State.transforms and level_of((input, weight)) is not None)


@functional_spelling("embedding")
def _embedding_functional(input: Tensor, weight: Tensor, padding_idx: int | None = None,
                          max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                          sparse: bool = False) -> Tensor:
    """Rows of ``weight`` at the integer ``input``; shape ``input.shape + (embedding_dim,)``."""
    if max_norm is None and _by_declaration(input, weight):
        if padding_idx is not None and padding_idx < 0:
            padding_idx += weight.shape[0]
        return embedding(weight, input, -1 if padding_idx is None else padding_idx, scale_grad_by_freq, sparse)
    idx = input._data
    w = weight._data
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {SHOWN_AS[0]}.{_legacy_name(input)} instead (while checking arguments "
                           "for embedding)")
    if w.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    num = w.shape[0]
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= num:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -num:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = num + padding_idx
    flat = idx.reshape(-1).astype(np.int64, copy=False)
    # one pass: a negative index reads as >= 2**63 (meta indices have no values: PyTorch's meta kernel checks none)
    if flat.size and type(flat) is not MetaArray and flat.view(np.uint64).max() >= num:
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_(weight, flat, max_norm, norm_type)
        w = weight._data
    out = np.take(w, flat, axis=0).reshape(idx.shape + (w.shape[1],))
    if not (_State.enabled and weight._requires_grad):
        return _make(out)  # nothing recorded: nothing of the node made
    if w.dtype.kind == "c":  # PyTorch's embedding has real gradients only (a complex table works without grad)
        raise complex_grad_error("embedding")
    row_scale = _row_scale(flat, num, w.dtype, padding_idx, scale_grad_by_freq)
    # the node keeps the indices, as PyTorch's does
    return record(out, EmbeddingBackward0, (weight,), (input,), weight_shape=w.shape, indices=flat, row_scale=row_scale,
                  padding_idx=padding_idx, flags=(bool(scale_grad_by_freq), bool(sparse)))


@op(variants="function functional", functional=_embedding_functional, meta="cpu_args")
def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """Rows of ``weight`` at the integer ``indices`` (ATen's order; -1: no padding row)."""
    return _embedding_functional(indices, weight, None if padding_idx == -1 else padding_idx, None, 2.0,
                                 scale_grad_by_freq, sparse)


@op(variants="functional", meta="cpu_args")
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding with a new last dim of size ``num_classes`` (inferred when -1)."""
    t = tensor._data
    if t.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if t.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(t.max()) + 1
    if t.size and t.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if t.size and t.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _make((t[..., None] == np.arange(num_classes)).astype(np.int64))


# -- embedding_bag -----------------------------------------------------------------------------------
_MODES = {"sum": 0, "mean": 1, "max": 2}


class EmbeddingBagBackward0(Node):
    """A meta embedding_bag's node: its gradients are meta tensors of the weight's and the per-sample weights'
    shapes (no values to compute them from)."""

    def backward(self, g):
        weight, psw = self.shapes
        return (g.new_empty(weight), None if psw is None else g.new_empty(psw))


def _bags(weight: Tensor, indices: Tensor, offsets: Tensor, mode: int, per_sample_weights, include_last_offset: bool,
          padding_idx: int) -> Tensor:
    if type(weight._data) is MetaArray:  # one row per bag: the count of offsets says how many, no index is read
        bags = offsets.shape[0] - 1 if include_last_offset else offsets.shape[0]
        psw = None if per_sample_weights is None else tuple(per_sample_weights.shape)
        return record(MetaArray((max(bags, 0), weight.shape[1]), weight._data.dtype), EmbeddingBagBackward0,
                      (weight, per_sample_weights), shapes=(tuple(weight.shape), psw))
    idx = indices._data.astype(np.int64)
    off = offsets._data.astype(np.int64)
    n = idx.shape[0]
    if include_last_offset:
        starts, ends = off[:-1], off[1:]
    else:
        starts, ends = off, np.append(off[1:], n)
    bags = len(starts)
    # the padding index's places are left out before any row is read, as PyTorch's kernel skips them: their
    # rows (an inf there) reach no bag, and their per-sample weights get a zero gradient
    kept = np.flatnonzero(idx != padding_idx)
    if kept.size < n:
        rows = weight.index_select(0, _make(idx[kept]))
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights[_make(kept)]
    else:
        rows = weight.index_select(0, _make(idx))
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    # each bag's rows: a run [lo, hi) of the kept places
    lo = np.searchsorted(kept, np.minimum(starts, n))
    hi = np.maximum(np.searchsorted(kept, np.minimum(ends, n)), lo)
    if mode in (0, 1):
        m = np.zeros((bags, kept.size), weight._data.dtype)
        for b in range(bags):
            if hi[b] > lo[b]:
                m[b, lo[b]:hi[b]] = 1.0 / (hi[b] - lo[b]) if mode == 1 else 1.0
        out = _make(m).matmul(rows)
        if np.isfinite(out._data).all():
            return out
        # an inf or NaN row: the product's zeros would carry it (0 * inf) into the bags without it; each bag's
        # sum is then the product of its own entries of m with its rows, as PyTorch's adds only a bag's rows
        zero = _make(np.zeros(weight.shape[1:], weight._data.dtype))
        return stack([_make(m[b, lo[b]:hi[b]]).matmul(rows[lo[b]:hi[b]]) if hi[b] > lo[b] else zero
                      for b in range(bags)])
    if not bags:
        return _make(np.zeros((0, weight.shape[1]), weight._data.dtype))
    return _bags_max(rows, lo, hi)


def _bags_max(rows: Tensor, lo: np.ndarray, hi: np.ndarray) -> Tensor:
    """Each bag's max in each column as PyTorch's kernel takes it: the bag's first row, then a later row's value
    where greater. So the first of equal maxima wins and alone gets the gradient, and a NaN only as the first
    row's; an empty bag gives zeros. One gather of the winning rows: rows[lo:hi] are bag b's."""
    a = rows._data
    bags, width = len(lo), a.shape[1]
    win = np.zeros((bags, width), np.int64)
    cols = np.arange(width)
    for b in range(bags):
        if hi[b] > lo[b]:
            part = a[lo[b]:hi[b]]
            w = np.argmax(part, axis=0)  # the first maximum, or the first NaN
            nan = np.isnan(part[w, cols])
            if nan.any():
                sub = part[:, nan]
                w[nan] = np.where(np.isnan(sub[0]), 0, np.argmax(np.where(np.isnan(sub), -np.inf, sub), axis=0))
            win[b] = w + lo[b]
    empty = hi <= lo
    if empty.all():
        return _make(np.zeros((bags, width), a.dtype))
    out = rows.gather(0, _make(win))
    return out.masked_fill(_make(empty[:, None]), 0) if empty.any() else out


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
