"""The sparse ops: constructors and conversions (``sparse_coo_tensor``, ``to_sparse``, ``to_dense``,
``coalesce``, ``indices``/``values`` ...), the products (``torch.sparse.mm``, ``spmm``, ``mm``/``matmul``/``@``,
``addmm``), sums, and the pointwise ops PyTorch's sparse backend has, each with its graph node under
PyTorch's name and the gradient layout PyTorch gives (a sparse gradient masked to the input's pattern
where PyTorch's is sparse, a dense one where PyTorch's is dense).

The products accumulate ``out[row] += value * dense[col]`` one stored element at a time in storage order
with one rounding (PyTorch's CPU kernel is an FMA axpy per element), so the floats are PyTorch's; the
sums of duplicates in ``coalesce`` go in storage order too."""
from __future__ import annotations

import numbers

import numpy as np

from ... import _dtype
from ..._random.fpmath import fma32, fma64
from ..._tensor.members import sparse_coo, sparse_csr, strided
from ...autograd.grad_mode import _State, no_grad
from ...autograd.node import Node
from ...factory import tensor as _tensor_factory
from ...tensor import Tensor, _make, _view_of, _wrap_dim
from .._core.registry import op
from ..shape.conversions import _to_args

from .tensor import (SparseCooTensor, SparseCsrTensor, csr_rows, is_coo, is_csr, is_sparse_tensor, make_coo,
                     make_csr, not_implemented, register_handler, warn_at_caller)

_I64 = np.int64


# -- small helpers ----------------------------------------------------------------------------------------
def _layout_word(t) -> str:
    if is_coo(t):
        return "Sparse"
    if is_csr(t):
        return "SparseCsr"
    return "Strided"


def _needs_grad(*ts) -> bool:
    return _State.enabled and any(isinstance(t, Tensor) and t._requires_grad for t in ts)


def _edges(*ts) -> tuple:
    return tuple((None, 0) if t is None or not isinstance(t, Tensor) else t._edge() for t in ts)


def _plain(a: np.ndarray) -> Tensor:
    return _make(np.asarray(a))


def coalesce_arrays(idx: np.ndarray, vals: np.ndarray):
    """Indices sorted (lexicographically) and unique, the values of duplicates summed in storage order."""
    nnz = idx.shape[1]
    if nnz < 2:
        return idx, vals
    sd = idx.shape[0]
    if sd:
        order = np.lexsort(idx[::-1])
        sidx = idx[:, order]
        new = np.ones(nnz, dtype=bool)
        new[1:] = np.any(sidx[:, 1:] != sidx[:, :-1], axis=0)
    else:
        order = np.arange(nnz)
        sidx = idx
        new = np.zeros(nnz, dtype=bool)
        new[0] = True
    svals = vals[order]
    starts = np.flatnonzero(new)
    out = svals[starts].copy()
    rest = ~new
    if rest.any():
        gid = np.cumsum(new) - 1
        if out.dtype == np.bool_:
            np.logical_or.at(out, gid[rest], svals[rest])
        else:
            np.add.at(out, gid[rest], svals[rest])
    return np.ascontiguousarray(sidx[:, starts]), out


def _coalesced_parts(t):
    """(indices, values) of COO ``t`` coalesced, as arrays."""
    if t._coal:
        return t._it._data, t._vt._data
    return coalesce_arrays(t._it._data, t._vt._data)


def _linear(idx: np.ndarray, shape: tuple) -> np.ndarray:
    if idx.shape[0] == 0:
        return np.zeros(idx.shape[1], dtype=_I64)
    return np.ravel_multi_index(tuple(idx), shape)


def _lookup(g_idx, g_vals, q_idx, shape, dense_shape, dtype):
    """The values of coalesced (g_idx, g_vals) at the positions ``q_idx``; zeros where it stores none."""
    out = np.zeros((q_idx.shape[1],) + tuple(dense_shape), dtype=dtype)
    if g_idx.shape[1] == 0 or q_idx.shape[1] == 0:
        return out
    lg, lq = _linear(g_idx, shape), _linear(q_idx, shape)
    pos = np.searchsorted(lg, lq)
    pos = np.minimum(pos, len(lg) - 1)
    hit = lg[pos] == lq
    out[hit] = g_vals[pos[hit]]
    return out


def _coo_of(t):
    """(indices, values, size) of a sparse tensor as COO arrays (CSR: its rows and columns)."""
    if is_csr(t):
        return np.stack([csr_rows(t._crow._data), t._col._data]), t._vt._data, t._sz
    return t._it._data, t._vt._data, t._sz


def grad_values_at(g, idx: np.ndarray, sparse_shape: tuple, dense_shape: tuple, dtype) -> np.ndarray:
    """A gradient ``g`` (dense, COO or CSR) read at the stored positions ``idx``: the gradient of values
    stored there (every duplicate gets the whole gradient of its position)."""
    if is_sparse_tensor(g):
        gi, gv, _ = _coo_of(g)
        gi, gv = coalesce_arrays(gi, gv) if is_csr(g) or not g._coal else (gi, gv)
        return _lookup(gi, gv, idx, sparse_shape, dense_shape, gv.dtype)
    return np.ascontiguousarray(g._data[tuple(idx)])


def _masked_like(t, g):
    """``g`` (dense or sparse) masked to sparse ``t``'s coalesced pattern, in ``t``'s layout: PyTorch's
    gradient of a sparse input."""
    if is_csr(t):
        idx = np.stack([csr_rows(t._crow._data), t._col._data])
        vals = grad_values_at(g, idx, t._sz[:2], t._vt._data.shape[1:], t._vt._data.dtype)
        return make_csr(_plain(t._crow._data), _plain(t._col._data), _plain(vals), t._sz)
    ci, _ = _coalesced_parts(t)
    sd = ci.shape[0]
    vals = grad_values_at(g, ci, t._sz[:sd], t._sz[sd:], _dtype.to_np(g.dtype))
    # the coalesced pattern, flagged as the input is (PyTorch's masked gradients)
    return make_coo(_plain(ci), _plain(vals), t._sz, coalesced=t._coal)


def _fma(a, b, c, dtype):
    """a*b + c with one rounding (float32/float64), else two."""
    if dtype == np.float32:
        return fma32(a, b, c)
    if dtype == np.float64:
        return fma64(a, b, c)
    return (np.asarray(a) * b + c).astype(dtype, copy=False)


def spmm_into(out: np.ndarray, rows: np.ndarray, cols: np.ndarray, coef: np.ndarray, dense: np.ndarray) -> None:
    """``out[rows[k]] += coef[k] * dense[cols[k]]`` for k in storage order, each with one rounding: PyTorch's
    sparse-dense product (an FMA axpy per stored element)."""
    nnz = rows.shape[0]
    if nnz == 0:
        return
    order = np.argsort(rows, kind="stable")
    r = rows[order]
    new = np.ones(nnz, dtype=bool)
    new[1:] = r[1:] != r[:-1]
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, nnz))
    rank = np.arange(nnz) - np.repeat(starts, counts)
    dt = out.dtype
    for level in range(int(counts.max())):
        sel = order[rank == level]  # at most one element of each row
        rr = rows[sel]
        out[rr] = _fma(coef[sel][:, None], dense[cols[sel]], out[rr], dt)


def _check_mm(a_shape, b_shape, a_dim, b_dim):
    if a_dim != 2 or b_dim != 2:
        raise RuntimeError(f"addmm: matrices expected, got {a_dim if a_dim != 2 else b_dim}D tensor")
    if a_shape[1] != b_shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a_shape[0]}x{a_shape[1]} and "
                           f"{b_shape[0]}x{b_shape[1]})")


