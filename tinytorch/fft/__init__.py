"""``tinytorch.fft``: the discrete Fourier transforms of ``torch.fft``, declared in ``_ops/fft/fft.py``."""
from __future__ import annotations

from .._ops._core import registry as _registry

globals().update(_registry.namespace("fft"))
