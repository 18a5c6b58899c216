"""Where a threaded step's parallel regions lose time: each region of the pool timed from the outside.

    python benchmarks/trace_regions.py --row gpt_large --threads 2
    python benchmarks/trace_regions.py --row cnn --threads 2 --steps 5

For each kind of region (the body a kernel hands to ``parallel.run``, named by its function), per step: how
many ran, and on average the region's whole time, the calling thread's own part, how long after the region
started the pool's thread began its part (the start delay: waking a sleeping thread and handing it the
GIL), and that part's time. A main part much longer than the worker's, for the same amount of work, means
the calling thread's core was shared (OpenBLAS's idle threads spin on a core for a while after each GEMM);
the start delay is what a region costs before any work is split.

The rows are ``bench_threads.py``'s (``cnn``, ``gpt_small``, ``gpt_large``), run by tinytorch alone in this
process with ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and ``MKL_NUM_THREADS`` set to the thread count
before numpy is imported. Wall time; a few warm-up steps first. Nothing here is asserted: speed is only
measured, never tested."""
from __future__ import annotations

import argparse
import os
import sys
import time


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--row", choices=("cnn", "gpt_small", "gpt_large"), default="gpt_large")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=5)
    args = p.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    import threading
    from collections import defaultdict

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:0] = [here, os.path.dirname(here)]
    import tinytorch
    from bench_threads import _make_step
    from tinytorch._ops._kernels import parallel

    tinytorch.set_num_threads(args.threads)
    step = _make_step(args.row, tinytorch)
    records = []
    run = parallel.run

    def traced(body, parts, blas=False):
        start = time.perf_counter()
        parts_seen = {}

        def timed(a, b):
            t0 = time.perf_counter()
            body(a, b)
            parts_seen[threading.current_thread() is threading.main_thread()] = (t0 - start, time.perf_counter() - t0)

        run(timed, parts, blas)
        records.append((body.__qualname__, time.perf_counter() - start, parts_seen))

    parallel.run = traced
    try:
        for _ in range(3):
            step()
        records.clear()
        t0 = time.perf_counter()
        for _ in range(args.steps):
            step()
        wall = (time.perf_counter() - t0) / args.steps
    finally:
        parallel.run = run
    # per kind: count, region total, main part, worker start delay, worker part (sums)
    kinds = defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0])
    for name, total, parts_seen in records:
        k = kinds[name]
        k[0] += 1
        k[1] += total
        k[2] += parts_seen.get(True, (0.0, 0.0))[1]
        if False in parts_seen:
            k[3] += parts_seen[False][0]
            k[4] += parts_seen[False][1]
    in_regions = sum(k[1] for k in kinds.values()) / args.steps
    print(f"{args.row} on {args.threads} threads: step {wall * 1e3:.1f} ms (wall), "
          f"{len(records) / args.steps:.0f} regions a step, {in_regions * 1e3:.1f} ms inside them\n")
    print("| region (body) | per step | region, µs | calling thread's part | pool thread's start delay | pool thread's part |")
    print("|---|---|---|---|---|---|")
    for name, (n, total, main_part, delay, worker) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        print(f"| `{name}` | {n / args.steps:.0f} | {total / n * 1e6:.0f} | {main_part / n * 1e6:.0f} | "
              f"{delay / n * 1e6:.0f} | {worker / n * 1e6:.0f} |")


if __name__ == "__main__":
    main()
