"""The array kernels of the sparse ops: coalescing (duplicates summed in storage order), looking values up by
position, reading a gradient at a sparse tensor's stored positions, and the sparse-dense product
``out[row] += value * dense[col]`` one stored element at a time in storage order with one rounding (PyTorch's
CPU kernel is an FMA axpy per element), so the floats are PyTorch's."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ...autograd.grad_mode import _State
from ...tensor import Tensor, _make
from .._core.util import as_array
from .tensor import csr_rows, is_coo, is_csr, is_sparse_tensor, make_coo, make_csr

_I64 = np.int64

def _layout_word(t) -> str:
    if is_coo(t):
        return "Sparse"
    if is_csr(t):
        return "SparseCsr"
    return "Strided"

def _needs_grad(*ts) -> bool:
    return _State.enabled and any(isinstance(t, Tensor) and t._requires_grad for t in ts)

def _plain(a: np.ndarray) -> Tensor:
    return _make(as_array(a))

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
    """a*b + c in ``dtype``, rounded twice (PyTorch's FMA builds round float32 and float64 once: the kernel path
    of tinytorch/_cpu/sparse.py)."""
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
