"""``tinytorch.masked``: the masked reductions and normalizations of ``torch.masked`` (strided tensors
with a boolean mask), declared with their ops in ``_ops/masked/reductions.py``."""
from __future__ import annotations

from .._ops._core import registry as _registry

globals().update(_registry.namespace("masked"))
