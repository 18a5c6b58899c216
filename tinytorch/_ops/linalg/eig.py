"""The general eigendecomposition: ``linalg.eig`` and ``linalg.eigvals`` (complex results for real or
complex input, from numpy.linalg.eig, i.e. LAPACK geev as PyTorch: unit-norm eigenvectors, each with
its largest component real), and the conjugate transposes ``Tensor.mH``, ``Tensor.H``, ``adjoint``.

The backward is PyTorch's: with E_ij = conj(L_j) - conj(L_i),
gA = V^-H (diag(gL) + (V^H gV - V^H V diag(Re diag(V^H gV))) / E) V^H, real part for a real A. An
eigenvector is fixed only up to a phase e^{i phi}: a loss that reads that phase (Im diag(V^H gV) != 0)
has no gradient, and PyTorch's error is raised for it."""
from __future__ import annotations

import numpy as np

from ...autograd.node import Node
from ...tensor import Tensor, register_attribute
from .._core.record import OUT, legacy_name, record
from .._core.registry import op
from ..pointwise.complex import conj, real
from .._core.return_types import _named
from .solve import _eye_like, _square, batch_matrices, solve
from ..shape.shape import transpose

eig_result = _named("linalg_eig", ("eigenvalues", "eigenvectors"))

_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
               np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}


def _mH(t: Tensor) -> Tensor:
    return conj(transpose(t, -2, -1))


class LinalgEigBackward0(Node):
    saved_fields = (("eigenvalues", 0), ("eigenvectors", 1))

    def backward(self, gL, gV=None):
        L, V = self.saved_tensors
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
    return eig_result(*record((w, v), LinalgEigBackward0, (A,), (OUT, OUT[1]), real_input=A._data.dtype.kind == "f"))


@op("linalg.eigvals", variants="function out", batch=batch_matrices, autocast="fp32")
def eigvals(A: Tensor) -> Tensor:
    """The eigenvalues of square matrices (complex, in LAPACK's order)."""
    return eig(A)[0]


# -- conjugate transposes ------------------------------------------------------------------------------
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
