"""The multivariate normal distribution, by covariance, precision or lower-Cholesky scale."""
from __future__ import annotations

import math

import tinytorch as torch

from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, broadcast_shapes, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    return torch.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _solve_lower(L, B):
    """``L^-1 B`` for lower-triangular L; only L's lower triangle is read (and gets gradient),
    as with ``solve_triangular(upper=False)``."""
    L = L.tril()
    shape = broadcast_shapes(L.shape[:-2], B.shape[:-2])
    return torch.linalg.solve(L.expand(tuple(shape) + tuple(L.shape[-2:])),
                              B.expand(tuple(shape) + tuple(B.shape[-2:])))


def _batch_mahalanobis(bL, bx):
    """``|L^-1 x|^2`` over the last dim, broadcasting L's batch dims against x's."""
    return _solve_lower(bL, bx.unsqueeze(-1)).squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P):
    # the Cholesky factor of P^-1 from the (flipped) Cholesky factor of P, without inverting P
    Lf = torch.linalg.cholesky(torch.flip(P, (-2, -1)))
    L_inv = torch.transpose(torch.flip(Lf, (-2, -1)), -2, -1)
    eye = torch.eye(P.shape[-1], dtype=P.dtype)
    return _solve_lower(L_inv, eye.expand(tuple(L_inv.shape)))


class MultivariateNormal(Distribution):
    """MultivariateNormal(loc, covariance_matrix=... | precision_matrix=... | scale_tril=...)."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        for name, matrix in (("scale_tril matrix", scale_tril), ("covariance_matrix", covariance_matrix),
                             ("precision_matrix", precision_matrix)):
            if matrix is not None:
                if matrix.dim() < 2:
                    raise ValueError(f"{name} must be at least two-dimensional, "
                                     "with optional leading batch dimensions")
                batch_shape = broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
                attr = name.split()[0]
                setattr(self, attr, matrix.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = torch.Size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self.event_shape) * 2
        new.loc = self.loc.expand(tuple(batch_shape) + tuple(self.event_shape))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return torch.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        L_inv = _solve_lower(L, torch.eye(L.shape[-1], dtype=L.dtype).expand(tuple(L.shape)))
        return torch.matmul(L_inv.mT, L_inv).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
