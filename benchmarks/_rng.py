"""The random-number measurements: one worker task and its table.

Each case is timed in a fresh process per library (bench.py interleaves them round by round),
as the min over repeats of a loop of calls, on one thread. Targets (issue 8): float32
``randn(1M)`` at most 5x PyTorch, ``randperm(60000)`` at most 5 ms, ``nn.Linear(784, 512)``'s
initialisation at most 2x PyTorch."""

from __future__ import annotations

# case: (label, target ratio to PyTorch or None, target in ms or None)
CASES = {
    "randn_f32_1m": ("randn(1M) float32", 5.0, None),
    "randn_f64_1m": ("randn(1M) float64", None, None),
    "rand_f32_1m": ("rand(1M) float32", None, None),
    "randperm_60k": ("randperm(60000)", None, 5.0),
    "linear_init": ("nn.Linear(784, 512) init", 2.0, None),
    "dropout_64x512": ("F.dropout on (64, 512), train", None, None),
}


def _thunks(lib) -> dict:
    x = lib.randn(64, 512)
    return {
        "randn_f32_1m": lambda: lib.randn(1_000_000),
        "randn_f64_1m": lambda: lib.randn(1_000_000, dtype=lib.float64),
        "rand_f32_1m": lambda: lib.rand(1_000_000),
        "randperm_60k": lambda: lib.randperm(60000),
        "linear_init": lambda: lib.nn.Linear(784, 512),
        "dropout_64x512": lambda: lib.nn.functional.dropout(x, 0.2, True),
    }


def rng(lib, p: dict) -> dict:
    """ms per call of each case (min of repeats), after ``manual_seed(0)``."""
    import _common as common  # numpy: only in the worker, the parent stays light

    clock = common.CLOCKS[p["clock"]]
    lib.manual_seed(0)
    return {"rng_ms": {name: common.per_call_us(fn, p["repeats"], clock, target_s=0.05) / 1e3
                       for name, fn in _thunks(lib).items()}}


def rng_table(s: dict) -> str:
    """A row per case: both libraries' ms, the ratio, and the target where there is one."""
    from _report import _Table, _div, _fmt, _mark

    ours = s.get("tinytorch", {}).get("rng_ms") or {}
    theirs = s.get("torch", {}).get("rng_ms") or {}
    t = _Table(["random numbers (1 thread)", "PyTorch (ms)", "tinytorch (ms)", "tinytorch vs PyTorch",
                "target", "met"])
    for name, (label, ratio_limit, ms_limit) in CASES.items():
        a, b = ours.get(name), theirs.get(name)
        ratio = _div(a, b)
        if ratio_limit is not None:
            target, met = f"≤ {ratio_limit:.0f}x PyTorch", None if ratio is None else ratio <= ratio_limit
        elif ms_limit is not None:
            target, met = f"≤ {ms_limit:.0f} ms", None if a is None else a <= ms_limit
        else:
            target, met = "—", None
        t.row(label, _fmt(b, 1, 2), _fmt(a, 1, 2), f"{_fmt(ratio)}x" if ratio is not None else "—", target,
              _mark(met) if target != "—" else "")
    return t.text() + (
        "\n\nEach library in its own fresh process per round (interleaved), ms per call = min over "
        "repeats of a timed loop; the figures are medians over rounds. Both produce the same bits."
    )
