"""Making sparse tensors and taking them apart: ``sparse_coo_tensor``, ``sparse_csr_tensor``, the conversions
(``to_sparse``, ``to_sparse_csr``, ``to_dense``, ``coalesce``, ``sparse_mask``) and what a sparse tensor holds
(``indices``/``values``, ``_nnz``, ``crow_indices`` ...), each with its graph node under PyTorch's name and the
gradient layout PyTorch gives (masked to the pattern where PyTorch's is sparse)."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._meta_array import MetaArray, no_meta_kernel
from .._core.members import sparse_coo, sparse_csr
from ...autograd.node import Node
from ..creation.factory import tensor as _tensor_factory
from ...tensor import Tensor, _make, _view_of
from .._core.record import record, wants_grad
from .._core.registry import op
from .arrays import (_I64, _coalesced_parts, _coo_of, _layout_word, _lookup, _masked_like, _plain, coalesce_arrays,
                     grad_values_at)
from .tensor import csr_rows, is_coo, is_csr, is_sparse_tensor, make_coo, make_csr, not_implemented
from .._core.util import warn_at_caller


def _warn_invariants(check_invariants) -> None:
    if check_invariants is None and not _warned[0]:
        _warned[0] = True
        warn_at_caller("Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur "
                       "when operating on a sparse tensor which violates the invariants, but checks incur "
                       "performance overhead. To silence this warning, explicitly opt in or out. See "
                       "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance. ")

_warned = [False]

class SparseCooTensorWithDimsAndTensorsBackward0(Node):
    """sparse_coo_tensor(indices, values): each stored value's gradient is the output gradient at its
    position."""

    def backward(self, g):
        (idx,) = self._unpacked_saved
        vals = grad_values_at(g, idx._data, self.size[:idx._data.shape[0]], self.dense_shape, self.dtype)
        return (_plain(vals),)

class SparseCompressedTensorBackward0(Node):
    """sparse_csr_tensor(crow, col, values): the output gradient at each stored position."""

    def backward(self, g):
        crow, col = self._unpacked_saved
        idx = np.stack([csr_rows(crow._data), col._data])
        return (_plain(grad_values_at(g, idx, self.size[:2], self.dense_shape, self.dtype)),)

class _DenseGrad(Node):
    """A conversion from a dense tensor: its gradient is the output gradient made dense."""

    def backward(self, g):
        return (g.to_dense() if is_sparse_tensor(g) else g,)

class ToSparseBackward0(_DenseGrad):
    saved_fields = (("self_self_sym_blocksize_opt", lambda n: None),)  # PyTorch's: no blocksize given

class ToSparseBackward1(_DenseGrad):
    saved_fields = (("self_self_sym_blocksize_opt", lambda n: None),)

class ToSparseCsrBackward0(Node):
    def backward(self, g):
        (src,) = self._unpacked_saved
        if src is None:
            return (g.to_dense() if is_sparse_tensor(g) else g,)
        return (_masked_like(src, g),)

class ToDenseBackward0(Node):
    """to_dense of a sparse tensor: the gradient masked to its pattern (PyTorch's masked_grad)."""

    def backward(self, g):
        (s,) = self._unpacked_saved
        return (_masked_like(s, g) if self.masked else g,)

class CoalesceBackward0(Node):
    def backward(self, g):
        return (g,)

class ValuesBackward0(Node):
    """values() of a sparse tensor: a sparse gradient with its pattern, ``g`` as the values."""

    def backward(self, g):
        (s,) = self._unpacked_saved
        if is_csr(s):
            return (make_csr(_plain(s._crow._data), _plain(s._col._data), g.detach(), s._sz),)
        return (make_coo(_plain(s._it._data), g.detach(), s._sz, coalesced=True),)

class SparseMaskBackward0(Node):
    def backward(self, g):
        return (g.to_dense() if is_sparse_tensor(g) else g,)

def _as_tensor(x, dtype=None) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return _tensor_factory(x, dtype=dtype)

@op(variants="function")
def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory: bool = False,
                      requires_grad: bool = False, check_invariants=None, is_coalesced=None) -> Tensor:
    """A sparse COO tensor with ``values[k]`` at ``indices[:, k]`` (duplicates allowed: they add up)."""
    _warn_invariants(check_invariants)
    indices = _as_tensor(indices)
    values = _as_tensor(values, dtype)
    idx = indices._data
    if size is not None:
        sizes = tuple(int(s) for s in (size if not isinstance(size, int) else (size,)))
        sd, dd = (idx.shape[0] if idx.ndim else 0), values._data.ndim - 1
        if len(sizes) != sd + dd:
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(sizes)}, "
                               f"sparse_dim = {sd}, dense_dim = {dd}")
    if idx.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    if idx.dtype != _I64:
        if idx.dtype.kind not in "iu":
            raise RuntimeError("indices must be an int64 tensor")
        idx = idx.astype(_I64)
    vals = values._data
    if vals.ndim == 0:
        raise RuntimeError("values must have at least 1 dimension")  # PyTorch's sparse tensors store (nnz, ...)
    nnz = idx.shape[1]
    if vals.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {vals.shape[0]}")
    sd = idx.shape[0]
    if size is None:
        sizes = tuple(int(idx[d].max()) + 1 if nnz else 0 for d in range(sd)) + tuple(vals.shape[1:])
    else:
        for d in range(sd):
            if nnz and (idx[d].max() >= sizes[d] or idx[d].min() < 0):
                bad = int(idx[d].max()) if idx[d].max() >= sizes[d] else int(idx[d].min())
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {sizes[d]} but found "
                                   f"index {bad}")
        if tuple(vals.shape[1:]) != sizes[sd:]:
            raise RuntimeError(f"values has incorrect size, expected {list((nnz,) + sizes[sd:])}, got "
                               f"{list(vals.shape)}")
    if dtype is not None and _dtype.to_np(dtype) != vals.dtype:
        values = values.to(dtype)
        vals = values._data
    coalesced = nnz < 2 if is_coalesced is None else bool(is_coalesced)
    out = make_coo(_make(idx), _make(vals), sizes, coalesced=coalesced)
    if requires_grad:
        out.requires_grad_(True)
        return out
    if not wants_grad((values,)):
        return out
    return record(out, SparseCooTensorWithDimsAndTensorsBackward0, (values,), (_make(idx),), size=sizes,
                  dense_shape=tuple(vals.shape[1:]), dtype=vals.dtype)

