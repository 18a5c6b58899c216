"""``tinytorch._C._profiler``: where PyTorch's C++ profiler binds ``ProfilerActivity`` (the enum prints and pickles as
``torch._C._profiler.ProfilerActivity``); ours is defined with the profiler."""
from ..profiler.profiler import ProfilerActivity

__all__ = ["ProfilerActivity"]
