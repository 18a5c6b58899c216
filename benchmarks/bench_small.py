"""Small-op workloads, where per-op overhead is the whole cost: tinytorch vs PyTorch.

    python benchmarks/bench_small.py                     # every row, 3 rounds
    python benchmarks/bench_small.py --only micrograd    # one row (micrograd, makemore, quickstart1,
                                                         #   quickstart8, quickstart1-step, quickstart8-step,
                                                         #   index)
    python benchmarks/bench_small.py --profile micrograd # tinytorch's row under cProfile, top functions
    python benchmarks/bench_small.py --compiled          # a column for tinytorch with torch.compile(model)
                                                         #   (--torch-compiled: PyTorch's too, inductor)

Rows, each written once as PyTorch code and run by both libraries:

- micrograd: Karpathy's micrograd demo as 0-d tensors: an MLP 2-16-16-1 of scalar neurons
  (``sum(w_i * x_i) + b``, ReLU), a max-margin loss with L2 regularisation over 10 samples (about 7,000
  graph nodes), backward, an SGD update of every scalar parameter under no_grad.
- makemore: makemore part 3's MLP: Embedding(27, 10) → flatten → [Linear(·, 100, bias=False) →
  BatchNorm1d(100) → Tanh] x5 → Linear(100, 27, bias=False) → BatchNorm1d(27), cross-entropy, batch 32,
  SGD lr 0.1 (forward, zero_grad, backward, step).
- quickstart1 / quickstart8: the quickstart MLP (784-512-512-10) training step at batch 1 and 8, SGD.
- quickstart1-step / quickstart8-step: the same steps written as one function (forward, loss, backward, SGD step,
  zero_grad), whose compiled column compiles that whole function (``torch.compile(train_step)``).
- index: ``x[3]`` on a (8, 16) tensor, no graph.

With ``--compiled`` the rows that train a module also run it as ``torch.compile(model)`` (the ``-step`` rows: the
whole step as ``torch.compile(train_step)``) on tinytorch (the
step's figure, and the first two calls' time: the capture, then the forward and backward plans); micrograd, whose
neurons are Python objects holding 0-d tensors, compiles its loss function (``loss = torch.compile(loss)``: the
tensors it reaches through its closure are the graph's inputs). ``--torch-compiled`` leaves micrograd out:
PyTorch's inductor took 142 s on its first call (its step then 3.2 ms).

Each measurement runs in a fresh one-thread process (OMP/OPENBLAS/MKL_NUM_THREADS=1 before numpy or
torch is imported), PyTorch then tinytorch in every round; a figure is the median over rounds of a
process's median step CPU time."""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULT = "BENCH_RESULT "


def _lib(impl: str):
    if impl == "torch":
        import torch

        torch.set_num_threads(1)
        return torch
    sys.path.insert(0, REPO)
    import tinytorch

    return tinytorch


def _timed(step, steps: int, warm: int = 3) -> dict:
    """The median step CPU time past ``warm`` steps, and the first two steps' wall time (a compiler's work may
    run in other processes)."""
    times = []
    wall = time.perf_counter()
    for k in range(steps + warm):
        t0 = time.process_time()
        step()
        times.append(time.process_time() - t0)
        if k == 1:
            wall = time.perf_counter() - wall
    return {"s": statistics.median(times[warm:]), "first": wall}


def _compiled(lib, model, impl: str):
    """``model`` (a module or a function) itself, or ``lib.compile(model)`` for the compiled columns (PyTorch's with
    inductor)."""
    return lib.compile(model) if impl.endswith("-compiled") else model


