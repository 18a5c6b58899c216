"""The installed ``functorch`` package (PyTorch's wheel ships it) under ``tinytorch.install_as_torch()``: its
imports (``torch._functorch.python_key``, ``torch._higher_order_ops.map``, ``torch._functorch.apis``...) resolve,
and ``functorch.experimental.control_flow``'s ``cond`` and ``map``, ``chunk_vmap`` and
``replace_all_batch_norm_modules_`` give PyTorch's values and errors (the same script run on each)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = """
import json
import torch
import functorch
from functorch.experimental import chunk_vmap, replace_all_batch_norm_modules_
from functorch.experimental.control_flow import cond, map as cf_map, _stack_pytree, _unstack_pytree
from torch._functorch.python_key import make_fx

out = {}
x = torch.arange(6.0).reshape(3, 2)
out["cond_true"] = cond(torch.tensor(True), lambda a: a * 2, lambda a: a - 1, (x,)).tolist()
out["cond_false"] = cond(False, lambda a: a * 2, lambda a: a - 1, [x]).tolist()
out["torch_cond"] = torch.cond(torch.tensor([1.0]) > 0, lambda a, b: a + b, lambda a, b: a - b, (x, x)).tolist()
out["map"] = cf_map(lambda a, b: a * b, x, torch.tensor(2.0)).tolist()
pieces = _unstack_pytree({"a": x, "b": (x * 2,)})
out["unstack"] = [[p["a"].tolist(), p["b"][0].tolist()] for p in pieces]
out["stack"] = _stack_pytree(pieces)["b"][0].tolist()
out["chunk_vmap"] = chunk_vmap(lambda r: r.sum(), chunks=2)(torch.arange(10.0).reshape(5, 2)).tolist()
out["chunk_vmap_1"] = chunk_vmap(lambda r: r * 2, chunks=1)(x).tolist()
bn = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
replace_all_batch_norm_modules_(bn)
out["bn"] = [bn[1].running_mean is None, bn[1].running_var is None, bn[1].track_running_stats]
out["make_fx"] = [n.op for n in make_fx(lambda a: a.relu() + 1)(x).graph.nodes]
errors = []
for bad in (lambda: cond(torch.tensor([True, False]), lambda a: a, lambda a: a, (x,)),
            lambda: cond("yes", lambda a: a, lambda a: a, (x,))):
    try:
        bad()
        errors.append(None)
    except Exception as e:
        errors.append([type(e).__name__, str(e)])
out["errors"] = errors
print(json.dumps(out))
"""


def _run(prelude: str) -> dict:
    res = subprocess.run([sys.executable, "-c", prelude + SCRIPT], cwd=ROOT, capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": ROOT})
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_functorch_package_on_tinytorch():
    pytest.importorskip("torch")
    pytest.importorskip("functorch")
    expected = _run("")
    got = _run("import tinytorch\ntinytorch.install_as_torch()\n")
    assert got == expected