def _result_dtype(a, b):
    return np.result_type(_dtype.to_np(a.dtype), _dtype.to_np(b.dtype))


def sparse_dense_mm(s, d: np.ndarray, alpha=1, beta=0, t: np.ndarray | None = None) -> np.ndarray:
    """beta * t + alpha * (s @ d) for sparse ``s`` (COO or CSR matrix) and a dense 2-d array ``d``."""
    idx, vals, size = _coo_of(s)
    if is_coo(s) and (idx.shape[0] != 2 or vals.ndim != 1):
        if idx.shape[0] != 2:
            raise RuntimeError(f"addmm: matrices expected, got {idx.shape[0]}D tensor")
        raise RuntimeError(f"addmm: scalar values expected, got {vals.ndim - 1}D values")
    if d.ndim != 2:
        raise RuntimeError(f"addmm: matrices expected, got {d.ndim}D tensor")
    if d.shape[0] != size[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {size[1]}, got {d.shape[0]}")
    dt = np.result_type(vals.dtype, d.dtype)
    out = np.zeros((size[0], d.shape[1]), dtype=dt)
    if t is not None and beta != 0:
        out[...] = t if beta == 1 else t * np.asarray(beta, dt)
    coef = vals.astype(dt, copy=False)
    if alpha != 1:
        coef = coef * np.asarray(alpha, dt)
    spmm_into(out, idx[0], idx[1], coef, d.astype(dt, copy=False))
    return out


def _transpose_coo(s):
    idx, vals, size = _coo_of(s)
    return make_coo(_plain(idx[::-1].copy()), _plain(vals), (size[1], size[0]))


def _warn_invariants(check_invariants) -> None:
    if check_invariants is None and not _warned[0]:
        _warned[0] = True
        warn_at_caller("Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur "
                       "when operating on a sparse tensor which violates the invariants, but checks incur "
                       "performance overhead. To silence this warning, explicitly opt in or out. See "
                       "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance. ")


_warned = [False]


# -- graph nodes ------------------------------------------------------------------------------------------
class SparseCooTensorWithDimsAndTensorsBackward0(Node):
    """sparse_coo_tensor(indices, values): each stored value's gradient is the output gradient at its
    position."""

    def backward(self, g):
        (idx,) = self.saved_tensors
        vals = grad_values_at(g, idx._data, self.size[:idx._data.shape[0]], self.dense_shape, self.dtype)
        return (_plain(vals),)


class SparseCompressedTensorBackward0(Node):
    """sparse_csr_tensor(crow, col, values): the output gradient at each stored position."""

    def backward(self, g):
        crow, col = self.saved_tensors
        idx = np.stack([csr_rows(crow._data), col._data])
        return (_plain(grad_values_at(g, idx, self.size[:2], self.dense_shape, self.dtype)),)


class _DenseGrad(Node):
    """A conversion from a dense tensor: its gradient is the output gradient made dense."""

    def backward(self, g):
        return (g.to_dense() if is_sparse_tensor(g) else g,)


class ToSparseBackward0(_DenseGrad):
    pass


class ToSparseBackward1(_DenseGrad):
    pass


class ToSparseCsrBackward0(Node):
    def backward(self, g):
        (src,) = self.saved_tensors
        if src is None:
            return (g.to_dense() if is_sparse_tensor(g) else g,)
        return (_masked_like(src, g),)


class ToDenseBackward0(Node):
    """to_dense of a sparse tensor: the gradient masked to its pattern (PyTorch's masked_grad)."""

    def backward(self, g):
        (s,) = self.saved_tensors
        return (_masked_like(s, g) if self.masked else g,)


class CoalesceBackward0(Node):
    def backward(self, g):
        return (g,)


class CloneBackward0(Node):
    def backward(self, g):
        return (g,)


class ValuesBackward0(Node):
    """values() of a sparse tensor: a sparse gradient with its pattern, ``g`` as the values."""

    def backward(self, g):
        (s,) = self.saved_tensors
        if is_csr(s):
            return (make_csr(_plain(s._crow._data), _plain(s._col._data), g.detach(), s._sz),)
        return (make_coo(_plain(s._it._data), g.detach(), s._sz, coalesced=True),)


class SparseAddmmBackward0(Node):
    """sparse.addmm(t, S, D, beta, alpha) / sparse.mm: the sparse operand's gradient masked to its pattern."""

    def backward(self, g):
        t_shape, (s, d) = self.t_shape, self.saved_tensors
        gt = gs = gd = None
        if self.need[0]:
            gt = g * self.beta if self.beta != 1 else g
            if tuple(gt.shape) != t_shape:
                gt = gt.sum_to_size(t_shape)
        if self.need[1]:
            full = _make(np.asarray(g._data @ d._data.T * np.asarray(self.alpha, g._data.dtype), dtype=g._data.dtype))
            gs = _masked_like(s, full)
        if self.need[2]:
            gd = _make(sparse_dense_mm(_transpose_coo(s), g._data, alpha=self.alpha))
        return gt, gs, gd


class MmBackward0(Node):
    """torch.mm / matmul with one sparse operand: PyTorch's dense gradient for the sparse one."""

    def backward(self, g):
        a, b = self.saved_tensors
        ga = gb = None
        if is_sparse_tensor(a):  # sparse @ dense
            if self.need[0]:
                ga = _make(g._data @ b._data.T)
            if self.need[1]:
                gb = _make(sparse_dense_mm(_transpose_coo(a), g._data))
        else:  # dense @ sparse = (s^T @ d^T)^T
            if self.need[0]:
                ga = _make(sparse_dense_mm(b, g._data.T).T.copy())
            if self.need[1]:
                gb = _make(a._data.T @ g._data)
        return ga, gb


class AddmmBackward0(Node):
    def backward(self, g):
        s, d = self.saved_tensors
        gt = gs = gd = None
        if self.need[0]:
            gt = g * self.beta if self.beta != 1 else g
            if tuple(gt.shape) != self.t_shape:
                gt = gt.sum_to_size(self.t_shape)
        if self.need[1]:
            gs = _make(np.asarray(g._data @ d._data.T * np.asarray(self.alpha, g._data.dtype), dtype=g._data.dtype))
        if self.need[2]:
            gd = _make(sparse_dense_mm(_transpose_coo(s), g._data, alpha=self.alpha))
        return gt, gs, gd


class _SumToPattern(Node):
    """A sum of a sparse tensor: the output gradient spread back over its pattern."""

    def backward(self, g):
        (s,) = self.saved_tensors
        ci, _ = _coalesced_parts(s)
        sd = ci.shape[0]
        gd = g._data if not is_sparse_tensor(g) else g.to_dense()._data
        keep = [d for d in range(sd) if d not in self.dims]
        dense_dims = [d for d in range(sd, len(s._sz)) if d not in self.dims]
        # the gradient at each stored element: g at its kept sparse coordinates, broadcast over the dense dims
        if keep:
            at = gd[tuple(ci[keep])]
        else:
            at = np.broadcast_to(gd, (ci.shape[1],) + gd.shape)
        dense_shape = s._sz[sd:]
        shape = [ci.shape[1]] + [s._sz[d] if d in dense_dims else 1 for d in range(sd, len(s._sz))]
        at = np.broadcast_to(at.reshape(shape), (ci.shape[1],) + tuple(dense_shape))
        return (make_coo(_plain(ci), _plain(np.ascontiguousarray(at)), s._sz, coalesced=s._coal),)


class SumBackward0(Node):
    """The sum of every element of a sparse tensor: the gradient expanded to its (dense) shape."""

    def backward(self, g):
        return (g.expand(self.shape),)


class SumBackward1(Node):
    """Tensor.sum(dim) of a sparse tensor: PyTorch's formula expands a sparse gradient, which it refuses."""

    def backward(self, g):
        raise RuntimeError("expand is unsupported for Sparse tensors")


class SparseSumBackward0(_SumToPattern):
    pass


class _ScaleGrad(Node):
    """mul/div of a sparse tensor by a number: the gradient scaled the same way."""

    def backward(self, g):
        return (g * self.factor if self.kind == "mul" else g / self.factor,)


class MulBackward0(_ScaleGrad):
    pass


class DivBackward0(_ScaleGrad):
    pass


class DivBackward2(Node):
    """div with a rounding mode: a zero gradient."""

    def backward(self, g):
        return (g * 0,)


class NegBackward0(Node):
    def backward(self, g):
        return (-g,)


class AddBackward0(Node):
    def backward(self, g):
        ga = g if self.need[0] else None
        gb = (g if self.alpha == 1 else g * self.alpha) if self.need[1] else None
        return ga, gb


class SubBackward0(AddBackward0):
    pass


class TBackward0(Node):
    def backward(self, g):
        return (g.t(),)


class TransposeBackward0(Node):
    def backward(self, g):
        return (g.transpose(self.dim0, self.dim1),)


class ToCopyBackward0(Node):
    def backward(self, g):
        return (g.to(self.src_dtype),)


class SparseMaskBackward0(Node):
    def backward(self, g):
        return (g.to_dense() if is_sparse_tensor(g) else g,)


class _MulSparseDense(Node):
    """sparse * dense (or dense * sparse): each operand's gradient is the output's times the other (the
    sparse one's masked to its pattern)."""

    def backward(self, g):
        s, d = self.saved_tensors
        gd_ = g.to_dense()._data if is_sparse_tensor(g) else g._data
        gs = _masked_like(s, _make(gd_ * d._data)) if self.need[0] else None
        gd = _make(gd_ * s._data) if self.need[1] else None
        return gs, gd


MulSparseBackward = type("MulBackward0", (_MulSparseDense,), {})


class _MulSparseSparse(Node):
    """sparse * sparse: each operand's gradient is the output's times the other."""

    def backward(self, g):
        a, b = self.saved_tensors
        return (handle_mul(g, b) if self.need[0] else None, handle_mul(g, a) if self.need[1] else None)


MulSparseSparseBackward = type("MulBackward0", (_MulSparseSparse,), {})


def _unary_node(name: str, deriv, fails=None):
    """The node of a pointwise op applied to a coalesced sparse tensor's values: ``deriv(x, y)`` (tinytorch
    ops on the values tensors) is the derivative; ``fails(size)``: the error PyTorch's backward raises
    instead (its formula calls an op its sparse backend lacks)."""
    def backward(self, g):
        if fails is not None:
            raise fails(self.size)
        x, y = self.x, self.y
        gv = grad_values_at(g, self.idx, self.size[:self.idx.shape[0]], tuple(self.size[self.idx.shape[0]:]),
                            _dtype.to_np(y.dtype))
        d = deriv(x, y)
        vals = (_plain(gv) * d)._data if d is not None else np.zeros_like(gv)
        return (make_coo(_plain(self.idx), _plain(vals), self.size, coalesced=True),)
    return type(name, (Node,), {"backward": backward})


# -- constructors -----------------------------------------------------------------------------------------
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
            raise RuntimeError(f"indices must be an int64 tensor")
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
    node = None
    if _State.enabled and values._requires_grad and not requires_grad:
        node = SparseCooTensorWithDimsAndTensorsBackward0(_edges(values))
        node.size, node.dense_shape, node.dtype = sizes, tuple(vals.shape[1:]), vals.dtype
        it = _make(idx)
        node.save_for_backward(it)
    coalesced = nnz < 2 if is_coalesced is None else bool(is_coalesced)
    out = make_coo(_make(idx), _make(vals), sizes, coalesced=coalesced, node=node)
    if requires_grad:
        out.requires_grad_(True)
    return out


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
    node = None
    if _State.enabled and values._requires_grad and not requires_grad:
        node = SparseCompressedTensorBackward0(_edges(values))
        node.size, node.dense_shape, node.dtype = size, tuple(vals.shape[1:]), vals.dtype
        node.save_for_backward(_make(c), _make(k))
    out = make_csr(_make(c), _make(k), _make(vals), size, node=node)
    if requires_grad:
        out.requires_grad_(True)
    return out


# -- conversions ------------------------------------------------------------------------------------------
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
        raise RuntimeError(f"to_sparse_csr: conversion from Sparse to SparseCsr for input tensors with sparse_dim()"
                           f"!=2 is not supported")
    ci, cv = _coalesced_parts(t)
    crow = np.zeros(t._sz[0] + 1, dtype=_I64)
    np.add.at(crow, ci[0] + 1, 1)
    return make_csr(_plain(np.cumsum(crow)), _plain(ci[1].copy()), _plain(cv.copy()), t._sz)


def _csr_to_coo(t):
    idx = np.stack([csr_rows(t._crow._data), t._col._data])
    ci, cv = coalesce_arrays(idx, t._vt._data)
    return make_coo(_plain(ci), _plain(cv.copy()), t._sz, coalesced=True)


@op(variants="method")
def to_sparse(input: Tensor, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None) -> Tensor:
    """This tensor as a sparse COO tensor (``sparse_dim`` sparse dims, the rest dense), or in ``layout``."""
    if layout is not None and layout not in (sparse_coo, sparse_csr):
        raise RuntimeError(f"to_sparse: conversion to {layout} is not supported by tinytorch")
    if layout is sparse_csr:
        return to_sparse_csr(input, dense_dim)
    if is_coo(input):
        if sparse_dim is not None and sparse_dim != input._it._data.shape[0]:
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument !=self.sparse_dim()"
                               " is not supported")
        return input
    if is_csr(input):
        out = _csr_to_coo(input)
        if _needs_grad(input):
            out.grad_fn = _with_inputs(ToSparseBackward1, input)
            out._requires_grad = True
        return out
    a = input._data
    sd = a.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 <= sd <= a.ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{a.ndim}] range, but {sd} is given")
    if sd == 0 and a.ndim > 0:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    idx, vals = _dense_to_coo(a, sd)
    node = None
    if _needs_grad(input):
        node = (ToSparseBackward0 if sparse_dim is not None else ToSparseBackward1)(_edges(input))
    return make_coo(_make(idx), _make(vals), a.shape, coalesced=True, node=node)


