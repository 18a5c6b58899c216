"""tinytorch vs PyTorch vs hand-written numpy: the quickstart MLP, side by side, one thread.

    python benchmarks/bench.py --data-root ../shared/datasets  # real images, tiled to 60k per epoch
    python benchmarks/bench.py --synthetic                      # generated images, same shapes
    python benchmarks/bench.py --quick                          # smoke run: 6400 samples, 1 round

Every measurement runs in its own fresh process, with OMP/OPENBLAS/MKL_NUM_THREADS=1 set before
numpy or torch is imported, and the implementations take turns round by round (PyTorch, tinytorch,
numpy, then again), so drift of the machine hits all of them alike. Figures are medians over rounds
(import time: min). Progress goes to stderr; the Markdown tables go to stdout."""

from __future__ import annotations

import argparse
import atexit
import importlib.util
import json
import math
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import _report  # noqa: E402  (numpy-free: the parent process stays light)
import _rng  # noqa: E402  (numpy-free too; its worker imports what it needs)
from _machine import cpu_name, kernels_line  # noqa: E402  (numpy-free: asks a fresh process)

THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
RESULT_PREFIX = "BENCH_RESULT "
MODULES = {"torch": "torch", "tinytorch": "tinytorch", "numpy": "numpy"}
# the import is timed before anything else is imported, in a process that does nothing else
IMPORT_SNIPPET = (
    "import time\n"
    "start = time.{clock}()\n"
    "import {module}\n"
    "elapsed = time.{clock}() - start\n"
    "import json, resource\n"
    "rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
    "print({prefix!r} + json.dumps({{'import_s': elapsed, 'rss_mib': rss}}))\n"
)
TASKS_OF = {
    "torch": ("import", "prebatched", "quickstart", "micro", "rng", "cnn"),
    "tinytorch": ("import", "prebatched", "quickstart", "micro", "rng", "cnn"),
    "numpy": ("import", "prebatched", "micro", "cnn"),
}
CLOCK_WORDS = {
    "cpu": "times are the worker process's CPU time (elapsed times are in --json)",
    "wall": "times are elapsed (wall-clock) times",
}
CLOCK_FUNCTIONS = {"cpu": "process_time", "wall": "perf_counter"}
ROUND_TASKS = ("import", "prebatched", "quickstart", "micro", "rng", "cnn")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-root", help="folder holding FashionMNIST/raw/ (e.g. ../shared/datasets)")
    p.add_argument(
        "--synthetic", action="store_true", help="generated images even when --data-root is given"
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="rounds of every measurement (default 3; 1 with --quick)",
    )
    p.add_argument(
        "--samples",
        type=int,
        default=None,
        help="samples per epoch (default 60000; 6400 with --quick)",
    )
    p.add_argument(
        "--quick", action="store_true", help="a fast smoke run: fewer samples, rounds and repeats"
    )
    p.add_argument(
        "--accuracy",
        action="store_true",
        help="also train 5 epochs at lr 0.1, seeds 0-4, on the stored data; compare test accuracy",
    )
    p.add_argument("--skip-torch", action="store_true", help="leave PyTorch out")
    p.add_argument(
        "--json", metavar="PATH", help="write the raw per-round results and the summary here"
    )
    p.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="cpu (default): each worker's CPU time, robust to other load; wall: elapsed time",
    )
    p.add_argument(
        "--timeout", type=float, default=600, help="seconds before one worker process is abandoned"
    )
    p.add_argument(
        "--only",
        metavar="TASKS",
        help=f"comma-separated subset of {','.join(ROUND_TASKS)} (e.g. --only cnn)",
    )
    p.add_argument(
        "--cnn-steps", type=int, default=None, help="CNN training steps per round (default 40; 8 with --quick)"
    )
    args = p.parse_args(argv)
    args.only = tuple(args.only.split(",")) if args.only else ROUND_TASKS
    if any(t not in ROUND_TASKS for t in args.only):
        p.error(f"--only takes tasks from {','.join(ROUND_TASKS)}")
    args.cnn_steps = args.cnn_steps if args.cnn_steps is not None else (8 if args.quick else 40)
    args.rounds = args.rounds if args.rounds is not None else (1 if args.quick else 3)
    args.samples = args.samples if args.samples is not None else (6400 if args.quick else 60000)
    if args.rounds < 1 or args.samples < 1:
        p.error("--rounds and --samples must be positive")
    if (
        args.data_root
        and not args.synthetic
        and not os.path.isdir(os.path.join(args.data_root, "FashionMNIST", "raw"))
    ):
        p.error(
            f"{args.data_root} has no FashionMNIST/raw/ folder (use --synthetic for generated data)"
        )
    return args


