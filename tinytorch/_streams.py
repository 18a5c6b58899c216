"""``torch.Stream`` and ``torch.Event`` on the CPU, the one device tinytorch has: every op has finished when its
call returns, so a stream is always idle (``query()`` True, ``synchronize()`` returns at once), and, as in PyTorch's
CPU backend, anything that needs an event raises. Libraries name them in annotations and in device-generic code
(diffusers' offloading hooks)."""
from __future__ import annotations

from ._size import device as _device

__all__ = ["Stream", "Event"]

_NO_EVENTS = "cpu backend doesn't support events."


def _cpu(device) -> None:
    kind = "cpu" if device is None else _device(device).type
    if kind != "cpu":
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")


class Stream:
    """The CPU's stream: work on it is done by the time it is asked."""

    device_type, device_index, stream_id = 0, -1, 0

    def __init__(self, device=None, *, priority: int = 0) -> None:
        _cpu(device)

    @property
    def device(self):
        return _device("cpu")

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def wait_stream(self, stream) -> None:
        raise RuntimeError(_NO_EVENTS)

    def wait_event(self, event) -> None:
        raise RuntimeError(_NO_EVENTS)

    def record_event(self, event=None):
        raise RuntimeError(_NO_EVENTS)

    def __repr__(self) -> str:
        return f"torch.Stream device_type=cpu, device_index={self.device_index}, stream_id={self.stream_id}"


class Event:
    """A CPU event: made and queried as in PyTorch (always complete); recording one raises, as there."""

    def __init__(self, device=None, *, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:
        _cpu(device)

    @property
    def device(self):
        return _device("cpu")

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def record(self, stream=None) -> None:
        raise RuntimeError(_NO_EVENTS)

    def wait(self, stream=None) -> None:
        raise RuntimeError(_NO_EVENTS)

    def elapsed_time(self, end_event) -> float:
        raise RuntimeError(_NO_EVENTS)

    def __repr__(self) -> str:
        return "torch.Event device_type=cpu, device_index=-1, event_flag=0, event_id=0"