def _with_inputs(cls, *inputs):
    node = cls(_edges(*inputs))
    node.save_for_backward(*inputs)
    return node


@op(variants="method")
def to_sparse_coo(input: Tensor) -> Tensor:
    """``to_sparse()``."""
    return to_sparse(input)


@op(variants="method")
def to_sparse_csr(input: Tensor, dense_dim=None) -> Tensor:
    """This 2-d tensor as a sparse CSR matrix."""
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
    if _needs_grad(input):
        node = ToSparseCsrBackward0(_edges(input))
        node.save_for_backward(input if is_coo(input) else None)
        out.grad_fn = node
        out._requires_grad = True
    return out


@op(variants="method")
def to_dense(input: Tensor, dtype=None, *, masked_grad=None) -> Tensor:
    """The values as a strided tensor (a strided tensor: itself, or cast to ``dtype``)."""
    if not is_sparse_tensor(input):
        return input if dtype is None or dtype == input.dtype else input.to(dtype)
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_to_dense")
    out = input._data
    node = None
    if _needs_grad(input):
        node = _with_inputs(ToDenseBackward0, input)
        node.masked = True if masked_grad is None else bool(masked_grad)
    return _make(out, node)


# -- what a sparse tensor holds ---------------------------------------------------------------------------
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
    node = _with_inputs(CoalesceBackward0, input) if _needs_grad(input) else None
    return make_coo(_plain(ci), _plain(cv), input._sz, coalesced=True, node=node)


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
    node = _with_inputs(ValuesBackward0, input) if _needs_grad(input) else None
    return _view_of(input._vt, input._vt._data, node)


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
    node = _with_inputs(SparseMaskBackward0, input) if _needs_grad(input) else None
    if is_csr(mask):
        return make_csr(_plain(mask._crow._data), _plain(mask._col._data), _plain(vals), size, node=node)
    return make_coo(_plain(idx), _plain(vals), size, coalesced=mask._coal, node=node)


