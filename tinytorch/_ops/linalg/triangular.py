"""Triangular factors and the solves built on them: the LU decomposition with partial pivoting
(``linalg.lu_factor`` (+ ``_ex``), ``linalg.lu``, ``lu_unpack``, ``linalg.lu_solve``, ``torch.lu_solve``),
triangular and Cholesky solves and the ``_ex`` variants (``linalg.solve_triangular``,
``triangular_solve``, ``cholesky_solve``, ``cholesky_inverse``, ``linalg.solve_ex``, ``linalg.inv_ex``,
``linalg.cholesky_ex``), ``linalg.lstsq``, and the LDL^T (LDL^H) factorization of symmetric (Hermitian)
matrices with its solve (``linalg.ldl_factor`` (+ ``_ex``), ``linalg.ldl_solve``).

solve_triangular (``substitution.py``) is the primitive; cholesky_solve/cholesky_inverse are solve/inv
of the factor's Gram matrix L L^T, whose gradients are PyTorch's for the factor (full, not masked to
the triangle); the rest compose the matrix functions of ``solve.py``.

The LU factorization is LAPACK's getrf done in numpy (row swaps chosen by the largest magnitude in the
column, the first one on ties; pivots 1-based int32, as LAPACK and PyTorch give them), batched.
Gradients: lu/lu_factor have PyTorch's formulas (square, wide and tall; see ``_lu_backward``),
written with triangular solves; lu_unpack and lu_solve are composed of tril/triu and triangular
solves, so their gradients (and double backward) come from those ops.

The LDL factorization uses Bunch-Kaufman pivoting, as LAPACK's sytrf / hetrf compute it, and its solve is
LAPACK's sytrs / hetrs. These kernels are SciPy's LAPACK (an optional dependency, imported when one of
them runs); the results are LAPACK's compact form, as PyTorch returns it: ``LD`` holds L below the
diagonal and the 1x1 / 2x2 blocks of D on it, ``pivots`` LAPACK's 1-based ``ipiv``."""
from __future__ import annotations

import numpy as np

from ..._dtype import FLOATING_NP, INEXACT_NP
from ..._meta_array import MetaArray
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.lazy_scipy import scipy_linalg
from .._core.record import OUT, legacy_name, record
from .._core.registry import op
from .._core.util import lapack_order
from ..shape.join import cat
from ..shape.shape import CloneBackward0
from .decompositions import _failing_minor, cholesky
from .._core.return_types import _named
from .substitution import solve_triangular
from .solve import (LinAlgError, _eps_times, _getrf, _mH, _mT, batch_matrices, inv, lapack_grad_layout, lapack_layout,
                    pinv, pinv_backward, solve)

triangular_solve_result = _named("triangular_solve", ("solution", "cloned_coefficient"))
inv_ex_result = _named("linalg_inv_ex", ("inverse", "info"))
solve_ex_result = _named("linalg_solve_ex", ("result", "info"))
cholesky_ex_result = _named("linalg_cholesky_ex", ("L", "info"))
lstsq_result = _named("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
ldl_factor_result = _named("linalg_ldl_factor", ("LD", "pivots"))
ldl_factor_ex_result = _named("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


@op(variants="function method out", autocast="fp32")
def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False):
    """(X, A.clone()) with op(A) X = input, op(A) = A or A^T (the deprecated form of solve_triangular)."""
    coef = _mT(A) if transpose else A
    x = solve_triangular(coef, input, upper=upper != transpose, unitriangular=unitriangular)
    # PyTorch's copy of A is the one its LAPACK call was given: each matrix column-major
    coefficient = record(np.swapaxes(np.swapaxes(A._data, -1, -2).copy(), -1, -2), CloneBackward0, (A,))
    return triangular_solve_result(x, coefficient)


def _gram(factor: Tensor, upper: bool) -> Tensor:
    """L L^T (U^T U when ``upper``) of the whole factor: PyTorch's gradients for the factor are
    those of this product (full matrices, not masked to the triangle)."""
    return _mH(factor).matmul(factor) if upper else factor.matmul(_mH(factor))


@op(variants="function method out", autocast="fp32")
def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """X with (L L^T) X = input for the Cholesky factor L = input2 (U^T U when ``upper``)."""
    return solve(_gram(input2, upper), input)


@op(variants="function method out", autocast="fp32")
def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    """(L L^T)^-1 from the Cholesky factor L (U^T U when ``upper``)."""
    return inv(_gram(input, upper))


def _int32_zeros(shape) -> Tensor:
    return _make(np.zeros(shape, dtype=np.int32))


@op("linalg.solve_ex", variants="function out")
def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False):
    """(X, info): info 0 where the solve succeeded (a singular matrix raises here)."""
    return solve_ex_result(solve(A, B, left=left), _int32_zeros(A._data.shape[:-2]))