@op(variants="function")
def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory: bool = False, requires_grad: bool = False, check_invariants=None) -> Tensor:
    """A sparse CSR matrix from its compressed row pointers, column indices and values."""
    crow, col = _as_tensor(crow_indices), _as_tensor(col_indices)
    values = _as_tensor(values, dtype)
    if dtype is not None and _dtype.to_np(dtype) != values._data.dtype:
        values = values.to(dtype)
    c, k, vals = crow._data.astype(_I64), col._data.astype(_I64), values._data
    if c.ndim != 1 or k.ndim != 1:
        raise RuntimeError("crow_indices and col_indices must be 1-d (batched CSR is not supported by tinytorch)")
    if size is None:
        size = (len(c) - 1, int(k.max()) + 1 if k.size else 0) + tuple(vals.shape[1:])
    size = tuple(int(s) for s in size)
    if len(c) != size[0] + 1:
        raise RuntimeError(f"crow_indices.size(-1) must be equal to self.size(-2) + 1 (that is {size[0] + 1}), but "
                           f"got: {len(c)}")
    if k.shape[0] != vals.shape[0]:
        raise RuntimeError(f"col_indices and values must have the same number of elements, but got {k.shape[0]} "
                           f"and {vals.shape[0]}")
    out = make_csr(_make(c), _make(k), _make(vals), size)
    if requires_grad:
        out.requires_grad_(True)
        return out
    if not wants_grad((values,)):
        return out
    return record(out, SparseCompressedTensorBackward0, (values,), (_make(c), _make(k)), size=size,
                  dense_shape=tuple(vals.shape[1:]), dtype=vals.dtype)

def _dense_to_coo(a: np.ndarray, sparse_dim: int):
    if sparse_dim == 0:
        return np.zeros((0, 1), dtype=_I64), a.reshape((1,) + a.shape).copy()
    nz = a != 0
    if sparse_dim < a.ndim:
        nz = nz.any(axis=tuple(range(sparse_dim, a.ndim)))
    idx = np.array(np.nonzero(nz), dtype=_I64).reshape(sparse_dim, -1)
    return idx, np.ascontiguousarray(a[tuple(idx)])