# a bytecode cache of the run's own: where PYTHONDONTWRITEBYTECODE is set, every import would otherwise
# recompile tinytorch from source while PyTorch's bytecode sits compiled in site-packages
_PYCACHE = tempfile.mkdtemp(prefix="bench_pycache_")
atexit.register(shutil.rmtree, _PYCACHE, True)


def worker_env() -> dict:
    """Every worker's environment: one thread everywhere, this checkout's tinytorch first, bytecode kept."""
    env = dict(os.environ)
    for name in THREAD_VARS:
        env[name] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (REPO, env.get("PYTHONPATH")) if p)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = _PYCACHE
    return env


def _run(cmd: list, timeout: float) -> dict:
    try:
        proc = subprocess.run(
            cmd, cwd=HERE, env=worker_env(), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX) :])
    tail = [line for line in proc.stderr.strip().splitlines() if line.strip()]
    return {"error": tail[-1] if tail else f"exit status {proc.returncode}, no result"}


def run_task(task: str, impl: str, params: dict, timeout: float) -> dict:
    """One measurement in a fresh interpreter: its JSON result, or {"error": last stderr line}."""
    if task == "import":
        snippet = IMPORT_SNIPPET.format(
            module=MODULES[impl], prefix=RESULT_PREFIX, clock=CLOCK_FUNCTIONS[params["clock"]]
        )
        return _run([sys.executable, "-c", snippet], timeout)
    return _run(
        [sys.executable, os.path.join(HERE, "_workers.py"), task, impl, json.dumps(params)], timeout
    )


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _version(module: str) -> str:
    code = f"import {module}; print({module}.__version__)"
    proc = subprocess.run(
        [sys.executable, "-c", code], env=worker_env(), capture_output=True, text=True
    )
    return proc.stdout.strip() or "?"


