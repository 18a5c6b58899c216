"""Padding layers: ``ConstantPad*``/``ZeroPad*``, ``ReflectionPad*``, ``ReplicationPad*`` and ``CircularPad*``
for 1, 2 and 3 padded dims, each a call to ``F.pad`` with its mode."""
from __future__ import annotations

from .. import functional as F
from .module import Module
from ...tensor import Tensor


def _padding(padding, n: int) -> tuple:
    if isinstance(padding, (list, tuple)):
        return tuple(padding)
    return (padding,) * n


class _ConstantPadNd(Module):
    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, input) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``: (left, right)."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _padding(padding, 2)


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``: (left, right, top, bottom)."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _padding(padding, 4)


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with ``value``: (left, right, top, bottom, front, back)."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _padding(padding, 6)


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ModePadNd(Module):
    _mode = ""
    _n = 2

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _padding(padding, self._n)

    def forward(self, input) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


def _mode_pad(name: str, mode: str, n: int, doc: str):
    return type(name, (_ModePadNd,), {"_mode": mode, "_n": n, "__doc__": doc, "__module__": __name__})


ReflectionPad1d = _mode_pad("ReflectionPad1d", "reflect", 2, "Pad the last dim with its reflection.")
ReflectionPad2d = _mode_pad("ReflectionPad2d", "reflect", 4, "Pad the last two dims with their reflection.")
ReflectionPad3d = _mode_pad("ReflectionPad3d", "reflect", 6, "Pad the last three dims with their reflection.")
ReplicationPad1d = _mode_pad("ReplicationPad1d", "replicate", 2, "Pad the last dim by repeating its edge.")
ReplicationPad2d = _mode_pad("ReplicationPad2d", "replicate", 4, "Pad the last two dims by repeating their edges.")
ReplicationPad3d = _mode_pad("ReplicationPad3d", "replicate", 6, "Pad the last three dims by repeating their edges.")
CircularPad1d = _mode_pad("CircularPad1d", "circular", 2, "Pad the last dim by wrapping around.")
CircularPad2d = _mode_pad("CircularPad2d", "circular", 4, "Pad the last two dims by wrapping around.")
CircularPad3d = _mode_pad("CircularPad3d", "circular", 6, "Pad the last three dims by wrapping around.")