# -- products ---------------------------------------------------------------------------------------------
def _mm_any(a: Tensor, b: Tensor, node_cls, alpha=1, beta=0, t: Tensor | None = None):
    """a @ b where one or both are sparse."""
    sa, sb = is_sparse_tensor(a), is_sparse_tensor(b)
    if sa and sb:
        return _sparse_sparse_mm(a, b)
    if sa:
        out = sparse_dense_mm(a, b._data, alpha, beta, None if t is None else np.broadcast_to(
            t._data, (a._sz[0], b._data.shape[1])))
    else:
        _check_mm(a._data.shape, b._sz, a._data.ndim, len(b._sz))
        out = sparse_dense_mm(_transpose_coo(b), np.ascontiguousarray(a._data.T), alpha).T.copy()
        if t is not None and beta != 0:
            out = out + (t._data if beta == 1 else t._data * beta)
    node = None
    if _needs_grad(a, b, t):
        if node_cls is MmBackward0:
            node = MmBackward0(_edges(a, b))
        else:
            node = node_cls(_edges(t, a, b))
            node.t_shape = None if t is None else tuple(t.shape)
            node.alpha, node.beta = alpha, beta
        node.save_for_backward(a, b)
        node.need = (a._requires_grad, b._requires_grad) if node_cls is MmBackward0 else (
            t is not None and t._requires_grad, a._requires_grad, b._requires_grad)
    return _make(np.ascontiguousarray(out), node)