@op("linalg.inv_ex", variants="function out", batch=batch_matrices, autocast="fp32")
def inv_ex(A: Tensor, *, check_errors: bool = False):
    """(inverse, info): info 0, or (for a singular matrix) the 1-based index of LU's first zero pivot,
    with a nan inverse there (``check_errors`` raises linalg.inv's error instead)."""
    a = A._data
    if a.ndim >= 2 and a.shape[-1] == a.shape[-2] and a.dtype in FLOATING_NP:
        info = _getrf(a)[2]
        if info.any():
            if check_errors:
                inv(A)
            return inv_ex_result(_make(np.full(a.shape, np.nan, dtype=a.dtype)), _make(info))
    return inv_ex_result(inv(A), _int32_zeros(a.shape[:-2]))


@op("linalg.cholesky_ex", variants="function out", autocast="fp32")
def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False):
    """(L, info): info is 0, or the order of the first leading minor that is not positive-definite
    (then L is nan there unless ``check_errors``, which raises)."""
    a = A._data
    batch = a.shape[:-2]
    count = int(np.prod(batch, dtype=np.int64))
    flat = a.reshape((count,) + a.shape[-2:])
    info = np.zeros(count, dtype=np.int32)
    for i in range(len(info)):
        try:
            np.linalg.cholesky(flat[i])
        except np.linalg.LinAlgError:
            info[i] = _failing_minor(flat[i][None])
    info = info.reshape(batch)
    if not info.any():
        return cholesky_ex_result(cholesky(A, upper=upper), _make(info))
    if check_errors:
        cholesky(A, upper=upper)    # raises linalg.cholesky's error
    return cholesky_ex_result(_make(np.full(a.shape, np.nan, dtype=a.dtype)), _make(info))


class LinalgLstsqBackward0(Node):
    """PyTorch's linalg_lstsq_backward: the solution's gradient through pinv(A) B (pinv recomputed with
    its default tolerance, as PyTorch), the residuals' directly (at the least-squares optimum the path
    through the solution contributes nothing: PyTorch leaves it out, and so does this)."""
    saved_fields = (("self", 0), ("b", 1), ("solution", 2))

    def backward(self, gX, gL=None):
        A, B, X = self._unpacked_saved
        if self.vector:
            B, X = B.unsqueeze(-1), X.unsqueeze(-1)
            gX = None if gX is None else gX.unsqueeze(-1)
        gA = gB = None
        if gX is not None:
            P = pinv(A)
            gA = pinv_backward(gX.matmul(_mH(B)), P, A)
            gB = _mH(P).matmul(gX)
        if gL is not None and gL._data.size:
            r = A.matmul(X) - B
            rg = r * gL.unsqueeze(-2)
            gA_L, gB_L = 2 * rg.matmul(_mH(X)), -2 * rg
            gA = gA_L if gA is None else gA + gA_L
            gB = gB_L if gB is None else gB + gB_L
        if gB is not None and self.vector:
            gB = gB.squeeze(-1)
        return gA, gB


