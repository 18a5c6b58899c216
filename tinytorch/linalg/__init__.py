"""``tinytorch.linalg``: norms, inverses, determinants, solves and factorizations, as ``torch.linalg``."""
from __future__ import annotations

from ..ops.linalg_ext import LinAlgError  # noqa: F401


# every op declared in torch.linalg (tinytorch/ops/_registry.py)
from ..ops import _registry  # noqa: E402

globals().update(_registry.namespace("linalg"))
