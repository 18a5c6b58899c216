"""Threads: the MNIST CNN, GPT-style and small MLP training steps on 1..cores threads, tinytorch vs PyTorch.

    python benchmarks/bench_threads.py                       # every row, 1..cores threads, OpenBLAS
                                                             #   variables as set and unset, 3 rounds
    python benchmarks/bench_threads.py --only cnn --rounds 5
    python benchmarks/bench_threads.py --threads 1,2 --blas-env unset
    python benchmarks/bench_threads.py --compiled            # a column for tinytorch with torch.compile(model)

Rows (each written once as PyTorch code and run by both libraries, on the same synthetic batches):

- cnn: pytorch/examples' MNIST network (``_cnn.py``), batch 64, SGD lr 0.05 momentum 0.9, training mode.
- gpt_small: the GPT-style stack of ``bench_transformer.py`` (``_gpt.py``): B16 T32 C64, 4 layers, AdamW.
- gpt_large: the same at T64 C128 with dropout 0.2.
- quickstart1, quickstart64, makemore: ``bench_small.py``'s rows of those names (the quickstart MLP at batch 1
  and 64, the makemore MLP with BatchNorm1d): steps of a millisecond or less, where a parallel region's own
  cost decides whether splitting pays.

Every measurement is a fresh process of one library with ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and
``MKL_NUM_THREADS`` set to the thread count before numpy or torch is imported, and ``set_num_threads``
called; within a round every configuration runs PyTorch then tinytorch before the next one starts, so a
busy moment of the machine lands on both. ``--blas-env`` chooses whether ``OPENBLAS_CORETYPE`` and
``OPENBLAS_L2_SIZE`` keep the values this machine's environment gives them ("set"), are removed from the
workers' environment ("unset": what a user's machine has, OpenBLAS then picks its kernel by CPU), or both.

Printed:
1. Step time (median over rounds of each process's median wall-clock step) at each thread count, with
   the ratio tinytorch / PyTorch and the spread over rounds (max/min of the ratio: the noise).
2. Scaling: each library's speedup over its own one-thread step.
3. Where tinytorch's step time goes at the largest thread count: the share of the step's wall time spent
   inside parallel regions (``_ops/_kernels/parallel.py``: work split over all threads) and inside GEMMs
   that OpenBLAS runs on all threads, measured by the pool's accounting; the rest runs on one thread
   (Python, autograd, the random draws, small ops). From that share q at N threads the parallel
   fraction of the one-thread step follows (Amdahl: f = N q / (1 - q + N q)), and the fraction implied
   by the measured speedup S (f = (1 - 1/S) / (1 - 1/N)) is printed beside it. An extrapolation to 8
   and 16 cores from f (T_N = T_1 (1 - f + f / N)) is labelled as such."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
RESULT = "BENCH_RESULT "
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
BLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
ROWS = {
    "cnn": (20, "MNIST CNN step, batch 64, SGD momentum"),
    "gpt_small": (20, "GPT-style B16 T32 C64, 4 layers, AdamW"),
    "gpt_large": (12, "GPT-style B16 T64 C128, dropout 0.2, AdamW"),
    "quickstart1": (300, "quickstart MLP, batch 1, SGD"),
    "quickstart64": (60, "quickstart MLP, batch 64, SGD"),
    "makemore": (200, "makemore MLP (Linear/BatchNorm1d/Tanh x6), batch 32, SGD"),
}


def _lib(impl: str, threads: int):
    if impl == "torch":
        import torch as lib
    else:
        sys.path.insert(0, REPO)
        import tinytorch as lib
    lib.set_num_threads(threads)
    return lib


def _make_step(row: str, lib, compiled: bool = False):
    import numpy as np

    sys.path.insert(0, HERE)
    if row == "cnn":
        import _cnn

        return _cnn.make_step(lib, compiled)
    if row in ("quickstart1", "quickstart64", "makemore"):
        import bench_small

        impl = "tinytorch-compiled" if compiled else "library"
        if row == "makemore":
            return bench_small.make_makemore(lib, impl)
        return bench_small.make_quickstart(lib, int(row[len("quickstart"):]), impl)
    import _gpt

    rng = np.random.default_rng(0)
    cfg = _gpt.CONFIGS["large" if row == "gpt_large" else "small"]
    model, opt = _gpt.build(lib, cfg)
    batches = [(rng.integers(0, _gpt.VOCAB, (_gpt.B, cfg[0])), rng.integers(0, _gpt.VOCAB, (_gpt.B, cfg[0])))
               for _ in range(8)]
    return _gpt.make_step(lib, lib.compile(model) if compiled else model, opt, batches)


def worker(row: str, impl: str, threads: int, steps: int) -> dict:
    serial = impl == "tinytorch-serial"
    lib = _lib(impl, threads)
    acct = None
    if impl != "torch":
        from tinytorch._ops._kernels import parallel

        acct = parallel
        if serial:  # one core: the regions' parts in order, GEMMs on one BLAS thread (see parallel.stats)
            parallel._blas_set(1)
            parallel.stats(serial=True)
    step = _make_step(row, lib, impl == "tinytorch-compiled")
    for _ in range(3):  # allocations, BLAS warm-up, the pool's threads (a compiled model: its capture and plans)
        step()
    walls, cpus, shares = [], [], []
    for _ in range(steps):
        if acct is not None:
            acct.stats(reset=True, enable=True)
        w0, c0 = time.perf_counter(), time.process_time()
        step()
        wall = time.perf_counter() - w0
        cpus.append(time.process_time() - c0)
        walls.append(wall)
        if acct is not None:
            st = acct.stats(reset=True, enable=False)
            # one core: CPU times (the accounting's clock is then the thread's CPU time)
            shares.append((st["seconds"] + st["gemm_seconds"]) / (cpus[-1] if serial else wall))
    out = {"wall": statistics.median(walls), "cpu": statistics.median(cpus), "threads": lib.get_num_threads()}
    if shares:
        out["parallel_share"] = statistics.median(shares)
    return out


def _run(args: list, threads: int, blas_env: str, timeout: float) -> dict:
    env = dict(os.environ, **{v: str(1 if args[1] == "tinytorch-serial" else threads) for v in THREAD_VARS})
    if blas_env == "unset":
        for v in BLAS_VARS:
            env.pop(v, None)
    proc = subprocess.run([sys.executable, __file__, "--worker", json.dumps(args)], env=env, capture_output=True,
                          text=True, timeout=timeout)
    if proc.returncode:
        raise RuntimeError(f"worker {args} failed:\n{proc.stderr[-2000:]}")
    return json.loads(next(x for x in proc.stdout.splitlines() if x.startswith(RESULT))[len(RESULT):])


def _ms(seconds: float) -> str:
    """A step time in ms to three significant figures (the small rows' steps are a fraction of a ms)."""
    return f"{seconds * 1e3:.3g} ms"


def _amdahl_from_share(q: float, n: int) -> float:
    return n * q / (1 - q + n * q) if n > 1 else float("nan")


def _amdahl_from_speedup(s: float, n: int) -> float:
    return (1 - 1 / s) / (1 - 1 / n) if n > 1 else float("nan")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", help="comma-separated rows: " + ", ".join(ROWS))
    p.add_argument("--threads", help="comma-separated thread counts (default 1..cores)")
    p.add_argument("--blas-env", choices=("set", "unset", "both"), default="both")
    p.add_argument("--steps", type=float, default=1.0, help="scale the steps per process")
    p.add_argument("--skip-torch", action="store_true")
    p.add_argument("--compiled", action="store_true", help="also tinytorch with torch.compile(model)")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--json", help="write the raw results here")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        print(RESULT + json.dumps(worker(*json.loads(args.worker))), flush=True)
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    counts = [int(t) for t in args.threads.split(",")] if args.threads else list(range(1, cores + 1))
    rows = args.only.split(",") if args.only else list(ROWS)
    envs = ("set", "unset") if args.blas_env == "both" else (args.blas_env,)
    impls = ("tinytorch",) if args.skip_torch else ("torch", "tinytorch")
    impls += ("tinytorch-compiled",) if args.compiled else ()
    if not any(os.environ.get(v) for v in BLAS_VARS) and "set" in envs:
        print("note: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are not set here: 'set' and 'unset' are the same run",
              file=sys.stderr)
    results: dict = {}
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        for row in rows:
            for env in envs:
                for n in counts:
                    print(f"round {r + 1}/{args.rounds}: {row}, {n} thread(s), OpenBLAS variables {env}",
                          file=sys.stderr, flush=True)
                    for impl in impls + (("tinytorch-serial",) if n == max(counts) and n > 1 else ()):
                        steps = max(3, int(ROWS[row][0] * args.steps))
                        got = _run([row, impl, n, steps], n, env, args.timeout)
                        results.setdefault((row, env, n, impl), []).append(got)
        loads.append(os.getloadavg()[0])

    def med(row, env, n, impl, key="wall"):
        vals = [x[key] for x in results.get((row, env, n, impl), []) if key in x]
        return statistics.median(vals) if vals else None

    print(f"## Step time (wall clock, median of {args.rounds} interleaved rounds), tinytorch / PyTorch\n")
    print("| row | OpenBLAS vars | threads | PyTorch | tinytorch | ratio | ratio spread (min-max over rounds) |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        for env in envs:
            for n in counts:
                tt = med(row, env, n, "tinytorch")
                t = med(row, env, n, "torch")
                spread = ""
                if t:
                    ratios = [a["wall"] / b["wall"] for a, b in zip(results[(row, env, n, "tinytorch")],
                                                                     results[(row, env, n, "torch")])]
                    spread = f"{min(ratios):.2f}-{max(ratios):.2f}"
                print(f"| {ROWS[row][1]} | {env} | {n} | {_ms(t)} | {_ms(tt)} | {tt / t:.2f}x | {spread} |"
                      if t else f"| {ROWS[row][1]} | {env} | {n} | - | {_ms(tt)} | - | - |")
    if args.compiled:
        print("\n## torch.compile(model) on tinytorch (wall clock, medians as above)\n")
        print("| row | OpenBLAS vars | threads | PyTorch | tinytorch | tinytorch compiled | compiled / PyTorch | "
              "compiled / eager |")
        print("|---|---|---|---|---|---|---|---|")
        for row in rows:
            for env in envs:
                for n in counts:
                    t, tt, tc = (med(row, env, n, impl) for impl in ("torch", "tinytorch", "tinytorch-compiled"))
                    vs = f"{tc / t:.2f}x" if t else "-"
                    print(f"| {ROWS[row][1]} | {env} | {n} | {f'{_ms(t)}' if t else '-'} | {_ms(tt)} | "
                          f"{_ms(tc)} | {vs} | {tc / tt:.2f} |")
    print("\n## Scaling (speedup over the same library's one-thread step)\n")
    print("| row | OpenBLAS vars | threads | PyTorch | tinytorch |")
    print("|---|---|---|---|---|")
    for row in rows:
        for env in envs:
            for n in counts:
                cells = []
                for impl in ("torch", "tinytorch"):
                    one, now = med(row, env, counts[0], impl), med(row, env, n, impl)
                    cells.append(f"{one / now * counts[0]:.2f}x" if one and now and counts[0] == 1 else "-")
                print(f"| {ROWS[row][1]} | {env} | {n} | {cells[0]} | {cells[1]} |")
    top = max(counts)
    if top > 1:
        print(f"\n## tinytorch's parallel fraction ({top} threads)\n")
        print("f: the share of the one-thread step spent in work that the run on all threads splits over all "
              "of them (regions of the pool, and GEMMs large enough for OpenBLAS's threads), measured on one "
              "core with the same parts run in order (`parallel.stats(serial=True)`), so a busy machine's "
              "scheduling does not enter it. Beside it: the share q of the wall time of the real run on "
              f"{top} threads inside those regions and GEMMs (a busy machine stretches the GEMMs, whose "
              "threads must all get a core), and the fraction implied by the measured speedup.\n")
        print(f"| row | OpenBLAS vars | f, measured on one core | q at {top} threads | f from the speedup | "
              "step at 8 / 16 cores vs 1 thread (extrapolated from f: 1 - f + f/N) |")
        print("|---|---|---|---|---|---|")
        for row in rows:
            for env in envs:
                f = med(row, env, top, "tinytorch-serial", "parallel_share")
                q = med(row, env, top, "tinytorch", "parallel_share")
                one, now = med(row, env, 1, "tinytorch"), med(row, env, top, "tinytorch")
                f_speed = _amdahl_from_speedup(one / now, top) if one and now and 1 in counts else float("nan")
                extra = " / ".join(f"{(1 - f + f / c):.2f}" for c in (8, 16)) if f is not None else "-"
                print(f"| {ROWS[row][1]} | {env} | {f:.0%} | {q:.0%} | {f_speed:.0%} | {extra} (extrapolation) |")
    print(f"\n{cores} cores; 1-minute load average {' -> '.join(f'{x:.1f}' for x in loads)} (before, after each "
          f"round); {args.rounds} interleaved rounds.")
    sys.path.insert(0, HERE)
    from _machine import kernels_line

    for env in envs:
        saved = {v: os.environ.pop(v) for v in BLAS_VARS if env == "unset" and v in os.environ}
        print(f"Kernels (OpenBLAS variables {env}, {top} threads): {kernels_line(top)}")
        os.environ.update(saved)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"|".join(map(str, k)): v for k, v in results.items()}, f, indent=1)


if __name__ == "__main__":
    main()
