"""``tinytorch.linalg``: norms, inverses, determinants, solves and factorizations, as ``torch.linalg``."""
from __future__ import annotations

from ..ops.linalg import matmul  # noqa: F401
from ..ops.linalg_ext import (LinAlgError, cholesky, det, eigh, eigvalsh, inv, pinv, qr, slogdet, solve,  # noqa: F401
                              svd, svdvals)
from ..ops.vector_norm import linalg_norm as norm, matrix_norm, vector_norm  # noqa: F401
from ..ops.products import linalg_cross as cross  # noqa: F401


def inv_ex(A, *, check_errors: bool = False, out=None):
    """(inverse, info) — info is 0: a singular matrix raises instead."""
    from ..factory import zeros
    from .. import int32
    return inv(A), zeros(A.shape[:-2], dtype=int32)


# every op declared in torch.linalg (tinytorch/ops/_registry.py)
from ..ops import _registry  # noqa: E402

globals().update(_registry.namespace("linalg"))
