"""Run under ``mpiexec -n 2`` by tests/distributed/test_distributed.py: ``python _mpi_scenarios.py NAME OUT_DIR``.

Each scenario checks its results on every rank against numpy (or against a one-process run computed
on the spot) and writes ``OUT_DIR/NAME.RANK.json`` with the list of failures, which the test reads."""
import faulthandler
import json
import os
import sys

import numpy as np

import tinytorch as torch
import tinytorch.distributed as dist
from tinytorch import nn
from tinytorch.nn.parallel import DistributedDataParallel as DDP


def _rank_data(rank: int, dtype=np.float64) -> np.ndarray:
    return (np.arange(6, dtype=np.float64).reshape(2, 3) * (rank + 1) - rank).astype(dtype)


def collectives(rank: int, world: int) -> list:
    fails = []

    def check(name, got, want):
        if not np.array_equal(np.asarray(got), np.asarray(want)):
            fails.append(f"{name}: got {np.asarray(got).tolist()}, want {np.asarray(want).tolist()}")

    every = [_rank_data(r) for r in range(world)]
    for op, fn in [(dist.ReduceOp.SUM, np.sum), (dist.ReduceOp.PRODUCT, np.prod), (dist.ReduceOp.MIN, np.min),
                   (dist.ReduceOp.MAX, np.max), (dist.ReduceOp.AVG, np.mean)]:
        t = torch.tensor(_rank_data(rank))
        assert dist.all_reduce(t, op=op) is None
        check(f"all_reduce {op}", t.numpy(), fn(np.stack(every), axis=0))
    # float32, int64, float16 and a non-contiguous view (reduced through a copy, written back in place)
    for dtype in (np.float32, np.int64, np.float16):
        t = torch.tensor(_rank_data(rank, dtype))
        dist.all_reduce(t)
        check(f"all_reduce {dtype.__name__}", t.numpy(), np.sum([_rank_data(r, dtype) for r in range(world)], 0))
        if t.numpy().dtype != dtype:
            fails.append(f"all_reduce changed the dtype of {dtype.__name__}")
    base = torch.tensor(_rank_data(rank))
    view = base.t()
    dist.all_reduce(view)
    check("all_reduce of a transposed view", base.numpy(), np.sum(every, 0))
    work = dist.all_reduce(torch.ones(3), async_op=True)
    if not (work.wait() and work.is_completed()):
        fails.append("async all_reduce did not complete")

    t = torch.tensor(_rank_data(rank))
    dist.broadcast(t, src=1)
    check("broadcast src=1", t.numpy(), every[1])
    t = torch.tensor(_rank_data(rank))
    dist.reduce(t, dst=0, op=dist.ReduceOp.SUM)
    check("reduce dst=0", t.numpy(), np.sum(every, 0) if rank == 0 else every[rank])

    out = [torch.zeros(2, 3, dtype=torch.float64) for _ in range(world)]
    dist.all_gather(out, torch.tensor(_rank_data(rank)))
    for r in range(world):
        check(f"all_gather[{r}]", out[r].numpy(), every[r])
    flat = torch.zeros(2 * world, 3, dtype=torch.float64)
    dist.all_gather_into_tensor(flat, torch.tensor(_rank_data(rank)))
    check("all_gather_into_tensor", flat.numpy(), np.concatenate(every))

    gathered = [torch.zeros(2, 3, dtype=torch.float64) for _ in range(world)] if rank == 0 else None
    dist.gather(torch.tensor(_rank_data(rank)), gathered, dst=0)
    if rank == 0:
        for r in range(world):
            check(f"gather[{r}]", gathered[r].numpy(), every[r])
    got = torch.zeros(2, 3, dtype=torch.float64)
    dist.scatter(got, [torch.tensor(e) for e in every] if rank == 1 else None, src=1)
    check("scatter from 1", got.numpy(), every[rank])

    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank, "name": f"r{rank}"})
    if objs != [{"rank": r, "name": f"r{r}"} for r in range(world)]:
        fails.append(f"all_gather_object: {objs}")
    lst = [rank, "x"] if rank == 0 else [None, None]
    dist.broadcast_object_list(lst, src=0)
    if lst != [0, "x"]:
        fails.append(f"broadcast_object_list: {lst}")

    if rank == 0:
        dist.send(torch.tensor([1.5, 2.5]), dst=1)
    elif rank == 1:
        buf = torch.zeros(2)
        sender = dist.recv(buf)
        check("recv", buf.numpy(), np.array([1.5, 2.5], dtype=np.float32))
        if sender != 0:
            fails.append(f"recv returned sender {sender}")

    sub = dist.new_group([1])
    t = torch.tensor([float(rank)])
    dist.all_reduce(t, group=sub)  # rank 0 is not a member: the call is skipped there
    check("all_reduce on new_group([1])", t.numpy(), [float(rank)])
    if dist.get_rank(sub) != (0 if rank == 1 else -1):
        fails.append(f"get_rank(sub) = {dist.get_rank(sub)}")
    dist.barrier()
    if (dist.get_rank(), dist.get_world_size(), dist.get_backend(), dist.is_initialized()) != \
            (rank, world, "mpi", True):
        fails.append("rank / world size / backend")
    try:
        dist.init_process_group("mpi")
        fails.append("a second init_process_group did not raise")
    except ValueError as e:
        if str(e) != "trying to initialize the default process group twice!":
            fails.append(f"second init: {e}")
    return fails


