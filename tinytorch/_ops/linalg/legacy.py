"""The factorizations' older spellings in ``torch``: ``cholesky``, ``qr`` (``some``) and ``lu``
(``get_infos``), ``svd`` (``some``, ``compute_uv``; V rather than Vh). Each calls its
``torch.linalg`` counterpart (so gradients are those), warning as PyTorch does that it is deprecated."""
from __future__ import annotations

import warnings

import numpy as np

from ...tensor import Tensor, _make
from .._core.registry import op
from .decompositions import cholesky as linalg_cholesky
from .decompositions import qr as linalg_qr
from .decompositions import svd as linalg_svd
from .decompositions import mH
from .._core.return_types import _named
from .triangular import lu_factor_ex

qr_result = _named("qr", ("Q", "R"))
lu_result = _named("_lu_with_info", ("LU", "pivots", "info"))
svd_result = _named("svd", ("U", "S", "V"))


def _deprecated(text: str) -> None:
    warnings.warn(text, UserWarning, stacklevel=4)


@op(variants="function method out", autocast="fp32")
def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """The Cholesky factor of a symmetric positive-definite matrix (upper: its transpose)."""
    _deprecated("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
                "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
                "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.")
    return linalg_cholesky(input, upper=upper)


@op(variants="function method out", autocast="fp32")
def qr(input: Tensor, some: bool = True):
    """(Q, R) of the QR decomposition; ``some=False`` gives the complete Q."""
    _deprecated("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
                "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, "
                "some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")
    Q, R = linalg_qr(input, "reduced" if some else "complete")
    return qr_result(Q, R)


@op(variants="function method", autocast="fp32", python_method=True)
def lu(A: Tensor, pivot: bool = True, get_infos: bool = False):
    """(LU, pivots) of the LU factorization with partial pivoting, and the info codes with
    ``get_infos``."""
    _deprecated("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
                "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
                "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                "torch.linalg.lu_factor_ex(A, compute_pivots)")
    LU, pivots, info = lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    return lu_result(LU, pivots, info) if get_infos else (LU, pivots)


@op(variants="function method out", autocast="fp32")
def svd(input: Tensor, some: bool = True, compute_uv: bool = True):
    """(U, S, V) with input = U diag(S) V^H (``linalg.svd`` with V = Vh^H); without ``compute_uv``,
    U and V are zeros of the full sizes, as PyTorch."""
    U, S, Vh = linalg_svd(input, full_matrices=not some and compute_uv)
    if not compute_uv:
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        return svd_result(_make(np.zeros(batch + (m, m), dtype=input._data.dtype)), S,
                          _make(np.zeros(batch + (n, n), dtype=input._data.dtype)))
    return svd_result(U, S, mH(Vh))
