"""PyTorch's "Writing Distributed Applications with PyTorch" (dist_tuto): blocking and non-blocking
point-to-point, and all-reduce on a group, between two processes started with ``mp.Process`` that meet
through ``env://`` with backend ``"gloo"``, as the tutorial starts them.

``python dist_tuto.py blocking nonblocking allreduce`` runs the three in turn on PyTorch;
``python -m tinytorch.run dist_tuto.py ...`` runs the same file on tinytorch. MASTER_PORT may be set by
the caller (tests run in parallel); the tutorial fixes 29500."""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def blocking(rank, size):
    tensor = torch.zeros(1)
    if rank == 0:
        tensor += 1
        dist.send(tensor=tensor, dst=1)  # to process 1
    else:
        dist.recv(tensor=tensor, src=0)  # from process 0
    print("Rank ", rank, " has data ", tensor[0])


def nonblocking(rank, size):
    tensor = torch.zeros(1)
    if rank == 0:
        tensor += 1
        req = dist.isend(tensor=tensor, dst=1)
        print("Rank 0 started sending")
    else:
        req = dist.irecv(tensor=tensor, src=0)
        print("Rank 1 started receiving")
    req.wait()
    print("Rank ", rank, " has data ", tensor[0])


def allreduce(rank, size):
    group = dist.new_group([0, 1])
    tensor = torch.ones(1)
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM, group=group)
    print("Rank ", rank, " has data ", tensor[0])


def init_process(rank, size, fn, backend="gloo"):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ.setdefault("MASTER_PORT", "29500")
    dist.init_process_group(backend, rank=rank, world_size=size)
    for f in fn:
        f(rank, size)
    dist.destroy_process_group()


if __name__ == "__main__":
    run = [{"blocking": blocking, "nonblocking": nonblocking, "allreduce": allreduce}[a] for a in sys.argv[1:]]
    size = 2
    processes = []
    mp.set_start_method("spawn")
    for rank in range(size):
        p = mp.Process(target=init_process, args=(rank, size, run))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