def _coo_to_csr(t):
    if len(t._sz) != 2 or t._vt._data.ndim != 1:
        raise RuntimeError("to_sparse_csr: conversion from Sparse to SparseCsr for input tensors with sparse_dim()"
                           "!=2 is not supported")
    ci, cv = _coalesced_parts(t)
    crow = np.zeros(t._sz[0] + 1, dtype=_I64)
    np.add.at(crow, ci[0] + 1, 1)
    return make_csr(_plain(np.cumsum(crow)), _plain(ci[1].copy()), _plain(cv.copy()), t._sz)

def _csr_to_coo(t):
    idx = np.stack([csr_rows(t._crow._data), t._col._data])
    ci, cv = coalesce_arrays(idx, t._vt._data)
    return make_coo(_plain(ci), _plain(cv.copy()), t._sz, coalesced=True)

def _no_meta(input: Tensor, aten: str) -> None:
    """PyTorch's refusal of a meta tensor: which elements are stored depends on values a meta tensor has not."""
    if not is_sparse_tensor(input) and type(input._data) is MetaArray:
        raise NotImplementedError(no_meta_kernel(aten))


@op(variants="method")
def to_sparse(input: Tensor, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None) -> Tensor:
    """This tensor as a sparse COO tensor (``sparse_dim`` sparse dims, the rest dense), or in ``layout``."""
    _no_meta(input, "_to_sparse" if sparse_dim is None else "_to_sparse.sparse_dim")
    if layout is not None and layout not in (sparse_coo, sparse_csr):
        raise RuntimeError(f"to_sparse: conversion to {layout} is not supported by tinytorch")
    if layout is sparse_csr:
        return to_sparse_csr(input, dense_dim)
    if is_coo(input):
        if sparse_dim is not None and sparse_dim != input._it._data.shape[0]:
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                               "!=self.sparse_dim() is not supported")
        return input
    if is_csr(input):
        return record(_csr_to_coo(input), ToSparseBackward1, (input,), (input,))
    a = input._data
    sd = a.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 <= sd <= a.ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{a.ndim}] range, but {sd} is given")
    if sd == 0 and a.ndim > 0:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    idx, vals = _dense_to_coo(a, sd)
    return record(make_coo(_make(idx), _make(vals), a.shape, coalesced=True),
                  ToSparseBackward0 if sparse_dim is not None else ToSparseBackward1, (input,))

@op(variants="method", python_method=True)
def to_sparse_coo(input: Tensor) -> Tensor:
    """``to_sparse()``."""
    return to_sparse(input)

@op(variants="method")
def to_sparse_csr(input: Tensor, dense_dim=None) -> Tensor:
    """This 2-d tensor as a sparse CSR matrix."""
    _no_meta(input, "_to_sparse_csr")
    if is_csr(input):
        return input
    if is_coo(input):
        out = _coo_to_csr(input)
    else:
        a = input._data
        if a.ndim != 2:
            raise RuntimeError(f"to_sparse_csr: expected a 2-d tensor (batched and hybrid CSR are not supported by "
                               f"tinytorch), got {a.ndim}-d")
        nz = a != 0
        crow = np.concatenate([[0], np.cumsum(nz.sum(axis=1))]).astype(_I64)
        rows, cols = np.nonzero(nz)
        out = make_csr(_make(crow), _make(cols.astype(_I64)), _make(np.ascontiguousarray(a[rows, cols])), a.shape)
    return record(out, ToSparseCsrBackward0, (input,), (input if is_coo(input) else None,))

@op(variants="method")
def to_dense(input: Tensor, dtype=None, *, masked_grad=None) -> Tensor:
    """The values as a strided tensor (a strided tensor: itself, or cast to ``dtype``)."""
    if not is_sparse_tensor(input):
        return input if dtype is None or dtype == input.dtype else input.to(dtype)
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_to_dense")
    return record(input._data, ToDenseBackward0, (input,), (input,),
                  masked=True if masked_grad is None else bool(masked_grad))

def _require_coo(t, name: str) -> None:
    if not is_coo(t):
        raise RuntimeError(f"{name} expected sparse coordinate tensor layout but got {_layout_word(t)}")

@op(variants="method")
def coalesce(input: Tensor) -> Tensor:
    """The tensor with its indices sorted and unique (duplicates summed); itself when it is."""
    _require_coo(input, "coalesce")
    if input._coal:
        return input
    ci, cv = coalesce_arrays(input._it._data, input._vt._data)
    return record(make_coo(_plain(ci), _plain(cv), input._sz, coalesced=True), CoalesceBackward0, (input,), (input,))

