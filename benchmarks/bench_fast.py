"""The rows the compiled kernels touch, with and without them, with OpenBLAS's variables set and unset:
tinytorch's numpy path, tinytorch with ``[fast]`` (numba), and PyTorch, interleaved in fresh one-thread processes.

    python benchmarks/bench_fast.py                        # every row, 3 rounds
    python benchmarks/bench_fast.py --only makemore,gpt --rounds 5
    python benchmarks/bench_fast.py --openblas unset       # only as on a user's machine
    python benchmarks/bench_fast.py --compiled             # and tinytorch [fast] with torch.compile(model)

Rows: ``makemore`` (bench_small's MLP with BatchNorm1d), ``lstm`` and ``char`` (bench_rnn's models),
``gpt`` and ``gpt-large`` (bench_transformer's small and large configurations), ``cnn`` (pytorch/examples' MNIST
network, ``_cnn.py``: its convolutions' passes around the GEMMs, relu's backward, 2x2 max pooling),
``quickstart64`` (the quickstart MLP's step at batch 64, which no compiled kernel touches: a control for the noise),
and ``handwritten`` (``_handwritten.py``: RMSNorm and minGPT's NewGELU written in tensor arithmetic, the runs of
elementwise ops torch.compile's pointwise fusion makes one loop each).

Each measurement runs in a fresh interpreter (this one, ``sys.executable``) with OMP/OPENBLAS/MKL_NUM_THREADS=1
(and PyTorch's ``set_num_threads(1)``). "numpy" sets ``TINYTORCH_NO_NUMBA=1``; "[fast]" leaves the compiled
kernels on (skipped, with a note, where numba is not importable). "OpenBLAS set" puts
``OPENBLAS_CORETYPE=Haswell`` and ``OPENBLAS_L2_SIZE`` (this machine's L2 per core) in the worker's
environment, as on this project's machines; "unset" removes both, as on a user's machine. Every round runs
every row in every variant before the next round, so a busy moment lands on all of them. A process reports:

- its first step: CPU and wall time, including every first use (numba's import and the loading of the
  compiled kernels from numba's on-disk cache, for ``[fast]``);
- the first step again in a process whose numba cache is empty (``NUMBA_CACHE_DIR`` a fresh folder: the
  compile itself), once per row in the first round;
- its steady step: the median CPU time of the steps after 3 warm-up steps.

Figures are medians over rounds, with the spread (min-max over rounds) of the steady steps. ``--compiled`` adds
tinytorch ``[fast]`` running ``torch.compile(model)`` for the rows that train one module (not the LSTM rows, whose
recurrent kernels' backward the capture cannot see); its "first step" is the first two calls (the capture, then
the forward and backward plans)."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PREFIX = "BENCH_FAST "
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
OPENBLAS_SET = {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_L2_SIZE": "524288"}

ROWS = {  # name: (steps per process, what it is)
    "makemore": (300, "makemore MLP (Linear/BatchNorm1d/Tanh x6), batch 32, SGD"),
    "lstm": (20, "nn.LSTM(64, 128), T32 B32, linear head, MSE, SGD"),
    "char": (20, "char model: Embedding 64, LSTM 128, Adam"),
    "gpt": (10, "GPT-style B16 T32 C64, 4 layers, GELU, AdamW"),
    "gpt-large": (5, "GPT-style B16 T64 C128, dropout 0.2, AdamW"),
    "cnn": (10, "MNIST CNN step, batch 64, SGD momentum"),
    "quickstart64": (100, "quickstart MLP, batch 64, SGD (no compiled kernel: control)"),
    "handwritten": (20, "hand-written blocks: RMSNorm, NewGELU MLP, residual; (16, 32, 64) x4, SGD"),
}


COMPILED_ROWS = ("makemore", "gpt", "gpt-large", "cnn", "quickstart64", "lstm", "char", "handwritten")


def _make(row: str, lib, compiled: bool = False):
    sys.path.insert(0, HERE)
    impl = "tinytorch-compiled" if compiled else "tinytorch"
    if row == "makemore":
        import bench_small

        return bench_small.make_makemore(lib, impl)
    if row == "quickstart64":
        import bench_small

        return bench_small.make_quickstart(lib, 64, impl)
    if row == "cnn":
        import _cnn

        return _cnn.make_step(lib, compiled)
    if row == "handwritten":
        import _handwritten

        return _handwritten.make_step(lib, compiled)
    if row in ("lstm", "char"):
        import bench_rnn

        return bench_rnn.make_step(lib, row == "char", compiled)
    import numpy as np

    import _gpt

    cfg = _gpt.CONFIGS["large" if row == "gpt-large" else "small"]
    rng = np.random.default_rng(0)
    batches = [(rng.integers(0, _gpt.VOCAB, (_gpt.B, cfg[0])), rng.integers(0, _gpt.VOCAB, (_gpt.B, cfg[0])))
               for _ in range(8)]
    model, opt = _gpt.build(lib, cfg)
    return _gpt.make_step(lib, lib.compile(model) if compiled else model, opt, batches)


def worker(row: str, impl: str, steps: int) -> dict:
    if impl == "torch":
        import torch as lib

        lib.set_num_threads(1)
    else:
        sys.path.insert(0, REPO)
        import tinytorch as lib
    compiled = impl == "tinytorch-compiled"
    step = _make(row, lib, compiled)
    c0, w0 = time.process_time(), time.perf_counter()
    step()
    if compiled:
        step()  # the capture, then the plans
    first_cpu, first_wall = time.process_time() - c0, time.perf_counter() - w0
    times = []
    for i in range(steps + 2):
        t0 = time.process_time()
        step()
        if i >= 2:
            times.append(time.process_time() - t0)
    result = {"first_cpu": first_cpu, "first_wall": first_wall, "step": statistics.median(times),
              "numba": "numba" in sys.modules}
    if impl != "torch":
        from tinytorch._ops._kernels import compiled

        result["compiled"] = compiled.describe()
        result["loads"] = compiled.report()
    return result


def _env(impl: str, openblas: str, cache: str | None = None) -> dict:
    env = dict(os.environ, **{v: "1" for v in THREAD_VARS})
    for var in OPENBLAS_SET:
        env.pop(var, None)
    if openblas == "set":
        env.update(OPENBLAS_SET)
    env.pop("TINYTORCH_NO_NUMBA", None)
    if impl == "numpy":
        env["TINYTORCH_NO_NUMBA"] = "1"
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    return env


def run(row: str, impl: str, openblas: str, steps: int, cache: str | None = None) -> dict:
    lib = "torch" if impl == "torch" else "tinytorch-compiled" if impl == "compiled" else "tinytorch"
    proc = subprocess.run([sys.executable, __file__, "--worker", json.dumps([row, lib, steps])],
                          env=_env(impl, openblas, cache), capture_output=True, text=True, cwd=REPO)
    if proc.returncode:
        raise RuntimeError(f"{row} {impl} {openblas}: {proc.stderr.strip()[-2000:]}")
    return json.loads(next(x for x in proc.stdout.splitlines() if x.startswith(PREFIX))[len(PREFIX):])


def _fast_available() -> bool:
    code = ("import sys; sys.path.insert(0, %r)\nfrom tinytorch._ops._kernels import compiled\n"
            "print(compiled.available())" % REPO)
    out = subprocess.run([sys.executable, "-c", code], env=_env("fast", "unset"), capture_output=True, text=True)
    return out.stdout.strip() == "True"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", help="comma-separated rows: " + ", ".join(ROWS))
    p.add_argument("--steps", type=float, default=1.0, help="scale the steps per process")
    p.add_argument("--openblas", choices=("both", "set", "unset"), default="both")
    p.add_argument("--json", help="write every measurement here")
    p.add_argument("--compiled", action="store_true", help="add tinytorch [fast] with torch.compile(model)")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        print(PREFIX + json.dumps(worker(*json.loads(args.worker))), flush=True)
        return
    rows = args.only.split(",") if args.only else list(ROWS)
    blas = ["unset", "set"] if args.openblas == "both" else [args.openblas]
    impls = ["torch", "numpy"] + (["fast"] if _fast_available() else [])
    if "fast" not in impls:
        print("numba is not importable here: the [fast] columns are left out", file=sys.stderr)
    if args.compiled:
        impls.append("compiled")
    load = [os.getloadavg()[0]]
    results = {(r, i, b): [] for r in rows for i in impls for b in blas}
    cold = {}
    for rnd in range(args.rounds):
        for r in rows:
            steps = max(3, int(ROWS[r][0] * args.steps))
            for b in blas:
                for i in impls:
                    if i == "compiled" and r not in COMPILED_ROWS:
                        continue
                    print(f"round {rnd + 1}/{args.rounds}: {r} {i} OpenBLAS {b}", file=sys.stderr, flush=True)
                    results[(r, i, b)].append(run(r, i, b, steps))
            if rnd == 0 and "fast" in impls:
                folder = tempfile.mkdtemp(prefix="numba-cache-")
                try:
                    cold[r] = run(r, "fast", blas[0], 3, cache=folder)
                finally:
                    shutil.rmtree(folder, ignore_errors=True)
        load.append(os.getloadavg()[0])
    med = {k: {f: statistics.median(x[f] for x in v) for f in ("step", "first_cpu", "first_wall")}
           for k, v in results.items() if v}
    spread = {k: (min(x["step"] for x in v), max(x["step"] for x in v)) for k, v in results.items() if v}

    def ms(s):
        return f"{s * 1e3:.3g}"

    for b in blas:
        which = ", ".join(f"{k}={v}" for k, v in OPENBLAS_SET.items()) if b == "set" else "neither set"
        print(f"\nOpenBLAS variables {b} ({which}); steady step, ms (min-max over rounds):\n")
        head = "| row | PyTorch | tinytorch numpy | ratio |" + (" tinytorch [fast] | ratio |" * ("fast" in impls)) + (
            " [fast], torch.compile | ratio |" * ("compiled" in impls))
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for r in rows:
            cells = []
            t = med[(r, "torch", b)]["step"]
            for i in impls:
                if (r, i, b) not in med:
                    cells += ["—", "—"]
                    continue
                lo, hi = spread[(r, i, b)]
                cells.append(f"{ms(med[(r, i, b)]['step'])} ({ms(lo)}-{ms(hi)})")
                if i != "torch":
                    cells.append(f"{med[(r, i, b)]['step'] / t:.2f}x")
            print(f"| {ROWS[r][1]} | " + " | ".join(cells) + " |")
    print("\nFirst step (wall / CPU, s, medians over rounds: every first use included; for [fast] numba's import and "
          "the kernels loaded from its cache), and with an empty numba cache (the compile itself, one process):\n")
    head = "| row | PyTorch | tinytorch numpy |" + (" tinytorch [fast] | [fast], empty cache |" * ("fast" in impls)) + (
        " torch.compile (2 calls) |" * ("compiled" in impls))
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for r in rows:
        cells = []
        for i in [i for i in impls if i != "compiled"]:
            m = med[(r, i, blas[0])]
            cells.append(f"{m['first_wall']:.2f} / {m['first_cpu']:.2f}")
        if "fast" in impls:
            c = cold[r]
            cells.append(f"{c['first_wall']:.2f} / {c['first_cpu']:.2f}")
        if "compiled" in impls:
            m = med.get((r, "compiled", blas[0]))
            cells.append("—" if m is None else f"{m['first_wall']:.2f} / {m['first_cpu']:.2f}")
        print(f"| {ROWS[r][1]} | " + " | ".join(cells) + " |")
    if "fast" in impls:
        loaded = {r: results[(r, "fast", blas[0])][0] for r in rows}
        print("\n[fast] kernels loaded per row: " + "; ".join(
            f"{r}: {', '.join(sorted(v.get('loads', {}))) or 'none (numba not imported)'}" for r, v in loaded.items()))
    print(f"\n{os.cpu_count()} cores; load average {' -> '.join(f'{x:.1f}' for x in load)} (before, after each round); "
          f"{args.rounds} interleaved rounds; CPU time.")
    sys.path.insert(0, HERE)
    from _machine import kernels_line

    for mode in blas:  # each OpenBLAS setting the workers ran under (the variables pick its kernel)
        label = f" (OpenBLAS variables {mode})" if len(blas) > 1 else ""
        print(f"Kernels{label}: " + (kernels_line(env_update=OPENBLAS_SET) if mode == "set" else
                                     kernels_line(env_drop=OPENBLAS_SET)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": {"|".join(k): v for k, v in results.items()}, "cold": cold, "load": load}, f,
                      indent=1)


if __name__ == "__main__":
    main()