@op("linalg.lstsq", variants="function out", autocast="fp32", meta="data_dependent:linalg_lstsq.out")
def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None):
    """The least-squares solution of A X = B (via the pseudo-inverse), with the residuals (m > n and
    full rank, as PyTorch), the rank (drivers gelsy/gelsd/gelss) and the singular values
    (gelsd/gelss); solution and residuals differentiate as PyTorch's ``LinalgLstsqBackward0``."""
    drivers = ("gels", "gelsy", "gelsd", "gelss")
    if driver is not None and driver not in drivers:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    a, b = A._data, B._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A.dtype} and other's dtype {B.dtype}")
    vector = b.ndim == a.ndim - 1
    bm = b[..., None] if vector else b
    m, n = a.shape[-2:]
    s = np.linalg.svd(a, compute_uv=False)
    eps = _eps_times(a.dtype, max(m, n))
    tol = (eps if rcond is None else rcond) * s[..., :1]
    rank = (s > tol).sum(-1).astype(np.int64)
    p = pinv(A.detach(), rtol=(eps if rcond is None else rcond))._data
    x = np.matmul(p, bm)
    real = a.real.dtype
    if m > n and driver != "gelsy" and bool(np.all(rank == n)):
        r = np.matmul(a, x) - bm
        residuals = (np.abs(r) ** 2).sum(-2).astype(real)
    else:   # empty, but an output of the graph as PyTorch's (its gradient is nothing)
        residuals = np.zeros((0,), dtype=real)
    x = x[..., 0].astype(a.dtype) if vector else lapack_order(x.astype(a.dtype))
    rank_t = _make(rank) if driver != "gels" else _make(np.zeros((0,), dtype=np.int64))
    sv = _make(s.astype(real)) if driver in ("gelsd", "gelss") else _make(np.zeros((0,), dtype=real))
    return lstsq_result(*record((x, residuals), LinalgLstsqBackward0, (A, B), (A, B, OUT), vector=vector), rank_t, sv)


# -- LU ---------------------------------------------------------------------------------------------
lu_factor_result = _named("linalg_lu_factor", ("LU", "pivots"))
lu_factor_ex_result = _named("linalg_lu_factor_ex", ("LU", "pivots", "info"))
lu_result = _named("linalg_lu", ("P", "L", "U"))
lu_unpack_result = _named("lu_unpack", ("P", "L", "U"))


def _permutation(piv: np.ndarray, m: int, dtype) -> np.ndarray:
    """P with A = P L U, from LAPACK's row swaps."""
    batch = piv.shape[:-1]
    if piv.size == 0 or m == 0:
        return np.broadcast_to(np.eye(m, dtype=dtype), batch + (m, m)).copy()
    if type(piv) is MetaArray:  # meta pivots: one swap per pivot; P C-ordered, as PyTorch's meta kernel gives it
        return MetaArray(batch + (m, m), dtype)
    perm = np.broadcast_to(np.arange(m), batch + (m,)).copy()
    flat_perm = perm.reshape(-1, m)
    flat_piv = piv.reshape(-1, piv.shape[-1]) - 1
    rows = np.arange(flat_perm.shape[0])
    for j in range(piv.shape[-1]):
        a, b = flat_perm[rows, j].copy(), flat_perm[rows, flat_piv[:, j]].copy()
        flat_perm[rows, j], flat_perm[rows, flat_piv[:, j]] = b, a
    P = np.zeros(batch + (m, m), dtype=dtype)
    np.put_along_axis(P, perm[..., :, None], 1, axis=-1)   # P[perm[i], i] = 1 ... as rows of P^T
    return np.ascontiguousarray(np.swapaxes(P, -1, -2))  # C-ordered, as PyTorch's


def _check(A: Tensor, fn: str) -> np.ndarray:
    a = A._data
    if a.ndim < 2:
        raise RuntimeError(f"torch.{fn}: Expected tensor with 2 or more dimensions. Got size: {tuple(a.shape)} instead")
    if a.dtype not in INEXACT_NP:
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got {legacy_name(a.dtype)}")
    return a


