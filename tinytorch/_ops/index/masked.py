"""Masked and indexed reads and writes: masked_fill, masked_select, masked_scatter, index_select,
index_add, index_copy, index_fill, take, take_along_dim. Each op's backward is another op of this
family (masked_select <-> masked_scatter, index_select <-> index_add), so every order differentiates.
Under vmap they run once per sample (no batching rules of their own yet)."""
from __future__ import annotations

import numpy as np

from ..._dtype import NARROW_NP, cpp_name
from ..._meta_array import MetaArray, no_meta_kernel
from ..._dtype_casts import check_number
from .._core import narrow_dtypes
from .._core.layout import laid_out, like_strides
from ...autograd.node import Node, raw_dim, u64
from ...tensor import Tensor, _make, _wrap_dim
from .._core.record import legacy_name, record
from .._core.registry import op
from .._core.util import broadcast_shapes
from ...autograd.node import sum_to
from ..pointwise.compare import where
from ..shape.join import cat


def _mask_array(mask, fn: str) -> np.ndarray:
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"{fn} only supports boolean masks, but got mask with dtype {cpp_name(m.dtype)}"
                           if fn != "masked_select" else
                           "masked_select: expected BoolTensor for mask")
    return m


_DIM = ("dim", lambda n: u64(raw_dim(n)))


def _given(t: Tensor, a: np.ndarray) -> Tensor:
    """The index/mask tensor the caller gave when ``a`` (what the kernel read) holds its values
    unchanged, so the node keeps that tensor as PyTorch's does; else ``a`` as a tensor."""
    d = t._data if isinstance(t, Tensor) else None
    if d is None:
        return _make(a)
    if a is d or (a.shape == d.shape and a.dtype == d.dtype and (a.base is d or np.array_equal(a, d))):
        return t
    return _make(a)


def _fit(g: Tensor, shape: tuple) -> Tensor:
    return g if g._data.shape == shape else sum_to(g, shape)


class MaskedFillBackward0(Node):
    saved_fields = (("mask", 0),)

    def backward(self, g):
        (mask,) = self._unpacked_saved
        return (_fit(g.masked_fill(mask, 0), self.in_shape),)

    def jvp(self, t):
        return t.masked_fill(self._unpacked_saved[0], 0)  # PyTorch's rule: the filled places are constant


class MaskedFillBackward1(Node):
    saved_fields = (("mask", 0),)

    def backward(self, g):
        (mask,) = self._unpacked_saved
        gv = where(mask, g, 0.0).sum() if self.need_value else None
        return _fit(g.masked_fill(mask, 0), self.in_shape), gv


@op(variants="function method inplace", overlap="unchecked", meta="cpu_args")
def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """A copy of ``input`` with ``value`` where ``mask`` is True (a number or a 0-d tensor)."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "masked_fill", None)
    m = _mask_array(mask, "masked_fill_")
    x = input._data
    shape = broadcast_shapes(x.shape, m.shape)
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        out = np.where(m, value._data.astype(x.dtype), x)
        mt = _given(mask, m)
        return record(np.broadcast_to(out, shape).copy(), MaskedFillBackward1, (input, value), (mt,),
                      in_shape=x.shape, need_value=value._requires_grad)
    val = np.asarray(check_number(value, x.dtype, lowp_checked=True)).astype(x.dtype)
    out = np.where(m, val, x)
    return record(np.broadcast_to(out, shape).copy(), MaskedFillBackward0, (input,), (_given(mask, m),),
                  in_shape=x.shape)


class MaskedSelectBackward0(Node):
    saved_fields = (("mask", 0), ("self", 1))

    def backward(self, g):
        mask = self._unpacked_saved[0]
        z = g.new_zeros(self.shape)
        return (_fit(z.masked_scatter(mask, g), self.in_shape),)


@op(variants="function method out", overlap="any", meta="data_dependent")
def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements where ``mask`` (broadcast with ``input``) is True, as a 1-d tensor."""
    m = _mask_array(mask, "masked_select")
    x = input._data
    shape = broadcast_shapes(x.shape, m.shape)
    mb = np.broadcast_to(m, shape)
    out = np.broadcast_to(x, shape)[mb]
    return record(out, MaskedSelectBackward0, (input,), (_given(mask, m), input), shape=shape, in_shape=x.shape)