def _sparse_sparse_mm(a, b):
    ai, av, asz = _coo_of(a)
    bi, bv, bsz = _coo_of(b)
    if asz[1] != bsz[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({asz[0]}x{asz[1]} and {bsz[0]}x{bsz[1]})")
    order = np.argsort(bi[0], kind="stable")
    bk = bi[0][order]
    lo, hi = np.searchsorted(bk, ai[1], "left"), np.searchsorted(bk, ai[1], "right")
    counts = hi - lo
    ea = np.repeat(np.arange(ai.shape[1]), counts)
    eb = order[np.concatenate([np.arange(l, h) for l, h in zip(lo, hi)]).astype(_I64)] if counts.sum() else \
        np.zeros(0, dtype=_I64)
    dt = np.result_type(av.dtype, bv.dtype)
    idx = np.stack([ai[0][ea], bi[1][eb]]) if len(ea) else np.zeros((2, 0), dtype=_I64)
    ci, cv = coalesce_arrays(idx, (av[ea].astype(dt) * bv[eb].astype(dt)))
    if _needs_grad(a, b):
        raise RuntimeError("tinytorch: gradients of a sparse @ sparse product are not supported")
    out = make_coo(_plain(ci), _plain(cv), (asz[0], bsz[1]), coalesced=True)
    return out if is_coo(a) else _coo_to_csr(out)


@op("sparse.mm", variants="function")
def sparse_mm(mat1: Tensor, mat2: Tensor, reduce=None) -> Tensor:
    """Sparse @ dense (or sparse @ sparse); the sparse operand's gradient is sparse, masked to its pattern."""
    if reduce is not None:
        return _mm_reduce(mat1, mat2, reduce)
    if not is_sparse_tensor(mat1) and not is_sparse_tensor(mat2):
        return mat1.mm(mat2)
    return _mm_any(mat1, mat2, SparseAddmmBackward0)


def _reduce_rows(s, d: np.ndarray, reduce: str):
    """Each row of CSR ``s`` @ ``d`` reduced over its stored elements: (out, the element each output took for
    amax/amin (-1: none), the row counts)."""
    rows, cols, vals = csr_rows(s._crow._data), s._col._data, s._vt._data
    m, k = s._sz[0], d.shape[1]
    counts = np.diff(s._crow._data)
    prod = vals[:, None] * d[cols]
    arg = None
    if reduce in ("sum", "mean"):
        out = np.zeros((m, k), dtype=prod.dtype)
        np.add.at(out, rows, prod)
        if reduce == "mean":
            out = out / np.maximum(counts, 1)[:, None].astype(out.dtype)
    else:
        big = np.inf if reduce == "amin" else -np.inf
        out = np.full((m, k), big, dtype=prod.dtype)
        (np.minimum if reduce == "amin" else np.maximum).at(out, rows, prod)
        hit = prod == out[rows]
        arg = np.full((m, k), -1, dtype=np.int64)
        for e in range(len(rows) - 1, -1, -1):  # the first stored element reaching the extremum
            arg[rows[e], hit[e]] = e
        out[counts == 0] = 0
    return out.astype(prod.dtype, copy=False), arg, counts


def _mm_reduce(mat1, mat2, reduce: str):
    if reduce not in ("sum", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, mean, amax or amin, got {reduce}")
    if not is_csr(mat1):
        raise RuntimeError(f"sparse_mm_reduce: expect mat1 to be sparse CSR layout, got {_layout_word(mat1)}")
    out, arg, counts = _reduce_rows(mat1, mat2._data, reduce)
    node = None
    if _needs_grad(mat1, mat2):
        node = _with_inputs(SparseMmReduceImplBackward0, mat1, mat2)
        node.reduce, node.arg, node.counts = reduce, arg, counts
    return _make(out, node)


class SparseMmReduceImplBackward0(Node):
    """sparse.mm(csr, dense, reduce): the CSR operand's gradient on its pattern, the dense one's dense."""

    def backward(self, g):
        s, d = self.saved_tensors
        rows, cols, vals = csr_rows(s._crow._data), s._col._data, s._vt._data
        gd_, dd = g._data, d._data
        gs = gdense = None
        if self.reduce in ("sum", "mean"):
            scale = 1 / np.maximum(self.counts, 1).astype(gd_.dtype) if self.reduce == "mean" else None
            grow = gd_[rows] if scale is None else gd_[rows] * scale[rows][:, None]
            if s._requires_grad:
                gv = (grow * dd[cols]).sum(1).astype(vals.dtype)
            if d._requires_grad:
                gdense = np.zeros_like(dd)
                np.add.at(gdense, cols, vals[:, None] * grow)
        else:
            r, j = np.nonzero(self.arg >= 0)
            e = self.arg[r, j]
            if s._requires_grad:
                gv = np.zeros_like(vals)
                np.add.at(gv, e, gd_[r, j] * dd[cols[e], j])
            if d._requires_grad:
                gdense = np.zeros_like(dd)
                np.add.at(gdense, (cols[e], j), vals[e] * gd_[r, j])
        if s._requires_grad:
            gs = make_csr(_plain(s._crow._data), _plain(cols), _plain(gv), s._sz)
        return gs, (None if gdense is None else _make(gdense))


@op("sparse.addmm", variants="function")
def sparse_addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2) for sparse ``mat1``; its gradient is sparse."""
    return _mm_any(mat1, mat2, SparseAddmmBackward0, alpha, beta, input)


@op(variants="function out")
def spmm(input: Tensor, mat2: Tensor) -> Tensor:
    """``torch.mm`` of a sparse matrix and a dense one."""
    return handle_mm(input, mat2)


@op(variants="function method")
def smm(input: Tensor, mat2: Tensor) -> Tensor:
    """Sparse @ dense as a sparse result: every column of each row that stores an element."""
    if not is_coo(input):
        raise not_implemented("smm", "CPU" if not is_csr(input) else "SparseCsrCPU")
    if _needs_grad(input, mat2):
        raise RuntimeError("derivative for aten::sspaddmm is not implemented")
    dense_out = sparse_dense_mm(input, mat2._data)
    rows = np.unique(input._it._data[0])
    n = dense_out.shape[1]
    idx = np.stack([np.repeat(rows, n), np.tile(np.arange(n, dtype=_I64), len(rows))])
    return make_coo(_plain(idx), _plain(np.ascontiguousarray(dense_out[rows].reshape(-1))), dense_out.shape)


def handle_mm(a, b):
    if not is_sparse_tensor(a) and not is_sparse_tensor(b):
        return a.mm(b)
    return _mm_any(a, b, MmBackward0)


def handle_matmul(a, b):
    if isinstance(b, Tensor) and not is_sparse_tensor(b) and b.dim() == 1 and is_sparse_tensor(a):
        return handle_mm(a, b.unsqueeze(-1)).squeeze(-1)
    return handle_mm(a, b)


def handle_addmm(input, mat1, mat2, *, beta=1, alpha=1):
    if is_sparse_tensor(input):
        raise not_implemented("addmm", input._backend)
    if not is_sparse_tensor(mat1) and not is_sparse_tensor(mat2):
        return input.addmm(mat1, mat2, beta=beta, alpha=alpha)
    return _mm_any(mat1, mat2, AddmmBackward0, alpha, beta, input)


@op("sparse.sampled_addmm", variants="function out")
def sampled_addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2) at ``input``'s stored positions only (a CSR result)."""
    if not is_csr(input):
        raise not_implemented("sparse_sampled_addmm", "SparseCPU" if is_coo(input) else "CPU")
    if mat1.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError("tinytorch: sampled_addmm supports 2-d operands only")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x{mat1.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    rows, cols = csr_rows(input._crow._data), input._col._data
    a, b = mat1._data, mat2._data
    dt = np.result_type(a.dtype, b.dtype, input._vt._data.dtype)
    prod = np.einsum("ij,ij->i", a[rows].astype(dt), b[:, cols].T.astype(dt)) if len(rows) else np.zeros(0, dt)
    vals = alpha * prod + (beta * input._vt._data if beta != 0 else 0)
    vals = np.asarray(vals, dtype=dt)
    node = None
    if _needs_grad(input, mat1, mat2):
        node = _with_inputs(SparseSampledAddmmBackward0, input, mat1, mat2)
        node.alpha, node.beta = alpha, beta
    return make_csr(_plain(input._crow._data), _plain(cols), _plain(vals), input._sz, node=node)


class SparseSampledAddmmBackward0(Node):
    def backward(self, g):
        s, a, b = self.saved_tensors
        rows, cols = csr_rows(s._crow._data), s._col._data
        gv = grad_values_at(g, np.stack([rows, cols]), s._sz, (), _dtype.to_np(g.dtype))
        gs = ga = gb = None
        # complex: the conjugate of each factor (PyTorch's convention for the gradient of a complex function)
        alpha, beta = np.conj(self.alpha), np.conj(self.beta)
        if s._requires_grad:  # the output's gradient in its own layout, scaled (PyTorch's)
            gs = g * beta
        dense = np.zeros(s._sz, dtype=gv.dtype)
        np.add.at(dense, (rows, cols), gv * alpha)
        if a._requires_grad:
            ga = _make(np.asarray(dense @ b._data.conj().T, dtype=a._data.dtype))
        if b._requires_grad:
            gb = _make(np.asarray(a._data.conj().T @ dense, dtype=b._data.dtype))
        return gs, ga, gb


# -- sums -------------------------------------------------------------------------------------------------
def _sum_sparse(input, dim, dtype, node_cls):
    ci, cv = _coalesced_parts(input) if is_coo(input) else coalesce_arrays(*_coo_of(input)[:2])
    sd = ci.shape[0]
    nd = len(input._sz)
    vt = _make(cv)
    if dtype is not None:
        vt = vt.to(dtype)
    elif vt.dtype.is_floating_point is False and not vt.is_complex():
        vt = vt.to(_dtype.int64)
    if dim is None:
        dims = tuple(range(nd))
    else:
        dims = tuple(sorted({_wrap_dim(d, nd) for d in ((dim,) if isinstance(dim, int) else dim)}))
    with no_grad():
        dense_axes = [d - sd + 1 for d in dims if d >= sd]
        sparse_red = [d for d in dims if d < sd]
        if len(sparse_red) == sd:  # every sparse dim summed: a dense result
            out = vt.sum(dim=[0] + dense_axes) if vt._data.shape[0] else _make(
                np.zeros(tuple(input._sz[d] for d in range(sd, nd) if d not in dims), dtype=vt._data.dtype))
            result = out
        else:
            keep = [d for d in range(sd) if d not in dims]
            v = vt.sum(dim=dense_axes) if dense_axes else vt
            ki, kv = coalesce_arrays(np.ascontiguousarray(ci[keep]), v._data)
            size = tuple(input._sz[d] for d in range(nd) if d not in dims)
            result = make_coo(_plain(ki), _plain(kv), size, coalesced=True)
    if _needs_grad(input):
        if node_cls is SumBackward0:
            node = SumBackward0(_edges(input))
            node.shape = input._sz
        elif node_cls is SumBackward1:
            node = SumBackward1(_edges(input))
        else:
            node = _with_inputs(node_cls, input)
            node.dims = dims
        result.grad_fn = node
        result._requires_grad = True
    return result


@op("sparse.sum", variants="function")
def sparse_sum(input: Tensor, dim=None, dtype=None) -> Tensor:
    """The sum over ``dim`` (every dim: a dense scalar; every sparse dim: dense; else sparse)."""
    if not is_sparse_tensor(input):
        return input.sum() if dim is None else input.sum(dim)
    if dim is None:  # PyTorch's composite: the coalesced values summed
        vals = values(coalesce(input) if is_coo(input) else input)
        return vals.sum() if dtype is None else vals.sum(dtype=dtype)
    return _sum_sparse(input, dim, dtype, SparseSumBackward0)


def handle_sum(input, dim=None, keepdim=False, *, dtype=None):
    if is_csr(input) and dim is not None:
        raise RuntimeError("reduction operations on CSR tensors with keepdim=False is unsupported")
    if keepdim:
        raise RuntimeError("tinytorch: sum(keepdim=True) of a sparse tensor is not supported")
    return _sum_sparse(input, dim, dtype, SumBackward0 if dim is None else SumBackward1)


# -- pointwise --------------------------------------------------------------------------------------------
def _is_number_like(x) -> bool:
    return isinstance(x, numbers.Number) or (isinstance(x, Tensor) and not is_sparse_tensor(x) and x.dim() == 0)


def _like(t, vals: Tensor, coalesced=None, idx=None):
    """A sparse tensor with ``t``'s pattern (or ``idx``) and new values."""
    if is_csr(t):
        return make_csr(_plain(t._crow._data), _plain(t._col._data), vals, t._sz)
    return make_coo(t._it if idx is None else _plain(idx), vals, t._sz,
                    coalesced=t._coal if coalesced is None else coalesced)


def _attach(out, node_cls, *inputs, **attrs):
    if _needs_grad(*[i for i in inputs if isinstance(i, Tensor)]):
        node = node_cls(_edges(*inputs))
        for k, v in attrs.items():
            setattr(node, k, v)
        out.grad_fn = node
        out._requires_grad = True
    return out


def handle_mul(a, b):
    if is_sparse_tensor(a) and _is_number_like(b):
        s, c = a, b
    elif is_sparse_tensor(b) and _is_number_like(a):
        s, c = b, a
    else:
        return _mul_sparse_tensor(a, b)
    with no_grad():
        vals = s._vt * (c.detach() if isinstance(c, Tensor) else c)
    out = _like(s, vals)
    return _attach(out, MulBackward0, s, factor=c.detach() if isinstance(c, Tensor) else c, kind="mul")


def _mul_sparse_tensor(a, b):
    if is_sparse_tensor(a) and is_sparse_tensor(b):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"mul: expected 'self' and 'other' to have same sizes when both are sparse, but "
                               f"{list(a.shape)} != {list(b.shape)}")
        if is_csr(a) or is_csr(b):
            with no_grad():
                return _coo_to_csr(_mul_sparse_tensor(a.to_sparse(), b.to_sparse()))
        ai, av, size = _coo_of(a)
        bi, bv, _ = _coo_of(b)
        sd = ai.shape[0]
        if a._coal and b._coal:  # the intersection of the two patterns: coalesced
            la, lb = _linear(ai, size[:sd]), _linear(bi, size[:sd])
            common, ia, ib = np.intersect1d(la, lb, assume_unique=True, return_indices=True)
            with no_grad():
                vals = _make(av[ia]) * _make(bv[ib])
            out = make_coo(_plain(ai[:, ia]), vals, size, coalesced=True)
        else:
            # PyTorch's: the pattern of the uncoalesced operand (of both, the one storing fewer), each stored
            # value times the other's (coalesced) value at its position, zero where it stores none
            use_b = a._coal or (not b._coal and bi.shape[1] < ai.shape[1])
            (pi, pv), (qi, qv) = ((bi, bv), coalesce_arrays(ai, av)) if use_b else ((ai, av), coalesce_arrays(bi, bv))
            other = _lookup(qi, qv, pi, size[:sd], tuple(size[sd:]), qv.dtype)
            with no_grad():
                vals = _make(pv) * _make(other) if not use_b else _make(other) * _make(pv)
            out = make_coo(_plain(pi), vals, size, coalesced=False)
        if _needs_grad(a, b):
            node = MulSparseSparseBackward(_edges(a, b))
            node.save_for_backward(a, b)
            node.need = (a._requires_grad, b._requires_grad)
            out.grad_fn, out._requires_grad = node, True
        return out
    s, d = (a, b) if is_sparse_tensor(a) else (b, a)
    if tuple(d.shape) != tuple(s.shape):
        raise RuntimeError("tinytorch: sparse * dense needs operands of one shape (or a scalar)")
    idx, sv, size = _coo_of(s)
    with no_grad():
        dv = _make(np.ascontiguousarray(d._data[tuple(idx)]))
        vals = _make(sv) * dv if s is a else dv * _make(sv)
    out = _like(s, vals)
    if _needs_grad(s, d):
        node = MulSparseBackward(_edges(s, d))
        node.save_for_backward(s, d)
        node.need = (s._requires_grad, d._requires_grad)
        out.grad_fn, out._requires_grad = node, True
    return out


def handle_div(a, b, *, rounding_mode=None):
    if not is_sparse_tensor(a):
        raise not_implemented("reciprocal", b._backend)
    if is_sparse_tensor(b):
        raise RuntimeError("Sparse division requires a scalar or zero-dim dense tensor divisor (got a sparse divisor)")
    if isinstance(b, Tensor) and b.dim() != 0:
        raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                           f"{list(b.shape)} for divisor)")
    s = a.coalesce() if rounding_mode is not None and is_coo(a) else a
    with no_grad():
        vals = s._vt.div(b.detach() if isinstance(b, Tensor) else b, rounding_mode=rounding_mode)
    if not vals.is_floating_point() and not vals.is_complex() and rounding_mode is None:
        vals = vals.to(_dtype.get_default_dtype())
    out = _like(s, vals)
    if rounding_mode is not None:
        return _attach(out, DivBackward2, s)
    return _attach(out, DivBackward0, s, factor=b.detach() if isinstance(b, Tensor) else b, kind="div")


