"""Inverses and solves: linalg.inv (inv_ex, torch.inverse), solve, pinv (torch.pinverse), and the helpers the
other linalg modules share; the factorizations are in ``decompositions.py``, determinants in
``matrix_functions.py``.

Forwards are numpy.linalg (LAPACK); each backward is the matrix-calculus formula written in
tinytorch ops (matmul, transpose, triangles), so second derivatives work too. LAPACK works on
batches of matrices, so vmap's rule (``batch_matrices``) is one call on the physical batch."""
from __future__ import annotations

import numpy as np

from ..._dtype import INEXACT_NP
from ..._meta_array import MetaArray
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.batching import per_sample
from .._core.record import OUT, legacy_name, record
from .._core.registry import op
from .._core.util import lapack_order
from .._core.return_types import _named
from ..pointwise.complex import conj
from ...autograd.node import sum_to


class LinAlgError(RuntimeError):
    """A matrix function failed on its input (singular, not positive-definite, ...)."""


# PyTorch's class is torch._C._LinAlgError (torch.linalg.LinAlgError names it), and a traceback prints that path
LinAlgError.__module__ = "tinytorch._C"
LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


qr_result = _named("linalg_qr", ("Q", "R"))
svd_result = _named("linalg_svd", ("U", "S", "Vh"))
eigh_result = _named("linalg_eigh", ("eigenvalues", "eigenvectors"))


def batch_matrices(op, A, *args, **kwargs):
    """vmap's rule for a function of (batches of) matrices: one call on the physical batch."""
    if A.dim() < 2:  # the op's own error, from one sample
        return per_sample(op, A, (A,) + args, kwargs)
    res = op(A._phys, *args, **kwargs)
    return type(res)(*map(A._wrap, res)) if isinstance(res, tuple) else A._wrap(res)


def _square(A: Tensor, fn: str, square: bool = True) -> np.ndarray:
    a = A._data
    if a.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if a.dtype not in INEXACT_NP:
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got {legacy_name(a.dtype)}")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")
    return a


def _mT(t: Tensor) -> Tensor:
    return t.transpose(-2, -1)


def _mH(t: Tensor) -> Tensor:
    """The conjugate transpose (the transpose for real t): complex backwards are the real ones with
    each transpose made conjugate, as PyTorch's formulas."""
    return conj(t.transpose(-2, -1))


def lapack_layout(t: Tensor) -> Tensor:
    """``t`` with each matrix column-major, as PyTorch's LAPACK-backed results are, for a result this package
    composes of other ops (a product ends it); no copy where it is laid out so already."""
    return _mT(_mT(t).contiguous())


class _LapackGradLayout(Node):
    """An identity whose gradient leaves column-major: the right-hand side of a solve composed of other ops, whose
    gradient PyTorch computes by another LAPACK solve (a product ends tinytorch's)."""

    def backward(self, g):
        return (lapack_layout(g),)


_LapackGradLayout.__name__ = _LapackGradLayout.__qualname__ = "CloneBackward0"  # a clone into a layout


def lapack_grad_layout(t: Tensor) -> Tensor:
    """A copy of ``t`` (column-major) whose gradient is laid out column-major (``_LapackGradLayout``)."""
    a = lapack_order(t._data)
    return record(a.copy(order="K") if a is t._data else a, _LapackGradLayout, (t,))


def _eye_like(n: int, t: Tensor) -> Tensor:
    """The n x n identity of ``t``'s dtype, on its device (a meta ``t``: a meta identity)."""
    from ..creation.factory import eye
    return eye(n, dtype=t.dtype, device=t.device)


