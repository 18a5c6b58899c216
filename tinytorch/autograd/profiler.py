"""``tinytorch.autograd.profiler``: the legacy spelling of ``tinytorch.profiler``'s ``profile`` and
``record_function`` (same recorder: ``record_function`` ranges, no per-op rows)."""
from ..profiler import EventList, FunctionEvent, FunctionEventAvg, profile, record_function  # noqa: F401

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]