def handle_neg(a):
    with no_grad():
        vals = -a._vt
    return _attach(_like(a, vals), NegBackward0, a)


def _add_sparse(a, b, alpha):
    """PyTorch's sparse + sparse: a merge of the two index lists in storage order (coalesced when both are)."""
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but {list(a.shape)} != "
                           f"{list(b.shape)}")
    ai, av, size = a._it._data, a._vt._data, a._sz
    bi, bv = b._it._data, b._vt._data
    dt = np.result_type(av.dtype, bv.dtype)
    if bi.shape[1] == 0:
        return make_coo(_plain(ai.copy()), _plain(av.astype(dt)), size, a._coal)
    if ai.shape[1] == 0:
        return make_coo(_plain(bi.copy()), _plain(np.asarray(bv * np.asarray(alpha, dt), dtype=dt)), size, b._coal)
    if ai.shape[0] != bi.shape[0]:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same density, but 'self' has {ai.shape[0]} "
                           f"sparse dimensions while 'other' has {bi.shape[0]} sparse dimensions")
    if not (av.flags.c_contiguous and bv.flags.c_contiguous):
        # PyTorch's path for values that are not contiguous (an expanded gradient): the two concatenated,
        # coalesced only once they hold more elements than the dense tensor
        bvals = bv.astype(dt) if alpha == 1 else (bv * np.asarray(alpha, dt)).astype(dt)
        idx = np.concatenate([ai, bi], axis=1)
        vals = np.concatenate([av.astype(dt), bvals])
        if idx.shape[1] > int(np.prod(size)):
            idx, vals = coalesce_arrays(idx, vals)
            return make_coo(_plain(idx), _plain(vals), size, True)
        return make_coo(_plain(idx), _plain(vals), size, False)
    ta, tb = _merge_order(ai, bi)
    n = len(ta)
    idx = np.empty((ai.shape[0], n), dtype=_I64)
    has_a, has_b = ta >= 0, tb >= 0
    idx[:, has_a] = ai[:, ta[has_a]]
    idx[:, has_b] = bi[:, tb[has_b]]
    vals = np.zeros((n,) + av.shape[1:], dtype=dt)
    vals[has_a] = av[ta[has_a]]
    if has_b.any():
        vals[has_b] = _fma(np.asarray(alpha, dt), bv[tb[has_b]].astype(dt), vals[has_b], dt)
    return make_coo(_plain(idx), _plain(vals), size, a._coal and b._coal)


def _merge_order(ai, bi):
    """PyTorch's merge loop: for each result element, the element of a and of b it takes (-1: none)."""
    na, nb = ai.shape[1], bi.shape[1]
    ta, tb = [], []
    i = j = 0
    A, B = ai.T.tolist(), bi.T.tolist()
    while i < na or j < nb:
        if i >= na:
            cmp = -1
        elif j >= nb:
            cmp = 1
        else:
            x, y = A[i], B[j]
            cmp = 0 if x == y else (1 if x < y else -1)
        ta.append(i if cmp >= 0 else -1)
        tb.append(j if cmp <= 0 else -1)
        if cmp >= 0:
            i += 1
        if cmp <= 0:
            j += 1
    return np.array(ta, dtype=_I64), np.array(tb, dtype=_I64)


