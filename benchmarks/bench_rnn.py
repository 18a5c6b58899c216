"""tinytorch vs PyTorch: one training step of nn.LSTM (input 64, hidden 128, T 32, batch 32), one thread.

    python benchmarks/bench_rnn.py                 # 3 interleaved rounds
    python benchmarks/bench_rnn.py --rounds 5 --steps 30 --clock wall
    python benchmarks/bench_rnn.py --model char    # the char model: embedding 64, LSTM 128, Adam

Each round runs PyTorch then tinytorch, each in a fresh process with OMP/OPENBLAS/MKL_NUM_THREADS=1
set before numpy or torch is imported; a process times ``--steps`` steps (forward, a linear head and
an MSE loss, backward, SGD) after 3 warm-up steps and reports the median. ``--model char``: a character
model instead (Embedding(65, 64), the same LSTM, Linear(128, 65), cross-entropy over random symbol
batches, Adam lr 1e-3). Figures are medians over
rounds; the ratio is tinytorch's time over PyTorch's. A Markdown table goes to stdout."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PREFIX = "BENCH_RNN "


def make_step(lib, char: bool, compiled: bool = False):
    """One training step of the benchmark's model in ``lib`` (torch or tinytorch), built from seed 0: the
    LSTM with a linear head and an MSE loss, SGD; or with ``char`` the character model (embedding, LSTM,
    head, cross-entropy, Adam). ``compiled``: the model's forward (embedding, LSTM, head) through
    ``torch.compile``. Returns a function running one step."""
    import numpy as np

    T, B, E, H, V = 32, 32, 64, 128, 65
    lib.manual_seed(0)
    emb = lib.nn.Embedding(V, E) if char else None
    lstm, head = lib.nn.LSTM(E, H), lib.nn.Linear(H, V if char else E)
    params = list(lstm.parameters()) + list(head.parameters()) + ([] if emb is None else list(emb.parameters()))
    opt = lib.optim.Adam(params, lr=1e-3) if char else lib.optim.SGD(params, lr=0.01)
    rng = np.random.default_rng(0)
    if char:
        x = lib.tensor(rng.integers(0, V, (T, B)))
        y = lib.tensor(rng.integers(0, V, (T * B,)))
    else:
        x = lib.tensor(rng.standard_normal((T, B, E)).astype(np.float32))
        y = lib.tensor(rng.standard_normal((T, B, E)).astype(np.float32))

    def forward(x):
        return head(lstm(emb(x) if char else x)[0])

    model = lib.compile(forward) if compiled else forward

    def step():
        opt.zero_grad()
        out = model(x)
        if char:
            loss = lib.nn.functional.cross_entropy(out.reshape(-1, V), y)
        else:
            loss = lib.nn.functional.mse_loss(out, y)
        loss.backward()
        opt.step()
        return loss
    return step


WORKER = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[5])
from bench_rnn import make_step
lib = __import__(sys.argv[1])
if sys.argv[1] == "torch":
    lib.set_num_threads(1)
steps, clock = int(sys.argv[2]), getattr(time, sys.argv[3])
step = make_step(lib, sys.argv[4] == "char")
times = []
for i in range(steps + 3):
    t0 = clock()
    loss = step()
    if i >= 3:
        times.append(clock() - t0)
print("BENCH_RNN " + json.dumps({"step_s": float(np.median(times)), "loss": float(loss)}))
"""


def run(lib: str, steps: int, clock: str, model: str = "lstm") -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", WORKER, lib, str(steps), clock, model, HERE], env=env, cwd=REPO,
                          capture_output=True, text=True, check=True)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith(PREFIX))
    return json.loads(line[len(PREFIX):])


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    p.add_argument("--model", choices=("lstm", "char"), default="lstm")
    args = p.parse_args(argv)
    clock = {"cpu": "process_time", "wall": "perf_counter"}[args.clock]
    results = {"torch": [], "tinytorch": []}
    for r in range(args.rounds):
        for lib in results:
            results[lib].append(run(lib, args.steps, clock, args.model)["step_s"])
            print(f"round {r + 1}: {lib} {results[lib][-1] * 1e3:.2f} ms", file=sys.stderr)
    med = {lib: statistics.median(v) for lib, v in results.items()}
    what = "char model (Embedding 64, LSTM 128, Adam)" if args.model == "char" else "nn.LSTM(64, 128)"
    print(f"| {what} step, T=32, B=32, 1 thread ({args.clock} time) | ms |")
    print("|---|---|")
    for lib, v in med.items():
        print(f"| {lib} | {v * 1e3:.2f} |")
    print(f"| ratio tinytorch / PyTorch | {med['tinytorch'] / med['torch']:.2f}x |")
    from _machine import kernels_line  # the kernels these figures ran on
    print(f"Kernels: {kernels_line()}")


if __name__ == "__main__":
    main()
