"""tanh's, sigmoid's and exp's backward against PyTorch: the gradient bits (the formula's floats on
tinytorch's own result), the modules' grad_fn, the errors for a modified output and a second backward,
and pack hooks seeing the saved output."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

OPS = ["tanh", "sigmoid", "exp"]


@pytest.mark.bitexact
@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (1,), (32, 100), (3, 4, 5)])
def test_gradient_bits_match_pytorch(name, dtype, shape):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    a = tt.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    ya, yb = getattr(tt, name)(a), getattr(torch, name)(b)
    assert ya.grad_fn.name() == yb.grad_fn.name()
    ya.backward(tt.tensor(g))
    yb.backward(torch.tensor(g))
    assert str(a.grad.dtype) == str(b.grad.dtype).replace("torch", "tinytorch")
    # the forwards (numpy's tanh/exp against PyTorch's kernels) may differ by an ulp
    tol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)
    # and the gradient is the formula's floats on tinytorch's own result, unchanged
    # (as one-element arrays for a 0-d x: numpy 1.x computes a 0-d array with a Python int in float64)
    y, g = ya.detach().numpy().reshape(-1), g.reshape(-1)
    want = {"tanh": lambda: g * (1 - y * y), "sigmoid": lambda: g * (y * (1 - y)), "exp": lambda: g * y}[name]()
    np.testing.assert_array_equal(a.grad.numpy(), want.reshape(shape))


@pytest.mark.bitexact
@pytest.mark.parametrize("name", OPS)
def test_modified_output_and_second_backward_raise_as_pytorch(name):
    for lib in (tt, torch):
        x = lib.ones(3, 2, requires_grad=True)
        y = getattr(lib, name)(x * 1)
        y.add_(1)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        assert "modified by an inplace operation" in str(info.value)
    msgs = []
    for lib in (tt, torch):
        x = lib.ones(3, requires_grad=True)
        y = getattr(lib, name)(x).sum()
        y.backward(retain_graph=False)
        with pytest.raises(RuntimeError) as info:
            y.backward()
        msgs.append(str(info.value).replace("torch", "tinytorch").replace("tinytinytorch", "tinytorch"))
    assert msgs[0].split(".")[0] == msgs[1].split(".")[0]


@pytest.mark.bitexact
def test_pack_hooks_still_see_the_saved_output():
    seen = []
    x = tt.randn(4, 3, requires_grad=True)
    with tt.autograd.graph.saved_tensors_hooks(lambda t: (seen.append("pack"), t)[1],
                                              lambda t: (seen.append("unpack"), t)[1]):
        y = tt.tanh(x)
    y.sum().backward()
    assert seen == ["pack", "unpack"]
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh(x.detach().numpy()) ** 2, rtol=1e-6)


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


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("grad", [1.0, float("inf"), float("nan")])
@pytest.mark.parametrize("size", [2, 5000])
def test_backward_at_infinities_is_silent_as_pytorch(name, dtype, grad, size):
    """x = +-inf (tanh's result +-1, its derivative 0; an infinite gradient times 0 is NaN): the gradient's values
    as PyTorch's and no numpy warning, on small and large arrays."""
    import warnings

    def run(lib):
        x = lib.full((size,), float("inf"), dtype=getattr(lib, dtype))
        x[::2] = -float("inf")
        x.requires_grad_(True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(lib, name)(x).backward(lib.full((size,), grad, dtype=getattr(lib, dtype)))
        return x.grad.float().numpy(), [str(w.message) for w in caught]

    (g, warned), (g_t, warned_t) = run(tt), run(torch)
    assert warned == warned_t == []
    np.testing.assert_array_equal(g, g_t)