def _lu_backward(A_shape, P, L, U, gL, gU):
    """PyTorch's formulas, in tinytorch ops (so they can be differentiated again). With k = min(m, n):
    square  gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H
    wide    gA = P L^-H [triu(gU1) + tril(L^H gL - triu(gU) U^H, -1) U1^-H | gU2]   (U = [U1 | U2])
    tall    gA = P [tril(gL1, -1) + L1^-H triu(gU U^H - L^H tril(gL, -1)) ; gL2] U^-H   (L = [L1 ; L2])"""
    m, n = A_shape[-2:]
    k = min(m, n)
    if m == n:
        phi = None
        if gL is not None:
            phi = _mH(L).matmul(gL).tril(-1)
        if gU is not None:
            t = gU.matmul(_mH(U)).triu()
            phi = t if phi is None else phi + t
        x = solve_triangular(_mH(L), phi, upper=True, unitriangular=True)
        return P.matmul(solve_triangular(_mH(U), x, upper=False, left=False))
    zero_L, zero_U = L * 0, U * 0
    gL = zero_L if gL is None else gL
    gU = zero_U if gU is None else gU
    if m < n:
        U1 = U[..., :, :k]
        inner = (_mH(L).matmul(gL) - gU.triu().matmul(_mH(U))).tril(-1)
        x = solve_triangular(_mH(U1), inner, upper=False, left=False) + gU[..., :, :k].triu()
        x = cat([x, gU[..., :, k:]], -1)
        return P.matmul(solve_triangular(_mH(L), x, upper=True, unitriangular=True))
    L1 = L[..., :k, :]
    inner = (gU.matmul(_mH(U)) - _mH(L).matmul(gL.tril(-1))).triu()
    x = solve_triangular(_mH(L1), inner, upper=True, unitriangular=True) + gL[..., :k, :].tril(-1)
    x = cat([x, gL[..., k:, :]], -2)
    return P.matmul(solve_triangular(_mH(U), x, upper=False, left=False))


class LinalgLuFactorExBackward0(Node):
    saved_fields = (("pivot", lambda n: True), ("LU", 0), ("pivots", lambda n: _make(n.piv)))

    def backward(self, gLU, *rest):
        LU, = self._unpacked_saved
        L, U = _unpack_lu(LU)
        k = min(LU._data.shape[-2:])
        gL, gU = gLU[..., :, :k].tril(-1), gLU[..., :k, :].triu()
        return (_lu_backward(LU._data.shape, _make(self.P), L, U, gL, gU),)


class LinalgLuBackward0(Node):
    saved_fields = (("pivot", lambda n: True), ("P", lambda n: _make(n.P)), ("L", 0), ("U", 1))

    def backward(self, gP, gL=None, gU=None):
        L, U = self._unpacked_saved
        return (_lu_backward(self.shape, _make(self.P), L, U, gL, gU),)


def _unpack_lu(LU: Tensor):
    m, n = LU._data.shape[-2:]
    k = min(m, n)
    dt = LU._data.dtype
    eye = _make(MetaArray((m, k), dt) if type(LU._data) is MetaArray else np.eye(m, k, dtype=dt))
    L = LU[..., :, :k].tril(-1) + eye
    U = LU[..., :k, :].triu()
    return L, U


def _factor(A: Tensor, fn: str, pivot: bool):
    a = _check(A, fn)
    if not pivot:
        raise RuntimeError(f"{fn}: LU without pivoting is not implemented on the CPU")
    return a, *_getrf(a)


