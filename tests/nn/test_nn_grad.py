"""nn.grad (convolution gradients) and nn.factory_kwargs against PyTorch."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


@pytest.mark.parametrize("nd, kw", [(1, dict(stride=2, padding=1)), (2, dict(stride=(2, 1), padding=1, dilation=2)),
                                    (2, dict(groups=2)), (3, dict(stride=1, padding=(1, 0, 1)))])
def test_conv_gradients(nd, kw):
    torch.manual_seed(0)
    groups = kw.get("groups", 1)
    x = torch.randn(2, 4, *([7] * nd), dtype=torch.float64)
    w = torch.randn(6, 4 // groups, *([3] * nd), dtype=torch.float64)
    y = getattr(torch.nn.functional, f"conv{nd}d")(x, w, **kw)
    gy = torch.randn(y.shape, dtype=torch.float64)
    t = {k: tt.tensor(v.numpy()) for k, v in dict(x=x, w=w, gy=gy).items()}
    a = getattr(torch.nn.grad, f"conv{nd}d_input")(x.shape, w, gy, **kw)
    b = getattr(tt.nn.grad, f"conv{nd}d_input")(tuple(x.shape), t["w"], t["gy"], **kw)
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-12, atol=1e-12)
    a = getattr(torch.nn.grad, f"conv{nd}d_weight")(x, w.shape, gy, **kw)
    b = getattr(tt.nn.grad, f"conv{nd}d_weight")(t["x"], tuple(w.shape), t["gy"], **kw)
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-12, atol=1e-12)
    assert b.grad_fn is None and not b.requires_grad


def test_factory_kwargs():
    for kwargs in [None, {}, {"dtype": "d"}, {"device": "cpu", "factory_kwargs": {"dtype": 1}}]:
        assert tt.nn.factory_kwargs(kwargs) == torch.nn.factory_kwargs(kwargs)
    for kwargs in [{"bad": 1}, {"dtype": 1, "factory_kwargs": {"dtype": 2}}]:
        with pytest.raises(TypeError) as expected:
            torch.nn.factory_kwargs(kwargs)
        with pytest.raises(TypeError) as got:
            tt.nn.factory_kwargs(kwargs)
        assert str(got.value) == str(expected.value)