def handle_add(a, b, *, alpha=1):
    sa, sb = is_sparse_tensor(a), is_sparse_tensor(b)
    if sa and not sb:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if sa and sb:
        if is_csr(a) or is_csr(b):
            out = _add_sparse(a.to_sparse(), b.to_sparse(), alpha)
            out = _coo_to_csr(out)
        else:
            out = _add_sparse(a, b, alpha)
        return _attach(out, AddBackward0, a, b, need=(a._requires_grad, b._requires_grad), alpha=alpha)
    # dense + sparse: a dense result
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size {list(a.shape)} "
                           f"while other has size {list(b.shape)} (FYI: dense-sparse addition does not currently "
                           f"support broadcasting)")
    ci, cv = _coalesced_parts(b) if is_coo(b) else coalesce_arrays(*_coo_of(b)[:2])
    dt = np.result_type(a._data.dtype, cv.dtype)
    out = a._data.astype(dt, copy=True)
    if ci.shape[1]:
        add = cv.astype(dt) if alpha == 1 else cv.astype(dt) * np.asarray(alpha, dt)
        out[tuple(ci)] += add
    res = _make(out)
    return _attach(res, AddBackward0, a, b, need=(a._requires_grad, b._requires_grad), alpha=alpha)


def handle_sub(a, b, *, alpha=1):
    if (is_sparse_tensor(a) and a.dtype == _dtype.bool_) or (isinstance(b, Tensor) and b.dtype == _dtype.bool_):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    out = handle_add(a, b, alpha=-alpha)
    if out.grad_fn is not None and type(out.grad_fn) is AddBackward0:
        node = SubBackward0(out.grad_fn.next_functions)
        node.need, node.alpha = out.grad_fn.need, -alpha
        out.grad_fn = node
    return out


def handle_pow(a, exponent):
    if not is_sparse_tensor(a) or not _is_number_like(exponent):
        raise not_implemented("pow.Tensor_Tensor", "SparseCPU")
    e = exponent.item() if isinstance(exponent, Tensor) else exponent
    if e == 0:
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor dense")
    return _unary(a, lambda v: v.pow(e), _pow_node(e))


def _pow_deriv(x, y, e):
    return x.pow(e - 1) * e if e != 1 else None


# the pointwise ops PyTorch's sparse backend runs on the values of the coalesced tensor (zero stays zero):
# name -> (derivative from input x and result y, tinytorch ops on the values tensors; None: zero)
_UNARY = {
    "abs": lambda x, y: x.sgn(), "sqrt": lambda x, y: 1 / (2 * y), "sin": lambda x, y: x.cos(),
    "tan": lambda x, y: 1 + y * y, "tanh": lambda x, y: 1 - y * y, "asin": lambda x, y: (1 - x * x).rsqrt(),
    "atan": lambda x, y: 1 / (1 + x * x), "sinh": lambda x, y: x.cosh(), "asinh": lambda x, y: (x * x + 1).rsqrt(),
    "atanh": lambda x, y: 1 / (1 - x * x), "expm1": lambda x, y: y + 1, "log1p": lambda x, y: 1 / (x + 1),
    "sign": None, "sgn": None, "floor": None, "ceil": None, "round": None, "trunc": None, "frac": lambda x, y: 1,
    "erf": lambda x, y: 2.0 / np.sqrt(np.pi) * (-(x * x)).exp(), "erfinv": lambda x, y: np.sqrt(np.pi) / 2 * (y * y).exp(),
    "relu": lambda x, y: (y > 0).to(y.dtype), "deg2rad": lambda x, y: np.pi / 180, "rad2deg": lambda x, y: 180 / np.pi,
    "nan_to_num": lambda x, y: x.isfinite().to(y.dtype),
}
_ADD_SPARSE_DENSE = "add(sparse, dense) is not supported. Use add(dense, sparse) instead."
# the derivatives PyTorch's sparse backend cannot compute: the error its backward raises
_UNARY_FAILS = {
    "sqrt": lambda size: RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                                      f"{list(size)} for divisor)"),
    "sin": lambda size: not_implemented("cos"), "sinh": lambda size: not_implemented("cosh"),
    "tanh": lambda size: not_implemented("tanh_backward"), "sgn": lambda size: not_implemented("_efficientzerotensor"),
    "erf": lambda size: not_implemented("exp"), "erfinv": lambda size: not_implemented("exp"),
    "nan_to_num": lambda size: not_implemented("ne.Scalar"),
    "atanh": lambda size: RuntimeError("memory format option is only supported by strided tensors"),
    **{n: (lambda size: RuntimeError(_ADD_SPARSE_DENSE)) for n in ("tan", "asin", "atan", "asinh", "expm1")},
}
_UNARY_NODES = {}
for _n, _d in _UNARY.items():
    _cls_name = {"log1p": "Log1PBackward0", "deg2rad": "Deg2RadBackward0", "rad2deg": "Rad2DegBackward0",
                 "nan_to_num": "NanToNumBackward0", "erfinv": "ErfinvBackward0"}.get(_n, _n.capitalize() + "Backward0")
    _UNARY_NODES[_n] = _unary_node(_cls_name, (lambda d: (lambda x, y: None if d is None else d(x, y)))(_d),
                                   _UNARY_FAILS.get(_n))


def _unary(a, fn, node_cls=None):
    """``fn`` on the values of ``a`` coalesced (a coalesced result with ``a``'s pattern)."""
    if is_csr(a):
        with no_grad():
            vals = fn(a._vt)
        return _like(a, vals)
    ci, cv = _coalesced_parts(a)
    x = _make(cv)
    with no_grad():
        y = fn(x)
    out = make_coo(a._it if a._coal else _plain(ci), y, a._sz, coalesced=True)
    if _needs_grad(a) and node_cls is not None and y.is_floating_point():
        node = node_cls(_edges(a))
        node.x, node.y, node.idx, node.size = x, y, ci, a._sz
        out.grad_fn, out._requires_grad = node, True
    return out


_POW_NODES = {}


def _pow_node(e):
    cls = _POW_NODES.get(e)
    if cls is None:
        cls = _POW_NODES[e] = _unary_node("PowBackward0", lambda x, y: _pow_deriv(x, y, e))
    return cls


def _unary_handler(name):
    def handler(a, *args, **kwargs):
        if name == "round" and (args or kwargs.get("decimals")):
            raise not_implemented("round.decimals", a._backend)
        return _unary(a, lambda v: getattr(v, name)(*args, **kwargs), _UNARY_NODES[name])
    handler.__name__ = name
    return handler


def _bool_unary(name):
    def handler(a):
        return _unary(a, lambda v: getattr(v, name)())
    return handler


def handle_square(a):
    return handle_pow(a, 2)


# -- shape and copies -------------------------------------------------------------------------------------
def handle_transpose(a, dim0, dim1):
    if is_csr(a):
        raise RuntimeError("tinytorch: transpose of a CSR matrix is not supported; convert it with to_sparse()")
    n = len(a._sz)
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    sd = a._it._data.shape[0]
    if d0 >= sd or d1 >= sd:
        raise RuntimeError("transpose: dense dimensions of a sparse tensor are not supported by tinytorch")
    idx = a._it._data.copy()
    idx[[d0, d1]] = idx[[d1, d0]]
    size = list(a._sz)
    size[d0], size[d1] = size[d1], size[d0]
    out = make_coo(_plain(idx), a._vt, size, coalesced=a._coal and d0 == d1)
    return _attach(out, TransposeBackward0, a, dim0=dim0, dim1=dim1)


def handle_t(a):
    if len(a._sz) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                           f"{a._it._data.shape[0]} sparse and {a._vt._data.ndim - 1} dense dimensions")
    if len(a._sz) < 2:
        return a
    out = handle_transpose(a, 0, 1)
    if out.grad_fn is not None:
        node = TBackward0(out.grad_fn.next_functions)
        out.grad_fn = node
    return out


def handle_clone(a, *, memory_format=None):
    out = a._alias(a, copy=True)
    return _attach(out, CloneBackward0, a)


def handle_detach(a):
    return a._alias(a)


