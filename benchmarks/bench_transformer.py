"""One GPT-style training step, tinytorch against PyTorch (one thread each), timed interleaved.

    python benchmarks/bench_transformer.py [--rounds 7] [--steps 5]
    python benchmarks/bench_transformer.py --config large    # B16 T64 C128, dropout 0.2

The model: token + position embeddings, 4 pre-norm causal TransformerEncoderLayers (d_model 64, 4 heads,
GELU feed-forward of 256), a final LayerNorm and a linear head over 65 symbols; batch 16 x 32 tokens,
cross-entropy, AdamW. ``--config large``: d_model 128 (feed-forward 512), 64 tokens, dropout 0.2 in
training mode (both libraries draw the same dropout masks from the same seed). Both libraries build it from the same seed (the same parameters bit for bit) and
train on the same batches; rounds alternate between them so that a busy machine slows both alike.
Printed: median milliseconds per step of each, their ratio, and the first losses of both."""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tinytorch  # noqa: E402

from _gpt import B, CONFIGS, HEADS, LAYERS, VOCAB, build, make_step  # noqa: E402  (the model, written once)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=5, help="steps per library per round")
    p.add_argument("--config", choices=sorted(CONFIGS), default="small")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="cpu: process time, steadier than wall time on a shared machine")
    args = p.parse_args()
    cfg = CONFIGS[args.config]
    T, C, DROPOUT = cfg
    import torch
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    batches = [(rng.integers(0, VOCAB, (B, T)), rng.integers(0, VOCAB, (B, T))) for _ in range(8)]
    libs = {"tinytorch": tinytorch, "torch": torch}
    steps = {name: make_step(lib, *build(lib, cfg), batches) for name, lib in libs.items()}
    first = {name: [fn() for _ in range(3)] for name, fn in steps.items()}  # warm-up, and the first losses
    times = {name: [] for name in libs}
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    for _ in range(args.rounds):
        for name, fn in steps.items():
            t0 = clock()
            for _ in range(args.steps):
                fn()
            times[name].append((clock() - t0) / args.steps * 1e3)
    ms = {name: statistics.median(v) for name, v in times.items()}
    print(f"GPT step B{B} T{T} C{C}, {LAYERS} layers, {HEADS} heads, GELU FFN, dropout {DROPOUT}, AdamW (1 thread, {args.clock} time)")
    for name in libs:
        print(f"  {name:9s} {ms[name]:8.2f} ms/step   first losses {', '.join(f'{v:.4f}' for v in first[name])}")
    print(f"  ratio tinytorch/torch: {ms['tinytorch'] / ms['torch']:.2f}x")
    from _machine import kernels_line  # the kernels these figures ran on
    print(f"Kernels: {kernels_line()}")


if __name__ == "__main__":
    main()
