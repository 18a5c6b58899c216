"""``tinytorch.profiler``: ``profile`` records every op the profiling thread runs under PyTorch's ATen name, with its
input shapes (``record_shapes=True``) and the nested ATen calls PyTorch's CPU build makes for it, and the
``record_function`` ranges; ``key_averages().table()`` prints PyTorch's table, ``export_chrome_trace`` writes a
trace for chrome://tracing or Perfetto, and ``schedule`` + ``on_trace_ready`` record chosen steps of a loop.

What tinytorch cannot measure it leaves out: there is no accelerator (``ProfilerActivity.CUDA`` records nothing) and
no allocator to watch (``profile_memory`` adds no memory columns); the backward pass is not recorded (its
formulas are not PyTorch's backward kernels).
Times are wall-clock on the recording thread, as PyTorch's CPU times are; an op's nested calls are PyTorch's, not
observed (``_aten.py``), so the row that computes carries the op's time and the others none."""
from __future__ import annotations

from .profiler import (ProfilerAction, ProfilerActivity, kineto_available, profile, record_function, schedule,
                       supported_activities, tensorboard_trace_handler)

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler", "supported_activities", "kineto_available"]
