"""``tinytorch.autograd.profiler_util``: what a profile hands back, at PyTorch's module path: ``FunctionEvent`` (one
range: an op or a ``record_function`` block, its input shapes and its children), ``FunctionEventAvg`` (the events of
one key summed), ``EventList`` (``key_averages``, ``table`` in PyTorch's layout, ``export_chrome_trace``).

Times are microseconds of wall-clock time on the recording thread, as PyTorch's "CPU time" is; a range's self time
is its total less its children's totals."""
from __future__ import annotations

import json
import os

__all__ = ["FunctionEvent", "FunctionEventAvg", "EventList", "Interval"]


class Interval:
    """A range's start and end in µs since the profile began."""

    def __init__(self, start: float, end: float):
        self.start, self.end = start, end

    def elapsed_us(self) -> float:
        return self.end - self.start


def _format_time(time_us: float) -> str:
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us: float, total_us: float) -> str:
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


class _Formatted:
    """The ``*_str`` spellings of the times, and the per-call average, as PyTorch's events have them."""

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)

    # no accelerator and no memory accounting: the device and memory columns stay at zero
    device_time_total = self_device_time_total = device_time = 0.0
    cpu_memory_usage = self_cpu_memory_usage = device_memory_usage = self_device_memory_usage = 0
    flops = 0
    node_id = -1
    is_async = is_remote = is_legacy = False
    overload_name = ""
    use_device = None


class FunctionEvent(_Formatted):
    """One recorded range. ``cpu_children`` are the ranges that opened inside it on the same thread."""

    def __init__(self, id: int, name: str, thread: int, start_us: float, end_us: float, input_shapes=None,
                 is_user_annotation: bool = False, sequence_nr: int = -1):
        self.id, self.name, self.thread = id, name, thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = [] if input_shapes is None else input_shapes
        self.is_user_annotation = is_user_annotation
        self.sequence_nr = sequence_nr
        self.cpu_children: list = []
        self.cpu_parent = None
        self.stack: list = []
        self.count = 1
        self.concrete_inputs: list = []
        self.kwinputs: dict = {}
        self.device_type = "DeviceType.CPU"

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start:.0f} end_us={self.time_range.end:.0f} "
                f"cpu_children={[c.id for c in self.cpu_children]} input_shapes={self.input_shapes}>")


class FunctionEventAvg(_Formatted):
    """The events of one key (and, when grouped so, one list of input shapes) together."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.input_shapes = None
        self.stack = None
        self.cpu_parent = None
        self.cpu_children = None
        self.is_user_annotation = False
        self.device_type = "DeviceType.CPU"

    def add(self, other) -> "FunctionEventAvg":
        if self.key is None:  # the first event names the group
            self.key, self.input_shapes, self.stack = other.key, other.input_shapes, other.stack
            self.cpu_parent, self.cpu_children = other.cpu_parent, other.cpu_children
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    __iadd__ = add

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>")


def _step_key(name: str) -> str:
    # every ProfilerStep#N of a schedule is one row, as in PyTorch
    return "ProfilerStep*" if name.startswith("ProfilerStep#") else name


class EventList(list):
    """The events of a profile, in the order they started."""

    def __init__(self, *args, use_device=None, profile_memory: bool = False, with_flops: bool = False):
        super().__init__(*args)
        self._use_device, self._profile_memory, self._with_flops = use_device, profile_memory, with_flops

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> "EventList":
        """One ``FunctionEventAvg`` per key (per key and input shapes when asked), in order of first appearance."""
        stats: dict = {}
        for e in self:
            key = (_step_key(e.key), e.is_user_annotation)
            if group_by_input_shapes:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            avg = stats.get(key)
            if avg is None:
                avg = stats[key] = FunctionEventAvg()
                avg.key = key[0]
                avg.input_shapes, avg.stack = e.input_shapes, e.stack
                avg.cpu_parent, avg.cpu_children = e.cpu_parent, e.cpu_children
                avg.is_user_annotation = e.is_user_annotation
            avg.add(e)
        averages = EventList(stats.values(), use_device=self._use_device, profile_memory=self._profile_memory,
                             with_flops=self._with_flops)
        for a in averages:
            a.stack = a.stack[:group_by_stack_n]
            if not group_by_input_shapes:
                a.input_shapes = ""
        return averages

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
        total.key = "Total"
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """The summary PyTorch prints: one row per event (or average), ``sort_by`` an attribute such as
        ``"cpu_time_total"``, ``"self_cpu_time_total"`` or ``"count"`` (largest first)."""
        return _table(self, sort_by, row_limit, max_name_column_width, max_shapes_column_width, header,
                      top_level_events_only, time_unit)

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (JSON ``traceEvents``: one complete event per range, its input
        shapes among its args), which chrome://tracing and Perfetto open."""
        pid = os.getpid()
        trace = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}}]
        threads = sorted({e.thread for e in self})
        trace += [{"ph": "M", "name": "thread_name", "pid": pid, "tid": t, "args": {"name": f"thread {t}"}}
                  for t in threads]
        for e in self:
            args = {"External id": e.id}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
            trace.append({"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op", "name": e.name,
                          "pid": pid, "tid": e.thread, "ts": round(e.time_range.start, 3),
                          "dur": round(e.cpu_time_total, 3), "args": args})
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace}, f)


def _table(events, sort_by, row_limit, max_name_width, max_shapes_width, header, top_level_only, time_unit) -> str:
    """PyTorch's ``_build_table`` layout: a name column as wide as the longest key plus 4 (at most
    ``max_name_width``), 12-wide number columns, two spaces after every column, the input shapes last
    when any were recorded, and the total of the self times below."""
    if len(events) == 0:
        return ""
    has_shapes = any(e.input_shapes for e in events)
    if sort_by is not None:
        events = sorted(events, key=lambda e: getattr(e, sort_by.replace("cuda", "device").replace("xpu", "device")),
                        reverse=True)
    name_width = min(max(len(e.key) for e in events) + 4, max_name_width)
    heads = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_width] + [12] * (len(heads) - 1)
    if has_shapes:
        heads.append("Input Shapes")
        widths.append(min(max(len(str(e.input_shapes)) for e in events) + 4, max_shapes_width))
    row = "".join("{:>" + str(w) + "}  " for w in widths)
    sep = "".join("-" * w + "  " for w in widths)

    def fmt(us: float) -> str:
        return {"s": f"{us / 1e6:.3f}s", "ms": f"{us / 1e3:.3f}ms", "us": f"{us:.3f}us"}.get(time_unit) \
            or _format_time(us)

    total = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * (sum(widths) + 2 * len(widths) - 2), header]
    if top_level_only:
        lines += ["=" * (sum(widths) + 2 * len(widths) - 2), "This report only display top-level ops statistics"]
    lines += [sep, row.format(*heads), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if len(name) >= max_name_width - 3:
            name = name[:max_name_width - 3] + "..."
        cells = [name, _format_time_share(e.self_cpu_time_total, total), fmt(e.self_cpu_time_total),
                 _format_time_share(e.cpu_time_total, total), fmt(e.cpu_time_total), fmt(e.cpu_time), e.count]
        if has_shapes:
            cells.append(str(e.input_shapes)[:widths[-1]])
        lines.append(row.format(*cells))
    lines += [sep, f"Self CPU time total: {fmt(total)}"]
    return "\n".join(lines) + "\n"
