"""Matrix factorizations: linalg.cholesky, qr, svd, svdvals, eigh, eigvalsh, the general
eigendecomposition linalg.eig / eigvals with the conjugate transposes ``Tensor.mH``, ``Tensor.H`` and
``adjoint``, and the randomized low-rank SVD and PCA (``svd_lowrank``, ``pca_lowrank``).

Forwards are numpy.linalg (LAPACK); backwards are the matrix-calculus formulas in tinytorch ops. eig gives
complex results for real or complex input, from numpy.linalg.eig, i.e. LAPACK geev as PyTorch: unit-norm
eigenvectors, each with its largest component real. Its backward is PyTorch's: with
E_ij = conj(L_j) - conj(L_i), gA = V^-H (diag(gL) + (V^H gV - V^H V diag(Re diag(V^H gV))) / E) V^H, real
part for a real A. An eigenvector is fixed only up to a phase e^{i phi}: a loss that reads that phase
(Im diag(V^H gV) != 0) has no gradient, and PyTorch's error is raised for it.

svd_lowrank and pca_lowrank follow Halko, Martinsson and Tropp (2009) as PyTorch's ``torch/_lowrank.py``
computes them: the same Gaussian test matrix drawn from the generator (so a seeded program gets PyTorch's
basis), the same subspace iterations (QR), then an SVD of the small projected matrix. A sparse ``A`` is
multiplied with ``torch.sparse.mm``."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._meta_array import MetaArray
from ..random.sampling import randn
from ...autograd.node import Node
from ..creation.factory import ones, zeros
from ...tensor import Tensor, register_attribute
from .._core.record import OUT, legacy_name, record
from .._core.registry import op
from .._core.util import lapack_order
from .._core.return_types import _named
from .substitution import solve_triangular
from ..pointwise.complex import conj, real
from .solve import (LinAlgError, _eye_like, _mH, _square, batch_matrices, eigh_result, qr_result, solve,
                    svd_arrays, svd_result)
from ..shape.join import cat
from ..sparse.construct import sparse_coo_tensor
from ..sparse.products import sparse_mm
from ..sparse.reduce import sparse_sum
from ..sparse.tensor import is_coo, is_sparse_tensor, register_handler

eig_result = _named("linalg_eig", ("eigenvalues", "eigenvectors"))


def _phi(x: Tensor) -> Tensor:
    """The lower triangle with the diagonal halved."""
    return x.tril() - 0.5 * x.tril() * _eye_like(x._data.shape[-1], x)


class LinalgCholeskyExBackward0(Node):
    saved_fields = (("L", 0), ("upper", "upper"))

    def backward(self, g):
        (L,) = self._unpacked_saved
        if self.upper:
            L, g = _mH(L), _mH(g)
        # L^-H X L^-1 with X = (T + tril(T, -1)^H) / 2, T = tril(L^H g): PyTorch's, whose diagonal keeps
        # T's imaginary part for complex input; two triangular solves, as PyTorch's (its gradient column-major)
        T = _mH(L).matmul(g).tril()
        X = 0.5 * (T + _mH(T.tril(-1)))
        X = solve_triangular(_mH(L), X, upper=True)
        return (solve_triangular(L, X, upper=False, left=False),)


@op("linalg.cholesky", variants="function out", batch=batch_matrices, autocast="fp32")
def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """L with A = L L^T (lower), or U with A = U^T U."""
    a = _square(A, "linalg.cholesky")
    try:
        L = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        order = _failing_minor(a)
        raise LinAlgError(f"linalg.cholesky: The factorization could not be completed because the input is not "
                          f"positive-definite (the leading minor of order {order} is not positive-definite).") from None
    r = np.swapaxes(L, -1, -2).conj() if upper else L
    return record(lapack_order(r.astype(a.dtype)), LinalgCholeskyExBackward0, (A,), (OUT,), upper=upper)


def _failing_minor(a: np.ndarray) -> int:
    m = a.reshape(-1, a.shape[-2], a.shape[-1])
    for mat in m:
        for k in range(1, mat.shape[0] + 1):
            try:
                np.linalg.cholesky(mat[:k, :k])
            except np.linalg.LinAlgError:
                return k
    return 1


class LinalgQrBackward0(Node):
    saved_fields = (("Q", 0), ("R", 1), ("mode", "mode"))

    def backward(self, gQ, gR=None):
        Q, R = self._unpacked_saved
        if self.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                               "through linalg.qr.")
        m, n = self.shape
        if self.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        gQ = Q * 0 if gQ is None else gQ
        gR = R * 0 if gR is None else gR
        if m >= n:
            return (_qr_tall_backward(Q, R, gQ, gR),)
        # a wide A = Q [R1 R2]: its first m columns X = Q R1 are a square QR; Y = Q R2 is linear in Q
        R1, R2 = R[..., :, :m], R[..., :, m:]
        gR1, gR2 = gR[..., :, :m], gR[..., :, m:]
        Y = Q.matmul(R2)
        gX = _qr_tall_backward(Q, R1, gQ + Y.matmul(_mH(gR2)), gR1)
        return (cat([gX, Q.matmul(gR2)], -1),)


def _qr_tall_backward(Q: Tensor, R: Tensor, gQ: Tensor, gR: Tensor) -> Tensor:
    """gA = (gQ + Q copyltu(M)) R^-T with M = R gR^T - gQ^T Q (m >= n, reduced)."""
    M = R.matmul(_mH(gR)) - _mH(gQ).matmul(Q)
    low = M.tril(-1)
    sym = low + _mH(low) + real(M) * _eye_like(M._data.shape[-1], M)  # copyltu(M)
    rhs = gQ + Q.matmul(sym)
    return solve_triangular(_mH(R), rhs, upper=False, left=False)  # rhs R^-H, as PyTorch's (column-major)


@op("linalg.qr", variants="function out", batch=batch_matrices, autocast="fp32")
def qr(A: Tensor, mode: str = "reduced"):
    """Q (orthonormal columns) and R (upper triangular) with A = Q R."""
    a = _square(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           f"or 'complete'")
    q, r = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    q, r = lapack_order(q.astype(a.dtype)), lapack_order(r.astype(a.dtype))
    if mode == "r":
        q = np.zeros((0,), a.dtype)
    return qr_result(*record((q, r), LinalgQrBackward0, (A,), (OUT, OUT[1]), mode=mode, shape=a.shape[-2:]))


class LinalgSvdBackward0(Node):
    saved_fields = (("full_matrices", "full"), ("U", 0), ("S", 1), ("S_sym_argsize_minus_1", lambda n: min(n.shape)),
                    ("Vh", 2))

    def backward(self, gU, gS=None, gVh=None):
        U, S, Vh = self._unpacked_saved
        k = S._data.shape[-1]
        if self.full:  # as PyTorch: the columns beyond k are an arbitrary basis, their gradient is ignored
            U, Vh = U[..., :, :k], Vh[..., :k, :]
            gU = None if gU is None else gU[..., :, :k]
            gVh = None if gVh is None else gVh[..., :k, :]
        gA = None
        if gS is not None:
            gA = (U * gS.unsqueeze(-2)).matmul(Vh)
        if gU is None and gVh is None:
            return (gA if gA is not None else U.matmul(Vh) * 0,)
        V = _mH(Vh)
        eye = _eye_like(k, S)
        S2 = S * S
        E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye  # E_ij = S_j^2 - S_i^2, 1 on the diagonal
        skew_u = skew_v = inner = None
        if gU is not None:
            UgU = _mH(U).matmul(gU)
            skew_u = UgU - _mH(UgU)
            inner = skew_u * S.unsqueeze(-2) / E  # its diagonal: 0 (real), ~0 by the phase check
        if gVh is not None:
            gV = _mH(gVh)
            VgV = _mH(V).matmul(gV)
            skew_v = VgV - _mH(VgV)
            part = S.unsqueeze(-1) * skew_v / E
            inner = part if inner is None else inner + part
        if U._data.dtype.kind == "c":
            # a loss reading the singular vectors' common phase (U e^{i phi}, V e^{i phi}) has no gradient
            def imdiag(x):
                return 0 if x is None else np.imag(np.diagonal(x._data, 0, -2, -1))
            if not np.allclose(imdiag(skew_u), -imdiag(skew_v), rtol=1e-2, atol=1e-2):
                raise RuntimeError("svd_backward: The singular vectors in the complex case are specified up to "
                                   "multiplication by e^{i phi}. The specified loss function depends on this phase "
                                   "term, making it ill-defined.")
            if skew_u is not None and skew_v is not None:
                inner = inner + (skew_u * eye).sum(-1).div(2 * S).unsqueeze(-2) * eye
        term = U.matmul(inner).matmul(Vh)
        m, n = self.shape
        if gU is not None and m > k:
            term = term + ((gU - U.matmul(_mH(U).matmul(gU))) / S.unsqueeze(-2)).matmul(Vh)
        if gVh is not None and n > k:
            gV = _mH(gVh)
            term = term + U.matmul(_mH((gV - V.matmul(_mH(V).matmul(gV))) / S.unsqueeze(-2)))
        return (term if gA is None else gA + term,)


@op("linalg.svd", variants="function out", batch=batch_matrices, autocast="fp32")
def svd(A: Tensor, full_matrices: bool = True, *, driver=None):
    """U, S, Vh with A = U diag(S) Vh (S descending)."""
    a = _square(A, "linalg.svd", square=False)
    u, s, vh = svd_arrays(a, full_matrices)
    u, s, vh = u.astype(a.dtype), s.astype(a.real.dtype), vh.astype(a.dtype)
    # column-major, as LAPACK's; PyTorch's meta kernel says C order for Vh (its CPU kernel column-major)
    u, vh = lapack_order(u), vh if type(vh) is MetaArray else lapack_order(vh)
    return svd_result(*record((u, s, vh), LinalgSvdBackward0, (A,), saved=(OUT, OUT[1], OUT[2]),
                              full=full_matrices, shape=a.shape[-2:]))


@op("linalg.svdvals", variants="function out", batch=batch_matrices, autocast="fp32")
def svdvals(A: Tensor, *, driver=None) -> Tensor:
    """The singular values, descending."""
    return svd(A, full_matrices=False)[1]


class LinalgEighBackward0(Node):
    saved_fields = (("eigenvalues", 0), ("eigenvectors", 1))

    def backward(self, gw, gV=None):
        w, V = self._unpacked_saved
        n = w._data.shape[-1]
        eye = _eye_like(n, w)
        inner = None
        if gV is not None:
            VgV = _mH(V).matmul(gV)
            if V._data.dtype.kind == "c" and not np.allclose(np.imag(np.diagonal(VgV._data, 0, -2, -1)), 0,
                                                             rtol=1e-2, atol=1e-2):
                raise RuntimeError("linalg_eigh_backward: The eigenvectors in the complex case are specified up to "
                                   "multiplication by e^{i phi}. The specified loss function depends on this "
                                   "quantity, so it is ill-defined.")
            E = w.unsqueeze(-2) - w.unsqueeze(-1) + eye  # E_ij = w_j - w_i
            inner = 0.5 * (VgV - _mH(VgV)) / E * (1 - eye)
        if gw is not None:
            d = gw.unsqueeze(-2) * eye
            inner = d if inner is None else inner + d
        return (V.matmul(inner.to(V.dtype)).matmul(_mH(V)),)


@op("linalg.eigh", variants="function out", batch=batch_matrices, autocast="fp32")
def eigh(A: Tensor, UPLO: str = "L"):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices (one triangle read)."""
    a = _square(A, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    w, v = w.astype(a.real.dtype), lapack_order(v.astype(a.dtype))
    return eigh_result(*record((w, v), LinalgEighBackward0, (A,), (OUT, OUT[1])))


@op("linalg.eigvalsh", variants="function out", batch=batch_matrices, autocast="fp32")
def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues (ascending) of symmetric matrices."""
    return eigh(A, UPLO)[0]


# -- the general eigendecomposition ----------------------------------------------------------------
_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
               np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}


class LinalgEigBackward0(Node):
    saved_fields = (("eigenvalues", 0), ("eigenvectors", 1))

    def backward(self, gL, gV=None):
        L, V = self._unpacked_saved
        n = L._data.shape[-1]
        eye = _eye_like(n, L)
        Vh = _mH(V)
        inner = None
        if gV is not None:
            VhgV = Vh.matmul(gV)
            imdiag = np.imag(np.diagonal(VhgV._data, 0, -2, -1))
            if not np.allclose(imdiag, 0, rtol=1e-2, atol=1e-2):
                raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                                   "multiplication by e^{i phi}. The specified loss function depends on this "
                                   "quantity, so it is ill-defined.")
            re_diag = real((VhgV * eye).sum(-2))  # the real part of diag(V^H gV)
            proj = VhgV - Vh.matmul(V) * re_diag.unsqueeze(-2)
            Lc = conj(L)
            E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + eye  # conj(L_j) - conj(L_i), 1 on the diagonal
            inner = proj / E * (1 - eye)
        if gL is not None:
            d = gL.unsqueeze(-2) * eye
            inner = d if inner is None else inner + d
        gA = solve(Vh, inner.matmul(Vh))
        return (real(gA) if self.real_input else gA,)


def _eig(A: Tensor, fn: str):
    if A._data.dtype.kind not in "fc" and A._data.ndim >= 2:
        raise RuntimeError(f"Unknown Complex ScalarType for {legacy_name(A._data.dtype)}")
    a = _square(A, fn)
    cdt = _COMPLEX_OF[a.dtype]
    if a.size == 0:
        w, v = np.zeros(a.shape[:-1], cdt), np.zeros(a.shape, cdt)
    else:
        if not np.isfinite(a).all():
            raise RuntimeError(f"{fn}: input tensor should not contain infs or NaNs.")
        w, v = np.linalg.eig(a)
    return w.astype(cdt), v.astype(cdt)


@op("linalg.eig", variants="function out", batch=batch_matrices, autocast="fp32")
def eig(A: Tensor):
    """Eigenvalues and unit-norm eigenvectors of square matrices (complex, in LAPACK's order)."""
    w, v = _eig(A, "linalg.eig")
    v = v if type(v) is MetaArray else lapack_order(v)  # column-major on the CPU; PyTorch's meta kernel says C order
    return eig_result(*record((w, v), LinalgEigBackward0, (A,), (OUT, OUT[1]), real_input=A._data.dtype.kind == "f"))


@op("linalg.eigvals", variants="function out", batch=batch_matrices, autocast="fp32")
def eigvals(A: Tensor) -> Tensor:
    """The eigenvalues of square matrices (complex, in LAPACK's order)."""
    return eig(A)[0]


# -- conjugate transposes --------------------------------------------------------------------------
def mH(input: Tensor) -> Tensor:
    if input.dim() < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got "
                           f"{input.dim()}-D tensor.")
    return _mH(input)


def H(input: Tensor) -> Tensor:
    if input.dim() == 0:
        return conj(input)
    if input.dim() != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {input.dim()}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if input.dim() > 2 else ""))
    return _mH(input)


