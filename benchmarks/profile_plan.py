"""Where a compiled step's time goes, op by op: every call its plans make in one step, each replayed alone.

    python benchmarks/profile_plan.py                       # the GPT-style S row (gpt), compiled, 1 thread
    python benchmarks/profile_plan.py --row gpt-large --repeat 9

``torch.compile(model)`` runs each captured graph as a plan (``tinytorch/_dynamo/replay.py``): straight-line
Python calling one function per node. This script records the calls (function, arguments) one step makes, then
times each call on its own arguments ``--repeat`` times and keeps the fastest: a figure per op that a busy
machine stretches far less than a whole step's (the fastest of several runs of a few-µs call is rarely
preempted). Printed: per plan and op, the calls a step makes, their summed µs, µs a call, and the share of the
sum; below, the step's own median CPU time, whose excess over the sum is the step's work outside the plans
(guards, the autograd engine, the optimizer) plus the cache misses a replay alone does not see.

In-place ops (a name ending in ``_``) are not replayed (a replay would change the state the next one reads).
PyTorch's side: ``torch.profiler`` over the eager step (its per-op self CPU time), which costs more per op than
this replay, so compare shares rather than µs."""
from __future__ import annotations

import argparse
import os
import sys
import time

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import bench_fast  # noqa: E402


def record_calls(row: str):
    """(step, [(plan title, op name, fn, args, kwargs), ...] of one step): the compiled row built, warmed up, and
    one step's plan calls recorded."""
    import tinytorch
    from tinytorch._dynamo import replay

    plans = []
    made = replay.Plan.__init__

    def keep(self, *args, **kwargs):
        made(self, *args, **kwargs)
        plans.append(self)

    replay.Plan.__init__ = keep
    try:
        tinytorch.set_num_threads(1)
        step = bench_fast._make(row, tinytorch, True)
        for _ in range(4):  # the capture, the plans, then warm steps
            step()
    finally:
        replay.Plan.__init__ = made
    calls: list = []
    originals = []
    for plan in plans:
        names = plan.run.__globals__
        for name, fn in list(names.items()):
            if callable(fn) and not name.startswith("__") and fn is not plan.run:
                def spy(*args, _fn=fn, _key=(plan.run.__name__, name), **kwargs):
                    calls.append((*_key, _fn, args, kwargs))
                    return _fn(*args, **kwargs)
                originals.append((names, name, fn))
                names[name] = spy
    try:
        step()
    finally:
        for names, name, fn in originals:
            names[name] = fn
    return step, calls


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--row", default="gpt", choices=sorted(bench_fast.COMPILED_ROWS))
    p.add_argument("--repeat", type=int, default=15, help="runs of each call alone; the fastest is kept")
    p.add_argument("--steps", type=int, default=20, help="whole steps timed for the step's own CPU time")
    p.add_argument("--top", type=int, default=30)
    args = p.parse_args(argv)

    import tinytorch

    step, calls = record_calls(args.row)
    totals: dict = {}
    with tinytorch.no_grad():
        for title, name, fn, a, kw in calls:
            if name.endswith("_"):
                continue
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.process_time()
                fn(*a, **kw)
                best = min(best, time.process_time() - t0)
            entry = totals.setdefault((title, name), [0.0, 0])
            entry[0] += best
            entry[1] += 1
    whole = sum(t for t, _ in totals.values())
    steps = []
    for _ in range(args.steps):
        t0 = time.process_time()
        step()
        steps.append(time.process_time() - t0)
    steps.sort()
    print(f"row {args.row}, compiled, 1 thread: each plan call alone, fastest of {args.repeat} (CPU time)\n")
    print(f"{'plan':10s} {'op':40s} {'calls':>5s} {'µs':>9s} {'µs/call':>8s} {'share':>6s}")
    for (title, name), (t, n) in sorted(totals.items(), key=lambda kv: -kv[1][0])[:args.top]:
        print(f"{title:10s} {name:40s} {n:5d} {t * 1e6:9.1f} {t * 1e6 / n:8.1f} {t / whole:6.1%}")
    print(f"\nsum of the calls: {whole * 1e3:.2f} ms; the step: {steps[len(steps) // 2] * 1e3:.2f} ms "
          f"(median CPU time of {args.steps}); 1-minute load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
