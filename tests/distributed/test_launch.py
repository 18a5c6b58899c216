"""Distributed jobs started as PyTorch users start them: ``mp.Process`` and ``mp.spawn`` with ``env://``,
``tcp://``, and ``python -m tinytorch.distributed.run`` (torchrun's options).

The tutorial programs under tutorials/ run once on PyTorch (gloo) and once on tinytorch and must print
the same; the scenarios of _mpi_scenarios.py run again with processes that joined through the rendezvous
instead of mpiexec; a rank killed mid-job must end the others with an error naming it. Joining
separately started processes needs MPICH (Open MPI 5 cannot connect singletons): where mpi4py loads
another MPI these tests skip, and fail under TINYTORCH_REQUIRE_MPI=1 (CI)."""
import functools
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tinytorch
import tinytorch.distributed as dist

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
TUTORIALS = Path(__file__).resolve().parent / "tutorials"


@functools.cache
def _mpi_library() -> str:
    if not dist.is_available():
        return ""
    out = subprocess.run([sys.executable, "-c", "from mpi4py import MPI; print(MPI.Get_library_version())"],
                         capture_output=True, text=True, timeout=60, env=_env())
    return out.stdout


def _joinable() -> bool:
    return _mpi_library().startswith("MPICH")


needs_join = pytest.mark.skipif(
    "not _joinable() and os.environ.get('TINYTORCH_REQUIRE_MPI') != '1'",
    reason="joining processes started without mpiexec needs MPICH: pip install mpi4py 'mpich>=4.3,<5'")


def _env(**extra):
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)  # each process writes its lines at exit, in one piece
    for var in ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "RANK", "WORLD_SIZE", "LOCAL_RANK"):
        env.pop(var, None)
    return dict(env, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", **extra)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(args, cwd, timeout=240, **env):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=_env(**env), capture_output=True, text=True,
                          timeout=timeout)


def _both(args, tmp_path, timeout=240):
    """The program's stdout on PyTorch and on tinytorch (``python -m tinytorch.run``), each in its folder."""
    outs = []
    for name, prefix in (("torch", []), ("tinytorch", ["-m", "tinytorch.run"])):
        cwd = tmp_path / name
        cwd.mkdir()
        proc = _run([*prefix, *args], cwd, timeout, MASTER_PORT=str(_free_port()))
        assert proc.returncode == 0, f"{name}: {proc.stdout}{proc.stderr}"
        outs.append(proc.stdout)
    return outs


# -- the tutorials, on PyTorch and on tinytorch ---------------------------------------------------------------
@needs_join
def test_dist_tuto_point_to_point_and_all_reduce(torch, tmp_path):
    theirs, ours = _both([str(TUTORIALS / "dist_tuto.py"), "blocking", "nonblocking", "allreduce"], tmp_path)
    assert sorted(ours.splitlines()) == sorted(theirs.splitlines())
    assert ours.count("has data  tensor(1.)") == 4 and ours.count("has data  tensor(2.)") == 2


@needs_join
def test_ddp_series_under_mp_spawn(torch, tmp_path):
    theirs, ours = _both([str(TUTORIALS / "multigpu.py"), "3", "2"], tmp_path)
    assert sorted(ours.splitlines()) == sorted(theirs.splitlines())
    assert "Epoch 2 | Training checkpoint saved at checkpoint.pt" in ours
    saved = tinytorch.load(tmp_path / "tinytorch" / "checkpoint.pt")
    reference = torch.load(tmp_path / "torch" / "checkpoint.pt")
    for k in reference:  # the printed weights are equal; the saved floats within a few ulps (summation order)
        assert (saved[k] - tinytorch.tensor(reference[k].numpy())).abs().max().item() < 1e-6, k


