"""The products of a sparse matrix: ``torch.sparse.mm``/``addmm`` (the sparse operand's gradient masked to its
pattern), ``torch.mm``/``spmm``/``matmul``/``@``/``addmm`` (PyTorch's dense gradient for it), ``smm``,
``sparse.mm(..., reduce=)`` and ``sparse.sampled_addmm``."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.record import record
from .._core.registry import op
from .._core.util import as_array
from .arrays import (_I64, _check_mm, _coo_of, _layout_word, _masked_like, _needs_grad, _plain, _transpose_coo,
                     coalesce_arrays, grad_values_at, sparse_dense_mm)
from .construct import _coo_to_csr
from .tensor import csr_rows, is_coo, is_csr, is_sparse_tensor, make_coo, make_csr, not_implemented


class SparseAddmmBackward0(Node):
    """sparse.addmm(t, S, D, beta, alpha) / sparse.mm: the sparse operand's gradient masked to its pattern."""

    def backward(self, g):
        t_shape, (s, d) = self.t_shape, self._unpacked_saved
        gt = gs = gd = None
        if self.need[0]:
            gt = g * self.beta if self.beta != 1 else g
            if tuple(gt.shape) != t_shape:
                gt = gt.sum_to_size(t_shape)
        if self.need[1]:
            full = _make(as_array(g._data @ d._data.T * np.asarray(self.alpha, g._data.dtype), dtype=g._data.dtype))
            gs = _masked_like(s, full)
        if self.need[2]:
            gd = _make(sparse_dense_mm(_transpose_coo(s), g._data, alpha=self.alpha))
        return gt, gs, gd

class MmBackward0(Node):
    """torch.mm / matmul with one sparse operand: PyTorch's dense gradient for the sparse one."""

    def backward(self, g):
        a, b = self._unpacked_saved
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
        s, d = self._unpacked_saved
        gt = gs = gd = None
        if self.need[0]:
            gt = g * self.beta if self.beta != 1 else g
            if tuple(gt.shape) != self.t_shape:
                gt = gt.sum_to_size(self.t_shape)
        if self.need[1]:
            gs = _make(as_array(g._data @ d._data.T * np.asarray(self.alpha, g._data.dtype), dtype=g._data.dtype))
        if self.need[2]:
            gd = _make(sparse_dense_mm(_transpose_coo(s), g._data, alpha=self.alpha))
        return gt, gs, gd

def _check_dtypes(s: Tensor, d: Tensor, t: Tensor | None, kernel: str = "addmm_sparse_dense") -> None:
    """PyTorch's sparse @ dense kernel runs in the sparse operand's dtype (none for bool): the dense matrix, then
    the added one, must have it. Nothing is promoted."""
    if s.dtype is _dtype.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    for other in (d, t):
        if other is not None and other.dtype is not s.dtype:
            raise RuntimeError(f"expected scalar type {s.dtype._scalar} but found {other.dtype._scalar}")


def _mm_any(a: Tensor, b: Tensor, node_cls, alpha=1, beta=0, t: Tensor | None = None):
    """a @ b where one or both are sparse."""
    sa, sb = is_sparse_tensor(a), is_sparse_tensor(b)
    if sa and sb:
        if a.dtype is not b.dtype:
            raise RuntimeError(f"mat1 dtype {a.dtype._scalar} does not match mat2 dtype {b.dtype._scalar}")
        if not (a.dtype in (_dtype.float32, _dtype.float64) or a.dtype.is_complex):
            raise NotImplementedError(f"\"sparse_matmul\" not implemented for '{a.dtype._scalar}'")
        return _sparse_sparse_mm(a, b)
    _check_dtypes(a if sa else b, b if sa else a, t)
    if sa:
        out = sparse_dense_mm(a, b._data, alpha, beta, None if t is None else np.broadcast_to(
            t._data, (a._sz[0], b._data.shape[1])))
    else:
        _check_mm(a._data.shape, b._sz, a._data.ndim, len(b._sz))
        out = sparse_dense_mm(_transpose_coo(b), np.ascontiguousarray(a._data.T), alpha).T.copy()
        if t is not None and beta != 0:
            out = out + (t._data if beta == 1 else t._data * beta)
    out = np.ascontiguousarray(out)
    if node_cls is MmBackward0:
        return record(out, MmBackward0, (a, b), (a, b), need=(a._requires_grad, b._requires_grad))
    return record(out, node_cls, (t, a, b), (a, b), t_shape=None if t is None else tuple(t.shape), alpha=alpha,
                  beta=beta, need=(t is not None and t._requires_grad, a._requires_grad, b._requires_grad))

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
    dt = av.dtype
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
    return record(out, SparseMmReduceImplBackward0, (mat1, mat2), (mat1, mat2), reduce=reduce, arg=arg, counts=counts)

class SparseMmReduceImplBackward0(Node):
    """sparse.mm(csr, dense, reduce): the CSR operand's gradient on its pattern, the dense one's dense."""
    # result1: PyTorch's arg_out, the stored element each amax/amin output took (nnz where the row has
    # none), empty for sum and mean
    saved_fields = (("other", 1), ("self", 0), ("reduce", "reduce"),
                    ("result1", lambda n: _make(np.empty(0, np.int64) if n.arg is None
                                                else np.where(n.arg < 0, int(n.counts.sum()), n.arg))))

    def backward(self, g):
        s, d = self._unpacked_saved
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

@op(variants="function out", aliases=("dsmm",))
def spmm(input: Tensor, mat2: Tensor) -> Tensor:
    """``torch.mm`` of a sparse matrix and a dense one (``torch.dsmm``: the same, a dense result)."""
    return handle_mm(input, mat2)

@op(variants="function method")
def smm(input: Tensor, mat2: Tensor) -> Tensor:
    """Sparse @ dense as a sparse result: every column of each row that stores an element."""
    if not is_coo(input):
        raise not_implemented("smm", "CPU" if not is_csr(input) else "SparseCsrCPU")
    if input.dtype in (_dtype.bool_, _dtype.float16):
        raise NotImplementedError(f"\"sspmm\" not implemented for '{input.dtype._scalar}'")
    _check_dtypes(input, mat2, None)
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
    return record(make_csr(_plain(input._crow._data), _plain(cols), _plain(vals), input._sz),
                  SparseSampledAddmmBackward0, (input, mat1, mat2), (input, mat1, mat2), alpha=alpha, beta=beta)

class SparseSampledAddmmBackward0(Node):
    saved_fields = (("mat1", 1), ("mat2", 2), ("self", 0), ("alpha", "alpha"), ("beta", "beta"))

    def backward(self, g):
        s, a, b = self._unpacked_saved
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
            ga = _make(as_array(dense @ b._data.conj().T, dtype=a._data.dtype))
        if b._requires_grad:
            gb = _make(as_array(a._data.conj().T @ dense, dtype=b._data.dtype))
        return gs, ga, gb
