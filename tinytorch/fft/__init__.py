"""``tinytorch.fft``: the discrete Fourier transforms of ``torch.fft``, declared in ``ops/fft.py``."""
from __future__ import annotations

from .._ops._core import registry as _registry

globals().update(_registry.namespace("fft"))
