"""LU decomposition with partial pivoting: ``linalg.lu_factor`` (+ ``_ex``), ``linalg.lu``,
``lu_unpack``, ``linalg.lu_solve`` and ``torch.lu_solve``.

The factorization is LAPACK's getrf done in numpy (row swaps chosen by the largest magnitude in the
column, the first one on ties; pivots 1-based int32, as LAPACK and PyTorch give them), batched.
Gradients: lu/lu_factor have PyTorch's formulas (square, wide and tall; see ``_lu_backward``),
written with triangular solves; lu_unpack and lu_solve are composed of tril/triu and triangular
solves, so their gradients (and double backward) come from those ops."""
from __future__ import annotations

import numpy as np

from ..._dtype import INEXACT_NP
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.record import legacy_name
from .._core.registry import op
from .solve import LinAlgError, _mH, _named
from .triangular import solve_triangular
from ..shape.join import cat
from ...autograd.grad_mode import _State
from .._core.util import edge

lu_factor_result = _named("linalg_lu_factor", ("LU", "pivots"))
lu_factor_ex_result = _named("linalg_lu_factor_ex", ("LU", "pivots", "info"))
lu_result = _named("linalg_lu", ("P", "L", "U"))
lu_unpack_result = _named("lu_unpack", ("P", "L", "U"))


def _getrf(a: np.ndarray):
    """(LU, pivots (1-based), info) of a batch of m x n matrices."""
    lu = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64, copy=True)
    m, n = lu.shape[-2:]
    k = min(m, n)
    batch = lu.shape[:-2]
    piv = np.zeros(batch + (k,), dtype=np.int32)
    info = np.zeros(batch, dtype=np.int32)
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


def _permutation(piv: np.ndarray, m: int, dtype) -> np.ndarray:
    """P with A = P L U, from LAPACK's row swaps."""
    batch = piv.shape[:-1]
    if piv.size == 0 or m == 0:
        return np.broadcast_to(np.eye(m, dtype=dtype), batch + (m, m)).copy()
    perm = np.broadcast_to(np.arange(m), batch + (m,)).copy()
    flat_perm = perm.reshape(-1, m)
    flat_piv = piv.reshape(-1, piv.shape[-1]) - 1
    rows = np.arange(flat_perm.shape[0])
    for j in range(piv.shape[-1]):
        a, b = flat_perm[rows, j].copy(), flat_perm[rows, flat_piv[:, j]].copy()
        flat_perm[rows, j], flat_perm[rows, flat_piv[:, j]] = b, a
    P = np.zeros(batch + (m, m), dtype=dtype)
    np.put_along_axis(P, perm[..., :, None], 1, axis=-1)   # P[perm[i], i] = 1 ... as rows of P^T
    return np.swapaxes(P, -1, -2)


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
        LU, = self.saved_tensors
        L, U = _unpack_lu(LU)
        k = min(LU._data.shape[-2:])
        gL, gU = gLU[..., :, :k].tril(-1), gLU[..., :k, :].triu()
        return (_lu_backward(LU._data.shape, _make(self.P), L, U, gL, gU),)


class LinalgLuBackward0(Node):
    saved_fields = (("pivot", lambda n: True), ("P", lambda n: _make(n.P)), ("L", 0), ("U", 1))

    def backward(self, gP, gL=None, gU=None):
        L, U = self.saved_tensors
        return (_lu_backward(self.shape, _make(self.P), L, U, gL, gU),)


def _unpack_lu(LU: Tensor):
    m, n = LU._data.shape[-2:]
    k = min(m, n)
    eye = _make(np.eye(m, k, dtype=LU._data.dtype))
    L = LU[..., :, :k].tril(-1) + eye
    U = LU[..., :k, :].triu()
    return L, U


def _factor(A: Tensor, fn: str, pivot: bool):
    a = _check(A, fn)
    if not pivot:
        raise RuntimeError(f"{fn}: LU without pivoting is not implemented on the CPU")
    return a, *_getrf(a)


def _multi(node_cls, A, outs, n_out, saved, **attrs):
    if not (_State.enabled and A._requires_grad):
        return [_make(o) for o in outs]
    node = node_cls((edge(A),))
    node._n_outputs = n_out
    for k, v in attrs.items():
        setattr(node, k, v)
    res = []
    for i, o in enumerate(outs):
        t = _make(o, node if o.dtype in INEXACT_NP else None)
        if o.dtype in INEXACT_NP:
            t._output_nr = i
        res.append(t)
    node.save_for_backward(*(res[i] for i in saved))
    return res


@op("linalg.lu_factor_ex", variants="function out")
def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False):
    """(LU, pivots, info): L below the diagonal (unit diagonal implied) and U on and above it."""
    a, lu, piv, info = _factor(A, "linalg.lu_factor_ex", pivot)
    if check_errors and info.any():
        raise LinAlgError("torch.linalg.lu_factor_ex: U[%d,%d] is zero and using it on lu_solve would result in a "
                          "division by zero. If you still want to perform the factorization, consider calling "
                          "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)" % (info.max(), info.max()))
    LU, = _multi(LinalgLuFactorExBackward0, A, (lu,), 3, (0,), P=_permutation(piv, a.shape[-2], a.dtype), piv=piv)
    return lu_factor_ex_result(LU, _make(piv), _make(info))


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
    Pt, Lt, Ut = _multi(LinalgLuBackward0, A, (P, L, U), 3, (1, 2), P=P, shape=a.shape)
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
    if not adjoint:   # X = U^-1 L^-1 P^T B
        y = solve_triangular(L, _mH(P).matmul(B), upper=False, unitriangular=True)
        return solve_triangular(U, y, upper=True)
    y = solve_triangular(_mH(U), B, upper=False)        # X = P L^-H U^-H B
    return P.matmul(solve_triangular(_mH(L), y, upper=True, unitriangular=True))


def _lu_solve_method(self, LU_data, LU_pivots):
    return lu_solve(self, LU_data, LU_pivots)


@op(variants="function method out", method=_lu_solve_method, autocast="fp32")
def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """The deprecated torch.lu_solve(b, LU, pivots): linalg.lu_solve(LU, pivots, b)."""
    return linalg_lu_solve(LU_data, LU_pivots, b)
