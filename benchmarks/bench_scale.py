"""Speed at every scale: tinytorch vs PyTorch from batch 1 to 1024, tiny ops, import time.

    python benchmarks/bench_scale.py                 # the full table (about 3 minutes)
    python benchmarks/bench_scale.py --quick         # fewer steps and rounds
    python benchmarks/bench_scale.py --json out.json

Times are the one-thread worker's CPU time; import is shown as wall and CPU time over `python -c pass`,
min of 5 runs per round, with bytecode cached as an installed package has it.
Each measurement runs in a fresh process (OMP/OPENBLAS/MKL_NUM_THREADS=1 before numpy or torch is
imported), PyTorch and tinytorch taking turns round by round; figures are medians over
rounds of per-process medians (import: min over rounds). The training step is the quickstart MLP
(784-512-512-10, CrossEntropyLoss) on fixed random float32 batches: forward, backward, step,
zero_grad. Page faults are minor faults per step (``getrusage``), which count fresh memory taken
from the operating system. Progress goes to stderr, a Markdown table to stdout."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULT = "BENCH_RESULT "
BATCHES = (1, 8, 32, 64, 256, 1024)
OPTIMIZERS = ("sgd", "momentum", "adam")


def _lib(impl: str):
    if impl == "torch":
        import torch

        torch.set_num_threads(1)
        return torch
    sys.path.insert(0, REPO)
    import tinytorch

    return tinytorch


def _model(lib):
    nn = lib.nn
    lib.manual_seed(0)
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10))


def task_step(impl: str, batch: int, opt: str, steps: int) -> dict:
    import resource

    import numpy as np

    lib = _lib(impl)
    model = _model(lib)
    loss_fn = lib.nn.CrossEntropyLoss()
    if opt == "adam":
        optimizer = lib.optim.Adam(model.parameters(), lr=1e-3)
    else:
        optimizer = lib.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9 if opt == "momentum" else 0.0)
    rng = np.random.default_rng(0)
    data = [(lib.from_numpy(rng.random((batch, 1, 28, 28), dtype=np.float32)),
             lib.from_numpy(rng.integers(0, 10, batch))) for _ in range(8)]
    times = []
    warm = max(3, steps // 10)
    for i in range(steps + warm):
        x, y = data[i % len(data)]
        if i == warm:
            faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = time.process_time()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        times.append(time.process_time() - t0)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / steps
    return {"s": statistics.median(times[warm:]), "faults": faults}


def task_chain(impl: str, reps: int) -> dict:
    """100 scalar ops (mul, add, tanh in turn), then backward."""
    lib = _lib(impl)
    x = lib.tensor(0.5, requires_grad=True)
    times = []
    for _ in range(reps):
        t0 = time.process_time()
        y = x
        for i in range(100):
            k = i % 3
            y = y * 1.0001 if k == 0 else (y + 0.001 if k == 1 else y.tanh())
        y.backward()
        times.append(time.process_time() - t0)
        x.grad = None
    return {"s": statistics.median(times)}


def task_smallop(impl: str, op: str, reps: int) -> dict:
    """One op on a (4, 4) float32 tensor that requires grad: the graph is recorded."""
    lib = _lib(impl)
    a = lib.rand(4, 4, requires_grad=True)
    b = lib.rand(4, 4)
    fn = {"relu": lambda: a.relu(), "add": lambda: a + b, "mul": lambda: a * b}[op]
    best = float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        for _ in range(1000):
            fn()
        best = min(best, (time.process_time() - t0) / 1000)
    return {"s": best}


def task_tensor_list(impl: str, reps: int) -> dict:
    lib = _lib(impl)
    data = [float(i) / 7 for i in range(16)]
    best = float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        for _ in range(1000):
            lib.tensor(data)
        best = min(best, (time.process_time() - t0) / 1000)
    return {"s": best}


def _run(args: list) -> dict:
    env = dict(os.environ, **{v: "1" for v in THREAD_VARS})
    out = subprocess.run([sys.executable, __file__, "--worker", json.dumps(args)], env=env, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(next(x for x in out.splitlines() if x.startswith(RESULT))[len(RESULT):])


def _import_time(module: str, cache: str) -> tuple:
    """(wall, CPU) seconds of ``import module`` over ``python -c pass``, bytecode cached as an installed
    package has it (a private ``PYTHONPYCACHEPREFIX``, warmed by a first import; ``PYTHONDONTWRITEBYTECODE``
    would otherwise recompile every module of the working tree on every run)."""
    env = dict(os.environ, **{v: "1" for v in THREAD_VARS}, PYTHONPATH=REPO, PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-c", f"import {module}"], env=env, check=True)

    def once(code: str) -> tuple:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", code], env=env)
        _, status, ru = os.wait4(proc.pid, 0)
        assert status == 0
        return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime

    runs = [(once(f"import {module}"), once("pass")) for _ in range(5)]
    return (min(a[0] for a, _ in runs) - min(b[0] for _, b in runs),
            min(a[1] for a, _ in runs) - min(b[1] for _, b in runs))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        task, *rest = json.loads(args.worker)
        print(RESULT + json.dumps(globals()["task_" + task](*rest)), flush=True)
        return
    rounds = 1 if args.quick else args.rounds
    cases = []
    for batch in BATCHES:
        steps = max(20, min(300, 6000 // batch)) // (3 if args.quick else 1)
        for opt in OPTIMIZERS:
            cases.append((f"step batch {batch}, {opt}", ["step", batch, opt, steps], 1.0))
    cases.append(("100-op scalar chain, forward + backward", ["chain", 50 if args.quick else 200], 1.3))
    for op in ("relu", "add", "mul"):
        cases.append((f"{op} on (4, 4), graph recorded", ["smallop", op, 5], 1.5))
    cases.append(("tensor(list of 16 floats)", ["tensor_list", 5], None))
    results = {name: {"torch": [], "tinytorch": []} for name, _, _ in cases}
    imports = {"torch": [], "tinytorch": []}
    import tempfile

    cache = tempfile.mkdtemp(prefix="bench_pycache_")
    for r in range(rounds):
        for name, task, _ in cases:
            print(f"round {r + 1}/{rounds}: {name}", file=sys.stderr, flush=True)
            for impl in ("torch", "tinytorch"):
                results[name][impl].append(_run([task[0], impl, *task[1:]]))
        for impl in imports:
            imports[impl].append(_import_time(impl, cache))
    import shutil

    shutil.rmtree(cache, ignore_errors=True)
    print("| case | PyTorch | tinytorch | ratio | target | page faults / step (torch, tinytorch) |")
    print("|---|---|---|---|---|---|")
    summary = {}
    for name, task, target in cases:
        t = statistics.median(x["s"] for x in results[name]["torch"])
        tt = statistics.median(x["s"] for x in results[name]["tinytorch"])
        unit, scale = ("ms", 1e3) if t > 1e-4 else ("µs", 1e6)
        mark = "" if target is None else (" ✓" if tt / t <= target else " ✗")
        faults = ""
        if task[0] == "step":
            faults = " / ".join(f"{statistics.median(x['faults'] for x in results[name][i]):.0f}"
                                for i in ("torch", "tinytorch"))
        tgt = "" if target is None else f"≤ {target}x"
        print(f"| {name} | {t * scale:.3g} {unit} | {tt * scale:.3g} {unit} | {tt / t:.2f}x{mark} | {tgt} | {faults} |")
        summary[name] = {"torch_s": t, "tinytorch_s": tt, "ratio": tt / t}
    for k, what in ((0, "wall"), (1, "CPU")):
        it, itt = min(x[k] for x in imports["torch"]), min(x[k] for x in imports["tinytorch"])
        print(f"| import (over `python -c pass`), {what} | {it:.3f} s | {itt:.3f} s | | tinytorch ≤ 0.2 s"
              f"{' ✓' if itt <= 0.2 else ' ✗'} | |")
    print(f"\n{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {rounds} interleaved rounds.")
    from _machine import kernels_line  # the kernels these figures ran on
    print(f"Kernels: {kernels_line()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary, "results": results, "imports": imports}, f, indent=1)


if __name__ == "__main__":
    main()
