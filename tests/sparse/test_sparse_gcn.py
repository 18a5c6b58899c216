"""examples/sparse_gcn.py (a graph convolutional network trained on a sparse adjacency matrix) under tinytorch
and under PyTorch, in subprocesses: the same seed prints the same losses, with a fixed adjacency and with a
learnt weight per edge (gradients through sparse values), and the network learns the graph's classes."""
import _repo
import os
import re
import subprocess
import sys

import pytest

ROOT = _repo.ROOT
SCRIPT = os.path.join(ROOT, "examples", "sparse_gcn.py")
ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")


def run(*args):
    proc = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env=ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {int(e): (float(loss), float(acc)) for e, loss, acc in
            re.findall(r"epoch +(\d+): train loss ([\d.]+), val accuracy ([\d.]+)", proc.stdout)}


@pytest.mark.parametrize("extra", [[], ["--edge-weights"]], ids=["fixed adjacency", "learnt edge weights"])
def test_gcn_prints_pytorchs_losses(torch, extra):
    ours = run("--epochs", "60", *extra)
    theirs = run("--epochs", "60", "--torch", *extra)
    assert sorted(ours) == sorted(theirs) == [1, 10, 20, 30, 40, 50, 60]
    for epoch in theirs:  # printed to 6 decimals: float32 matmuls in another BLAS may move the last ones
        assert abs(ours[epoch][0] - theirs[epoch][0]) <= 2e-5 * max(1.0, theirs[epoch][0]), (epoch, ours, theirs)
        assert ours[epoch][1] == theirs[epoch][1], (epoch, ours, theirs)
    assert ours[60][0] < ours[1][0] - 0.5 and ours[60][1] > 0.8  # it learns the classes