def make_micrograd(lib, impl="tinytorch"):
    rng = random.Random(0)

    class Neuron:
        def __init__(self, nin, nonlin):
            self.w = [lib.tensor(rng.uniform(-1, 1), requires_grad=True) for _ in range(nin)]
            self.b = lib.tensor(0.0, requires_grad=True)
            self.nonlin = nonlin

        def __call__(self, x):
            act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
            return act.relu() if self.nonlin else act

        def parameters(self):
            return self.w + [self.b]

    sizes = [2, 16, 16, 1]
    layers = [[Neuron(sizes[i], i != len(sizes) - 2) for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]
    params = [p for layer in layers for n in layer for p in n.parameters()]
    xs = [[rng.uniform(-2, 2), rng.uniform(-1, 1)] for _ in range(10)]
    ys = [1.0 if x[0] * x[1] > 0 else -1.0 for x in xs]
    inputs = [[lib.tensor(v) for v in x] for x in xs]

    def forward():
        scores = []
        for x in inputs:
            for layer in layers:
                x = [n(x) for n in layer]
            scores.append(x[0])
        losses = [(1 + -yi * si).relu() for yi, si in zip(ys, scores)]
        return sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in params)

    run = _compiled(lib, forward, impl)

    def step():
        loss = run()
        for p in params:
            p.grad = None
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= 0.05 * p.grad
        return loss.item()
    return step