# calls with mismatched or invalid arguments, by name; each takes (torch, dist, rank). The LOCAL ones are wrong
# on both ranks alike, so PyTorch's gloo raises its own check's error on both before any data moves, and
# tests/distributed/test_distributed.py runs them in PyTorch too to compare the errors
LOCAL_MISMATCHES = {
    "all_gather list too short": lambda torch, dist, rank: dist.all_gather([torch.zeros(2)], torch.ones(2)),
    "all_gather list of another dtype": lambda torch, dist, rank: dist.all_gather(
        [torch.zeros(2), torch.zeros(2, dtype=torch.float64)], torch.ones(2)),
    "all_gather list entry of a wrong size": lambda torch, dist, rank: dist.all_gather(
        [torch.zeros(2, 3), torch.zeros(3, 3)], torch.ones(2, 3)),
    "recv from own rank": lambda torch, dist, rank: dist.recv(torch.zeros(2), src=rank),
    "irecv from own rank": lambda torch, dist, rank: dist.irecv(torch.zeros(2), src=rank).wait(),
}
# wrong on one rank or different across ranks: PyTorch's gloo fails the job (a RuntimeError on one rank, the
# other returning or aborting), and tinytorch must raise a RuntimeError on every rank
CROSS_MISMATCHES = {
    "all_reduce numel": lambda torch, dist, rank: dist.all_reduce(torch.ones(2 if rank == 0 else 3)),
    "all_reduce dtype": lambda torch, dist, rank: dist.all_reduce(
        torch.ones(3, dtype=torch.float32 if rank == 0 else torch.float64)),
    "async all_reduce numel": lambda torch, dist, rank: dist.all_reduce(
        torch.ones(2 if rank == 0 else 3), async_op=True).wait(),
    "reduce numel": lambda torch, dist, rank: dist.reduce(torch.ones(2 if rank == 0 else 3), dst=0),
    "broadcast numel": lambda torch, dist, rank: dist.broadcast(torch.ones(2 if rank == 0 else 3), src=0),
    "all_gather wrong-size list on rank 0": lambda torch, dist, rank: dist.all_gather(
        [torch.zeros(2), torch.zeros(3 if rank == 0 else 2)], torch.ones(2)),
    "all_gather input numel": lambda torch, dist, rank: dist.all_gather(
        [torch.zeros(2), torch.zeros(2)], torch.ones(2 if rank == 0 else 3)),
    "all_gather_into_tensor input numel": lambda torch, dist, rank: dist.all_gather_into_tensor(
        torch.zeros(4 if rank == 0 else 6), torch.ones(2 if rank == 0 else 3)),
    "broadcast from different sources": lambda torch, dist, rank: dist.broadcast(torch.ones(2), src=rank),
    "gather without a list on the destination": lambda torch, dist, rank: dist.gather(torch.ones(2), None, dst=0),
    "scatter numel": lambda torch, dist, rank: dist.scatter(
        torch.zeros(2 if rank == 0 else 3), [torch.ones(2), torch.ones(2)] if rank == 0 else None, src=0),
}


def _attempt(call) -> list:
    try:
        call()
        return ["returned", ""]
    except Exception as err:  # noqa: BLE001 - the error is what is recorded
        return [type(err).__name__, str(err)]


def mismatches(rank: int, world: int) -> list:
    """Every mismatched call raises on every rank and leaves the group working; the errors go to
    OUT_DIR/mismatches.RANK.errors.json for the test to compare with PyTorch's."""
    fails = []
    errors = {name: _attempt(lambda: call(torch, dist, rank)) for name, call in
              {**LOCAL_MISMATCHES, **CROSS_MISMATCHES}.items()}
    for name in CROSS_MISMATCHES:
        if errors[name][0] == "returned":
            fails.append(f"{name}: returned on rank {rank}")
    for name in ("all_reduce numel", "all_reduce dtype", "reduce numel", "broadcast numel",
                 "broadcast from different sources"):
        if errors[name][0] != "RuntimeError" or "Is there a distributed collective mismatch" not in errors[name][1]:
            fails.append(f"{name}: {errors[name]}")
    if "rank 0: 2 elements of tinytorch.float32, rank 1: 3 elements of tinytorch.float32" \
            not in errors["all_reduce numel"][1]:
        fails.append(f"all_reduce numel does not name the ranks' tensors: {errors['all_reduce numel'][1]}")
    # the same numel in other shapes is not a mismatch: PyTorch reduces the flat buffers
    t = torch.ones(2, 3) if rank == 0 else torch.ones(3, 2) * 2
    dist.all_reduce(t)
    if not np.array_equal(t.numpy(), np.full((2, 3) if rank == 0 else (3, 2), 3.0, dtype=np.float32)):
        fails.append(f"all_reduce of equal numels in other shapes: {t.numpy().tolist()}")
    # after all of them the group still works: no rank was left inside a collective
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)
    if t.tolist() != [sum(range(1, world + 1))]:
        fails.append(f"all_reduce after the mismatches: {t.tolist()}")
    with open(os.path.join(sys.argv[2], f"mismatches.{rank}.errors.json"), "w") as f:
        json.dump(errors, f)
    return fails


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3)).double()


