"""``tinytorch.autocast``: accepted as a context manager and decorator. Autocast that PyTorch would
disable (CUDA absent, an unsupported CPU dtype, ``enabled=False``) is disabled with PyTorch's warning;
CPU autocast that PyTorch would run (bfloat16, float16) raises NotImplementedError naming the dtype,
as tinytorch does not cast ops to lower precision."""
from __future__ import annotations

import functools
import warnings

from .. import _dtype, cuda as _cuda

_DEVICE_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, "
                 "meta, hpu, mtia, privateuseone")
_enabled = {"cpu": False, "cuda": False}


class _BFloat16:
    """PyTorch's default CPU autocast dtype, which tinytorch has no tensors of (named in errors only)."""

    def __repr__(self) -> str:
        return "torch.bfloat16"


_CPU_DEFAULT = _BFloat16()


def is_autocast_available(device_type: str) -> bool:
    return device_type == "cpu"


def is_autocast_enabled(device_type: str | None = None) -> bool:
    return _enabled.get(device_type or "cuda", False)


def get_autocast_dtype(device_type: str):
    return _CPU_DEFAULT if device_type == "cpu" else _dtype.float16


class autocast:
    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type.split(":")[0] not in _DEVICE_TYPES.split(", "):
            raise RuntimeError(f"Expected one of {_DEVICE_TYPES} device type at start of device string: {device_type}")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = True if cache_enabled is None else cache_enabled
        if enabled and device_type == "cuda" and not _cuda.is_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            enabled = False
        elif enabled and device_type == "cpu" and self.fast_dtype is not _CPU_DEFAULT \
                and getattr(self.fast_dtype, "name", None) != "float16":
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
        if self._enabled:
            dtype = self.fast_dtype if self.fast_dtype is _CPU_DEFAULT else f"tinytorch.{self.fast_dtype.name}"
            raise NotImplementedError(
                f"autocast to {dtype} on the CPU is not implemented in tinytorch (ops are not cast to lower "
                "precision); run in float32 with autocast(..., enabled=False)")
        self._prev = _enabled.get(self.device, False)
        _enabled[self.device] = False
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _enabled[self.device] = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast
