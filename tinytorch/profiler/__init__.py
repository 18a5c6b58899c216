"""``tinytorch.profiler``: ``profile`` records the wall-clock and CPU ranges of ``record_function``
blocks and of the ops called through their public spellings (``aten::add`` for ``x + y``; see ``_ops``),
and summarises them with ``key_averages().table()``; ``export_chrome_trace`` writes a Chrome trace."""
from __future__ import annotations

import enum
import json
import time

from . import _ops

__all__ = ["profile", "record_function", "ProfilerActivity", "schedule", "ProfilerAction",
           "tensorboard_trace_handler"]

_active: list = []  # the profiles now recording, innermost last


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0):
    """PyTorch's step schedule; ``profile`` here records every step regardless."""
    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD_AND_SAVE if pos == cycle - 1 else ProfilerAction.RECORD
    return action


def tensorboard_trace_handler(dir_name: str, worker_name=None, use_gzip: bool = False):
    raise NotImplementedError("tinytorch.profiler.tensorboard_trace_handler is not supported; call "
                              "prof.export_chrome_trace(path) instead")


class FunctionEvent:
    """One recorded range: its name, start (µs since the profile began) and CPU time in µs."""

    def __init__(self, name: str, start_us: float, wall_us: float, cpu_us: float, depth: int):
        self.name, self.key, self.time_range_start = name, name, start_us
        self.wall_time_us, self.cpu_time_total, self.depth = wall_us, cpu_us, depth
        self.self_cpu_time_total = cpu_us  # minus children's: set when the profile stops
        self.count = 1

    def __repr__(self) -> str:
        return f"<FunctionEvent name={self.name} cpu_time_total={self.cpu_time_total:.3f}us>"


class FunctionEventAvg:
    """The events of one name together: count, total and average CPU time in µs."""

    def __init__(self, key: str):
        self.key, self.count, self.cpu_time_total, self.self_cpu_time_total = key, 0, 0.0, 0.0

    def add(self, event: FunctionEvent) -> None:
        self.count += 1
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self) -> str:
        return f"<FunctionEventAvg key={self.key} count={self.count} cpu_time_total={self.cpu_time_total:.3f}us>"


def _fmt_us(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class EventList(list):
    """A list of FunctionEvent / FunctionEventAvg with PyTorch's summary table."""

    def key_averages(self, group_by_input_shape: bool = False) -> "EventList":
        groups: dict = {}
        for e in self:
            groups.setdefault(e.key, FunctionEventAvg(e.key)).add(e)
        return EventList(groups.values())

    def table(self, sort_by=None, row_limit: int = 100, max_name_column_width: int = 55, **_unused) -> str:
        rows = list(self)
        if sort_by is not None:
            rows.sort(key=lambda e: getattr(e, sort_by, 0.0), reverse=True)  # "cpu_time_total", "count", ...
        rows = rows[:row_limit] if row_limit and row_limit > 0 else rows
        total_self = sum(e.self_cpu_time_total for e in self) or 1.0
        width = min(max([len("Name"), *(len(e.key) for e in rows)]), max_name_column_width)
        heads = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        widths = [width] + [max(len(h), 12) for h in heads[1:]]
        line = "-" * (sum(widths) + 2 * (len(widths) - 1))

        def fmt(cells):
            return "  ".join(c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

        out = [line, fmt(heads), line]  # names right-aligned, as PyTorch's table
        for e in rows:
            out.append(fmt([e.key[:width], f"{100 * e.self_cpu_time_total / total_self:.2f}%",
                            _fmt_us(e.self_cpu_time_total), f"{100 * e.cpu_time_total / total_self:.2f}%",
                            _fmt_us(e.cpu_time_total), _fmt_us(e.cpu_time_total / max(e.count, 1)), str(e.count)]))
        out += [line, f"Self CPU time total: {_fmt_us(sum(e.self_cpu_time_total for e in self))}", ""]
        return "\n".join(out)


class profile:
    """``with profile() as prof:`` records the ``record_function`` ranges run inside it."""

    def __init__(self, *args, activities=None, schedule=None, on_trace_ready=None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, enabled: bool = True, use_cuda=None, use_device=None, **_unused):
        self.enabled, self.on_trace_ready = enabled, on_trace_ready
        self._events: list = []
        self._open: list = []
        self.step_num = 0

    def __enter__(self):
        if self.enabled:
            self._t0 = time.perf_counter()
            _active.append(self)
            _ops.instrument(record_function)
        return self

    def __exit__(self, *exc):
        if self.enabled and self in _active:
            _active.remove(self)
            if not _active:
                _ops.restore()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        return False

    start = __enter__

    def stop(self) -> None:
        self.__exit__(None, None, None)

    def step(self) -> None:
        self.step_num += 1

    def _push(self, name: str) -> list:
        frame = [name, time.perf_counter(), time.process_time(), 0.0]  # name, wall, cpu, children's cpu
        self._open.append(frame)
        return frame

    def _pop(self, frame: list) -> None:
        name, wall0, cpu0, children = frame
        cpu_us = (time.process_time() - cpu0) * 1e6
        event = FunctionEvent(name, (wall0 - self._t0) * 1e6, (time.perf_counter() - wall0) * 1e6, cpu_us,
                              len(self._open) - 1)
        event.self_cpu_time_total = max(cpu_us - children, 0.0)
        if frame in self._open:
            self._open.remove(frame)
        if self._open:
            self._open[-1][3] += cpu_us
        self._events.append(event)

    def events(self) -> EventList:
        return EventList(self._events)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        return self.events().key_averages()

    def table(self, *args, **kwargs) -> str:
        return self.events().table(*args, **kwargs)

    def export_chrome_trace(self, path: str) -> None:
        trace = [{"name": e.name, "ph": "X", "ts": e.time_range_start, "dur": e.wall_time_us, "pid": 0, "tid": 0,
                  "cat": "user_annotation"} for e in self._events]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)


class record_function:
    """``with record_function("label"):`` (or as a decorator) adds a range to the active profiles."""

    def __init__(self, name: str, args=None):
        self.name, self._frames = name, []

    def __enter__(self):
        self._frames = [(p, p._push(self.name)) for p in _active]
        return self

    def __exit__(self, *exc):
        for p, frame in self._frames:
            p._pop(frame)
        self._frames = []
        return False

    def __call__(self, fn):
        def wrapped(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)
        wrapped.__name__, wrapped.__doc__ = getattr(fn, "__name__", "wrapped"), fn.__doc__
        return wrapped
