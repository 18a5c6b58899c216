"""Where a tinytorch training step spends its time: cProfile over pre-batched quickstart steps.

    python benchmarks/profile_step.py                 # 300 steps, top 15 functions by own time
    python benchmarks/profile_step.py --lib torch     # the same loop on PyTorch, for comparison

One thread, random batches of the real shapes (64 x 1 x 28 x 28 floats, int64 labels); the first
20 steps run before profiling starts so one-time costs stay out of the figures."""

from __future__ import annotations

import argparse
import os
import sys

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import cProfile  # noqa: E402
import io  # noqa: E402
import pstats  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import _common  # noqa: E402
from _workers import _framework, _train_step  # noqa: E402

WARMUP_STEPS = 20
PHASES = ("forward", "loss", "backward", "optimizer.step", "zero_grad")


def phase_medians(model, loss_fn, optimizer, batches, clock) -> dict:
    """Median µs of each phase of the training step over ``batches``, no profiler attached."""
    times = {name: [] for name in PHASES}
    for x, y in batches:
        t0 = clock()
        pred = model(x)
        t1 = clock()
        loss = loss_fn(pred, y)
        t2 = clock()
        loss.backward()
        t3 = clock()
        optimizer.step()
        t4 = clock()
        optimizer.zero_grad()
        t5 = clock()
        for name, start, end in zip(PHASES, (t0, t1, t2, t3, t4), (t1, t2, t3, t4, t5)):
            times[name].append(end - start)
    return {name: _common.median(values) * 1e6 for name, values in times.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", choices=("tinytorch", "torch"), default="tinytorch")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--sort", default="tottime", help="pstats sort key: tottime, cumulative...")
    p.add_argument(
        "--timer",
        choices=("cpu", "wall"),
        default="cpu",
        help="cpu (default): process CPU time, steadier on a busy machine but each reading costs a "
        "system call; wall: perf_counter",
    )
    args = p.parse_args(argv)
    lib = _framework(args.lib)
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (args.steps * _common.BATCH_SIZE, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, len(images))
    batches = [
        (lib.from_numpy(x), lib.from_numpy(y))
        for x, y in _common.shuffled_float_batches(images, labels, 0)
    ]
    lib.manual_seed(0)
    model = _common.quickstart_model(lib)
    loss_fn = lib.nn.CrossEntropyLoss()
    optimizer = lib.optim.SGD(model.parameters(), lr=_common.QUICKSTART_LR)
    for x, y in batches[:WARMUP_STEPS]:
        _train_step(model, loss_fn, optimizer, x, y)
    timer = time.process_time if args.timer == "cpu" else time.perf_counter
    phases = phase_medians(model, loss_fn, optimizer, batches, timer)
    print(f"{args.lib}: median µs per phase of a step ({args.timer} time, no profiler):")
    print("  " + ", ".join(f"{name} {us:.0f}" for name, us in phases.items()))
    print(f"  sum {sum(phases.values()):.0f}")
    profiler = cProfile.Profile(timer)
    profiler.enable()
    for x, y in batches:
        _train_step(model, loss_fn, optimizer, x, y)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.strip_dirs().sort_stats(args.sort).print_stats(args.top)
    print(
        f"{args.lib}: {len(batches)} pre-batched steps profiled with a {args.timer} timer "
        "(cProfile adds its own overhead to every call)"
    )
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