# -- LU factors, inverse, solve --------------------------------------------------------------------
def _getrf(a: np.ndarray):
    """(LU, pivots (1-based), info) of a batch of m x n matrices: LAPACK's getrf (partial pivoting), for
    linalg.lu_factor_ex (triangular.py) and the LU factors PyTorch's det/slogdet/solve nodes keep."""
    lu = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64, copy=True)
    m, n = lu.shape[-2:]
    k = min(m, n)
    batch = lu.shape[:-2]
    piv = np.zeros(batch + (k,), dtype=np.int32)
    info = np.zeros(batch, dtype=np.int32)
    if type(lu) is MetaArray:  # a meta matrix: one step per column, none of which changes a shape
        return lapack_order(lu.astype(a.dtype)), MetaArray(piv.shape, piv.dtype), MetaArray(info.shape, info.dtype)
    idx = np.indices(batch) if batch else ()
    for j in range(k):
        col = lu[..., j:, j]
        # LAPACK's i?amax: |re| + |im| for complex numbers
        p = j + np.argmax(np.abs(col.real) + np.abs(col.imag) if col.dtype.kind == "c" else np.abs(col), axis=-1)
        piv[..., j] = p + 1
        rows_j = lu[..., j, :].copy()
        lu[..., j, :] = lu[(*idx, p)] if batch else lu[p]
        if batch:
            lu[(*idx, p)] = rows_j
        else:
            lu[p] = rows_j
        d = lu[..., j, j]
        zero = d == 0
        info = np.where(zero & (info == 0), np.int32(j + 1), info)  # int32 on numpy 1.x too (0-d info)
        with np.errstate(all="ignore"):
            mult = np.where(zero[..., None], 0.0, lu[..., j + 1:, j] / np.where(zero, 1.0, d)[..., None])
        lu[..., j + 1:, j] = mult
        lu[..., j + 1:, j + 1:] -= mult[..., :, None] * lu[..., j, None, j + 1:]
    return lu.astype(a.dtype), piv, info


def _lu_field(i: int, det: bool = False):
    """The LU factor (0) or pivots (1) PyTorch's det/slogdet/solve nodes keep: LAPACK's getrf of the
    saved A, recomputed when asked (det and slogdet factor a row-major A's transpose, the matrix its
    memory holds in LAPACK's column-major order: det(A) = det(A^T))."""
    def get(node):
        A = node._slot_value(0)
        if A is None:
            return None
        a = A._data
        if det and a.flags.c_contiguous and a.ndim >= 2:
            a = np.swapaxes(a, -1, -2)
        return _make(_getrf(a)[i])
    return get


class LinalgInvExBackward0(Node):
    saved_fields = (("inverse", 0),)

    def backward(self, g):
        (y,) = self._unpacked_saved
        yt = _mH(y)
        return (-(yt.matmul(g).matmul(yt)),)


@op("linalg.inv", variants="function out", batch=batch_matrices, autocast="fp32")
def inv(A: Tensor) -> Tensor:
    """The inverse of square matrices (batched)."""
    a = _square(A, "linalg.inv")
    try:
        r = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.inv: The diagonal element 1 is zero, the inversion could not be completed "
                          "because the input matrix is singular.") from None
    return record(lapack_order(r.astype(a.dtype)), LinalgInvExBackward0, (A,), (OUT,))


@op(variants="function method out", batch=batch_matrices, autocast="fp32")
def inverse(input: Tensor) -> Tensor:
    """``linalg.inv``."""
    return inv(input)


class LinalgSolveExBackward0(Node):
    saved_fields = (("A", 0), ("LU", _lu_field(0)), ("pivots", _lu_field(1)), ("left", lambda n: True), ("result", 1))

    def backward(self, g):
        A, X = self._unpacked_saved
        if self.vector:
            g, X = g.unsqueeze(-1), X.unsqueeze(-1)
        gB = solve(_mH(A), g)
        gA = -gB.matmul(_mH(X)) if self.need_a else None
        if gA is not None and gA._data.shape != A._data.shape:
            gA = sum_to(gA, A._data.shape)
        if self.vector:
            gB = gB.squeeze(-1)
        if not self.need_b:
            return gA, None
        return gA, (gB if gB._data.shape == self.b_shape else sum_to(gB, self.b_shape))  # a broadcast B's sum


@op("linalg.solve", variants="function out", autocast="fp32")
def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """X with A X = B (B a matrix or a batch of vectors)."""
    if not left:
        return _mT(solve(_mT(A), _mT(B)))
    a = _square(A, "linalg.solve")
    b = B._data
    if b.dtype != a.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{legacy_name(a.dtype)} and B of type {legacy_name(b.dtype)} instead")
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    bb = b[..., None] if vector else b
    if bb.ndim < a.ndim:  # B's batch dims as many as A's: numpy 1.x reads a B of one dim fewer as vectors
        bb = bb.reshape((1,) * (a.ndim - bb.ndim) + bb.shape)
    try:
        r = np.linalg.solve(a, bb)
    except np.linalg.LinAlgError:
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.") from None
    r = r[..., 0].astype(a.dtype) if vector else lapack_order(r.astype(a.dtype))
    return record(r, LinalgSolveExBackward0, (A, B), (A, OUT), vector=vector,
                  need_a=A._requires_grad, need_b=B._requires_grad, b_shape=b.shape)


