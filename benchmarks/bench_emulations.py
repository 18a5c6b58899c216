"""What each emulation of a PyTorch kernel costs on the numpy path: the path bound against its plain reference.

The decision this measures (issue 76): the default install runs each op's reference formula at numpy's speed, and a
PyTorch kernel's bits are emulated on the numpy path only where that costs at most 1.2x the plain formula there.
Every path registered onto an op (``tinytorch/_ops/_core/paths.py``) whose purpose is "PyTorch's bits" gets a line:
each program of the suite's path programs (``tests/house/path_programs/``, the programs that reach the path) run
forward and backward on inputs of a working size, timed with the path bound and with it off
(``paths.off``: the reference runs), in turns within one process, min over repeats.

    python benchmarks/bench_emulations.py                    # the numpy path (TINYTORCH_NO_NUMBA=1), 1 thread
    python benchmarks/bench_emulations.py --fast             # with the compiled kernels ([fast]) as installed
    python benchmarks/bench_emulations.py --shape 256,512 --repeats 7
    python benchmarks/bench_emulations.py --only loss_nll --only _scaled_sum   # the paths whose target says so

The process sets its thread variables to 1 before numpy loads. A ratio above 1.2 on the numpy path is a decision to
revisit (move the emulation to the ``[fast]`` kernels); the figure names this machine's CPU."""
from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
LIMIT = 1.2  # the decision's bound on the numpy path


def _setup(fast: bool) -> None:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
        os.environ[var] = "1"
    if not fast:
        os.environ["TINYTORCH_NO_NUMBA"] = "1"
    sys.path[:0] = [REPO, os.path.join(REPO, "tests", "house")]


def _emulations(paths) -> list:
    return [p for ps in paths.PATHS.values() for p in ps if p.why.startswith("PyTorch's bits")]


def _programs(target: str) -> list:
    import importlib
    import pkgutil

    import path_programs
    makers = []
    for info in pkgutil.iter_modules(path_programs.__path__):
        makers += importlib.import_module(f"path_programs.{info.name}").PROGRAMS.get(target, [])
    return makers


def _once(tt, fn, arrays) -> None:
    xs = [tt.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    out = fn(*xs)
    outs = [o for o in (out if isinstance(out, tuple) else (out,)) if getattr(o, "requires_grad", False)]
    if outs:
        sum(o.sum() for o in outs).backward()


def _best(run, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t)
    return best


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="keep the compiled kernels ([fast]) on")
    ap.add_argument("--shape", default="128,512", help="the inputs' shape (default 128,512)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", action="append", default=[], metavar="TEXT",
                    help="only the paths whose target holds TEXT (repeatable)")
    args = ap.parse_args(argv)
    _setup(args.fast)
    import numpy as np

    import tinytorch as tt
    from tinytorch._ops._core import paths
    shape = tuple(int(s) for s in args.shape.split(","))
    print(f"| path | program | bound (ms) | reference (ms) | cost | within {LIMIT}x |")
    print("|---|---|---|---|---|---|")
    worst = 0.0
    for path in _emulations(paths):
        if args.only and not any(text in path.target for text in args.only):
            continue
        for maker in _programs(path.target):
            rng = np.random.default_rng(0)
            try:
                programs = list(maker(rng, np.float32, shape))
            except (ValueError, TypeError, RuntimeError):
                continue  # a program made for other shapes
            for name, fn, arrays in programs:
                def bound(fn=fn, arrays=arrays):
                    _once(tt, fn, arrays)

                def plain(fn=fn, arrays=arrays, path=path):
                    with paths.off(path):
                        _once(tt, fn, arrays)
                try:
                    bound(), plain()  # warm
                except (ValueError, TypeError, RuntimeError):
                    continue
                on = off = float("inf")
                for _ in range(args.repeats):  # in turns, so a busy moment lands on both
                    on = min(on, _best(bound, 3))
                    off = min(off, _best(plain, 3))
                ratio = on / off
                worst = max(worst, ratio)
                print(f"| {path.kind} {path.target} | {name} | {on * 1e3:.3g} | {off * 1e3:.3g} | {ratio:.2f}x | "
                      f"{'yes' if ratio <= LIMIT else 'NO'} |")
    print(f"\n{'[fast]' if args.fast else 'numpy path'}, inputs {shape} float32, 1 thread; "
          f"{tt.backends.cpu.describe()}; the costliest emulation: {worst:.2f}x its reference")


if __name__ == "__main__":
    main()