def make_makemore(lib, impl="tinytorch"):
    import numpy as np

    nn = lib.nn
    lib.manual_seed(0)
    layers = [nn.Embedding(27, 10), nn.Flatten()]
    width = 30
    for _ in range(5):
        layers += [nn.Linear(width, 100, bias=False), nn.BatchNorm1d(100), nn.Tanh()]
        width = 100
    layers += [nn.Linear(100, 27, bias=False), nn.BatchNorm1d(27)]
    model = nn.Sequential(*layers)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    run = _compiled(lib, model, impl)
    rng = np.random.default_rng(0)
    data = [(lib.from_numpy(rng.integers(0, 27, (32, 3))), lib.from_numpy(rng.integers(0, 27, 32)))
            for _ in range(8)]
    state = [0]

    def step():
        x, y = data[state[0] % len(data)]
        state[0] += 1
        loss = nn.functional.cross_entropy(run(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()
    return step


def _quickstart_parts(lib, batch: int):
    """The quickstart MLP, its loss, SGD and 8 batches of random data, seeded alike in both libraries."""
    import numpy as np

    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    loss_fn = nn.CrossEntropyLoss()
    opt = lib.optim.SGD(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    data = [(lib.from_numpy(rng.random((batch, 1, 28, 28), dtype=np.float32)),
             lib.from_numpy(rng.integers(0, 10, batch))) for _ in range(8)]
    return model, loss_fn, opt, data


def make_quickstart(lib, batch: int, impl="tinytorch"):
    import _common  # (benchmarks/ is on the path: this script's folder, or put there by bench_fast.py)

    model, loss_fn, opt, data = _quickstart_parts(lib, batch)
    return _common.cycling_step(_compiled(lib, model, impl), loss_fn, opt, data)


def make_quickstart_step(lib, batch: int, impl="tinytorch"):
    """The quickstart step as one function of a batch, compiled whole in the compiled columns: forward, loss,
    ``backward()``, ``opt.step()`` and ``zero_grad()`` in one compiled call."""
    model, loss_fn, opt, data = _quickstart_parts(lib, batch)

    def train_step(x, y):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    run = _compiled(lib, train_step, impl)
    state = [0]

    def step():
        x, y = data[state[0] % len(data)]
        state[0] += 1
        return run(x, y)
    return step


def make_index(lib):
    x = lib.rand(8, 16)

    def step():
        for _ in range(1000):
            x[3]
    return step


ROWS = {  # name: (maker, steps per process, what the figure is)
    "micrograd": (make_micrograd, 30, "micrograd MLP 2-16-16-1 on 0-d tensors, 10 samples, step"),
    "makemore": (make_makemore, 300, "makemore part 3 MLP (Linear/BatchNorm1d/Tanh x6), batch 32, SGD step"),
    "quickstart1": (lambda lib, impl="tinytorch": make_quickstart(lib, 1, impl), 300,
                    "quickstart MLP step, batch 1, SGD"),
    "quickstart8": (lambda lib, impl="tinytorch": make_quickstart(lib, 8, impl), 300,
                    "quickstart MLP step, batch 8, SGD"),
    "quickstart1-step": (lambda lib, impl="tinytorch": make_quickstart_step(lib, 1, impl), 300,
                         "quickstart MLP step, batch 1, SGD; compiled: the whole step"),
    "quickstart8-step": (lambda lib, impl="tinytorch": make_quickstart_step(lib, 8, impl), 300,
                         "quickstart MLP step, batch 8, SGD; compiled: the whole step"),
    "index": (make_index, 30, "1000 x `x[3]` on (8, 16), no graph"),
}
# the rows with a compiled column
COMPILED_ROWS = ("micrograd", "makemore", "quickstart1", "quickstart8", "quickstart1-step", "quickstart8-step")


def task(name: str, impl: str, steps: int) -> dict:
    lib = _lib(impl.partition("-")[0])
    return _timed(ROWS[name][0](lib, impl) if name in COMPILED_ROWS else ROWS[name][0](lib), steps)


def _run(args: list) -> dict:
    env = dict(os.environ, **{v: "1" for v in THREAD_VARS})
    out = subprocess.run([sys.executable, __file__, "--worker", json.dumps(args)], env=env, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(next(x for x in out.splitlines() if x.startswith(RESULT))[len(RESULT):])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", help="comma-separated rows: " + ", ".join(ROWS))
    p.add_argument("--steps", type=float, default=1.0, help="scale the steps per process")
    p.add_argument("--profile", metavar="ROW", help="cProfile tinytorch's row in this process")
    p.add_argument("--compiled", action="store_true", help="add tinytorch's torch.compile(model) column")
    p.add_argument("--torch-compiled", action="store_true", help="and PyTorch's (inductor: a C compiler)")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        print(RESULT + json.dumps(task(*json.loads(args.worker))), flush=True)
        return
    if args.profile:
        import cProfile
        import pstats

        step = ROWS[args.profile][0](_lib("tinytorch"))
        step()
        prof = cProfile.Profile()
        prof.runcall(lambda: [step() for _ in range(max(1, int(ROWS[args.profile][1] * args.steps) // 3))])
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return
    names = args.only.split(",") if args.only else list(ROWS)
    impls = ["torch", "tinytorch"] + (["tinytorch-compiled"] if args.compiled or args.torch_compiled else []) + (
        ["torch-compiled"] if args.torch_compiled else [])
    results = {n: {i: [] for i in impls} for n in names}
    firsts = {n: {i: [] for i in impls} for n in names}
    for r in range(args.rounds):
        for n in names:
            print(f"round {r + 1}/{args.rounds}: {n}", file=sys.stderr, flush=True)
            for impl in impls:
                if (impl.endswith("-compiled") and n not in COMPILED_ROWS) or (impl, n) == ("torch-compiled",
                                                                                          "micrograd"):
                    continue
                got = _run([n, impl, max(3, int(ROWS[n][1] * args.steps))])
                results[n][impl].append(got["s"])
                firsts[n][impl].append(got["first"])
    compiled = [i for i in impls if i.endswith("-compiled")]
    head = "| row | PyTorch | tinytorch | ratio |" + "".join(
        f" {'tinytorch' if i.startswith('tiny') else 'PyTorch'} compiled (first 2 calls) | ratio |" for i in compiled)
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for n in names:
        t, tt = statistics.median(results[n]["torch"]), statistics.median(results[n]["tinytorch"])
        cells = ""
        for i in compiled:
            if results[n][i]:
                c, first = statistics.median(results[n][i]), statistics.median(firsts[n][i])
                cells += f" {c * 1e3:.3g} ms ({first:.2f} s) | {c / t:.2f}x |"
            else:
                cells += " — | — |"
        print(f"| {ROWS[n][2]} | {t * 1e3:.3g} ms | {tt * 1e3:.3g} ms | {tt / t:.2f}x |{cells}")
    print(f"\n{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {args.rounds} interleaved rounds.")
    from _machine import kernels_line  # the kernels these figures ran on
    print(f"Kernels: {kernels_line()}")


if __name__ == "__main__":
    main()
