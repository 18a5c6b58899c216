"""From raw per-round results to summary figures and the Markdown tables with the targets."""

from __future__ import annotations

import math
import statistics

IMPLS = ("torch", "tinytorch", "numpy")
CHAIN_LINEAR_LIMIT = 2.4  # 20k/10k backward time: 2 when linear, 4 when quadratic
OP_OVERHEAD_LIMIT_US = 3.0


def _ok(results: list) -> list:
    return [r for r in results if "error" not in r]


def _agg(results: list, key, how=statistics.median):
    """``how`` over the rounds of ``key`` (a field name or a function of one round's result)."""
    values = [key(r) if callable(key) else r[key] for r in _ok(results)]
    return float(how(values)) if values else None


def _first_error(results: list):
    return next((r["error"] for r in results if "error" in r), None)


def summarize(raw: dict) -> dict:
    """Per implementation: medians over rounds (import time: min), and errors of failed tasks."""
    out = {}
    for impl, tasks in raw.items():
        s = {"errors": {t: _first_error(rs) for t, rs in tasks.items() if _first_error(rs)}}
        if tasks.get("import"):
            s["import_s"] = _agg(tasks["import"], "import_s", min)
            s["import_rss_mib"] = _agg(tasks["import"], "rss_mib")
        if tasks.get("prebatched"):
            for key in ("epoch_s", "step_median_s", "peak_rss_mib"):
                s[f"prebatched_{key}"] = _agg(tasks["prebatched"], key)
        if tasks.get("quickstart"):
            for key in ("epoch_s", "load_per_batch_s", "load_s"):
                s[f"quickstart_{key}"] = _agg(tasks["quickstart"], key)
        micro = _ok(tasks.get("micro", []))
        if micro and "op_us" in micro[0]:
            ops = micro[0]["op_us"]
            s["op_us"] = {op: _agg(micro, lambda r, op=op: r["op_us"][op]) for op in ops}
        if micro and "numpy_op_us" in micro[0]:
            # paired in one process: the median over rounds of each round's difference
            s["numpy_op_us"] = {
                op: _agg(micro, lambda r, op=op: r["numpy_op_us"][op]) for op in ops
            }
            s["op_overhead_us"] = {
                op: _agg(micro, lambda r, op=op: r["op_us"][op] - r["numpy_op_us"][op])
                for op in ops
            }
        if micro:
            if "chain" in micro[0]:
                s["chain_backward_s"] = {
                    n: _agg(micro, lambda r, n=n: r["chain"][n]["backward_s"])
                    for n in micro[0]["chain"]
                }
            if "flop_bound" in micro[0]:
                s["flop_bound_step_s"] = _agg(micro, lambda r: r["flop_bound"]["step_s"])
                s["flop_bound_gflops"] = _agg(
                    micro, lambda r: r["flop_bound"]["step_flops"] / r["flop_bound"]["step_s"] / 1e9
                )
        rng = _ok(tasks.get("rng", []))
        if rng:
            s["rng_ms"] = {c: _agg(rng, lambda r, c=c: r["rng_ms"][c]) for c in rng[0]["rng_ms"]}
        cnn = _ok(tasks.get("cnn", []))
        if cnn and "step_median_s" in cnn[0]:
            s["cnn_step_s"] = _agg(cnn, "step_median_s")
        if cnn and "gemm_floor" in cnn[0]:
            s["cnn_step_s"] = _agg(cnn, lambda r: r["gemm_floor"]["step_s"])
            s["cnn_gemm_gflops"] = _agg(
                cnn, lambda r: r["gemm_floor"]["step_flops"] / r["gemm_floor"]["step_s"] / 1e9
            )
        acc = tasks.get("accuracy")
        if acc and "error" not in acc[0]:
            s["accuracy"] = acc[0]["mean_accuracy"]
            s["accuracy_runs"] = [r["accuracy"] for r in acc[0]["runs"]]
        out[impl] = s
    return out


def _div(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def _fmt(value, scale: float = 1.0, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value * scale:.{digits}f}"


def _mark(met) -> str:
    return "n/a" if met is None else ("✓" if met else "✗")


class _Table:
    def __init__(self, header: list) -> None:
        self.lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]

    def row(self, *cells) -> None:
        self.lines.append("| " + " | ".join(str(c) for c in cells) + " |")

    def text(self) -> str:
        return "\n".join(self.lines)


def _ratio_row(table, label, s, key, scale, digits, ref_impl, limit, ref_name, values=True):
    """A row with the three values and tinytorch/ref against ``limit`` (None: no target)."""
    vals = [s.get(i, {}).get(key) if values else None for i in IMPLS]
    ratio = (
        _div(s.get("tinytorch", {}).get(key), s.get(ref_impl, {}).get(key)) if ref_impl else None
    )
    met = None if ratio is None or limit is None else ratio <= limit
    table.row(
        label,
        *(_fmt(v, scale, digits) for v in vals),
        f"{_fmt(ratio, digits=2)}x {ref_name}" if ratio is not None else "—",
        f"≤ {limit:.2f}x" if limit is not None else "—",
        _mark(met) if limit is not None else "",
    )


def main_table(s: dict, steps_per_epoch: int) -> str:
    """Epochs, steps, bound, import, memory, chain, accuracy: a row per figure, with its target."""
    t = _Table(
        ["measurement", "PyTorch", "tinytorch", "numpy", "tinytorch vs reference", "target", "met"]
    )
    tt, np_ = s.get("tinytorch", {}), s.get("numpy", {})
    _ratio_row(
        t,
        "quickstart epoch, DataLoader + ToTensor (s)",
        s,
        "quickstart_epoch_s",
        1,
        2,
        "torch",
        0.80,
        "PyTorch",
    )
    _ratio_row(
        t,
        "loader alone, per batch (ms)",
        s,
        "quickstart_load_per_batch_s",
        1e3,
        3,
        "torch",
        None,
        "PyTorch",
    )
    _ratio_row(
        t,
        "pre-batched step, median (ms)",
        s,
        "prebatched_step_median_s",
        1e3,
        3,
        "torch",
        1.0,
        "PyTorch",
    )
    _ratio_row(
        t,
        "pre-batched step vs numpy floor",
        s,
        "prebatched_step_median_s",
        1e3,
        3,
        "numpy",
        1.08,
        "numpy floor",
        values=False,
    )
    bound = np_.get("flop_bound_step_s")
    step = tt.get("prebatched_step_median_s")
    ratio = _div(step, bound)
    t.row(
        "pre-batched step vs FLOP bound (ms)",
        "",
        _fmt(step, 1e3, 3),
        f"{_fmt(bound, 1e3, 3)} (bound)",
        f"{_fmt(ratio)}x FLOP bound" if ratio else "—",
        "≤ 1.25x",
        _mark(None if ratio is None else ratio <= 1.25),
    )
    _ratio_row(t, "pre-batched epoch (s)", s, "prebatched_epoch_s", 1, 2, "torch", None, "PyTorch")
    t.row(
        f"FLOP bound: 8 matmuls per step, ×{steps_per_epoch} steps (s)",
        "",
        "",
        f"{_fmt(bound * steps_per_epoch if bound else None, 1, 2)} "
        f"({_fmt(np_.get('flop_bound_gflops'), 1, 0)} "
        "GFLOP/s)",
        "",
        "",
        "",
    )
    if any(s.get(i, {}).get("cnn_step_s") for i in IMPLS):
        _ratio_row(
            t, "CNN step, MNIST net, median (ms)", s, "cnn_step_s", 1e3, 1, "torch", 1.0, "PyTorch"
        )
        _ratio_row(
            t, "CNN step vs numpy GEMM floor", s, "cnn_step_s", 1e3, 1, "numpy", None, "GEMM floor",
            values=False,
        )
        t.row(
            "CNN GEMM floor: 11 products per step (ms)",
            "",
            "",
            f"{_fmt(np_.get('cnn_step_s'), 1e3, 1)} ({_fmt(np_.get('cnn_gemm_gflops'), 1, 0)} GFLOP/s)",
            "",
            "",
            "",
        )
    imp = tt.get("import_s")
    t.row(
        "import time (s, min of rounds)",
        *(_fmt(s.get(i, {}).get("import_s"), 1, 3) for i in IMPLS),
        f"{_fmt(_div(imp, s.get('torch', {}).get('import_s')))}x PyTorch",
        "≤ 0.200 s",
        _mark(None if imp is None else imp <= 0.2),
    )
    t.row(
        "memory after import (MiB)",
        *(_fmt(s.get(i, {}).get("import_rss_mib"), 1, 0) for i in IMPLS),
        "",
        "—",
        "",
    )
    _ratio_row(
        t,
        "peak memory, pre-batched epoch (MiB)",
        s,
        "prebatched_peak_rss_mib",
        1,
        0,
        "torch",
        0.50,
        "PyTorch",
    )
    overhead = tt.get("op_overhead_us")
    worst = max((us, op) for op, us in overhead.items()) if overhead else None
    t.row(
        "per-op overhead, worst op: tinytorch − numpy (µs)",
        "",
        "",
        "",
        f"{_fmt(worst[0], 1, 1)} µs ({worst[1]})" if worst else "—",
        f"≤ {OP_OVERHEAD_LIMIT_US:.0f} µs",
        _mark(None if worst is None else worst[0] <= OP_OVERHEAD_LIMIT_US),
    )
    chains = {i: s.get(i, {}).get("chain_backward_s") for i in ("torch", "tinytorch")}
    lengths = sorted(next((c for c in chains.values() if c), {}), key=int)
    for n in lengths:
        t.row(
            f"chain backward, {int(n):,} ops (ms)",
            _fmt((chains["torch"] or {}).get(n), 1e3, 1),
            _fmt((chains["tinytorch"] or {}).get(n), 1e3, 1),
            "",
            "",
            "",
            "",
        )
    if len(lengths) >= 2:
        ratios = {
            i: _div((c or {}).get(lengths[-1]), (c or {}).get(lengths[0]))
            for i, c in chains.items()
        }
        r = ratios["tinytorch"]
        t.row(
            f"chain {int(lengths[-1]) // 1000}k / {int(lengths[0]) // 1000}k backward time",
            _fmt(ratios["torch"]),
            _fmt(r),
            "",
            "2 = linear, 4 = quadratic",
            f"≤ {CHAIN_LINEAR_LIMIT}",
            _mark(None if r is None else r <= CHAIN_LINEAR_LIMIT),
        )
    acc_tt, acc_pt = tt.get("accuracy"), s.get("torch", {}).get("accuracy")
    if acc_tt is not None or acc_pt is not None:
        gap = None if acc_tt is None or acc_pt is None else (acc_tt - acc_pt) * 100
        t.row(
            "test accuracy, mean of seeds (%)",
            _fmt(acc_pt, 100, 2),
            _fmt(acc_tt, 100, 2),
            "",
            f"{_fmt(gap, 1, 2)} points" if gap is not None else "—",
            "within 1 point",
            _mark(None if gap is None else abs(gap) <= 1.0),
        )
    return t.text()


def op_table(s: dict) -> str:
    """µs per call of each small op, and tinytorch's overhead over the same numpy call."""
    t = _Table(
        [
            "op on (64, 512) float32",
            "numpy (µs)",
            "tinytorch (µs)",
            "PyTorch (µs)",
            "tinytorch − numpy (µs)",
            "met (≤ 3 µs)",
        ]
    )
    tt = s.get("tinytorch", {})
    ops = {i: s.get(i, {}).get("op_us") or {} for i in ("torch", "tinytorch")}
    ops["numpy"] = tt.get("numpy_op_us") or {}
    overhead = tt.get("op_overhead_us") or {}
    for op in ops["tinytorch"] or ops["torch"]:
        label = "matmul (64x512 @ 512x512)" if op == "matmul" else op
        over = overhead.get(op)
        t.row(
            label,
            _fmt(ops["numpy"].get(op), 1, 1),
            _fmt(ops["tinytorch"].get(op), 1, 1),
            _fmt(ops["torch"].get(op), 1, 1),
            _fmt(over, 1, 1),
            _mark(None if over is None else over <= OP_OVERHEAD_LIMIT_US),
        )
    return t.text() + (
        "\n\nnumpy: the same call, same arrays, timed in turn with tinytorch's in one process "
        "(min of repeats each); the overhead is the median over rounds of each round's difference."
    )


def error_notes(s: dict) -> list:
    """One line per task that failed, so a missing figure is explained rather than silent."""
    return [
        f"- {impl} {task} failed: {err}"
        for impl, v in s.items()
        for task, err in v.get("errors", {}).items()
    ]
