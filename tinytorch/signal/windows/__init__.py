"""``tinytorch.signal.windows``: the window functions, declared with their ops in
``_ops/fft/windows.py``."""
from __future__ import annotations

from ..._ops._core import registry as _registry

globals().update(_registry.namespace("signal.windows"))
