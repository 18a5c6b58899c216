"""``x ** e`` with a Python number exponent against PyTorch: the values and gradients bit for bit where PyTorch's
CPU kernel computes by plain arithmetic, and close elsewhere.

PyTorch computes ``pow(x, e)`` of a float tensor by formulas for some exponents (2: ``x * x``, 3: ``x * x * x``,
-1: ``1 / x``, -2: ``1 / (x * x)``, -0.5: ``1 / sqrt(x)``) and by its vectorised ``pow`` for the others, whose
last bits are not numpy's; its gradient is ``grad * (e * x ** (e - 1))`` with ``e`` a double. Those formulas are
IEEE operations, so the bits hold on every CPU path (default, AVX2, AVX-512)."""
import numpy as np
import pytest

import tinytorch as tt
from _paths import assert_bits

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
ALL_PATHS = ("DEFAULT", "AVX2", "AVX512")  # the formulas are plain IEEE operations on each

# (exponent, the forward is bit-exact, the gradient is bit-exact): an int and a float exponent alike
EXPONENTS = [(2, True, True), (3, True, True), (3.0, True, True), (-1, True, True), (1, True, True),
             (-2, True, False), (-0.5, True, False), (4, False, True), (2.5, False, False), (0.5, False, False)]


@pytest.mark.bitexact
@pytest.mark.parametrize("exponent, exact_forward, exact_grad", EXPONENTS, ids=[repr(e[0]) for e in EXPONENTS])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_by_a_number_matches_pytorch(exponent, exact_forward, exact_grad, dtype):
    rng = np.random.default_rng(0)
    x = (rng.random((64, 33)) + 0.05).astype(dtype)  # positive: every exponent defined
    g = rng.standard_normal(x.shape).astype(dtype)
    a, b = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya, yb = a ** exponent, b ** exponent
    assert ya.grad_fn.name() == yb.grad_fn.name() == "PowBackward0"
    ya.backward(tt.tensor(g))
    yb.backward(torch.tensor(g))
    for got, want, exact in ((ya.detach().numpy(), yb.detach().numpy(), exact_forward),
                             (a.grad.numpy(), b.grad.numpy(), exact_grad)):
        # (under TINYTORCH_REFERENCE=1 numpy's power runs, within 2 ulps of the formulas)
        assert_bits(got, want, ulps=2 if exact else 4, exact_on=ALL_PATHS if exact else (), what=f"x ** {exponent!r}")


@pytest.mark.skipif(__import__("_paths").reference_mode(), reason="numpy's power on the reference path")
def test_pow_gradient_is_the_slope_times_the_gradient():
    """``g * (e * x ** (e - 1))``: the slope rounded first (``(g * e) * x ** (e - 1)`` differs in the last bit)."""
    x = np.float32([0.3, 1.7, 2.9])
    g = np.float32([0.1, -3.3, 7.7])
    a = tt.tensor(x, requires_grad=True)
    (a ** 3).backward(tt.tensor(g))
    np.testing.assert_array_equal(a.grad.numpy(), g * (np.float32(3.0) * (x * x)))
