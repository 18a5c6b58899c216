"""Randomized low-rank SVD and PCA (Halko, Martinsson and Tropp, 2009), as PyTorch's ``torch/_lowrank.py``
computes them: the same Gaussian test matrix drawn from the generator (so a seeded program gets PyTorch's
basis), the same subspace iterations (QR), then an SVD of the small projected matrix. A sparse ``A`` is
multiplied with ``torch.sparse.mm``."""
from __future__ import annotations

from ... import _dtype
from ..._random.tensor_ops import randn
from ...tensor import Tensor
from .._core.registry import op
from ...factory import ones, zeros
from ..sparse.construct import sparse_coo_tensor
from ..sparse.products import sparse_mm
from ..sparse.reduce import sparse_sum
from ..sparse.tensor import is_coo, is_sparse_tensor, register_handler
from .decompositions import qr, svd


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
    R = randn(A.shape[-1], q, dtype=dtype)
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
        indices = zeros(2, len(column_indices), dtype=column_indices.dtype)
        indices[0] = column_indices
        C_t = sparse_coo_tensor(indices, c.values(), (n, 1), dtype=dtype)
        ones_m1_t = ones(tuple(A.shape[:-2]) + (1, m), dtype=dtype)
        M = sparse_mm(C_t, ones_m1_t).mT
        return _svd_lowrank(A, q, niter=niter, M=M)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)


# both take a sparse matrix as it is (its products go through torch.sparse.mm)
register_handler("svd_lowrank", svd_lowrank)
register_handler("pca_lowrank", pca_lowrank)
