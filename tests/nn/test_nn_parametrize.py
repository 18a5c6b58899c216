"""nn.utils.parametrize (register_parametrization, remove_parametrizations, cached, is_parametrized)
and nn.utils.parametrizations.weight_norm against PyTorch: the module's class, repr, state_dict
keys, values, gradients of the originals, assignment through right_inverse, and removal."""
import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _sym(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(0, 1)

        def right_inverse(self, A):
            return A.triu()

    return Symmetric()


def _double(lib):
    class Double(lib.nn.Module):
        def forward(self, X):
            return X * 2

    return Double()


def _pair(make, seed=0):
    torch.manual_seed(seed)
    a = make(torch)
    tt.manual_seed(seed)
    b = make(tt)
    return a, b


def _close(x, y, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy(), rtol=rtol, atol=atol)


def test_register_chain_and_remove():
    a, b = _pair(lambda L: L.nn.Linear(3, 3))
    for lib, m in ((torch, a), (tt, b)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _sym(lib))
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _double(lib))
    assert type(b).__name__ == type(a).__name__ == "ParametrizedLinear"
    assert repr(b).replace("tinytorch", "torch") == repr(a).replace("Double", "Double")
    assert list(b.state_dict()) == list(a.state_dict())
    assert tt.nn.utils.parametrize.is_parametrized(b, "weight") and not tt.nn.utils.parametrize.is_parametrized(b, "bias")
    _close(a.weight, b.weight)
    x = torch.randn(4, 3)
    ya, yb = a(x), b(tt.tensor(x.numpy()))
    ya.sum().backward()
    yb.sum().backward()
    _close(ya, yb)
    _close(a.parametrizations.weight.original.grad, b.parametrizations.weight.original.grad)
    # assignment goes through the right inverses (Double has none: PyTorch and tinytorch both refuse)
    for lib, m in ((torch, a), (tt, b)):
        with pytest.raises(RuntimeError, match="does not implement right_inverse"):
            m.weight = lib.eye(3)
    with torch.nn.utils.parametrize.cached():
        wa = a.weight
        assert a.weight is wa
    with tt.nn.utils.parametrize.cached():
        wb = b.weight
        assert b.weight is wb
    assert b.weight is not b.weight
    torch.nn.utils.parametrize.remove_parametrizations(a, "weight", leave_parametrized=False)
    tt.nn.utils.parametrize.remove_parametrizations(b, "weight", leave_parametrized=False)
    assert type(b).__name__ == "Linear" and list(b.state_dict()) == list(a.state_dict())
    _close(a.weight, b.weight)


def test_right_inverse_assignment():
    a, b = _pair(lambda L: L.nn.Linear(3, 3))
    for lib, m in ((torch, a), (tt, b)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _sym(lib))
        m.weight = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    _close(a.weight, b.weight)
    _close(a.parametrizations.weight.original, b.parametrizations.weight.original)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm(dim):
    a, b = _pair(lambda L: L.nn.utils.parametrizations.weight_norm(L.nn.Conv2d(3, 4, 2), dim=dim))
    assert repr(b) == repr(a) and list(b.state_dict()) == list(a.state_dict())
    for k, v in a.state_dict().items():
        _close(v, b.state_dict()[k])
    x = torch.randn(2, 3, 5, 5)
    ya, yb = a(x), b(tt.tensor(x.numpy()))
    _close(ya, yb, rtol=1e-5, atol=1e-5)
    ya.square().sum().backward()
    yb.square().sum().backward()
    for i in range(2):
        _close(getattr(a.parametrizations.weight, f"original{i}").grad,
               getattr(b.parametrizations.weight, f"original{i}").grad, rtol=1e-4, atol=1e-4)
    torch.nn.utils.parametrize.remove_parametrizations(a, "weight")
    tt.nn.utils.parametrize.remove_parametrizations(b, "weight")
    assert repr(b) == repr(a) and list(b.state_dict()) == list(a.state_dict())
    _close(a.weight, b.weight)


def test_errors():
    for lib in (torch, tt):
        with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
            lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "foo", _double(lib))
        with pytest.raises(ValueError, match="does not have a parametrization on weight"):
            lib.nn.utils.parametrize.remove_parametrizations(lib.nn.Linear(2, 2), "weight")


@pytest.mark.parametrize("make", [lambda L: L.nn.Linear(4, 3), lambda L: L.nn.Conv2d(3, 4, 2),
                                  lambda L: L.nn.ConvTranspose2d(3, 4, 2)], ids=["linear", "conv", "conv_t"])
def test_spectral_norm(make):
    # float64: the power iteration's start is PyTorch's normal_ draw, its 15 steps, the step of the check at
    # registration and one per training call the same
    torch.manual_seed(0)
    tt.manual_seed(0)
    ma, mb = make(torch).double(), make(tt).double()
    for k, v in ma.state_dict().items():  # same seed: bit for bit on PyTorch's FMA paths
        _paths.assert_drawn(mb.state_dict()[k], v, what=k)
    _paths.adopt_state(mb, ma)  # DEFAULT path: PyTorch's weights (the streams go on alike)
    a = torch.nn.utils.parametrizations.spectral_norm(ma)
    b = tt.nn.utils.parametrizations.spectral_norm(mb)
    assert repr(b) == repr(a) and list(b.state_dict()) == list(a.state_dict())
    for k, v in a.state_dict().items():
        _close(v, b.state_dict()[k], rtol=1e-10, atol=1e-12)
    x = torch.randn(2, 4, dtype=torch.float64) if isinstance(a, torch.nn.Linear) else \
        torch.randn(2, 3, 5, 5, dtype=torch.float64)
    for _ in range(2):
        ya, yb = a(x), b(tt.tensor(x.numpy()))
    ya.sum().backward()
    yb.sum().backward()
    _close(ya, yb, rtol=1e-10, atol=1e-12)
    _close(a.parametrizations.weight.original.grad, b.parametrizations.weight.original.grad, rtol=1e-8, atol=1e-10)
    a.eval()
    b.eval()
    _close(a(x), b(tt.tensor(x.numpy())), rtol=1e-10, atol=1e-12)
