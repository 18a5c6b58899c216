"""``tinytorch.profiler.profiler``: ``profile``, its ``schedule`` and the ``record_function`` ranges (see the package's
docstring)."""
from __future__ import annotations

import enum
import warnings

from ..autograd.grad_mode import _State
from ..autograd.profiler_util import EventList
from . import _recorder

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler", "supported_activities", "kineto_available"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


# PyTorch's enum is torch._C._profiler.ProfilerActivity, defined in C++ (tinytorch._C._profiler holds ours)
ProfilerActivity.__module__ = "tinytorch._C._profiler"


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    """What this build can record: the CPU only."""
    return {ProfilerActivity.CPU}


def kineto_available() -> bool:
    return True


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """PyTorch's step schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle steps, ``warmup`` steps
    recorded and thrown away, ``active`` steps recorded (the last of them saves), at most ``repeat`` cycles."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return schedule_fn


_warned_clearing: list = []  # PyTorch says once per process that a new cycle drops the last one's events


def _record_always(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name=None, use_gzip: bool = False):
    """An ``on_trace_ready`` handler writing ``<dir_name>/<worker>.<step>.pt.trace.json`` (a Chrome trace)."""
    import os
    import socket

    def handler(prof) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{worker}.{prof.step_num}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            import gzip
            import shutil
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)
    return handler


class profile:
    """``with profile(record_shapes=True) as prof: ...`` records the ops of the code inside (see the module's
    docstring); with ``schedule``, ``prof.step()`` ends each step and only the steps it marks are recorded."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda=None, custom_trace_id_callback=None, **_unused):
        self.activities = set(activities) if activities else supported_activities()
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.with_stack, self.with_flops, self.with_modules = with_stack, with_flops, with_modules
        self.schedule = schedule or _record_always
        self.record_steps = schedule is not None  # ProfilerStep#N ranges, as PyTorch adds them
        self.on_trace_ready = on_trace_ready
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.profiler = None  # the last finished recording's events (PyTorch: its profiler object)
        self._recorder = None
        self._step_range = None

    # -- the recording's life: PyTorch's prepare / start / stop trace, driven by the schedule's actions --------
    def _start_trace(self) -> None:
        if self.profiler is not None and not self.acc_events and not _warned_clearing:
            _warned_clearing.append(True)
            warnings.warn("Warning: Profiler clears events at the end of each cycle. Only events from the current "
                          "cycle will be reported. To keep events across cycles, set acc_events=True.", stacklevel=4)
        self._recorder = _recorder.Recorder(self.record_shapes)
        _recorder.start(self._recorder)

    def _stop_trace(self) -> None:
        if self._recorder is not None:
            _recorder.stop(self._recorder)
            kept = list(self.profiler) if self.acc_events and self.profiler is not None else []
            self.profiler = EventList(kept + self._recorder.events)
            self._recorder = None

    def _trace_ready(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _transit(self, prev, current) -> None:
        """PyTorch's (previous action, action) table: which recording starts, stops or is handed over."""
        A = ProfilerAction
        start, stop, ready = self._start_trace, self._stop_trace, self._trace_ready

        def warn(what):
            return lambda: warnings.warn(f"Incorrect schedule: {what}", stacklevel=4)
        actions = {
            (A.NONE, A.RECORD): [start], (A.NONE, A.RECORD_AND_SAVE): [start],
            (A.WARMUP, A.NONE): [warn("WARMUP followed by NONE")],
            (A.WARMUP, A.RECORD): [start], (A.WARMUP, A.RECORD_AND_SAVE): [start],
            (A.RECORD, A.NONE): [warn("RECORD followed by NONE"), stop],
            (A.RECORD, A.WARMUP): [warn("RECORD followed by WARMUP"), stop],
            (A.RECORD_AND_SAVE, A.NONE): [stop, ready], (A.RECORD_AND_SAVE, A.WARMUP): [stop, ready],
            (A.RECORD_AND_SAVE, A.RECORD): [stop, ready, start],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [stop, ready, start],
            (A.RECORD, None): [stop, ready], (A.RECORD_AND_SAVE, None): [stop, ready],
        }
        for action in actions.get((prev, current), ()):
            action()

    def start(self) -> None:
        self._transit(ProfilerAction.NONE, self.current_action)
        self._enter_step()

    def stop(self) -> None:
        self._exit_step()
        self._transit(self.current_action, None)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc) -> bool:
        self.stop()
        return False

    def step(self) -> None:
        """The next step of the profiled loop begins."""
        self._exit_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._enter_step()

    def _enter_step(self) -> None:
        if self.record_steps:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _exit_step(self) -> None:
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    # -- results -------------------------------------------------------------------------------------------------
    def events(self) -> EventList:
        """The finished recording's events in the order they started."""
        if self.profiler is None:
            raise AssertionError("Expected profiling results to be available; stop the profiler first")
        return self.profiler

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self.events().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def table(self, *args, **kwargs) -> str:
        return self.events().table(*args, **kwargs)

    def export_chrome_trace(self, path: str) -> None:
        self.events().export_chrome_trace(path)

    def add_metadata(self, key: str, value: str) -> None:
        """Accepted; tinytorch's traces carry no metadata."""

    def add_metadata_json(self, key: str, value: str) -> None:
        """Accepted; tinytorch's traces carry no metadata."""


class record_function:
    """``with record_function("label"):`` (or as a decorator) adds a range to the profile recording in this thread."""

    def __init__(self, name: str, args: str | None = None):
        self.name, self.args = name, args
        self._event = None
        self._recorder = None

    def __enter__(self):
        recorder = _State.recorder
        if recorder is not None:
            self._recorder, self._event = recorder, recorder.begin(self.name, [], user=True)
        return self

    def __exit__(self, *exc) -> bool:
        if self._event is not None:
            self._recorder.end(self._event)
            self._recorder = self._event = None
        return False

    def __call__(self, fn):
        def wrapped(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)
        wrapped.__name__, wrapped.__qualname__, wrapped.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        wrapped.__wrapped__ = fn
        return wrapped


# PyTorch defines it in torch.autograd.profiler, which torch.profiler re-exports; tinytorch.autograd.profiler
# re-exports ours, the profiler here needing it for its step ranges
record_function.__module__ = "tinytorch.autograd.profiler"
