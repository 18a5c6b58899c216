"""``tinytorch.cuda.amp`` and ``tinytorch.cpu.amp``: PyTorch's deprecated per-device spellings, which
warn and forward to ``tinytorch.amp`` with the device filled in."""
from __future__ import annotations

import warnings

from .. import _dtype
from . import autocast_mode, grad_scaler


class CudaGradScaler(grad_scaler.GradScaler):
    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class CudaAutocast(autocast_mode.autocast):
    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", dtype=_dtype.float16 if dtype is None else dtype, enabled=enabled,
                         cache_enabled=cache_enabled)


class CpuAutocast(autocast_mode.autocast):
    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


CudaGradScaler.__name__ = CudaGradScaler.__qualname__ = "GradScaler"
CudaAutocast.__name__ = CudaAutocast.__qualname__ = "autocast"
CpuAutocast.__name__ = CpuAutocast.__qualname__ = "autocast"