@op(variants="function method")
def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (a view in PyTorch, a conjugated copy here)."""
    if input.dim() < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
                           f"{input.dim()}-D tensor.")
    return _mH(input)


# properties, not ops (as ``Tensor.mT``)
register_attribute("mH", property(mH))
register_attribute("H", property(H))


# -- randomized low-rank SVD and PCA ---------------------------------------------------------------
def _matmul(A, B):
    if A is None:
        return B
    if is_sparse_tensor(A):
        return sparse_mm(A, B)
    return A.matmul(B)


def _floating_dtype(A):
    return A.dtype if A.dtype in (_dtype.float16, _dtype.float32, _dtype.float64) else _dtype.float32


def get_approximate_basis(A: Tensor, q: int, niter: int | None = 2, M: Tensor | None = None) -> Tensor:
    """An orthonormal basis Q (n x q) approximately spanning A's range (of A - M's when given)."""
    niter = 2 if niter is None else niter
    dtype = _floating_dtype(A) if not A.is_complex() else A.dtype
    R = randn(A.shape[-1], q, dtype=dtype, device=A.device)  # on A's device, as PyTorch's (meta: nothing drawn)
    X = _matmul(A, R)
    if M is not None:
        X = X - _matmul(M, R)
    Q = qr(X).Q
    for _ in range(niter):
        X = _matmul(A.mH, Q)
        if M is not None:
            X = X - _matmul(M.mH, Q)
        Q = qr(X).Q
        X = _matmul(A, Q)
        if M is not None:
            X = X - _matmul(M, Q)
        Q = qr(X).Q
    return Q


def _svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = _matmul(Q.mH, A)
    if M is not None:
        B = B - _matmul(Q.mH, M)
    U, S, Vh = svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


@op(variants="function", no_batch="randomness")
def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None):
    """(U, S, V): a rank-q approximate SVD of A (of A - M), A ~ U diag(S) V^H."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


@op(variants="function", no_batch="randomness")
def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2):
    """(U, S, V): the principal components of A's rows (centred by default), from svd_lowrank."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    dtype = _floating_dtype(A)
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    if is_coo(A):
        if len(A.shape) != 2:
            raise ValueError("pca_lowrank input is expected to be 2-dimensional tensor")
        c = sparse_sum(A, dim=(-2,)) / m
        column_indices = c.indices()[0]
        indices = zeros(2, len(column_indices), dtype=column_indices.dtype, device=A.device)
        indices[0] = column_indices
        C_t = sparse_coo_tensor(indices, c.values(), (n, 1), dtype=dtype)
        ones_m1_t = ones(tuple(A.shape[:-2]) + (1, m), dtype=dtype, device=A.device)
        M = sparse_mm(C_t, ones_m1_t).mT
        return _svd_lowrank(A, q, niter=niter, M=M)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)


# both take a sparse matrix as it is (its products go through torch.sparse.mm)
register_handler("svd_lowrank", svd_lowrank)
register_handler("pca_lowrank", pca_lowrank)
