"""The paths a scalar graph (micrograd) and ``x[k]`` take, against PyTorch: 0-d float32/float64
add, sub and mul (computed as Python floats) bit for bit (forward values, mul's backward products, the
engine's gradient sums; edge values: overflow at float32's limit, inf, nan, -0.0, subnormals; no numpy
warning), mul's saved inputs (version checks, pack hooks, release), graph objects keeping their class's
shared key table, and the int-key indexing fast path (views, versions, errors)."""
import _repo
import warnings

import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")

_F32_MAX = float(np.finfo(np.float32).max)
_SPECIAL = [0.0, -0.0, 1.0, -1.5, 1e-45, -1e-45, 1e-40, 1e-38, 3e38, -3e38, _F32_MAX, 1.8e19, 1e30,
            float("inf"), float("-inf"), float("nan"), 1e-300, 1e300, 0.1, 1 / 3]


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


def _values(dtype):
    rng = np.random.default_rng(0 if dtype == "float32" else 1)
    exps = rng.integers(-45 if dtype == "float32" else -300, 39 if dtype == "float32" else 300, 150)
    rand = (rng.standard_normal(150) * 10.0 ** exps).astype(dtype).tolist()
    return _SPECIAL + rand


def _bits(t):
    return t.detach().numpy().tobytes() if isinstance(t, torch.Tensor) else t.detach().numpy().tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_zero_dim_forward_bit_for_bit(dtype, op):
    vals = _values(dtype)
    rng = np.random.default_rng(2)
    pairs = [(a, b) for a in _SPECIAL for b in _SPECIAL] + [tuple(rng.choice(vals, 2)) for _ in range(400)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow/invalid warnings must stay silent, as in PyTorch
        for a, b in pairs:
            for rg in (False, True):
                ta = tt.tensor(a, dtype=getattr(tt, dtype), requires_grad=rg)
                tb = tt.tensor(b, dtype=getattr(tt, dtype))
                pa = torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=rg)
                pb = torch.tensor(b, dtype=getattr(torch, dtype))
                got, want = getattr(ta, op)(tb), getattr(pa, op)(pb)
                assert got.dtype.__repr__().split(".")[-1] == str(want.dtype).split(".")[-1]
                assert _bits(got) == _bits(want) or (np.isnan(got.item()) and np.isnan(want.item())), (op, a, b)
                assert (got.grad_fn is None) == (want.grad_fn is None)
                if rg:
                    assert got.grad_fn.name() == want.grad_fn.name()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zero_dim_backward_products_and_sums_bit_for_bit(dtype):
    """x*w summed over a shared w and x: mul's products and the engine's buffer sums, on edge values."""
    vals = _values(dtype)
    rng = np.random.default_rng(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(60):
            xs, ws = rng.choice(vals, 3).tolist(), rng.choice(vals, 3).tolist()
            grads = []
            for lib in (tt, torch):
                dt = getattr(lib, dtype)
                x = [lib.tensor(v, dtype=dt, requires_grad=True) for v in xs]
                w = [lib.tensor(v, dtype=dt, requires_grad=True) for v in ws]
                h = x[0] * w[0] + x[1] * w[1]
                y = h * w[2] + h * x[2] + (x[0] * x[0]) * w[1]
                y.backward()
                grads.append([_bits(t.grad) for t in x + w] + [_bits(y)])
            assert grads[0] == grads[1], (xs, ws)


def test_mul_saved_inputs_are_checked_hooked_and_released_as_pytorch():
    def run(lib):
        out = []
        a = lib.tensor(1.5, requires_grad=True)
        b = lib.tensor(2.5, requires_grad=True)
        y = a * b
        out.append([type(t).__name__ for t in y.grad_fn.next_functions[0]][:1])
        b.detach().add_(1)  # a saved input modified: backward refuses
        with pytest.raises(RuntimeError) as err:
            y.backward()
        out.append(str(err.value).split(";")[0].split("]")[1])
        packed = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.item()) or t * 2, lambda t: t):
            z = a * b
        z.backward(retain_graph=True)
        out.append((sorted(packed), a.grad.item(), b.grad.item()))
        z.backward()
        with pytest.raises(RuntimeError) as err:
            z.backward()
        out.append(str(err.value)[:40])
        w = lib.tensor(3.0, requires_grad=True)
        c = w * lib.tensor(4.0)  # only the other input is saved
        c.backward()
        out.append(w.grad.item())
        return out
    assert run(tt) == run(torch)


_KEY_TABLE_CHECK = """
import gc
import tinytorch as tt

def own_dict(obj):
    return any(type(r) is dict for r in gc.get_referents(obj))

x = tt.tensor(0.5)
ws = [tt.tensor(0.1 * i, requires_grad=True) for i in range(200)]
first = [w * x for w in ws]                   # one edge, the other input saved
h = first[0] + first[1]
late = [h * w for w in ws] + [w * 2.0 for w in ws] + [h + w for w in ws]  # both edges, both saved
bad = [type(o).__name__ for t in first + late for o in (t, t.grad_fn) if own_dict(o)]
sum(late[:200], tt.tensor(0.0)).backward()  # the backward sets _freed on every node it releases
bad += [type(t.grad_fn).__name__ for t in late[:200] if own_dict(t.grad_fn)]
params = [tt.nn.Parameter(tt.rand(3)) for _ in range(100)]
for p in params:  # a parameter's _grad and _accumulator are first set by its first backward
    (p * 2).sum().backward()
bad += ["Parameter" for p in params if own_dict(p)]
print(sorted(set(bad)))
"""


def test_graph_objects_share_their_class_key_tables():
    """Nodes and results made after many instances still keep their attributes in the key table their
    class shares (no dict of their own: one more object for the garbage collector, slower reads),
    also for attributes a class sets on some instances only (a mul's second edge and saved input) or
    late (a node's release by backward, a parameter's first gradient). In a fresh interpreter: the
    tables are per process."""
    import os
    import platform
    import subprocess
    import sys

    if platform.python_implementation() != "CPython":
        pytest.skip("CPython's shared key tables")
    root = _repo.ROOT
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", _KEY_TABLE_CHECK], capture_output=True, text=True, env=env,
                         cwd=root, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("shape", [(8, 16), (5,), (3, 2, 2)])
def test_int_index_fast_path_values_views_and_errors_as_pytorch(shape):
    """``x[k]`` for an int ``k`` (the indexing fast path): the same view (storage, version, grad) and, for
    out-of-range keys, PyTorch's IndexError, or its ValueError beyond int64."""
    def run(lib):
        out = []
        x = lib.arange(float(np.prod(shape))).reshape(shape)
        w = x.clone().requires_grad_()
        for k in (0, 2, -1, -shape[0], shape[0], -shape[0] - 1, 2**63 - 1, -2**63, 2**63, -2**63 - 1, 2**70):
            try:
                v = x[k]
                v2 = w[k]
                out.append((v.tolist(), v._version, v._base is x, v2.grad_fn.name(), v2.requires_grad))
            except Exception as e:  # noqa: BLE001 (the error itself is compared)
                out.append((type(e).__name__, str(e)))
        v = x[1]
        x.add_(1)
        out.append((v.tolist() if v.dim() else v.item(), v._version, x._version))
        return out
    assert run(tt) == run(torch)
