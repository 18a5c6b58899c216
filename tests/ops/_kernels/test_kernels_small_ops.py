"""The fast paths of the common small ops (same-shape tensor operands, ops that cannot warn) give what
the general paths and PyTorch give: values, dtypes, gradients, saved-tensor hooks."""
import numpy as np
import pytest

import tinytorch

torch = pytest.importorskip("torch")

DTYPES = ["float16", "float32", "float64", "int32", "int64", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_relu_values_and_dtype(dtype):
    x = np.array([-1.5, -0.0, 0.0, 2.0, np.nan, -np.inf, np.inf, 3.0]) if dtype.startswith("float") else \
        np.array([-2, 0, 1, 3, 0, 1, -7, 5])
    x = x.astype(dtype)
    got = tinytorch.from_numpy(x.copy()).relu()
    want = torch.from_numpy(x.copy()).relu() if dtype != "bool" else None
    if want is None:
        with pytest.raises(RuntimeError):
            torch.from_numpy(x.copy()).relu()
        return
    assert str(got.dtype) == str(want.dtype).replace("torch.", "tinytorch.")
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert np.array_equal(np.signbit(got.numpy()), np.signbit(want.numpy()))


@pytest.mark.parametrize("op", ["add", "mul"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_same_shape_binary(op, dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 4)) * 3).astype(dtype)
    b = (rng.standard_normal((3, 4)) * 3).astype(dtype)
    got = getattr(tinytorch, op)(tinytorch.from_numpy(a.copy()), tinytorch.from_numpy(b.copy()))
    want = getattr(torch, op)(torch.from_numpy(a.copy()), torch.from_numpy(b.copy()))
    assert str(got.dtype) == str(want.dtype).replace("torch.", "tinytorch.")
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("op", ["add", "mul"])
@pytest.mark.parametrize("grads", [(True, False), (False, True), (True, True)])
def test_same_shape_binary_grads(op, grads):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3)).astype("float32"), rng.standard_normal((2, 3)).astype("float32")
    res = {}
    for lib in (tinytorch, torch):
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
    for lib in (tinytorch, torch):
        a, b = lib.tensor(2.0, requires_grad=True), lib.tensor(3.0)
        assert (a * b).item() == 6.0 and (a + b).item() == 5.0 and a.relu().item() == 2.0
        assert (a * b).shape == () and a.relu().shape == ()


def test_saved_tensor_hooks_see_fast_path_saves():
    for lib in (tinytorch, torch):
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
    for lib in (tinytorch, torch):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2)
        y = a * b
        b.add_(1)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        msgs.append(str(e.value).split(";")[0].replace("tinytorch.", "torch."))
    assert msgs[0] == msgs[1]
