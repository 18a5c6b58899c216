"""``tinytorch.cpu.amp``: PyTorch's deprecated per-device spelling, which warns and forwards to
``tinytorch.amp`` with the device filled in (``tinytorch.cuda.amp``'s are in that package, in PyTorch's files)."""
from __future__ import annotations

import warnings

from . import autocast_mode


class CpuAutocast(autocast_mode.autocast):
    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


CpuAutocast.__name__ = CpuAutocast.__qualname__ = "autocast"
