"""``torch.func.jvp`` with a tangent whose dtype is not its primal's, against PyTorch 2.13: the tangent's dtype is
the forward formula's (promoted through products with the primals, kept through linear ops, the loss's where
PyTorch's formula copies into the result), the values, and PyTorch's errors (an integer or bool tangent; formulas
that refuse another dtype)."""
import numpy as np
import pytest

import _paths
import tinytorch

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4))
T = RNG.standard_normal((3, 4))


def F(L):
    return L.nn.functional


FUNCTIONS = {
    "sin": lambda L, x: x.sin(),
    "exp": lambda L, x: x.exp(),
    "tanh": lambda L, x: x.tanh(),
    "sigmoid": lambda L, x: x.sigmoid(),
    "relu": lambda L, x: x.relu(),
    "leaky_relu": lambda L, x: F(L).leaky_relu(x, 0.1),
    "gelu": lambda L, x: F(L).gelu(x),
    "gelu_tanh": lambda L, x: F(L).gelu(x, approximate="tanh"),
    "softplus": lambda L, x: F(L).softplus(x),
    "elu": lambda L, x: F(L).elu(x),
    "silu": lambda L, x: F(L).silu(x),
    "mul_self": lambda L, x: x * x,
    "mul_scalar": lambda L, x: 2 * x,
    "add_scalar": lambda L, x: x + 1,
    "div": lambda L, x: x / (x.abs() + 1),
    "pow": lambda L, x: x ** 3,
    "sum": lambda L, x: x.sum(),
    "mean_dim": lambda L, x: x.mean(0),
    "reshape": lambda L, x: x.reshape(-1),
    "where": lambda L, x: L.where(x > 0, x, 2 * x),
    "cat": lambda L, x: L.cat([x, x * 2]),
    "max_dim": lambda L, x: x.max(1).values,
    "clamp": lambda L, x: x.clamp(-0.5, 0.5),
    "to_float64": lambda L, x: x.to(L.float64) * 1,
    "matmul": lambda L, x: x @ x.T,
    "softmax": lambda L, x: x.softmax(-1),
    "log_softmax": lambda L, x: x.log_softmax(-1),
    "layer_norm": lambda L, x: F(L).layer_norm(x, (4,)),
    "mse_loss": lambda L, x: F(L).mse_loss(x, L.zeros_like(x)),
    "mse_loss_none": lambda L, x: F(L).mse_loss(x, L.zeros_like(x), reduction="none"),
    "smooth_l1_loss": lambda L, x: F(L).smooth_l1_loss(x, L.zeros_like(x)),
    "l1_loss": lambda L, x: F(L).l1_loss(x, L.zeros_like(x)),
    "huber_loss": lambda L, x: F(L).huber_loss(x, L.zeros_like(x)),
}
PAIRS = (("float32", "float64"), ("float64", "float32"), ("float32", "float16"), ("float64", "float64"))


def _run(L, name, primal, tangent):
    x = L.tensor(X).to(getattr(L, primal))
    t = L.tensor(T).to(getattr(L, tangent))
    try:
        _, tan = L.func.jvp(lambda a: FUNCTIONS[name](L, a), (x,), (t,))
    except Exception as e:  # noqa: BLE001 - the error is compared with PyTorch's
        return type(e).__name__, str(e), None
    return "ok", str(tan.dtype).split(".")[-1], tan.detach().to(L.float64).numpy()


@pytest.mark.parametrize("primal, tangent", PAIRS)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_tangent_dtype_values_and_errors_as_pytorch(torch, name, primal, tangent):
    ours, theirs = _run(tinytorch, name, primal, tangent), _run(torch, name, primal, tangent)
    if theirs[1].startswith("itensor_view_from_dense") and _paths.reference_mode():
        pytest.skip("PyTorch's refusal is oneDNN's gelu_backward (a float64 gradient), a CPU path that "
                    "TINYTORCH_REFERENCE=1 does not run")
    assert ours[:2] == theirs[:2]
    if ours[2] is not None:
        tol = 2e-3 if "float16" in (primal, tangent) else 1e-5 if "float32" in (primal, tangent) else 1e-12
        np.testing.assert_allclose(ours[2], theirs[2], rtol=tol, atol=tol)


@pytest.mark.parametrize("primal, tangent", [("float32", "int64"), ("float64", "bool"), ("int64", "int64"),
                                             ("int64", "float32")])
def test_integer_primal_or_tangent_errors_as_pytorch(torch, primal, tangent):
    def run(L):
        x, t = L.ones(3, dtype=getattr(L, primal)), L.ones(3, dtype=getattr(L, tangent))
        with pytest.raises(Exception) as info:
            L.func.jvp(L.sin, (x,), (t,))
        fwad = L.autograd.forward_ad
        with fwad.dual_level(), pytest.raises(Exception) as info2:
            fwad.make_dual(x, t)
        return [(type(i.value).__name__, str(i.value).replace(L.__name__ + ".", "torch.")) for i in (info, info2)]

    assert run(tinytorch) == run(torch)


def test_complex_tangent_of_a_real_primal_raises():
    # PyTorch keeps a complex tangent through some formulas (add, mul) and takes its real part in others (sin, with
    # a warning); tinytorch refuses it rather than give either silently
    x, t = tinytorch.ones(3), tinytorch.ones(3, dtype=tinytorch.complex64)
    with pytest.raises(NotImplementedError, match="complex tangent"):
        tinytorch.func.jvp(tinytorch.sin, (x,), (t,))
