"""``tinytorch.autocast``: accepted as a context manager and decorator. Autocast that PyTorch would
disable (CUDA absent, an unsupported CPU dtype, ``enabled=False``) is disabled with PyTorch's warning.
CPU autocast casts as PyTorch's CPU autocast does (``_autocast_lists``): the lower-precision ops
(linear, matmul, conv...) take their floating inputs in the autocast dtype, the float32 ops (losses,
prod, cdist...) in float32; every other op runs on the dtypes it is given."""
from __future__ import annotations

import functools
import warnings

# whether CUDA is there is the accelerator's question (tinytorch.cuda builds its deprecated amp spelling on this
# package, so this package does not ask it)
from .. import _dtype, accelerator as _accelerator
from . import _autocast_lists

_DEVICE_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, "
                 "meta, hpu, mtia, privateuseone")
_enabled = {"cpu": False, "cuda": False}


_CPU_DEFAULT = _dtype.bfloat16  # PyTorch's default CPU autocast dtype


def is_autocast_available(device_type: str) -> bool:
    return device_type == "cpu"


def is_autocast_enabled(device_type: str | None = None) -> bool:
    return _enabled.get(device_type or "cuda", False)


def get_autocast_dtype(device_type: str):
    if device_type == "cpu":
        return _autocast_lists.cpu_dtype() or _CPU_DEFAULT
    return _dtype.float16


class autocast:
    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type.split(":")[0] not in _DEVICE_TYPES.split(", "):
            raise RuntimeError(f"Expected one of {_DEVICE_TYPES} device type at start of device string: {device_type}")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = True if cache_enabled is None else cache_enabled
        if enabled and device_type == "cuda" and not _accelerator.is_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            enabled = False
        elif enabled and device_type == "cpu" and self.fast_dtype not in (_dtype.bfloat16, _dtype.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          UserWarning, stacklevel=2)
            enabled = False
        elif enabled and device_type != "cpu":
            warnings.warn(f"User provided device_type of '{device_type}', but the device is not available. "
                          "Disabling autocast.", UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self._prev = _enabled.get(self.device, False)
        self._prev_dtype = _autocast_lists.cpu_dtype()
        _enabled[self.device] = self._enabled
        if self.device == "cpu":
            _autocast_lists.set_cpu(self.fast_dtype if self._enabled else None)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _enabled[self.device] = self._prev
        if self.device == "cpu":
            _autocast_lists.set_cpu(self._prev_dtype if self._prev else None)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast
