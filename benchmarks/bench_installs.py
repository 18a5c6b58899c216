"""Every row eager and compiled in the three installs, against PyTorch eager, at 1 thread and the default count.

    python benchmarks/bench_installs.py                              # every row, 1 thread and default, 3 rounds
    python benchmarks/bench_installs.py --only gpt,cnn --threads 1 --rounds 5
    python benchmarks/bench_installs.py --installs default,fast --json installs.json

The installs, realised in one environment that has numba and MKL (the ``mkl`` wheel) by the switches tinytorch
honours:

- ``default`` (numpy only): ``TINYTORCH_NO_NUMBA=1 TINYTORCH_NO_MKL=1``;
- ``fast`` (``[fast]``, numba's compiled kernels): ``TINYTORCH_NO_MKL=1``;
- ``fast+mkl`` (``[fast,mkl]``, and MKL's GEMMs: PyTorch's bits): neither.

A probe process per install first checks that the switches give that install here (numba importable and working,
MKL loadable or not); an install this interpreter cannot give is left out with a note. Every worker checks it
again after its steps and reports the kernels it ran on (``tinytorch.backends.cpu.describe()``); a worker whose
install is not the one asked for fails loudly, so no column is ever another install's figures.

Rows: those of ``bench_fast.py`` (makemore, lstm, char, gpt, gpt-large, cnn, quickstart64, handwritten) and of
``bench_small.py`` (micrograd, quickstart1-step, quickstart8-step), made by those scripts' own makers. Compiled:
``torch.compile(model)``, or for the ``-step`` rows the whole training step (``torch.compile(train_step)``), for
micrograd its loss function. PyTorch runs eager only.

Each measurement is a fresh interpreter (this one) running one row in one library, install, mode and thread
count; a round runs every row at every thread count in PyTorch, then each install eager and compiled, before the
next round starts, so a busy moment lands on all of them. At 1 thread the workers get ``OMP/OPENBLAS/
MKL_NUM_THREADS=1`` and ``set_num_threads(1)`` and the figure is CPU time; at the default count (``default``)
those variables are removed and ``set_num_threads`` is not called, so each library takes its own default, and
the figure is wall time (as ``bench_threads.py``). ``OPENBLAS_CORETYPE`` and ``OPENBLAS_L2_SIZE`` are removed
from the workers' environment (a user's machine has neither). A figure is the median over rounds of a
process's median step, after the first call (compiled: the first two, the capture then the plans) and two more
warm-up steps."""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import bench_fast  # noqa: E402  (both import only the standard library at module level)
import bench_small  # noqa: E402

RESULT = "BENCH_INSTALLS "
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
               "NUMEXPR_NUM_THREADS")
BLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
SWITCHES = ("TINYTORCH_NO_NUMBA", "TINYTORCH_NO_MKL")
INSTALLS = {  # name: (the switches that make it, its label)
    "default": ({"TINYTORCH_NO_NUMBA": "1", "TINYTORCH_NO_MKL": "1"}, "default"),
    "fast": ({"TINYTORCH_NO_MKL": "1"}, "[fast]"),
    "fast+mkl": ({}, "[fast,mkl]"),
}
_SMALL = ("quickstart1-step", "quickstart8-step", "micrograd")
ROWS = {  # name: (steps per process, what it is), from the scripts whose makers build the rows
    **{r: (bench_small.ROWS[r][1], bench_small.ROWS[r][2]) for r in _SMALL},
    **{r: bench_fast.ROWS[r] for r in bench_fast.ROWS},
}


def install_of(numba: bool, mkl: bool) -> str:
    """The install a process's kernels make: numba's kernels on and working, MKL running the GEMMs."""
    if numba:
        return "fast+mkl" if mkl else "fast"
    return "mkl (without numba)" if mkl else "default"


def _install_here() -> tuple:
    """(install, ``tinytorch.backends.cpu.describe()``) of this process (imports numba and loads MKL where the
    switches allow: call it after the timed steps)."""
    sys.path.insert(0, REPO)
    import tinytorch.backends.cpu as cpu
    from tinytorch._cpu import mkl_gemm
    from tinytorch._ops._kernels import compiled

    return install_of(compiled.available(), mkl_gemm.describe() is not None), cpu.describe()


def _make(row: str, lib, compiled: bool):
    if row in bench_fast.ROWS:
        return bench_fast._make(row, lib, compiled)
    return bench_small.ROWS[row][0](lib, "tinytorch-compiled" if compiled else "tinytorch")


def worker(row: str, impl: str, install: str | None, compiled: bool, threads: int, steps: int) -> dict:
    """One measurement; ``threads`` 0: the library's default count."""
    if impl == "torch":
        import torch as lib
    else:
        sys.path.insert(0, REPO)
        import tinytorch as lib
    if threads:
        lib.set_num_threads(threads)
    step = _make(row, lib, compiled)
    w0 = time.perf_counter()
    step()
    if compiled:
        step()  # the capture, then the plans
    first = time.perf_counter() - w0
    cpus, walls = [], []
    for i in range(steps + 2):
        c0, t0 = time.process_time(), time.perf_counter()
        step()
        if i >= 2:
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
    out = {"cpu": statistics.median(cpus), "wall": statistics.median(walls), "first_wall": first,
           "threads": lib.get_num_threads()}
    if impl != "torch":
        got, out["kernels"] = _install_here()
        out["install"] = got
        if got != install:
            raise SystemExit(f"install mismatch: asked for {install}, the kernels are {got}: {out['kernels']}")
    return out


def _env(install: str | None, threads: int) -> dict:
    env = dict(os.environ)
    for var in BLAS_VARS + SWITCHES + THREAD_VARS:
        env.pop(var, None)
    if threads:
        env.update({v: str(threads) for v in THREAD_VARS})
    if install is not None:
        env.update(INSTALLS[install][0])
    return env


def _subprocess(argv: list, env: dict, timeout: float) -> dict:
    try:
        proc = subprocess.run([sys.executable, __file__, *argv], env=env, capture_output=True, text=True,
                              cwd=REPO, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:g} s"}
    line = next((x for x in proc.stdout.splitlines() if x.startswith(RESULT)), None)
    if proc.returncode or line is None:
        last = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1:]
        return {"error": last[0] if last else f"exit status {proc.returncode}, no output"}
    return json.loads(line[len(RESULT):])


def run(row: str, impl: str, install: str | None, compiled: bool, threads: int, steps: int,
        timeout: float = 600) -> dict:
    """One measurement in a fresh process (``threads`` 0: the default count); {"error": ...} where it failed."""
    return _subprocess(["--worker", json.dumps([row, impl, install, compiled, threads, steps])],
                       _env(install, threads), timeout)


def probe(install: str, timeout: float = 600) -> dict:
    """{"install": what the switches of ``install`` give in a fresh process here, "kernels": its line}."""
    return _subprocess(["--probe"], _env(install, 1), timeout)


def choose_installs(names: list, probe_fn=probe) -> tuple:
    """(the installs of ``names`` this interpreter gives, {install: its kernels line}, notes on those left out)."""
    kept, kernels, notes = [], {}, []
    for name in names:
        got = probe_fn(name)
        if got.get("install") == name:
            kept.append(name)
            kernels[name] = got["kernels"]
        else:
            why = got.get("error") or f"its switches give {got.get('install')} here ({got.get('kernels')})"
            notes.append(f"- {INSTALLS[name][1]} left out: {why}")
    return kept, kernels, notes


def _key(row: str, threads: int, impl: str) -> str:
    return f"{row}|{threads}|{impl}"


def _cell(runs: list, torch_runs: list, clock: str) -> str:
    ok = [r[clock] for r in runs if "error" not in r]
    base = [r[clock] for r in torch_runs if "error" not in r]
    if not runs:
        return "—"
    if not ok:
        return "failed"
    s = statistics.median(ok)
    ratio = f" ({s / statistics.median(base):.2f}x)" if base else ""
    return f"{s * 1e3:.3g} ms{ratio}"


def tables(results: dict, rows: list, installs: list, counts: list, rounds: int) -> str:
    """One Markdown table per thread count: PyTorch eager, then each install eager and compiled, step time with
    the ratio to PyTorch eager. ``results``: {_key(row, threads, impl): [one dict per round]}, impl "torch" or
    "INSTALL/eager" / "INSTALL/compiled"."""
    out = []
    for n in counts:
        clock = "cpu" if n == 1 else "wall"
        tag = "1 thread" if n == 1 else "the default thread count" if n == 0 else f"{n} threads"
        seen = sorted({r["threads"] for k, v in results.items() if k.split("|")[1] == str(n) for r in v
                       if "threads" in r})
        used = f" (the libraries chose {' or '.join(map(str, seen))})" if n == 0 and seen else ""
        out.append(f"### {tag}{used}: {'CPU' if clock == 'cpu' else 'wall'} time per step, median of {rounds} "
                   "interleaved rounds; (ratio to PyTorch eager)\n")
        head = ["row", "PyTorch eager"] + [f"{INSTALLS[i][1]} {m}" for i in installs for m in ("eager", "compiled")]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for row in rows:
            base = results.get(_key(row, n, "torch"), [])
            cells = [ROWS[row][1] if row in ROWS else row, _cell(base, [], clock)]
            cells += [_cell(results.get(_key(row, n, f"{i}/{m}"), []), base, clock)
                      for i in installs for m in ("eager", "compiled")]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def _installs_arg(text: str) -> list:
    """``--installs``: names of INSTALLS, or the extras as pip spells them (``[fast]``, ``[fast,mkl]``)."""
    names = []
    for word in re.sub(r"\[([^\]]*)\]", lambda m: m.group(1).replace(",", "+"), text).split(","):
        name = word.strip().replace(" ", "")
        if name not in INSTALLS:
            raise SystemExit(f"--installs: {word!r} is not one of {', '.join(INSTALLS)}")
        names.append(name)
    return names


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", help="comma-separated rows: " + ", ".join(ROWS))
    p.add_argument("--installs", default=",".join(INSTALLS), help="comma-separated: " + ", ".join(INSTALLS))
    p.add_argument("--threads", default="1,default", help="comma-separated thread counts: 1, default, or N")
    p.add_argument("--steps", type=float, default=1.0, help="scale the steps per process")
    p.add_argument("--timeout", type=float, default=600, help="seconds per worker process")
    p.add_argument("--json", help="write every measurement here")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        print(RESULT + json.dumps(worker(*json.loads(args.worker))), flush=True)
        return
    if args.probe:
        install, kernels = _install_here()
        print(RESULT + json.dumps({"install": install, "kernels": kernels}), flush=True)
        return
    rows = args.only.split(",") if args.only else list(ROWS)
    unknown = [r for r in rows if r not in ROWS]
    if unknown:
        raise SystemExit(f"--only: no row {', '.join(unknown)} (rows: {', '.join(ROWS)})")
    counts = [0 if t.strip() == "default" else int(t) for t in args.threads.split(",")]
    installs, kernels, notes = choose_installs(_installs_arg(args.installs), lambda i: probe(i, args.timeout))
    for note in notes:
        print(note[2:], file=sys.stderr)
    impls = [("torch", None, False)] + [("tinytorch", i, m) for i in installs for m in (False, True)]
    results: dict = {}
    load = [os.getloadavg()[0]]
    for rnd in range(args.rounds):
        for row in rows:
            steps = max(3, int(ROWS[row][0] * args.steps))
            for n in counts:
                print(f"round {rnd + 1}/{args.rounds}: {row}, {n or 'default'} thread(s)", file=sys.stderr,
                      flush=True)
                for impl, install, compiled in impls:
                    label = "torch" if impl == "torch" else f"{install}/{'compiled' if compiled else 'eager'}"
                    got = run(row, impl, install, compiled, n, steps, args.timeout)
                    if "error" in got:
                        print(f"  {label} failed: {got['error']}", file=sys.stderr)
                    results.setdefault(_key(row, n, label), []).append(got)
        load.append(os.getloadavg()[0])
    print(tables(results, rows, installs, counts, args.rounds))
    failed = sorted({f"- {k.replace('|', ', ')}: {r['error']}" for k, v in results.items() for r in v
                     if "error" in r})
    if notes or failed:
        print("\n".join(notes + failed) + "\n")
    from _machine import cpu_name, kernels_line

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"Machine: {cpu_name()}, {cores} cores; 1-minute load average "
          f"{' -> '.join(f'{x:.1f}' for x in load)} (before, after each round); OpenBLAS variables unset.")
    for n in counts:
        line = kernels_line(n or None, env_drop=BLAS_VARS + SWITCHES + (() if n else THREAD_VARS))
        print(f"Kernels ({'1 thread' if n == 1 else 'default threads' if n == 0 else f'{n} threads'}): {line}")
    for name in installs:  # as each install's workers reported them (one line per thread count)
        lines = sorted({r["kernels"] for k, v in results.items() if k.split("|")[2].startswith(name + "/")
                        for r in v if "kernels" in r}) or [kernels[name] + " (its probe)"]
        print(f"{INSTALLS[name][1]}: tinytorch on " + "; ".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "installs": kernels, "notes": notes, "load": load,
                       "rows": {r: ROWS[r][1] for r in rows}}, f, indent=1)


if __name__ == "__main__":
    main()
