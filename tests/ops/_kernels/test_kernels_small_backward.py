"""The array backward paths of the small-op workloads against PyTorch (their formulas:
test_kernels_formulas.py): batch_norm's and the elementwise activations' (tanh, sigmoid) values,
versions, frees and pack hooks; a normalisation's result modified in place leaves its backward alone,
as in PyTorch; cross_entropy's one-pass training case gives the general path's bits (loss, gradient,
double backward) and PyTorch's graph and values."""
import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("op", ["tanh", "sigmoid"])
def test_activation_grads_match_pytorch(op):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((5, 7)) * 2).astype(np.float32)
    g = rng.standard_normal((5, 7)).astype(np.float32)
    grads = []
    for lib in (tt, torch):
        xx = lib.tensor(x, requires_grad=True)
        y = getattr(lib.nn, op.capitalize() if op == "tanh" else "Sigmoid")()(xx)
        assert type(y.grad_fn).__name__ == op.capitalize() + "Backward0"
        y.backward(lib.tensor(g))
        grads.append(xx.grad.numpy())
    # float32 tanh/sigmoid results differ from PyTorch's by an ulp or two; 1 - y*y magnifies that near |y| = 1
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_norm_batch_mean_is_numpys_mean(dtype):
    from tinytorch._ops.nn.norm import _mean_np
    rng = np.random.default_rng(12)
    for shape, axes in [((32, 100), (0,)), ((7, 3, 5), (0, 2)), ((3, 9), (1,)), ((2, 4, 3, 3), (0, 2, 3))]:
        x = (rng.standard_normal(shape) * 10 ** rng.uniform(-3, 3)).astype(dtype)
        got = _mean_np(x, axes)
        want = x.mean(axis=axes, keepdims=True)
        assert got.dtype == want.dtype and np.array_equal(got, want)


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


@pytest.mark.parametrize("scalar", [np.float64(2.5), np.complex128(1j), np.float32(2.5), np.int64(2), np.bool_(True)])
@pytest.mark.parametrize("op", ["t * s", "s * t", "ti + s", "s - t", "t / s", "ti * s", "ti - s", "tb * s"])
def test_numpy_scalars_promote_as_pytorch(scalar, op):
    torch = pytest.importorskip("torch")

    def result(lib):
        t, ti, tb = lib.ones(2), lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.bool)
        out = eval(op, {"t": t, "ti": ti, "tb": tb, "s": scalar})
        return str(out.dtype).split(".")[-1], out.tolist()

    assert result(tt) == result(torch)
