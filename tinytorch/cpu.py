"""``tinytorch.cpu``: the CPU device module (``tinytorch.cpu.amp.autocast``, ``is_available``)."""
import types as _types

from .amp.legacy import CpuAutocast as _CpuAutocast

amp = _types.SimpleNamespace(autocast=_CpuAutocast)


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def synchronize(device=None) -> None:
    """Nothing runs asynchronously on the CPU."""


def current_device() -> str:
    return "cpu"