@op(variants="method")
def is_coalesced(input: Tensor) -> bool:
    """Whether the indices are known sorted and unique."""
    _require_coo(input, "is_coalesced")
    return input._coal

@op(variants="method")
def _coalesced_(input: Tensor, coalesced: bool) -> Tensor:
    """Mark the tensor coalesced (or not) without checking; returns it."""
    _require_coo(input, "_coalesced_")
    input._coal = bool(coalesced)
    return input

@op(variants="method")
def indices(input: Tensor) -> Tensor:
    """The indices (sparse_dim, nnz) of a coalesced COO tensor."""
    _require_coo(input, "indices")
    if not input._coal:
        raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
    return _view_of(input._it, input._it._data)

@op(variants="method")
def values(input: Tensor) -> Tensor:
    """The values of a coalesced COO tensor (or a CSR matrix), differentiable."""
    if not is_sparse_tensor(input):
        raise RuntimeError(f"values expected sparse tensor layout but got {_layout_word(input)}")
    if is_coo(input) and not input._coal:
        raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
    return record(input._vt._data, ValuesBackward0, (input,), (input,), view_of=input._vt)

@op(variants="method")
def _indices(input: Tensor) -> Tensor:
    """The indices as stored (uncoalesced too), without history."""
    if not is_coo(input):
        raise not_implemented("_indices", "SparseCsrCPU" if is_csr(input) else "CPU")
    return _view_of(input._it, input._it._data)

@op(variants="method")
def _values(input: Tensor) -> Tensor:
    """The values as stored (uncoalesced too), without history."""
    if not is_coo(input):
        raise not_implemented("_values", "SparseCsrCPU" if is_csr(input) else "CPU")
    return _view_of(input._vt, input._vt._data)

@op(variants="method")
def _nnz(input: Tensor) -> int:
    """How many elements are stored."""
    if is_coo(input):
        return int(input._it._data.shape[1])
    if is_csr(input):
        return int(input._col._data.shape[0])
    raise not_implemented("_nnz", "CPU")

@op(variants="method")
def sparse_dim(input: Tensor) -> int:
    """The number of sparse dimensions (0 for a strided tensor)."""
    if is_coo(input):
        return int(input._it._data.shape[0])
    return 2 if is_csr(input) else 0

@op(variants="method")
def dense_dim(input: Tensor) -> int:
    """The number of dense dimensions of the values (every dim of a strided tensor)."""
    if is_sparse_tensor(input):
        return input._vt._data.ndim - 1
    return input._data.ndim

def _require_csr(t, name: str) -> None:
    if not is_csr(t):
        raise RuntimeError(f"{name} expected sparse row compressed tensor layout but got {_layout_word(t)}")

@op(variants="method")
def crow_indices(input: Tensor) -> Tensor:
    """A CSR matrix's compressed row pointers."""
    _require_csr(input, "crow_indices")
    return _view_of(input._crow, input._crow._data)

@op(variants="method")
def col_indices(input: Tensor) -> Tensor:
    """A CSR matrix's column indices."""
    _require_csr(input, "col_indices")
    return _view_of(input._col, input._col._data)

@op(variants="method")
def sparse_mask(input: Tensor, mask: Tensor) -> Tensor:
    """``input``'s values at ``mask``'s stored positions, as a sparse tensor with ``mask``'s pattern."""
    if not is_sparse_tensor(mask):
        raise RuntimeError(f"sparse_mask expects mask to be sparse (got {_layout_word(mask).lower()} mask)")
    if tuple(input.shape) != tuple(mask.shape):
        raise RuntimeError("sparse_mask(): operands have incompatible sizes; self has size "
                           f"{list(input.shape)} but mask has size {list(mask.shape)}")
    idx, _, size = _coo_of(mask)
    sd = idx.shape[0]
    if is_sparse_tensor(input):
        gi, gv = _coalesced_parts(input) if is_coo(input) else coalesce_arrays(*_coo_of(input)[:2])
        vals = _lookup(gi, gv, idx, size[:sd], tuple(size[sd:]), gv.dtype)
    else:
        vals = np.ascontiguousarray(input._data[tuple(idx)])
    if is_csr(mask):
        out = make_csr(_plain(mask._crow._data), _plain(mask._col._data), _plain(vals), size)
    else:
        out = make_coo(_plain(idx), _plain(vals), size, coalesced=mask._coal)
    return record(out, SparseMaskBackward0, (input,), (input,))
