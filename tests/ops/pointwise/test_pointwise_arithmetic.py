"""add, sub and mul against PyTorch: same-shape operands of every dtype (values, dtypes, gradients,
saved-tensor hooks, a saved input modified in place), 0-d float32/float64 operands (computed as Python
floats) bit for bit (forward values, mul's backward products, the engine's gradient sums; edge values:
overflow at float32's limit, inf, nan, -0.0, subnormals; no numpy warning), and a Python scalar first
(values, dtypes, gradients, graphs)."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

DTYPES = ["float16", "float32", "float64", "int32", "int64", "bool"]


@pytest.mark.parametrize("op", ["add", "mul"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_same_shape_binary(op, dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 4)) * 3).astype(dtype)
    b = (rng.standard_normal((3, 4)) * 3).astype(dtype)
    got = getattr(tt, op)(tt.from_numpy(a.copy()), tt.from_numpy(b.copy()))
    want = getattr(torch, op)(torch.from_numpy(a.copy()), torch.from_numpy(b.copy()))
    assert str(got.dtype) == str(want.dtype).replace("torch.", "tinytorch.")
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("op", ["add", "mul"])
@pytest.mark.parametrize("grads", [(True, False), (False, True), (True, True)])
def test_same_shape_binary_grads(op, grads):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3)).astype("float32"), rng.standard_normal((2, 3)).astype("float32")
    res = {}
    for lib in (tt, torch):
        ta = lib.tensor(a, requires_grad=grads[0])
        tb = lib.tensor(b, requires_grad=grads[1])
        y = getattr(lib, op)(ta, tb)
        assert type(y.grad_fn).__name__ == ("AddBackward0" if op == "add" else "MulBackward0")
        (y * y).sum().backward()
        res[lib.__name__] = [None if t.grad is None else t.grad.numpy() for t in (ta, tb)]
    for g, w in zip(res["tinytorch"], res["torch"]):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g, w, rtol=1e-6)


def test_zero_dim_results_are_tensors():
    for lib in (tt, torch):
        a, b = lib.tensor(2.0, requires_grad=True), lib.tensor(3.0)
        assert (a * b).item() == 6.0 and (a + b).item() == 5.0 and a.relu().item() == 2.0
        assert (a * b).shape == () and a.relu().shape == ()


def test_saved_tensor_hooks_see_fast_path_saves():
    for lib in (tt, torch):
        packed = []

        def pack(t):
            packed.append(tuple(t.shape))
            return t

        a = lib.ones(2, 2, requires_grad=True)
        b = lib.full((2, 2), 3.0)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = (a * b).relu()
        y.sum().backward()
        assert packed == [(2, 2), (2, 2)]
        np.testing.assert_array_equal(a.grad.numpy(), np.full((2, 2), 3.0, dtype="float32"))


def test_inplace_change_of_saved_input_is_reported():
    msgs = []
    for lib in (tt, torch):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2)
        y = a * b
        b.add_(1)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        msgs.append(str(e.value).split(";")[0].replace("tinytorch.", "torch."))
    assert msgs[0] == msgs[1]


_F32_MAX = float(np.finfo(np.float32).max)


_SPECIAL = [0.0, -0.0, 1.0, -1.5, 1e-45, -1e-45, 1e-40, 1e-38, 3e38, -3e38, _F32_MAX, 1.8e19, 1e30,
            float("inf"), float("-inf"), float("nan"), 1e-300, 1e300, 0.1, 1 / 3]


def _values(dtype):
    rng = np.random.default_rng(0 if dtype == "float32" else 1)
    exps = rng.integers(-45 if dtype == "float32" else -300, 39 if dtype == "float32" else 300, 150)
    rand = (rng.standard_normal(150) * 10.0 ** exps).astype(dtype).tolist()
    return _SPECIAL + rand


def _bits(t):
    return t.detach().numpy().tobytes() if isinstance(t, torch.Tensor) else t.detach().numpy().tobytes()


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
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


@pytest.mark.bitexact
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


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("shape", [(), (3, 2)])
def test_scalar_first_arithmetic_matches_pytorch(dtype, shape):
    rng = np.random.default_rng(6)
    a = (rng.standard_normal(shape) * 5).astype(dtype)
    results = []
    for lib in (tt, torch):
        grad = dtype != "int64"
        x = lib.tensor(a, requires_grad=grad)
        outs = [0.5 * x, 3 * x, 1 + x, 2.5 + x, sum([x, x], 1), 7 - x, x - 2, lib.mul(2.0, x), lib.add(1, x)]
        vals = [(str(o.dtype).split(".")[-1], o.detach().numpy().copy()) for o in outs]
        if grad:
            sum(o.sum() for o in outs).backward()
            vals.append(("grad", x.grad.numpy().copy()))
        results.append(vals)
    for (dt, v), (pdt, pv) in zip(*results):
        assert dt == pdt
        np.testing.assert_array_equal(v, pv)


def _edge_names(t):
    return [None if f is None else type(f).__name__ for f, _ in t.grad_fn.next_functions]


@pytest.mark.parametrize("expr", ["0.5 * t", "1 + t", "1 - t", "2.0 - t * t", "3 * (t + 1)", "t * 2 + 1"])
def test_scalar_first_graphs_as_pytorch(expr):
    torch = pytest.importorskip("torch")

    def graph(lib):
        t = lib.tensor([1.0, 2.0], requires_grad=True)
        out = eval(expr, {"t": t})
        return type(out.grad_fn).__name__, _edge_names(out), out.detach().tolist()

    assert graph(tt) == graph(torch)
