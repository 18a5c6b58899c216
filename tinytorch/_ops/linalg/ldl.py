"""LDL^T (LDL^H) factorizations of symmetric (Hermitian) matrices with Bunch-Kaufman pivoting, as LAPACK's
sytrf / hetrf compute them (``linalg.ldl_factor``, ``linalg.ldl_factor_ex``), and the solves with them
(``linalg.ldl_solve``, LAPACK's sytrs / hetrs). The kernels are SciPy's LAPACK (an optional dependency,
imported when one of these runs); the results are LAPACK's compact form, as PyTorch returns it: ``LD`` holds
L below the diagonal and the 1x1 / 2x2 blocks of D on it, ``pivots`` LAPACK's 1-based ``ipiv``."""
from __future__ import annotations

import numpy as np

from ..._dtype import INEXACT_NP
from ...tensor import Tensor, _make
from .._core.lazy_scipy import scipy_linalg
from .._core.record import legacy_name
from .._core.registry import op
from .._core.return_types import _named
from .solve import LinAlgError

ldl_factor_result = _named("linalg_ldl_factor", ("LD", "pivots"))
ldl_factor_ex_result = _named("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


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


def _factor(A: Tensor, hermitian: bool, fn: str):
    a = _check_square(A, fn)
    n = a.shape[-1]
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
    ld, piv, info = _factor(A, hermitian, "ldl_factor_ex")
    if check_errors:
        _raise_on(info, "torch.linalg.ldl_factor_ex")
    return ldl_factor_ex_result(_make(ld), _make(piv), _make(info))


@op("linalg.ldl_factor", variants="function out")
def ldl_factor(A: Tensor, *, hermitian: bool = False):
    """(LD, pivots): LAPACK's Bunch-Kaufman LDL^T (LDL^H with ``hermitian``) of each matrix."""
    ld, piv, info = _factor(A, hermitian, "ldl_factor")
    _raise_on(info, "torch.linalg.ldl_factor")
    return ldl_factor_result(_make(ld), _make(piv))


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
