"""Determinants: linalg.det (torch.det), linalg.slogdet (torch.slogdet) and torch.logdet.

Forwards are numpy.linalg (LAPACK, an LU factorization); the gradient of det is the adjugate, taken as
det(A) A^-H for an invertible matrix and through the SVD for a singular one, so it is defined everywhere."""
from __future__ import annotations

import numpy as np

from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.record import OUT, record
from .._core.registry import op
from .._core.return_types import _named
from ..pointwise.compare import where
from ..pointwise.complex import conj, imag
from ..reduce.scan import _others_product
from .decompositions import svd
from .solve import _lu_field, _mH, _square, batch_matrices, inv

slogdet_result = _named("linalg_slogdet", ("sign", "logabsdet"))


class LinalgDetBackward0(Node):
    saved_fields = (("A", 0), ("LU", _lu_field(0, True)), ("pivots", _lu_field(1, True)), ("result", 1))

    def backward(self, g):
        A, d = self.saved_tensors
        a = A._data
        if np.all(np.linalg.matrix_rank(a) == a.shape[-1]) if a.size else True:
            return ((g * conj(d)).unsqueeze(-1).unsqueeze(-1) * _mH(inv(A)),)
        # a singular matrix has no inverse but still an adjugate: adj(A)^T = det(U) det(Vh) U diag(prod_{j!=i} s_j) Vh
        U, S, Vh = svd(A, full_matrices=False)
        sign = _make(np.asarray(np.conj(np.linalg.det(U._data) * np.linalg.det(Vh._data)), dtype=a.dtype))
        adj_t = (U * _others_product(S, -1).unsqueeze(-2)).matmul(Vh) * sign.unsqueeze(-1).unsqueeze(-1)
        return (g.unsqueeze(-1).unsqueeze(-1) * adj_t,)


@op("linalg.det", variants="function out", batch=batch_matrices)
def linalg_det(A: Tensor) -> Tensor:
    """Determinants of square matrices (batched); the gradient is the adjugate, singular matrices included."""
    a = _square(A, "linalg.det")
    return record(np.asarray(np.linalg.det(a), dtype=a.dtype), LinalgDetBackward0, (A,), (A, OUT))


@op(variants="function method", batch=batch_matrices)
def det(input: Tensor) -> Tensor:
    """``linalg.det``."""
    return linalg_det(input)


class LinalgSlogdetBackward0(Node):
    saved_fields = (("A", 0), ("LU", _lu_field(0, True)), ("pivots", _lu_field(1, True)), ("sign", 1))

    def backward(self, g_sign, g_logabs=None):
        A, sign = self.saved_tensors
        if A._data.dtype.kind == "c" and g_sign is not None:
            # d sign = i Im(tr(A^-1 dA)) sign, d log|det| = Re(tr(A^-1 dA))
            c = imag(conj(g_sign) * sign) * -1j
            g_logabs = c if g_logabs is None else g_logabs + c
        if g_logabs is None:
            return (A * 0,)
        return (g_logabs.unsqueeze(-1).unsqueeze(-1) * _mH(inv(A)),)


@op("linalg.slogdet", variants="function out", batch=batch_matrices)
def linalg_slogdet(A: Tensor):
    """(sign, log|det|) of square matrices."""
    a = _square(A, "linalg.slogdet")
    s, l = np.linalg.slogdet(a)
    s, l = np.asarray(s, dtype=a.dtype), np.asarray(l, dtype=a.real.dtype)
    return slogdet_result(*record((s, l), LinalgSlogdetBackward0, (A,), (A, OUT)))


@op(variants="function method out", batch=batch_matrices)
def slogdet(input: Tensor):
    """``linalg.slogdet``."""
    return linalg_slogdet(input)


@op(variants="function method", batch=batch_matrices)
def logdet(input: Tensor) -> Tensor:
    """log(det(A)): NaN for a negative determinant."""
    s, l = linalg_slogdet(input)
    if input._data.dtype.kind == "c":  # log(det) = log(sign) + log|det|, with sign on the unit circle
        return l + s.log()
    return where(s < 0, float("nan"), l)
