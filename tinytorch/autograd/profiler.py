"""``tinytorch.autograd.profiler``: PyTorch's older profiler API over the same recorder as ``tinytorch.profiler``
(``profile(enabled=True, record_shapes=...)``, ``function_events``, ``key_averages``, ``table``). ``emit_nvtx`` and
``emit_itt`` annotate every op for NVIDIA's and Intel's external profilers, which tinytorch has no hooks for: entering
one enabled refuses (disabled, they do nothing, as in PyTorch)."""
from __future__ import annotations

from ..profiler import profile as _profile, record_function  # noqa: F401
from .profiler_util import EventList, FunctionEvent, FunctionEventAvg  # noqa: F401

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg", "emit_nvtx", "emit_itt"]


class profile(_profile):
    """``with torch.autograd.profiler.profile() as prof:``; ``enabled=False`` records nothing."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None, record_shapes: bool = False,
                 with_flops: bool = False, profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True, **_unused):
        super().__init__(record_shapes=record_shapes, profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules)
        self.enabled = enabled

    def start(self) -> None:
        if self.enabled:
            super().start()

    def stop(self) -> None:
        if self.enabled:
            super().stop()

    @property
    def function_events(self) -> EventList:
        return self.events()

    def total_average(self):
        return self.events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self.events().self_cpu_time_total


class _ExternalRanges:
    _tool = ""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self):
        if self.enabled:
            raise NotImplementedError(f"tinytorch cannot emit {self._tool} ranges: its ops have no profiler hooks "
                                      f"for {self._tool}")
        return self

    def __exit__(self, *exc):
        return False


class emit_nvtx(_ExternalRanges):
    _tool = "NVTX (CUDA)"


class emit_itt(_ExternalRanges):
    _tool = "Intel ITT"