@op("linalg.lu_factor_ex", variants="function out")
def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False):
    """(LU, pivots, info): L below the diagonal (unit diagonal implied) and U on and above it."""
    a, lu, piv, info = _factor(A, "linalg.lu_factor_ex", pivot)
    if check_errors and info.any():
        raise LinAlgError("torch.linalg.lu_factor_ex: U[%d,%d] is zero and using it on lu_solve would result in a "
                          "division by zero. If you still want to perform the factorization, consider calling "
                          "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)" % (info.max(), info.max()))
    return lu_factor_ex_result(*record((lapack_order(lu), piv, info), LinalgLuFactorExBackward0, (A,), (OUT,),
                                       P=_permutation(piv, a.shape[-2], a.dtype), piv=piv))


@op("linalg.lu_factor", variants="function out")
def lu_factor(A: Tensor, *, pivot: bool = True):
    """(LU, pivots) of linalg.lu_factor_ex (a singular matrix is factorized, as PyTorch)."""
    LU, piv, _ = lu_factor_ex(A, pivot=pivot)
    return lu_factor_result(LU, piv)


@op("linalg.lu", variants="function out")
def lu(A: Tensor, *, pivot: bool = True):
    """(P, L, U) with A = P L U."""
    a, lu_, piv, _ = _factor(A, "linalg.lu", pivot)
    m, n = a.shape[-2:]
    k = min(m, n)
    P = _permutation(piv, m, a.dtype)
    L = np.tril(lu_[..., :, :k], -1) + np.eye(m, k, dtype=a.dtype)
    U = np.triu(lu_[..., :k, :])
    Pt, Lt, Ut = record((P, L, U), LinalgLuBackward0, (A,), (OUT[1], OUT[2]), P=P, shape=a.shape)
    if Pt._requires_grad:
        Pt = _make(P)
    return lu_result(Pt, Lt, Ut)


@op(variants="function out")
def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True):
    """(P, L, U) from lu_factor's result (differentiable in LU_data)."""
    m = LU_data._data.shape[-2]
    empty = _make(np.zeros((0,), dtype=LU_data._data.dtype))
    P = _make(_permutation(LU_pivots._data, m, LU_data._data.dtype)) if unpack_pivots else empty
    if not unpack_data:
        return lu_unpack_result(P, empty, empty)
    L, U = _unpack_lu(LU_data)
    return lu_unpack_result(P, L, U)


@op("linalg.lu_solve", variants="function out")
def linalg_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """X with A X = B (A^T X = B when ``adjoint``; X A = B when not ``left``) for A = P L U."""
    if not left:   # X A = B  <=>  A^T X^T = B^T
        return _mH(linalg_lu_solve(LU, pivots, _mH(B), left=True, adjoint=not adjoint))
    P = _make(_permutation(pivots._data, LU._data.shape[-2], LU._data.dtype))
    L, U = _unpack_lu(LU)
    # PyTorch's B gradient is another LAPACK solve (column-major), and so is X
    B = lapack_grad_layout(B) if B._requires_grad else B
    if not adjoint:   # X = U^-1 L^-1 P^T B
        y = solve_triangular(L, _mH(P).matmul(B), upper=False, unitriangular=True)
        return solve_triangular(U, y, upper=True)
    y = solve_triangular(_mH(U), B, upper=False)        # X = P L^-H U^-H B
    return lapack_layout(P.matmul(solve_triangular(_mH(L), y, upper=True, unitriangular=True)))


def _lu_solve_method(self, LU_data, LU_pivots):
    return lu_solve(self, LU_data, LU_pivots)


@op(variants="function method out", method=_lu_solve_method, autocast="fp32")
def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """The deprecated torch.lu_solve(b, LU, pivots): linalg.lu_solve(LU, pivots, b)."""
    return linalg_lu_solve(LU_data, LU_pivots, b)


# -- LDL ---------------------------------------------------------------------------------------------
def _lapack(name: str, a: np.ndarray):
    return scipy_linalg().lapack.get_lapack_funcs((name,), (a,))[0]