def handle_detach_(a):
    a.grad_fn = None
    a._requires_grad = False
    return a


def handle_to(a, *args, **kwargs):
    device, dtype, copy, _fmt = _to_args(args, kwargs)
    if device is not None and str(device).split(":")[0] not in ("cpu",):
        raise RuntimeError(f"tinytorch runs on the CPU only (asked for {device})")
    if dtype is None or _dtype.to_np(dtype) == a._vt._data.dtype:
        return handle_clone(a) if copy else a
    with no_grad():
        vals = a._vt.to(dtype)
    out = _like(a, vals)
    if vals.is_floating_point() or vals.is_complex():
        _attach(out, ToCopyBackward0, a, src_dtype=a.dtype)
    return out


def _cast_handler(dt):
    def handler(a, memory_format=None):
        return handle_to(a, dt)
    return handler


def handle_cpu(a, *args, **kwargs):
    return a


def handle_contiguous(a, memory_format=None):
    raise RuntimeError("unsupported memory format option Contiguous")


def handle_zero_(a):
    if is_csr(a):
        a._vt = _make(np.zeros_like(a._vt._data))
        return a
    a._it = _make(np.zeros((a._it._data.shape[0], 0), dtype=_I64))
    a._vt = _make(np.zeros((0,) + a._vt._data.shape[1:], dtype=a._vt._data.dtype))
    a._coal = True
    _bump(a)
    return a


def _bump(a) -> None:
    if type(a._vc) is list:
        a._vc[0] += 1


def _refuse_fill(a, *args, **kwargs):
    raise not_implemented("fill_.Scalar", a._backend)


def handle_zeros_like(a, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
                      memory_format=None):
    if layout is strided:
        return _make(np.zeros(a._sz, dtype=_dtype.to_np(dtype or a.dtype)))
    dt = _dtype.to_np(dtype or a.dtype)
    if is_csr(a):
        out = make_csr(_plain(np.zeros(a._sz[0] + 1, _I64)), _plain(np.zeros(0, _I64)), _plain(np.zeros(0, dt)), a._sz)
    else:
        sd = a._it._data.shape[0]
        out = make_coo(_plain(np.zeros((sd, 0), _I64)), _plain(np.zeros((0,) + a._sz[sd:], dt)), a._sz, True)
    if requires_grad:
        out.requires_grad_(True)
    return out


def _inplace(fn_name):
    """``a.X_(...)``: the out-of-place result moved into ``a`` (its history when it records one)."""
    def handler(a, *args, **kwargs):
        if _State.enabled and a._requires_grad and a.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        res = _HANDLER_FNS[fn_name](a, *args, **kwargs)
        if is_sparse_tensor(res) and type(res) is type(a):
            for k in type(a)._state:
                setattr(a, k, getattr(res, k))
            if res.grad_fn is not None:
                a.grad_fn, a._requires_grad = res.grad_fn, True
        else:
            raise RuntimeError(f"{fn_name}_: the result of this in-place op on a sparse tensor is not sparse")
        _bump(a)
        return a
    return handler


def handle_norm(a, p="fro", dim=None, keepdim=False, dtype=None):
    if dim is not None or keepdim or dtype is not None:
        raise RuntimeError("norm_sparse currently only supports full reductions, so 'dim' must either be empty or "
                           "contain all dimensions of the input")
    _, cv = _coalesced_parts(a) if is_coo(a) else (None, a._vt._data)
    return _make(cv).norm(2 if p == "fro" or p is None else p)


# -- the handler table: dense ops PyTorch runs on sparse inputs ------------------------------------------
_HANDLER_FNS = {
    "add": handle_add, "sub": handle_sub, "subtract": handle_sub, "mul": handle_mul, "multiply": handle_mul,
    "div": handle_div, "divide": handle_div, "true_divide": handle_div, "neg": handle_neg, "negative": handle_neg,
    "pow": handle_pow, "square": handle_square, "mm": handle_mm, "matmul": handle_matmul, "addmm": handle_addmm,
    "spmm": handle_mm, "smm": smm, "sum": handle_sum, "ones_like": _refuse_fill, "full_like": _refuse_fill, "t": handle_t, "transpose": handle_transpose,
    "swapaxes": handle_transpose, "swapdims": handle_transpose, "clone": handle_clone, "detach": handle_detach,
    "detach_": handle_detach_, "to": handle_to, "cpu": handle_cpu, "contiguous": handle_contiguous,
    "zero_": handle_zero_, "zeros_like": handle_zeros_like, "norm": handle_norm,
    "float": _cast_handler(_dtype.float32), "double": _cast_handler(_dtype.float64),
    "half": _cast_handler(_dtype.float16), "long": _cast_handler(_dtype.int64), "int": _cast_handler(_dtype.int32),
    "bool": _cast_handler(_dtype.bool_), "short": _cast_handler(_dtype.int16), "char": _cast_handler(_dtype.int8),
    "byte": _cast_handler(_dtype.uint8),
    "isnan": _bool_unary("isnan"), "isinf": _bool_unary("isinf"), "signbit": _bool_unary("signbit"),
    "positive": lambda a: a, "conj": lambda a: a, "resolve_conj": lambda a: a, "resolve_neg": lambda a: a,
}
for _n in _UNARY:
    _HANDLER_FNS[_n] = _unary_handler(_n)
for _n in ("add", "sub", "mul", "div", "neg", "t", "transpose", "abs", "sqrt", "sin", "tanh", "relu", "pow", "square",
           "floor", "ceil", "round", "trunc", "sign", "sgn", "frac", "asin", "atan", "sinh", "asinh", "tan", "atanh",
           "expm1", "log1p", "erf", "erfinv", "deg2rad", "rad2deg", "nan_to_num", "true_divide", "negative"):
    _HANDLER_FNS[_n + "_"] = _inplace(_n)
# ops PyTorch's CSR backend refuses with "unsupported tensor layout" (COO runs them)
_CSR_UNSUPPORTED = {"square", "pow", "div", "divide", "true_divide", "sub", "subtract", "div_", "sub_", "pow_",
                    "square_", "asin", "atan", "asinh", "atanh", "erf", "erfinv", "expm1", "log1p", "tan", "frac",
                    "deg2rad", "rad2deg", "nan_to_num", "sinh", "sgn"}


def _csr_refusing(name, fn):
    def handler(*args, **kwargs):
        if any(is_csr(a) for a in args):
            raise RuntimeError("unsupported tensor layout: SparseCsr")
        return fn(*args, **kwargs)
    handler.__name__ = name
    return handler


for _name, _fn in _HANDLER_FNS.items():
    register_handler(_name, _csr_refusing(_name, _fn) if _name in _CSR_UNSUPPORTED else _fn)


def _refusal(name):
    """An op neither sparse backend has: PyTorch's CSR and COO refusals."""
    def handler(a, *args, **kwargs):
        if is_csr(a):
            raise RuntimeError("unsupported tensor layout: SparseCsr")
        raise not_implemented(name, getattr(a, "_backend", "CPU"))
    handler.__name__ = name
    return handler


for _name in ("exp", "cos", "log", "sigmoid", "rsqrt", "reciprocal", "log2", "log10", "exp2", "cosh", "acos", "sinc",
              "logit", "exp_", "cos_", "log_", "sigmoid_"):
    register_handler(_name, _refusal(_name))
# the sparse ops declared above handle sparse inputs themselves
for _fn in (to_sparse, to_sparse_coo, to_sparse_csr, to_dense, coalesce, is_coalesced, _coalesced_, indices, values,
            _indices, _values, _nnz, sparse_dim, dense_dim, crow_indices, col_indices, sparse_mask):
    register_handler(_fn.__name__, _fn)
