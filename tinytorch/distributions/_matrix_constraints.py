"""The matrix-valued constraints (event_dim 2): triangular, Cholesky factors, square, symmetric and
positive (semi)definite matrices. ``constraints.py`` re-exports them and their instances under
PyTorch's names (the constraints on matrices, apart from the scalar and vector ones)."""
from __future__ import annotations

import numpy as np

import tinytorch as torch

from ._constraint_base import Constraint


def _all_last(mask):
    return mask.reshape(tuple(mask.shape[:-2]) + (-1,)).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _all_last(value.tril() == value)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _all_last(value.tril() == value) & positive_diagonal


class _CorrCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        tol = float(np.finfo(value.numpy().dtype).eps) * value.size(-1) * 10
        row_norm = torch.linalg.norm(value.detach(), dim=-1)
        unit_row_norm = (row_norm - 1.0).abs().le(tol).all(dim=-1)
        return _LowerCholesky().check(value) & unit_row_norm


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return torch.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype=torch.bool)


class _Symmetric(_Square):
    def check(self, value):
        square_check = super().check(value)
        if not bool(square_check.all()):
            return square_check
        return torch.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        sym_check = super().check(value)
        if not bool(sym_check.all()):
            return sym_check
        return torch.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        sym_check = super().check(value)
        if not bool(sym_check.all()):
            return sym_check
        # a Cholesky factorisation exists exactly for positive-definite matrices
        data = value.detach().numpy()
        flat = data.reshape((-1,) + data.shape[-2:])
        ok = []
        for m in flat:
            try:
                np.linalg.cholesky(m)
                ok.append(True)
            except np.linalg.LinAlgError:
                ok.append(False)
        return torch.tensor(np.array(ok, dtype=bool).reshape(data.shape[:-2]))
