"""Joining and splitting: cat, stack, split, split_with_sizes, chunk, unbind, select (narrow
and aten.slice, basic slices, are in ``index/index.py``; gather and scatter in ``scatter_gather.py``)."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ...autograd.grad_mode import _State
from ...autograd.node import Node, elem_strides, raw_dim, u64
from ..._meta_array import MetaArray
from .._core.layout import c_ordered, format_strides, laid_out, suggested_format
from ...tensor import Tensor, _make, _wrap_dim
from ..creation.factory import zeros
from . import _batching as rules
from .shape import _view_as, unsqueezed
from .._core.record import record, wants_grad
from .._core.registry import op
from ..._quiet_fp import cast
from ...autograd.forward_ad import _out_shape


# -- joining and splitting ------------------------------------------------------------------------
class CatBackward0(Node):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))),)

    def backward(self, g):
        out = []
        start = 0
        for size, dt in self.pieces:
            if size is None:  # a legacy empty (0,) input, left out of the result
                out.append(_make(np.zeros(0, dtype=dt)))
                continue
            sl = (slice(None),) * self.dim + (slice(start, start + size),)
            out.append(g[sl].to(dt) if dt != g._data.dtype else g[sl])
            start += size
        return tuple(out)

    def jvp(self, *ts):
        ref = next(t for t in ts if t is not None)
        shape, parts = list(_out_shape(self)), []
        for (size, _), t in zip(self.pieces, ts):
            if size is None:
                continue
            if t is None:
                shape[self.dim] = size
                t = zeros(tuple(shape), dtype=ref.dtype)
            parts.append(t)
        return cat(parts, self.dim)


def _as_tensors(tensors, fn: str):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    if not tensors:
        if fn == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"{_dtype.SHOWN_AS[0]}.{fn}(): expected a non-empty list of Tensors")
    return tensors


@op(variants="function method", batch=rules.split)
def split_with_sizes(input: Tensor, split_sizes, dim: int = 0):
    """Pieces of the listed sizes along ``dim``."""
    return split(input, list(split_sizes), dim)


def _legacy_empty(a: np.ndarray) -> bool:
    return a.ndim == 1 and a.shape[0] == 0


def _cat_layout(out, arrays: list):
    """``out`` (numpy's concatenation, or a meta one) laid out as PyTorch's cat allocates its result: in the memory
    format every input suggests (``suggest_memory_format``: channels-last where all do), else C order. (numpy's
    result follows a common order of its inputs' strides: a transposed pair gives a transposed result.)"""
    if out.ndim < 2 or out.size == 0 or (type(out) is np.ndarray and all(type(a) is np.ndarray and c_ordered(a)
                                                                          for a in arrays)):
        return out  # C-ordered inputs: numpy's result is C-ordered too
    fmt = None
    for i, a in enumerate(arrays):
        f = suggested_format(a.shape, elem_strides(a.shape, a.strides, a.itemsize, type(a) is not MetaArray))
        if f is None or (i and f is not fmt):
            fmt = None
            break
        fmt = f
    strides = format_strides(out.shape, fmt)
    if elem_strides(out.shape, out.strides, out.itemsize, type(out) is not MetaArray) == strides:
        return out
    return laid_out(out, strides)


@op(variants="function out", aliases=("concat", "concatenate"), batch=rules.join, autocast="promote", overlap="any")
def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dim (dtypes promoted)."""
    tensors = _as_tensors(tensors, "cat")
    # PyTorch skips legacy empty 1-d tensors of shape (0,): the others say the dims
    ref = next((t for t in tensors if t._data.ndim > 0 and not _legacy_empty(t._data)),
               next((t for t in tensors if t._data.ndim > 0), tensors[0]))
    if ref._data.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, ref._data.ndim)
    dt = tensors[0]._data.dtype
    for t_ in tensors[1:]:
        dt = _dtype.PROMOTE[dt, t_._data.dtype]
    arrays = [t_._data for t_ in tensors if not _legacy_empty(t_._data)] or [ref._data]
    for i, a in enumerate(arrays):
        if a.ndim != ref._data.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref._data.ndim} and {a.ndim}")
        for k in range(a.ndim):
            if k != d and a.shape[k] != ref._data.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref._data.shape[k]} but got size {a.shape[k]} for tensor number {i} in the list.")
    out = _cat_layout(cast(np.concatenate(arrays, axis=d), dt, copy=False), [t_._data for t_ in tensors])
    inputs = tuple(tensors)
    if not wants_grad(inputs):
        return _make(out)
    return record(out, CatBackward0, inputs, dim=d, dim_arg=dim,
                  pieces=[(None if _legacy_empty(t_._data) and not _legacy_empty(out) else t_._data.shape[d],
                           t_._data.dtype) for t_ in tensors])


class StackBackward0(Node):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))),)

    def backward(self, g):
        return tuple(g.select(self.dim, i) for i in range(self.n))

    def jvp(self, *ts):
        ref = next(t for t in ts if t is not None)
        return stack([ref * 0 if t is None else t for t in ts], self.dim)


@op(variants="function out", batch=rules.join, autocast="promote", overlap="any")
def stack(tensors, dim: int = 0) -> Tensor:
    """Join same-shaped tensors along a new dim."""
    tensors = _as_tensors(tensors, "stack")
    shape = tensors[0]._data.shape
    for i, t_ in enumerate(tensors):
        if t_._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got [{', '.join(map(str, shape))}] "
                               f"at entry 0 and [{', '.join(map(str, t_._data.shape))}] at entry {i}")
    d = _wrap_dim(dim, len(shape) + 1)
    dt = tensors[0]._data.dtype
    for t_ in tensors[1:]:
        dt = _dtype.PROMOTE[dt, t_._data.dtype]
    arrays = [t_._data for t_ in tensors]
    if d < len(shape):
        # ATen's stack: cat along the existing dim ``d``, then a view splitting it in two (the result's layout is
        # cat's, of the inputs themselves: a transposed pair gives a C-ordered result, a channels-last pair a
        # channels-last one with the new dim beside the one it split)
        joined = _cat_layout(cast(np.concatenate(arrays, axis=d), dt, copy=False), arrays)
        out = _view_as(joined, shape[:d] + (len(arrays),) + shape[d:])
    else:  # a new last dim (no view splits one): cat of the inputs unsqueezed, laid out by cat's rule on those
        arrays = [unsqueezed(a, d) for a in arrays]
        out = _cat_layout(cast(np.concatenate(arrays, axis=d), dt, copy=False), arrays)
    return record(out, StackBackward0, tuple(tensors), dim=d, n=len(tensors), dim_arg=dim)


class _MultiOutput(Node):
    """A node with several outputs: missing gradients are zeros of that output's shape."""

    def _filled(self, grads):
        return [g if g is not None else zeros(s, dtype=_dtype.FROM_NP[self.out_dtype])
                for g, s in zip(grads, self.out_shapes)]


class SplitBackward0(_MultiOutput):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("self_sym_sizes", "in_shape"), ("split_size", "split_size"))

    def backward(self, *grads):
        return (cat(self._filled(grads), self.dim),)

    def jvp(self, t):
        return tuple(t.split([s[self.dim] for s in self.out_shapes], self.dim))


class SplitWithSizesBackward0(SplitBackward0):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("self_sym_sizes", "in_shape"), ("split_sizes", "split_sizes"))
    pass


