"""``torch.cuda.amp.grad_scaler``: the deprecated CUDA spelling of ``tinytorch.amp.GradScaler``, which warns and
fills in the device."""
from __future__ import annotations

import warnings

from ...amp import grad_scaler as _amp_grad_scaler


class GradScaler(_amp_grad_scaler.GradScaler):
    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
