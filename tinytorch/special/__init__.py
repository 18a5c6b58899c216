"""``tinytorch.special``: the special functions of ``torch.special``, declared with their ops."""
from __future__ import annotations

from .._ops._core import registry as _registry

globals().update(_registry.namespace("special"))