def _launch(launcher, tmp_path, name, script_args, port, timeout=240):
    cwd = tmp_path / name
    cwd.mkdir(exist_ok=True)
    args = ["-m", launcher, "--nproc-per-node=2", f"--master-port={port}", "--log-dir=logs", "--redirects=1",
            *script_args]
    proc = _run(args, cwd, timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    logs = {}
    for log in (cwd / "logs").rglob("stdout.log"):
        logs[log.parent.name] = log.read_text()
    for log in (cwd / "logs").rglob("stdout.log"):
        log.unlink()
    return logs


@needs_join
def test_ddp_series_under_the_launcher_and_torchrun(torch, tmp_path):
    script = [str(TUTORIALS / "multigpu_torchrun.py"), "2", "1"]
    theirs = _launch("torch.distributed.run", tmp_path, "torch", script, _free_port())
    ours = _launch("tinytorch.distributed.run", tmp_path, "tinytorch", script, _free_port())
    assert sorted(ours) == ["0", "1"]
    assert ours == theirs
    # a second run resumes from the snapshot the first one saved (after its last epoch: nothing left to train)
    again = _launch("tinytorch.distributed.run", tmp_path, "tinytorch", script, _free_port())
    assert "Loading snapshot\nResuming training from snapshot at Epoch 2\n" in again["0"]
    weights = ours["0"][ours["0"].index("weight"):]
    assert again["0"].endswith(weights) and "Epoch" not in again["0"].replace("snapshot at Epoch", "")


# -- collectives and DDP among joined processes ----------------------------------------------------------------
def _start_ranks(args, world=2, port=None, init="env", **env):
    port = port or _free_port()
    procs = []
    for rank in range(world):
        extra = dict(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world), **env)
        procs.append(subprocess.Popen([sys.executable, *args], env=_env(**extra), stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    return procs


def _finish(procs, timeout):
    """Each process's (exit status, output); whatever still runs at the deadline is killed."""
    deadline = time.monotonic() + timeout
    results = []
    for p in procs:
        try:
            out, _ = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
        results.append((p.returncode, out))
    return results


def _scenario(name, tmp_path, timeout=180):
    return _finish(_start_ranks([str(TESTS / "_mpi_scenarios.py"), name, str(tmp_path)]), timeout)


@needs_join
@pytest.mark.parametrize("name", ["collectives", "ddp_equivalence", "ddp_unused"])
def test_scenarios_among_joined_processes(tmp_path, name):
    for code, out in _scenario(name, tmp_path):
        assert code == 0, out
    for rank in range(2):
        assert json.loads((tmp_path / f"{name}.{rank}.json").read_text()) == [], rank


@needs_join
@pytest.mark.parametrize("scenario,needle", [
    ("die", "[Rank 0] all_reduce: rank 1 died: its connection closed without a goodbye"),
    ("raises", "[Rank 0] barrier: rank 1 failed with ValueError"),
    ("exits", "[Rank 0] barrier: rank 1 (exit status 3) left the job"),
    ("returns", "[Rank 0] all_reduce: rank 1 (exit status 0) left the job"),
])
def test_a_rank_that_dies_or_leaves_ends_the_others_in_seconds(tmp_path, scenario, needle):
    start = time.monotonic()
    (code0, out0), (code1, out1) = _scenario(scenario, tmp_path, timeout=60)
    took = time.monotonic() - start
    # (a rank still running at the deadline was killed: what each printed says where it waited)
    assert took < 45, f"took {took:.0f} s; rank 0 ended {code0}:\n{out0}\nrank 1 ended {code1}:\n{out1}"
    assert code0 != 0 and needle in out0, out0
    assert not (tmp_path / f"{scenario}.0.json").exists()
    if scenario == "die":
        assert code1 == -signal.SIGKILL


@needs_join
def test_tcp_init_method_and_a_second_group_in_the_same_processes(tmp_path):
    code = (
        "import sys, tinytorch as torch, tinytorch.distributed as dist\n"
        "rank, port = int(sys.argv[1]), sys.argv[2]\n"
        "dist.init_process_group('gloo', init_method=f'tcp://127.0.0.1:{port}', rank=rank, world_size=2)\n"
        "t = torch.tensor([rank + 1.0]); dist.all_reduce(t); print('first', t.item())\n"
        "dist.destroy_process_group()\n"
        "dist.init_process_group('gloo', init_method=f'tcp://127.0.0.1:{port}?rank={1 - rank}&world_size=2')\n"
        "t = torch.tensor([float(dist.get_rank())]); dist.broadcast(t, src=1); print('second', dist.get_rank(), t.item())\n")
    port = str(_free_port())
    procs = [subprocess.Popen([sys.executable, "-c", code, str(r), port], env=_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for r in range(2)]
    results = _finish(procs, 120)
    for rank, (status, out) in enumerate(results):
        assert status == 0, out
        assert "first 3.0" in out and f"second {1 - rank} 1.0" in out, out


@needs_join
def test_rendezvous_errors_are_named_and_bounded(tmp_path):
    # a rank that never comes: rank 0 gives up at the timeout, naming the missing rank
    code = ("import datetime, tinytorch.distributed as dist\n"
            "dist.init_process_group('gloo', timeout=datetime.timedelta(seconds=3))\n")
    start = time.monotonic()
    alone = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=_env(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()), RANK="0", WORLD_SIZE="2"))
    ((status, out),) = _finish([alone], 60)
    assert status != 0 and "1/2 joined, missing rank(s) [1]" in out, out
    assert time.monotonic() - start < 40
    # two processes asking for the same rank
    port = _free_port()
    procs = [subprocess.Popen([sys.executable, "-c", code], env=_env(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                                                                    RANK=str(r), WORLD_SIZE="3"),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for r in (0, 1, 1)]
    outs = "".join(out for _, out in _finish(procs, 60))
    assert "two processes asked for rank 1" in outs


# -- the launcher ----------------------------------------------------------------------------------------
@needs_join
def test_launcher_reports_a_killed_rank_and_leaves_no_process(tmp_path):
    start = time.monotonic()
    proc = _run(["-m", "tinytorch.distributed.run", "--nproc-per-node=2", f"--master-port={_free_port()}",
                 str(TESTS / "_mpi_scenarios.py"), "die", str(tmp_path)], tmp_path, timeout=120)
    assert time.monotonic() - start < 90
    assert proc.returncode == 1
    assert "rank      : 1 (local_rank: 1)" in proc.stderr and "Signal 9 (SIGKILL) received by PID" in proc.stderr
    assert not (tmp_path / "die.0.json").exists()


def test_launcher_refuses_what_it_cannot_do(tmp_path):
    for args, message in ((["--nnodes=2"], "one machine only"), (["--nproc-per-node=0"], "at least 1"),
                          (["--max-restarts=3"], "not supported")):
        proc = _run(["-m", "tinytorch.distributed.run", *args, "x.py"], tmp_path, timeout=120)
        assert proc.returncode != 0 and message in proc.stderr, proc.stderr


# -- mp.spawn's failures, as PyTorch reports them ----------------------------------------------------------------
_SPAWN_FAILS = """
import os, sys
import {T}.multiprocessing as mp

def fn(i, how):
    if i == 1 and how == "raise":
        raise ValueError("boom in 1")
    if i == 1 and how == "kill":
        os.kill(os.getpid(), 9)
    if i == 1 and how == "exit":
        sys.exit(3)
    if i == 0:
        import time; time.sleep(60)  # ended by spawn when process 1 fails

if __name__ == "__main__":
    try:
        mp.spawn(fn, args=(sys.argv[1],), nprocs=2)
    except Exception as e:
        print(type(e).__name__, e.error_index, getattr(e, "exit_code", None), str(e).splitlines()[-1], str(e)[:60])
"""


@pytest.mark.parametrize("how", ["raise", "kill", "exit"])
def test_spawn_failures_match_pytorch(torch, tmp_path, how):
    outs = []
    for name in ("torch", "tinytorch"):
        script = tmp_path / f"spawn_with_{name}.py"
        script.write_text(_SPAWN_FAILS.replace("{T}", name))
        start = time.monotonic()
        proc = _run([str(script), how], tmp_path, timeout=120)
        assert time.monotonic() - start < 60  # process 0 is terminated, not waited for
        outs.append(proc.stdout)
    assert outs[0] == outs[1] and "Process" in outs[0]


# -- rendezvous arguments, before any MPI --------------------------------------------------------------------------
@pytest.mark.parametrize("init_method,kwargs,env", [
    ("env://", {}, {}),
    ("env://", {"rank": 0}, {}),
    ("env://", {"rank": 0, "world_size": 2}, {}),
    ("env://", {"rank": 0, "world_size": 2}, {"MASTER_ADDR": "127.0.0.1"}),
    ("tcp://127.0.0.1", {}, {}),
    ("tcp://127.0.0.1:23456", {}, {}),
    ("tcp://127.0.0.1:23456?rank=0", {}, {}),
])
def test_rendezvous_argument_errors_match_pytorch(torch, monkeypatch, init_method, kwargs, env):
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(var, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(ValueError) as theirs:
        torch.distributed.init_process_group("gloo", init_method=init_method, **kwargs)
    with pytest.raises(ValueError) as ours:
        dist.init_process_group("gloo", init_method=init_method, **kwargs)
    assert str(ours.value) == str(theirs.value)
    assert not dist.is_initialized()