def _git_commit() -> str:
    """The measured checkout's commit, marked "+changes" when tracked files differ from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "tinytorch"],
            cwd=REPO,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return (head or "unknown") + (" +changes" if dirty else "")


def measure(args, root: str, impls: list, notes: list) -> dict:
    """All rounds, interleaved: in each round every task runs once per implementation, in turn."""
    params = {
        "root": os.path.abspath(root),
        "samples": args.samples,
        "repeats": 3 if args.quick else 7,
        "matmul_repeats": 30 if args.quick else 200,
        "chain_lengths": [10000, 20000],
        "chain_repeats": 1 if args.quick else 3,
        "clock": args.clock,
        "cnn_steps": args.cnn_steps,
    }
    raw = {impl: {task: [] for task in TASKS_OF[impl]} for impl in impls}
    for r in range(args.rounds):
        for task in args.only:
            for impl in list(impls):
                if task not in TASKS_OF[impl]:
                    continue
                start = time.perf_counter()
                result = run_task(task, impl, dict(params, seed=r), args.timeout)
                _log(
                    f"round {r + 1}/{args.rounds} {task:<10} {impl:<9} "
                    f"{time.perf_counter() - start:6.1f} s"
                    + (f"  FAILED: {result['error']}" if "error" in result else "")
                )
                if impl == "torch" and task == "import" and "error" in result:
                    notes.append(
                        f"PyTorch is not importable ({result['error']}); its columns are empty."
                    )
                    impls.remove("torch")
                    del raw["torch"]
                    continue
                raw[impl][task].append(result)
    if args.accuracy:
        acc_params = dict(params, seeds=[0, 1, 2, 3, 4], epochs=5)
        for impl in impls:
            if impl == "numpy":
                continue
            start = time.perf_counter()
            result = run_task("accuracy", impl, acc_params, args.timeout * 5)
            _log(
                f"accuracy   {impl:<9} {time.perf_counter() - start:6.1f} s"
                + (f"  FAILED: {result['error']}" if "error" in result else "")
            )
            raw[impl]["accuracy"] = [result]
    return raw


def render(args, summary: dict, meta: dict, notes: list) -> str:
    steps = math.ceil(args.samples / 64)
    load = meta["load_average"]
    lines = [
        f"Command: `{meta['command']}`",
        "",
        f"{meta['cpu']} ({meta['cpus']} cores, 1 thread used; 1-min load average "
        f"{load[0]:.2f} before, "
        f"{load[1]:.2f} after); Python {meta['python']}, numpy {meta['numpy']}, tinytorch at "
        f"{meta['tinytorch_commit']}, PyTorch "
        f"{meta.get('torch', 'not run')}; data: {meta['data']}; {args.samples} samples per epoch "
        f"({steps} steps of batch 64); {args.rounds} round(s), medians over rounds; "
        f"{CLOCK_WORDS[args.clock]}.",
        f"Kernels: {meta.get('kernels', 'unknown')}.",
        "",
        _report.main_table(summary, steps),
        "",
        _report.op_table(summary),
        "",
        _rng.rng_table(summary),
    ]
    extra = notes + _report.error_notes(summary)
    for impl, name in (("torch", "PyTorch"), ("tinytorch", "tinytorch")):
        runs = summary.get(impl, {}).get("accuracy_runs")
        if runs:
            per_seed = ", ".join(f"{100 * a:.2f}" for a in runs)
            extra.append(f"{name} test accuracy (%) for seeds 0-{len(runs) - 1}: {per_seed}")
    if extra:
        lines += [""] + [n if n.startswith("- ") else f"- {n}" for n in extra]
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse_args(argv)
    notes, tmp = [], None
    impls = ["torch", "tinytorch", "numpy"]
    if args.skip_torch:
        impls.remove("torch")
        notes.append("PyTorch left out (--skip-torch).")
    elif importlib.util.find_spec("torch") is None:
        impls.remove("torch")
        notes.append("PyTorch is not installed; its columns are empty.")
    try:
        if args.data_root and not args.synthetic:
            root, data = args.data_root, f"real FashionMNIST images from {args.data_root}, tiled"
        else:
            import _common  # numpy: the parent needs it only to write the synthetic files

            tmp = root = tempfile.mkdtemp(prefix="tinytorch-bench-")
            _common.write_synthetic_dataset(root)
            data = (
                f"synthetic uint8 images ({_common.SYNTHETIC_TRAIN} train / "
                f"{_common.SYNTHETIC_TEST} test), "
                "tiled"
            )
        load_before = os.getloadavg()[0]
        raw = measure(args, root, impls, notes)
        load_after = os.getloadavg()[0]
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    meta = {
        "command": shlex.join(
            ["python", "benchmarks/bench.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "cpu": cpu_name(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "tinytorch_commit": _git_commit(),
        "data": data,
        "load_average": [load_before, load_after],
        "kernels": kernels_line(),
    }
    if "torch" in impls:
        meta["torch"] = _version("torch")
    summary = _report.summarize(raw)
    print(render(args, summary, meta, notes))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"meta": meta, "args": vars(args), "notes": notes, "summary": summary, "raw": raw},
                f,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
