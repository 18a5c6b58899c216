"""PyTorch's smaller distributed surface, compared with PyTorch's gloo backend in a one-process world: a send
to one's own rank is refused at once (ValueError; isend and irecv: RuntimeError) instead of waiting for the
group's timeout; the deprecated ``reduce_op`` object; the ``DistError`` family; ``destroy_process_group`` a
second time."""
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import tinytorch.distributed as dist

ROOT = Path(__file__).resolve().parents[2]

SCENARIO = r'''
import json, os, sys, warnings
lib = sys.argv[1]
if lib == "torch":
    import torch
    import torch.distributed as dist
else:
    import tinytorch as torch
    import tinytorch.distributed as dist
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[2])
out = {}

def attempt(name, fn):
    try:
        out[name] = ["returned", repr(fn())]
    except Exception as err:
        out[name] = [type(err).__name__, str(err)]

attempt("destroy before init", dist.destroy_process_group)
dist.init_process_group("gloo", rank=0, world_size=1)
t = torch.ones(2)
attempt("send to self", lambda: dist.send(t, 0))
attempt("send to self by group rank", lambda: dist.send(t, group_dst=0))
for name, call in (("isend", lambda: dist.isend(t, 0)), ("irecv", lambda: dist.irecv(t, 0))):
    attempt(name + " with self", call)
    out[name + " with self"] = out[name + " with self"][:1]  # the kind: gloo's words name its socket
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out["reduce_op"] = [str(dist.reduce_op.SUM), str(dist.reduce_op.MAX), dist.reduce_op.SUM is dist.ReduceOp.SUM
                        or dist.reduce_op.SUM == dist.ReduceOp.SUM]
out["reduce_op warnings"] = sorted({(w.category.__name__, str(w.message)) for w in caught})
dist.destroy_process_group()
attempt("destroy twice", dist.destroy_process_group)
out["errors"] = {name: [c.__name__ for c in getattr(dist, name).__mro__] for name in
                 ("DistError", "DistBackendError", "DistNetworkError", "DistStoreError")}
print("RESULT" + json.dumps(out))
'''


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(lib: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", SCENARIO, lib, str(_free_port())], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")]
    assert lines, proc.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT"):])


@pytest.mark.skipif(not dist.is_available(), reason="MPI not installed: pip install mpi4py")
def test_as_pytorch_in_a_one_process_world():
    torch = pytest.importorskip("torch")
    if not torch.distributed.is_available():
        pytest.skip("this PyTorch has no torch.distributed")
    want, got = _run("torch"), _run("tinytorch")
    assert want["send to self"][0] == "ValueError"
    assert want["isend with self"] == want["irecv with self"] == ["RuntimeError"]
    assert got == want


def test_error_family_names():
    for name in ("DistError", "DistBackendError", "DistNetworkError", "DistStoreError"):
        cls = getattr(dist, name)
        assert cls.__module__ == "tinytorch.distributed" and issubclass(cls, RuntimeError)
        assert name in dist.__all__


WRONG_WORLD_SIZE = r'''
import datetime, os, sys
lib = sys.argv[1]
if lib == "torch":
    import torch.distributed as dist
else:
    import tinytorch.distributed as dist
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[2], WORLD_SIZE="2", RANK="0")
try:
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=2))
except Exception as err:
    print("RESULT" + " ".join(c.__name__ for c in type(err).__mro__))
'''


@pytest.mark.skipif(not dist.is_available(), reason="MPI not installed: pip install mpi4py")
def test_wrong_world_size_is_a_store_error():
    """A WORLD_SIZE larger than the ranks started: the rendezvous times out with PyTorch's DistStoreError (the
    words differ: tinytorch names the missing ranks)."""
    torch = pytest.importorskip("torch")
    if not torch.distributed.is_available():
        pytest.skip("this PyTorch has no torch.distributed")
    kinds = []
    for lib in ("torch", "tinytorch"):
        proc = subprocess.run([sys.executable, "-c", WRONG_WORLD_SIZE, lib, str(_free_port())], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        kinds.append([ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")])
    assert kinds[0] == kinds[1] == ["RESULTDistStoreError DistError RuntimeError Exception BaseException object"]
