"""Data-parallel scaling: the quickstart's epoch on 1 and on N MPI ranks, and one gradient allreduce.

    python benchmarks/bench_distributed.py --data-root ../shared/datasets [--ranks 2] [--rounds 3]

Each rank is one process with one BLAS thread. The epoch is the training loop of the main job (the
stored 8192 images, global batch 64 split evenly among the ranks, SGD lr 0.1), timed on rank 0 from
a barrier before the first step to a barrier after the last; with 1 rank the same loop runs without
MPI or DDP. The allreduce is DDP's reduction of the quickstart's 669,706 float32 gradients (2.7 MB,
one bucket of 25 MB), min over 20 calls. Scaling efficiency = t(1 rank) / (N x t(N ranks)).
Progress goes to stderr, a Markdown table to stdout."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
RESULT = "BENCH_RESULT "


def worker(data_root: str, world: int) -> None:
    sys.path.insert(0, REPO)
    import numpy as np

    import tinytorch as torch
    from tinytorch import nn
    from tinytorch.data import datasets
    from tinytorch.data.transforms import ToTensor
    from train_fashion_mnist import NeuralNetwork, epoch_order, rank_share

    rank = 0
    if world > 1:
        import tinytorch.distributed as dist
        from tinytorch.nn.parallel import DistributedDataParallel

        dist.init_process_group("mpi")
        rank = dist.get_rank()
    torch.manual_seed(0)
    data = datasets.FashionMNIST(root=data_root, train=True, download=False, transform=ToTensor())
    images = torch.tensor(data.data.numpy().astype(np.float32) / 255).reshape(-1, 1, 28, 28)
    labels = data.targets
    order = epoch_order(len(data), 0, 0, True)
    if world > 1:
        order = rank_share(order, rank, world, 64)
    per = 64 // world
    batches = [(images[order[i:i + per]], labels[order[i:i + per]]) for i in range(0, len(order), per)]
    model = NeuralNetwork()
    net = DistributedDataParallel(model) if world > 1 else model
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    if world > 1:
        dist.barrier()
    start = time.perf_counter()
    for x, y in batches:
        loss_fn(net(x), y).backward()
        opt.step()
        opt.zero_grad()
    if world > 1:
        dist.barrier()
    epoch = time.perf_counter() - start
    allreduce = None
    if world > 1:
        grads = np.ones(sum(p.numel() for p in model.parameters()), dtype=np.float32)
        flat = torch.from_numpy(grads)
        times = []
        for _ in range(20):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(flat)
            times.append(time.perf_counter() - t0)
        allreduce = min(times)
    if rank == 0:
        print(RESULT + json.dumps({"epoch_s": epoch, "allreduce_s": allreduce, "steps": len(batches)}), flush=True)


def run(data_root: str, world: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    cmd = [sys.executable, __file__, "--worker", "--data-root", data_root, "--ranks", str(world)]
    if world > 1:
        beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
        cmd = [beside if os.path.exists(beside) else shutil.which("mpiexec"), "-n", str(world)] + cmd
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    line = next(x for x in out.splitlines() if x.startswith(RESULT))
    return json.loads(line[len(RESULT):])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-root", default=os.path.join(REPO, "..", "shared", "datasets"))
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.data_root, args.ranks)
        return
    one, many = [], []
    for r in range(args.rounds):  # interleaved, so a busy moment hits both
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        one.append(run(args.data_root, 1))
        many.append(run(args.data_root, args.ranks))
    t1 = statistics.median(x["epoch_s"] for x in one)
    tn = statistics.median(x["epoch_s"] for x in many)
    ar = min(x["allreduce_s"] for x in many)
    load = os.getloadavg()[0]
    print(f"| quickstart epoch ({one[0]['steps']} steps of 64) | 1 rank | {args.ranks} ranks | scaling efficiency |"
          f" allreduce of the gradients (2.7 MB) |")
    print("|---|---|---|---|---|")
    print(f"| wall time | {t1 * 1e3:.0f} ms | {tn * 1e3:.0f} ms | {t1 / (args.ranks * tn):.0%} | "
          f"{ar * 1e3:.2f} ms |")
    print(f"\n{os.cpu_count()} cores, load average {load:.1f}; medians of {args.rounds} interleaved rounds.")


if __name__ == "__main__":
    main()