# -- pseudo-inverse ---------------------------------------------------------------------------------
def pinv_backward(g: Tensor, X: Tensor, A: Tensor) -> Tensor:
    """The gradient of A for the gradient g of its pseudo-inverse X (PyTorch's pinv_backward, in tinytorch
    ops: differentiable again). PyTorch's grouping of the products (smallest matrices first) was tried:
    it matched fewer op_db float32/complex64 samples than this one (the differences are rounding)."""
    m, n = A._data.shape[-2:]
    Xt, gt = _mH(X), _mH(g)
    term = -Xt.matmul(g).matmul(Xt)
    term = term + (_eye_like(m, A) - A.matmul(X)).matmul(gt).matmul(X).matmul(Xt)
    term = term + Xt.matmul(X).matmul(gt).matmul(_eye_like(n, A) - X.matmul(A))
    # laid out as PyTorch's, whose formula starts from a conjugate transpose: each matrix column-major
    return term.mT.contiguous().mT


class LinalgPinvBackward0(Node):
    saved_fields = (("self", 0), ("result", 1))

    def backward(self, g):
        A, X = self._unpacked_saved
        return (pinv_backward(g, X, A),)


def _eps_times(dtype, n: int):
    """The dtype's epsilon times ``n`` in the epsilon's own dtype (a numpy scalar times a Python int was
    float64 on numpy 1.x, by value)."""
    eps = np.finfo(dtype).eps
    return eps * eps.dtype.type(n)


def svd_arrays(a: np.ndarray, full_matrices: bool):
    """numpy's SVD of a stack of matrices, guarded against inf and NaN, which numpy's LAPACK cannot be given:
    it raises for a NaN and never returns for an inf (gesdd's iteration does not end). PyTorch raises for a
    NaN, naming the batch element, and for an inf gives NaN singular values (MKL's U and Vh there are partly
    NaN, partly 0 and 1: not reproduced, tinytorch's are all NaN); finite matrices are decomposed as usual.
    The check is one pass over the input, little beside the decomposition."""
    finite = np.isfinite(a).all(axis=(-2, -1))
    if finite.all():
        return np.linalg.svd(a, full_matrices=full_matrices)
    bad = np.argwhere(~finite & np.isnan(a).any(axis=(-2, -1)))
    if len(bad):
        batch = int(np.ravel_multi_index(tuple(bad[0]), finite.shape)) if finite.ndim else None
        where = "" if batch is None else f"(Batch element {batch}): "
        raise LinAlgError(f"linalg.svd: {where}The algorithm failed to converge because the input matrix "
                          f"contained non-finite values.")
    m, n = a.shape[-2:]
    k = min(m, n)
    u = np.full(a.shape[:-2] + (m, m if full_matrices else k), np.nan, dtype=a.dtype)
    s = np.full(a.shape[:-2] + (k,), np.nan, dtype=a.real.dtype)
    vh = np.full(a.shape[:-2] + (n if full_matrices else k, n), np.nan, dtype=a.dtype)
    if finite.any():
        u[finite], s[finite], vh[finite] = np.linalg.svd(a[finite], full_matrices=full_matrices)
    return u, s, vh


@op("linalg.pinv", variants="function out", batch=batch_matrices)
def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse (singular values below max(atol, rtol * largest) are dropped)."""
    a = _square(A, "linalg.pinv", square=False)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else _eps_times(a.dtype, max(a.shape[-2:]))
    if hermitian and a.shape[-1] == a.shape[-2] and a.size:
        # as PyTorch: eigh of the lower triangle; the singular values are |eigenvalues|
        w, u = np.linalg.eigh(a)
        s, vh = np.abs(w), np.swapaxes(u, -1, -2).conj() * np.sign(w)[..., :, None]
    else:
        u, s, vh = svd_arrays(a, full_matrices=False)
    smax = s.max(axis=-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), a.real.dtype)
    cut = np.maximum(atol or 0.0, rtol * smax)
    with np.errstate(divide="ignore"):
        sinv = np.where(s > cut, 1.0 / np.where(s > cut, s, 1.0), 0.0)
    r = np.swapaxes(vh, -1, -2).conj() @ (sinv[..., :, None] * np.swapaxes(u, -1, -2).conj())
    return record(r.astype(a.dtype), LinalgPinvBackward0, (A,), (A, OUT))


@op(variants="function method", batch=batch_matrices, autocast="fp32")
def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``linalg.pinv`` with singular values below ``rcond`` times the largest dropped."""
    return pinv(input, rtol=rcond)
