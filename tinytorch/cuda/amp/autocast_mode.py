"""``torch.cuda.amp.autocast_mode``: the deprecated CUDA spelling of ``tinytorch.amp.autocast``, which warns and
fills in the device (float16 unless a dtype is given)."""
from __future__ import annotations

import warnings

from ... import _dtype
from ...amp import autocast_mode as _amp_autocast_mode


class autocast(_amp_autocast_mode.autocast):
    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", dtype=_dtype.float16 if dtype is None else dtype, enabled=enabled,
                         cache_enabled=cache_enabled)