def _check_square(A: Tensor, fn: str) -> np.ndarray:
    a = A._data
    if a.ndim < 2:
        raise RuntimeError(f"torch.linalg.{fn}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"torch.linalg.{fn}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if a.dtype not in INEXACT_NP:
        raise RuntimeError(f"torch.linalg.{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{legacy_name(a.dtype)}")
    return a


def _ldl_factor(A: Tensor, hermitian: bool, fn: str):
    a = _check_square(A, fn)
    n = a.shape[-1]
    if type(a) is MetaArray:  # LAPACK's factor, column-major, of each matrix: none is read
        return (lapack_order(MetaArray(a.shape, a.dtype)), MetaArray(a.shape[:-1], np.int32),
                MetaArray(a.shape[:-2], np.int32))
    ld = np.zeros(a.shape, dtype=a.dtype)
    piv = np.zeros(a.shape[:-1], dtype=np.int32)
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    if n == 0:
        return ld, piv, info
    kernel = _lapack("hetrf" if hermitian and a.dtype.kind == "c" else "sytrf", a)
    for idx in np.ndindex(a.shape[:-2]):
        ldu, ipiv, inf = kernel(a[idx], lower=1, lwork=max(1, n * 64))
        ld[idx], piv[idx], info[idx] = np.tril(ldu), ipiv, inf
    return ld, piv, info


@op("linalg.ldl_factor_ex", variants="function out")
def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False):
    """(LD, pivots, info): LAPACK's Bunch-Kaufman LDL^T (LDL^H with ``hermitian``) of each matrix; info > 0
    where D has an exact zero on its diagonal."""
    ld, piv, info = _ldl_factor(A, hermitian, "ldl_factor_ex")
    if check_errors:
        _raise_on(info, "torch.linalg.ldl_factor_ex")
    return ldl_factor_ex_result(_make(lapack_order(ld)), _make(piv), _make(info))


@op("linalg.ldl_factor", variants="function out")
def ldl_factor(A: Tensor, *, hermitian: bool = False):
    """(LD, pivots): LAPACK's Bunch-Kaufman LDL^T (LDL^H with ``hermitian``) of each matrix."""
    ld, piv, info = _ldl_factor(A, hermitian, "ldl_factor")
    _raise_on(info, "torch.linalg.ldl_factor")
    return ldl_factor_result(_make(lapack_order(ld)), _make(piv))


def _raise_on(info: np.ndarray, fn: str) -> None:
    bad = np.argwhere(info != 0)
    if len(bad):
        where = "" if info.ndim == 0 else f" (Batch element {int(np.ravel_multi_index(tuple(bad[0]), info.shape))})"
        raise LinAlgError(f"{fn}{where}: The factorization could not be completed because the input is not "
                          "invertible.")


@op("linalg.ldl_solve", variants="function out")
def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    """X with A X = B, from ldl_factor's (LD, pivots) of A (LAPACK's sytrs / hetrs)."""
    ld, piv, b = LD._data, pivots._data, B._data
    if ld.ndim < 2:
        raise RuntimeError("torch.linalg.ldl_solve: LD must have at least 2 dimensions.")
    if b.ndim < 2:
        raise RuntimeError("torch.linalg.ldl_solve: B must have at least 2 dimensions.")
    dt = np.result_type(ld.dtype, b.dtype)
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2], piv.shape[:-1])
    out = np.zeros(batch + b.shape[-2:], dtype=dt)
    if ld.shape[-1] == 0 or b.shape[-1] == 0:
        return _make(out)
    lds = np.broadcast_to(ld, batch + ld.shape[-2:]).astype(dt)
    pivs = np.broadcast_to(piv, batch + piv.shape[-1:])
    bs = np.broadcast_to(b, batch + b.shape[-2:]).astype(dt)
    kernel = _lapack("hetrs" if hermitian and dt.kind == "c" else "sytrs", lds)
    for idx in np.ndindex(batch):
        x, _ = kernel(lds[idx], pivs[idx], bs[idx], lower=1)
        out[idx] = x
    return _make(out)
