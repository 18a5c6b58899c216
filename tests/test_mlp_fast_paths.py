"""Fast paths of the small-MLP training step (issue 21) give PyTorch's floats: the SGD update's
single-call OpenBLAS axpy when OpenBLAS runs one thread, and the paths it replaced elsewhere."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_ONE_THREAD_AXPY = r"""
import json
import numpy as np
import torch
import tinytorch as tt
from tinytorch.ops import _muladd

rng = np.random.default_rng(3)
out = {"threads": None, "same": []}
for dtype in ("float32", "float64"):
    for n in (401408, 262144 + 37, 3 * 8192 + 1024 + 5, 5120, 10):
        a = rng.standard_normal(n).astype(dtype)
        b = rng.standard_normal(n).astype(dtype)
        for alpha in (-1e-3, 0.37):
            want = torch.from_numpy(a.copy()).add_(torch.from_numpy(b), alpha=alpha).numpy()
            got = tt.tensor(a.copy())
            got.add_(tt.tensor(b), alpha=alpha)
            out["same"].append(bool(np.array_equal(got.numpy().view(np.uint8), want.view(np.uint8))))
out["threads"] = _muladd._threads()
out["blas"] = sorted(str(k) for k in _muladd._axpy)
print(json.dumps(out))
"""


def test_one_thread_axpy_is_one_call_and_pytorchs_bits():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONPATH=ROOT)
    res = json.loads(subprocess.run([sys.executable, "-c", _ONE_THREAD_AXPY], env=env, cwd=ROOT, check=True,
                                    capture_output=True, text=True).stdout.strip().splitlines()[-1])
    # the BLAS passed its self-check and runs as one call a parameter
    assert res["threads"] == 1 and res["blas"] == ["float32", "float64"]
    assert all(res["same"])


def test_sgd_large_weights_bits_in_this_process():
    """Whatever OpenBLAS's thread count here (several: the chunked calls), a quickstart-sized update is
    PyTorch's bit for bit."""
    rng = np.random.default_rng(4)
    shapes = [(512, 784), (512,), (10, 512), (10,)]
    init = [rng.standard_normal(s).astype("float32") for s in shapes]
    ours = [tt.tensor(a, requires_grad=True) for a in init]
    theirs = [torch.tensor(a, requires_grad=True) for a in init]
    o1, o2 = tt.optim.SGD(ours, lr=1e-3), torch.optim.SGD(theirs, lr=1e-3)
    for _ in range(2):
        for x, t in zip(ours, theirs):
            g = rng.standard_normal(x.shape).astype("float32")
            x.grad, t.grad = tt.tensor(g), torch.tensor(g)
        o1.step()
        o2.step()
    for x, t in zip(ours, theirs):
        np.testing.assert_array_equal(x.detach().numpy().view(np.uint32), t.detach().numpy().view(np.uint32))
