"""``parametrizations.orthogonal`` (PyTorch keeps it in parametrizations.py; here apart, with the matrix maps it needs).

The weight is the image of an unconstrained tensor X under a map onto the orthogonal (or unitary)
matrices: ``matrix_exp`` or ``cayley`` of the skew part of X's lower triangle, or ``householder``
(the product of the reflectors below X's diagonal). With ``use_trivialization`` (the default) the
result is multiplied by a stored orthogonal ``base``, and assigning a matrix stores it (completed to
a square one with PyTorch's random columns, then orthogonalised by QR) as the base with X = -I."""
from __future__ import annotations

from enum import Enum, auto

import numpy as np

from ... import linalg
from ..._dtype_info import finfo
from ...autograd.grad_mode import no_grad
from ..._ops.creation.factory import eye, zeros_like
from ..._ops._core.lazy_scipy import scipy_linalg
from ..._ops.pointwise.binary import allclose
from ..._ops.shape.join import cat
from ..._ops.linalg.matrix_functions import matrix_exp
from ...tensor import Tensor, _make
from ..._ops.random.sampling import randn
from ..modules.module import Module
from . import parametrize


def _geqrf(A: Tensor):
    """LAPACK's geqrf over the last two dims: (reflectors and R packed, tau); no gradient (as PyTorch)."""
    a = A._data
    batch = a.shape[:-2]
    m, n = a.shape[-2:]
    packed = np.empty_like(a)
    tau = np.empty(batch + (min(m, n),), dtype=a.dtype)
    flat_a, flat_p, flat_t = a.reshape(-1, m, n), packed.reshape(-1, m, n), tau.reshape(-1, min(m, n))
    for i in range(flat_a.shape[0]):
        (geqrf,) = scipy_linalg().lapack.get_lapack_funcs(("geqrf",), (flat_a[i],))
        qr, t, _, _ = geqrf(flat_a[i])
        flat_p[i], flat_t[i] = qr, t
    return _make(packed), _make(tau)


def _is_orthogonal(Q: Tensor) -> bool:
    n, k = Q.size(-2), Q.size(-1)
    return allclose(Q.mH @ Q, eye(k, dtype=Q.dtype), atol=10.0 * n * finfo(Q.dtype).eps)


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of A = QR with diag(R) real and non-negative (A tall)."""
    X, tau = _geqrf(A)
    Q = linalg.householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:  # work on the tall form
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH  # skew-symmetric (skew-Hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:  # (I - A/2)^-1 (I + A/2)
                Id = eye(n, dtype=A.dtype)
                Q = linalg.solve(Id.add(A, alpha=-0.5), Id.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            # X's diagonal holds the signs (+-1); as ints, so that it is neither differentiated nor updated
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape "
                             f"{Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            # Householder: the reflectors of Q's QR, with R's diagonal made positive (signs on X's diagonal)
            A, tau = _geqrf(Q)
            diag = A.diagonal(dim1=-2, dim2=-1)
            diag.sign_()
            diag[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:  # complete Q to a square matrix with random columns (PyTorch's draw), then orthogonalise
            extra = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype)
            Q = _make_orthogonal(cat([Q, extra], dim=-1))
        self.base = Q
        # -I: the householder map sends zeros(n, k) to eye(n, k) with this diagonal convention
        neg_id = zeros_like(Q_init)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrain ``module.<name>`` to be an orthogonal (unitary) matrix, or a batch of them."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrize.register_parametrization(module, name, _Orthogonal(weight, orth_enum,
                                                                    use_trivialization=use_trivialization),
                                         unsafe=True)
    return module
