"""``torch.linalg.cross`` and ``torch.cross(dim=)`` bit for bit against PyTorch's CPU kernel, on the path PyTorch
takes here and on its DEFAULT path (``ATEN_CPU_CAPABILITY=default``, run in a child process).

PyTorch's kernel computes each component as ``x[j] * y[k] - x[k] * y[j]``; its AVX2/AVX512 builds fuse the first
product into the subtraction (an FMA after the second product's rounding), its DEFAULT build rounds both products.
tinytorch follows the path ``cpu_level.pytorch_level()`` names, so both are bit for bit. Under
``TINYTORCH_REFERENCE=1`` tinytorch rounds both products on every path; on an FMA path the two then differ by at
most ``FUSED_ULPS`` ulps of the largest product |x| * |y| (the first product's rounding, half an ulp, and that of
the two differences)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

pytestmark = pytest.mark.bitexact

ALL_PATHS = ("DEFAULT", "AVX2", "AVX512")
FUSED_ULPS = 2

# (a's shape, b's shape, dim): broadcasting, the 3 at each place, negative dims, size-1 and empty batches
SHAPES = [((3,), (3,), -1), ((7, 3), (7, 3), 1), ((3, 5), (3, 5), 0), ((2, 3, 9), (1, 3, 9), 1),
          ((4, 1, 3), (1, 6, 3), -1), ((3, 2, 2), (3, 1, 2), -3), ((2000, 3), (2000, 3), -1), ((0, 3), (1, 3), 1),
          ((5, 3, 4, 2), (5, 3, 1, 2), 1)]
DTYPES = ("float32", "float64")


def _inputs(seed: int, sa, sb, dtype):
    rng = np.random.default_rng(seed)
    scale = (1.0, 1e-20, 3e15)[seed % 3]
    a = (rng.standard_normal(sa) * scale).astype(dtype)
    b = rng.standard_normal(sb).astype(dtype)
    if a.size:  # exact cancellations: x[j] * y[k] == x[k] * y[j] in some rows
        a.reshape(-1)[:2] = 1.5
        b.reshape(-1)[:2] = 1.5
    return a, b


def _cases():
    return [(i, sa, sb, dim, dtype) for i, (sa, sb, dim) in enumerate(SHAPES) for dtype in DTYPES]


def _ours(a, b, dim):
    ta, tb = tt.tensor(a), tt.tensor(b)
    return tt.linalg.cross(ta, tb, dim=dim).numpy(), tt.cross(ta, tb, dim=dim).numpy(), ta.cross(tb, dim).numpy()


def _check(got, want, a, b, on_path: str, what: str):
    scale = float(np.abs(a).max(initial=0.0)) * float(np.abs(b).max(initial=0.0))
    for g in got:
        _paths.assert_bits(g, want, ulps=FUSED_ULPS, exact_on=ALL_PATHS, path=on_path, scale=scale, what=what)


@pytest.mark.parametrize("i,sa,sb,dim,dtype", _cases())
def test_cross_bits_on_pytorchs_path_here(i, sa, sb, dim, dtype):
    for seed in (i, i + 100, i + 200):
        a, b = _inputs(seed, sa, sb, dtype)
        want = torch.linalg.cross(torch.from_numpy(a), torch.from_numpy(b), dim=dim).numpy()
        np.testing.assert_array_equal(torch.cross(torch.from_numpy(a), torch.from_numpy(b), dim=dim).numpy(), want)
        _check(_ours(a, b, dim), want, a, b, _paths.torch_path(), f"{sa} x {sb} dim={dim} {dtype} seed {seed}")


def test_cross_non_contiguous_and_transposed_bits():
    a, b = _inputs(7, (4, 3, 6), (4, 3, 6), "float32")
    want = torch.linalg.cross(torch.from_numpy(a).transpose(0, 2), torch.from_numpy(b).transpose(0, 2), dim=1).numpy()
    got = tt.linalg.cross(tt.tensor(a).transpose(0, 2), tt.tensor(b).transpose(0, 2), dim=1).numpy()
    _check([got], want, a, b, _paths.torch_path(), "transposed")
    want = torch.linalg.cross(torch.from_numpy(a)[:, :, ::2], torch.from_numpy(b)[:, :, 1::2], dim=1).numpy()
    got = tt.linalg.cross(tt.tensor(a)[:, :, ::2], tt.tensor(b)[:, :, 1::2], dim=1).numpy()
    _check([got], want, a, b, _paths.torch_path(), "strided")


_CHILD = """
import json, sys
import numpy as np, torch
inp, outp = sys.argv[1], sys.argv[2]
arrays = np.load(inp)
spec = json.load(open(inp + ".json"))
out = {"capability": np.array(torch.backends.cpu.get_cpu_capability())}
for k, dim in enumerate(spec):
    a, b = torch.from_numpy(arrays[f"a{k}"]), torch.from_numpy(arrays[f"b{k}"])
    out[f"r{k}"] = torch.linalg.cross(a, b, dim=dim).numpy()
    out[f"c{k}"] = torch.cross(a, b, dim=dim).numpy()
np.savez(outp, **out)
"""


def test_cross_bits_on_pytorchs_default_path(tmp_path, monkeypatch):
    """PyTorch's DEFAULT build (two rounded products) in a child process; tinytorch told the same by
    ``ATEN_CPU_CAPABILITY``, which it reads at each call."""
    pytest.importorskip("torch")
    cases = [(i, sa, sb, dim, dtype, _inputs(i + 300, sa, sb, dtype)) for i, sa, sb, dim, dtype in _cases()]
    inp, outp = str(tmp_path / "in.npz"), str(tmp_path / "out.npz")
    np.savez(inp, **{f"a{k}": c[5][0] for k, c in enumerate(cases)}, **{f"b{k}": c[5][1] for k, c in enumerate(cases)})
    with open(inp + ".json", "w") as f:
        json.dump([c[3] for c in cases], f)
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default"}
    subprocess.run([sys.executable, "-c", _CHILD, inp, outp], check=True, env=env)
    theirs = np.load(outp)
    assert str(theirs["capability"]) == "DEFAULT"
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    for k, (i, sa, sb, dim, dtype, (a, b)) in enumerate(cases):
        np.testing.assert_array_equal(theirs[f"c{k}"], theirs[f"r{k}"])
        _check(_ours(a, b, dim), theirs[f"r{k}"], a, b, "DEFAULT", f"DEFAULT {sa} x {sb} dim={dim} {dtype}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_gradients_bits(dtype):
    """The backward is two cross products (other x grad, grad x self) by the same kernel: PyTorch's bits; the
    broadcast operand's gradient is then summed back to its shape."""
    a, b = _inputs(11, (5, 3, 4), (1, 3, 4), dtype)
    g = np.random.default_rng(12).standard_normal((5, 3, 4)).astype(dtype)
    grads = []
    for lib, make in ((torch, torch.from_numpy), (tt, tt.tensor)):
        x, y = make(a).requires_grad_(), make(b).requires_grad_()
        lib.linalg.cross(x, y, dim=1).backward(make(g))
        grads.append((x.grad.numpy(), y.grad.numpy()))
    (gx, gy), (tx, ty) = grads[1], grads[0]
    _check([gx], tx, b, g, _paths.torch_path(), "grad of self")
    # the broadcast operand's gradient is a sum over the batch, made in another order than PyTorch's reduction:
    # within 4 ulps of its largest magnitude (5 terms)
    _paths.assert_bits(gy, ty, ulps=4, exact_on=(), scale="max", what="grad of other (summed)")