class UnbindBackward0(_MultiOutput):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))),)

    def backward(self, *grads):
        return (stack(self._filled(grads), self.dim),)

    def jvp(self, t):
        return tuple(t.unbind(self.dim))


def _multi_output(input: Tensor, arrays, node_cls, dim, **attrs):
    """The views ``arrays`` of ``input``, outputs of one ``node_cls`` node (``attrs``: what PyTorch's node
    shows, the arguments as given and the input's sizes)."""
    if _State.enabled and input._requires_grad:
        outs = record(tuple(arrays), node_cls, (input,), view_of=input, dim=dim, out_shapes=[a.shape for a in arrays],
                      out_dtype=input._data.dtype, **attrs)
    else:
        outs = record(tuple(arrays), node_cls, (input,), view_of=input)
    if _State.enabled:
        for o in outs:
            o._creation = "multi"  # PyTorch forbids in-place ops on these views (_ops/shape/views.py)
    return outs


def _split_method(self, split_size, dim: int = 0):
    return split(self, split_size, dim)  # (Tensor.split names its sizes split_size, as PyTorch's)


@op(variants="function method", method=_split_method, batch=rules.split, python_method=True,
    python_function=True)
def split(input: Tensor, split_size_or_sections, dim: int = 0):
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the listed sizes."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size <= 0 and not (size == 0 and n == 0):
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        bounds = list(range(size, n, size)) if size else []
        node_cls = SplitBackward0
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {d}), but got split_sizes=[{', '.join(map(str, sizes))}]")
        bounds = list(np.cumsum(sizes)[:-1])
        node_cls = SplitWithSizesBackward0
    given = {"split_size": split_size_or_sections} if node_cls is SplitBackward0 else {"split_sizes": tuple(sizes)}
    return _multi_output(input, np.split(x, bounds, axis=d), node_cls, d, dim_arg=dim, in_shape=tuple(x.shape),
                         **given)


@op(variants="function method", batch=rules.chunk)
def chunk(input: Tensor, chunks: int, dim: int = 0):
    """Split into ``chunks`` pieces of equal size (the last may be smaller)."""
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    n = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    if n == 0:  # ``chunks`` empty pieces (PyTorch's split_with_sizes), where a split would give one
        return split(input, [0] * chunks, dim)
    return split(input, -(-n // chunks), dim)


@op(variants="function method", batch=rules.unbind)
def unbind(input: Tensor, dim: int = 0):
    """All slices along ``dim``, each without that dim."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    # the trailing Ellipsis keeps 1-d inputs giving 0-d views, never numpy scalars
    arrays = [x[(slice(None),) * d + (i, Ellipsis)] for i in range(x.shape[d])]
    return _multi_output(input, arrays, UnbindBackward0, d, dim_arg=dim)


def _select_inverse(call, base, value, src, dim, index):
    """A write into ``base.select(dim, index)``: ``select_scatter`` puts it back as that row of the base."""
    return call("select_scatter.default", base, src, dim, index)


@op(variants="function method", batch=rules.select, view_inverse=_select_inverse)
def select(input: Tensor, dim: int, index: int) -> Tensor:
    x = input._data
    if x.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, x.ndim)
    if not -x.shape[d] <= index < x.shape[d]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(x.shape)} at dimension {d}")
    return _note_dim(input[(slice(None),) * d + (index,)], dim)


def _note_dim(out: Tensor, dim: int) -> Tensor:
    """The ``dim`` argument as given, on the node (PyTorch's ``_saved_dim`` reads it back unsigned)."""
    if out.grad_fn is not None and dim < 0:
        out.grad_fn.dim_arg = dim
    return out
