"""``tinytorch.linalg``: norms, inverses, determinants, solves and factorizations, as ``torch.linalg``."""
from __future__ import annotations

from .._ops.linalg.solve import LinAlgError  # noqa: F401


# every op declared in torch.linalg (tinytorch/_ops/_core/registry.py)
from .._ops._core import registry as _registry  # noqa: E402

globals().update(_registry.namespace("linalg"))