class MaskedScatterBackward0(Node):
    saved_fields = (("mask", 0), ("source_sym_sizes", "source_shape"))

    def backward(self, g):
        (mask,) = self._unpacked_saved
        gs = None
        if self.need_source and type(g._data) is MetaArray:
            # how many places the mask selects is data: PyTorch's meta kernel for this backward gives the
            # source's shape, contiguous, and so does this
            gs = _make(MetaArray(tuple(self.source_shape), g._data.dtype))
        elif self.need_source:
            picked = g.masked_select(mask)
            n, total = picked._data.shape[0], int(np.prod(self.source_shape))
            if total > n:
                picked = cat([picked, _make(np.zeros(total - n, g._data.dtype))])
            gs = picked.reshape(self.source_shape)
        return _fit(g.masked_fill(mask, 0), self.in_shape), gs


@op(variants="function method inplace", overlap="unchecked")
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` whose masked places take ``source``'s elements in order."""
    m = _mask_array(mask, "masked_scatter_")
    x = input._data
    shape = broadcast_shapes(x.shape, m.shape)
    mb = np.broadcast_to(m, shape)
    # (a meta mask: how many places it selects is data, which PyTorch's meta kernel does not check either)
    n = 0 if type(mb) is MetaArray else int(mb.sum())
    src = source._data.reshape(-1)
    if src.shape[0] < n:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if source._data.dtype != x.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but got "
                           f"{legacy_name(x.dtype)} and {legacy_name(source._data.dtype)}")
    out = np.broadcast_to(x, shape).copy()
    out[mb] = src[:n]
    return record(out, MaskedScatterBackward0, (input, source), (_given(mask, m),), in_shape=x.shape,
                  need_source=source._requires_grad, source_shape=source._data.shape)


def _index_vector(index: Tensor, fn: str) -> np.ndarray:
    i = index._data if isinstance(index, Tensor) else np.asarray(index)
    if i.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{fn}(): Expected dtype int32 or int64 for index")
    if i.ndim > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector")
    return i.reshape(-1)


def _check_range(i: np.ndarray, size: int, fn: str, dim: int = 0) -> np.ndarray:
    bad = (i < -size) | (i >= size)
    if bad.any():
        if fn == "index_select":
            raise IndexError("index out of range in self")
        text = f"index {int(i[bad][0])} is out of bounds for dimension {dim} with size {size}"
        if fn == "index_add":  # PyTorch's kernels word (and type) it each their own way
            raise RuntimeError(text)
        raise IndexError(f"index_copy_(): {text}" if fn == "index_copy" else text)
    return np.where(i < 0, i + size, i)


class IndexSelectBackward0(Node):
    saved_fields = (_DIM, ("index", 0), ("self_sym_sizes", "in_shape"))

    def backward(self, g):
        (idx,) = self._unpacked_saved
        # (public ops, which a graph capture records: PyTorch's new_zeros(sizes, grad.options()) and index_add)
        zeros = g.new_zeros(self.in_shape, dtype=g.dtype, layout=g.layout, device=g.device)
        return (zeros.index_add(self.dim, idx, g),)


@op(variants="function method out", overlap="any", meta="cpu_args")
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices at ``index`` along ``dim``."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    i = _index_vector(index, "index_select")
    if x.ndim == 0:
        i = _check_range(i, 1, "index_select")
        return record(x.copy() if i.size else x.reshape(0), IndexSelectBackward0, (input,), (_given(index, i),),
                      dim=0, dim_arg=dim,
                      in_shape=x.shape)
    i = _check_range(i, x.shape[d], "index_select")
    return record(np.take(x, i, axis=d), IndexSelectBackward0, (input,), (_given(index, i),), dim=d, dim_arg=dim,
                  in_shape=x.shape)


class IndexAddBackward0(Node):
    saved_fields = (("alpha", "alpha"), _DIM, ("index", 0), ("source", 1),
                    ("source_dim", lambda n: len(n.source_shape)))

    def backward(self, g):
        idx = self._unpacked_saved[0]
        gs = g.index_select(self.dim, idx) * self.alpha if self.need_source else None
        if gs is not None and gs._data.shape != self.source_shape:
            gs = gs.reshape(self.source_shape)
        return g, None, gs


def _index_write_checks(x: np.ndarray, d: int, i: np.ndarray, src: np.ndarray, fn: str) -> None:
    if src.dtype != x.dtype:
        raise RuntimeError(f"{fn}(): self ({legacy_name(x.dtype)}) and source ({legacy_name(src.dtype)}) must "
                           f"have the same scalar type")
    expected = tuple(i.shape[0] if k == d else s for k, s in enumerate(x.shape)) if x.ndim else (i.shape[0],)
    if src.size != int(np.prod(expected)) or (src.ndim and src.ndim != len(expected)):
        raise RuntimeError(f"{fn}(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {list(expected)} and source slice shape: {list(src.shape)}")


def _source_slices(src: np.ndarray, x: np.ndarray, d: int, n: int) -> np.ndarray:
    """``source`` with ``dim`` moved first, its slices shaped as ``input``'s (n of them)."""
    return np.moveaxis(src.reshape(tuple(n if k == d else s for k, s in enumerate(x.shape))), d, 0)


@op(variants="function method inplace out", overlap="any", meta="cpu_args")
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """A copy of ``input`` with ``alpha * source``'s slices added at ``index`` along ``dim`` (repeats add up)."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    i = _index_vector(index, "index_add")
    src = source._data
    _index_write_checks(x, d, i, src, "index_add")
    i = _check_range(i, x.shape[d] if x.ndim else 1, "index_add", d)
    out = x.copy()
    if x.ndim:
        xv, sv = np.moveaxis(out, d, 0), _source_slices(src, x, d, i.shape[0])
    else:
        xv, sv = out.reshape(1), src.reshape(-1)
    np.add.at(xv, i, sv * alpha if alpha != 1 else sv)
    # PyTorch keeps the index and source for source's gradient only
    saved = (_given(index, i), source) if source._requires_grad else (None, None)
    return record(out, IndexAddBackward0, (input, None, source), saved, dim=d, dim_arg=dim, alpha=alpha,
                  need_source=source._requires_grad, source_shape=src.shape)


class IndexCopyBackward0(Node):
    saved_fields = (_DIM, ("index", 0), ("source", 1), ("source_dim", lambda n: len(n.source_shape)))

    def backward(self, g):
        idx = self._unpacked_saved[0]
        gs = g.index_select(self.dim, idx).reshape(self.source_shape) if self.need_source else None
        return g.index_fill(self.dim, idx, 0), None, gs


@op(variants="function method inplace out", autocast="promote", overlap="any", meta="cpu_args")
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with ``source``'s slices written at ``index`` along ``dim``."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    if index._data.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {legacy_name(index._data.dtype)}")
    i = _index_vector(index, "index_copy")
    src = source._data
    _index_write_checks(x, d, i, src, "index_copy")
    i = _check_range(i, x.shape[d] if x.ndim else 1, "index_copy", d)
    out = x.copy()
    if x.ndim:
        np.moveaxis(out, d, 0)[i] = _source_slices(src, x, d, i.shape[0])
    else:
        out[...] = src.reshape(-1)[-1] if src.size else out
    saved = (_given(index, i), source if source._requires_grad else None)
    return record(out, IndexCopyBackward0, (input, None, source), saved, dim=d, dim_arg=dim,
                  need_source=source._requires_grad, source_shape=src.shape)


class IndexFillBackward0(Node):
    saved_fields = (_DIM, ("index", 0))

    def backward(self, g):
        (idx,) = self._unpacked_saved
        return (g.index_fill(self.dim, idx, 0),)


class IndexFillBackward1(Node):
    saved_fields = (_DIM, ("index", 0))

    def backward(self, g):
        (idx,) = self._unpacked_saved
        if self.need_value and type(idx._data) is MetaArray:  # PyTorch's formula calls _unique: no meta kernel
            raise NotImplementedError(no_meta_kernel("_unique"))
        # each filled slice counts once, however often the index repeats it
        gv = g.index_select(self.dim, _make(np.unique(idx._data))).sum() if self.need_value else None
        return g.index_fill(self.dim, idx, 0), None, gv


@op(variants="function method inplace", overlap="unchecked", meta="cpu_args")
def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """A copy of ``input`` with the slices at ``index`` along ``dim`` set to ``value``."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    if index._data.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    i = _index_vector(index, "index_fill")
    i = _check_range(i, x.shape[d] if x.ndim else 1, "index_fill", d)
    out = laid_out(x, like_strides(x))  # a clone (preserve_format), as ATen's index_fill makes before filling
    view = np.moveaxis(out, d, 0) if x.ndim else out.reshape(1)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        view[i] = value._data.astype(x.dtype)
        return record(out, IndexFillBackward1, (input, None, value), (_given(index, i),), dim=d, dim_arg=dim,
                      need_value=value._requires_grad)
    if isinstance(value, complex) and x.dtype.kind != "c":
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    view[i] = check_number(value, x.dtype, lowp_checked=True)
    return record(out, IndexFillBackward0, (input,), (_given(index, i),), dim=d, dim_arg=dim)


class TakeBackward0(Node):
    saved_fields = (("index", 0), ("self", 1))

    def backward(self, g):
        idx = self._unpacked_saved[0]
        z = g.new_zeros(self.numel)
        return (z.index_add(0, idx.reshape(-1), g.reshape(-1)).reshape(self.in_shape),)


@op(variants="function method out", overlap="any", meta="cpu_args")
def take(input: Tensor, index: Tensor) -> Tensor:
    """``input`` read as 1-d at ``index`` (the result has ``index``'s shape)."""
    x = input._data
    i = index._data
    if i.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {legacy_name(i.dtype)}")
    n = x.size
    bad = (i < -n) | (i >= n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(i[bad].flat[0])} on a tensor of {n} elements.")
    i = np.where(i < 0, i + n, i)
    return record(x.reshape(-1)[i], TakeBackward0, (input,), (index, input), numel=n, in_shape=x.shape)


def _wrapped(indices: Tensor, size: int) -> Tensor:
    """Negative indices counted from the end (take_along_dim takes them; gather does not)."""
    i = indices._data
    if i.size and i.min() < 0:
        return _make(np.where(i < 0, i + size, i))
    return indices


@op(variants="function method out", overlap="any", meta="cpu_args")
def take_along_dim(input: Tensor, indices: Tensor, dim=None) -> Tensor:
    """``gather`` with the two tensors broadcast against each other outside ``dim`` (flattened when None)."""
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{legacy_name(indices._data.dtype)}")
    if dim is None:
        # ATen's gather over views of both: a tensor no view can flatten (a transposed one) raises, and so does a
        # negative index (wrapped only where ``dim`` is given), as in PyTorch
        return input.view(-1).gather(0, indices.view(-1))
    x, i = input._data, indices._data
    d = _wrap_dim(dim, x.ndim)
    indices = _wrapped(indices, x.shape[d])
    if i.ndim != x.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {x.ndim} dimensions for input, and {i.ndim} dimensions for "
                           f"indices")
    xs = list(broadcast_shapes(tuple(1 if k == d else s for k, s in enumerate(x.shape)),
                               tuple(1 if k == d else s for k, s in enumerate(i.shape))))
    xs_in, is_in = list(xs), list(xs)
    xs_in[d], is_in[d] = x.shape[d], i.shape[d]
    return input.expand(tuple(xs_in)).gather(d, indices.expand(tuple(is_in)))