def _batches(steps: int, batch: int):
    rng = np.random.default_rng(1234)
    for _ in range(steps):
        yield (torch.tensor(rng.standard_normal((batch, 5))), torch.tensor(rng.integers(0, 3, batch)))


def ddp_equivalence(rank: int, world: int) -> list:
    """20 DDP steps on equal slices of each global batch == 20 one-process steps on the whole batches."""
    fails = []
    ref = _model()
    net = _model()
    with torch.no_grad():  # different starting points on purpose: DDP must broadcast rank 0's weights
        for p in net.parameters():
            p.add_(rank)
    ddp = DDP(net, bucket_cap_mb=0.0001)  # tiny buckets: several in flight during one backward
    if len(ddp._buckets) < 2:
        fails.append(f"expected several buckets, got {len(ddp._buckets)}")
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    per = 8 // world
    for step, (x, y) in enumerate(_batches(20, 8)):
        mine = slice(rank * per, (rank + 1) * per)
        if step % 4 == 3:  # gradient accumulation: two local micro-batches, one synchronisation
            with ddp.no_sync():
                loss_fn(ddp(x[mine][:per // 2]), y[mine][:per // 2]).mul(0.5).backward()
            loss_fn(ddp(x[mine][per // 2:]), y[mine][per // 2:]).mul(0.5).backward()
        else:
            loss_fn(ddp(x[mine]), y[mine]).backward()
        opt.step()
        opt.zero_grad()
        loss_fn(ref(x), y).backward()
        ref_opt.step()
        ref_opt.zero_grad()
    for (name, p), q in zip(net.named_parameters(), ref.parameters()):
        err = float((p - q).abs().max())
        if not err <= 1e-6:
            fails.append(f"{name} differs from one-process training by {err}")
    if list(ddp.state_dict()) != ["module." + k for k in net.state_dict()]:
        fails.append(f"state_dict keys {list(ddp.state_dict())}")
    return fails


def ddp_unused(rank: int, world: int) -> list:
    """find_unused_parameters: a branch not used on this iteration does not stall the reduction."""
    fails = []

    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 2).double()
            self.b = nn.Linear(3, 2).double()

        def forward(self, x, use_b):
            return self.b(x) if use_b else self.a(x)

    torch.manual_seed(0)
    ddp = DDP(TwoHeads(), find_unused_parameters=True)
    x = torch.ones(4, 3, dtype=torch.float64) * (rank + 1)
    for use_b in (False, True, False):
        ddp(x, use_b).sum().backward()
    # a: used twice, grads summed over ranks' x = 1, 2 -> mean over ranks of 2*sum(x) per column
    want = np.full((2, 3), 2 * 4 * np.mean([r + 1 for r in range(world)]))
    if not np.allclose(ddp.module.a.weight.grad.numpy(), want):
        fails.append(f"unused-parameter grads {ddp.module.a.weight.grad.numpy().tolist()}")
    return fails


def die(rank: int, world: int) -> list:
    """Rank 1 is killed in the middle of training; rank 0 must not hang."""
    torch.manual_seed(0)
    ddp = DDP(nn.Linear(4, 2))
    for step in range(1000):
        if rank == 1 and step == 3:
            with open(os.path.join(sys.argv[2], "die.1.pid"), "w") as f:  # MPICH's mpiexec names the dead by pid
                f.write(str(os.getpid()))
            os.kill(os.getpid(), 9)
        ddp(torch.ones(2, 4)).sum().backward()
    return ["rank 0 trained on although rank 1 died"]


def raises(rank: int, world: int) -> list:
    """An exception on rank 1 aborts the job instead of leaving rank 0 waiting."""
    if rank == 1:
        raise ValueError("boom on rank 1")
    dist.barrier()
    return ["rank 0 passed the barrier"]


def exits(rank: int, world: int) -> list:
    """Rank 1 leaves through sys.exit(3) while rank 0 waits in a barrier: the job ends in seconds."""
    if rank == 1:
        sys.exit(3)
    dist.barrier()
    return ["rank 0 passed the barrier"]


def returns(rank: int, world: int) -> list:
    """Rank 1 returns early (its script ends normally) while rank 0 waits in an all_reduce."""
    if rank == 0:
        dist.all_reduce(torch.ones(3))
        return ["rank 0's all_reduce finished without rank 1"]
    return []


if __name__ == "__main__":
    name, out_dir = sys.argv[1], sys.argv[2]
    # a rank still running after 50 s (the tests kill it at 60) prints where each of its threads waits
    faulthandler.dump_traceback_later(50, exit=False)
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    failures = globals()[name](rank, world)
    with open(os.path.join(out_dir, f"{name}.{rank}.json"), "w") as f:
        json.dump(failures, f)
    dist.destroy_process_group()
