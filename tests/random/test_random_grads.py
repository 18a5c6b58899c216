"""normal(tensor mean/std) and bernoulli(p) record PyTorch's nodes, whose gradients are zeros (the draws
are not reparameterised): node names, gradient shapes and values against PyTorch."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


@pytest.mark.parametrize("make", [
    lambda T, m, s: T.normal(m, s),
    lambda T, m, s: T.normal(m, 2.0),
    lambda T, m, s: T.normal(1.5, s),
    lambda T, m, s: T.normal(m[:1], s),  # broadcast: the gradient keeps mean's shape
    lambda T, m, s: T.bernoulli(s),
])
def test_zero_gradients(make):
    mean = np.array([[0.5, -1.0, 2.0]] * 2, np.float32)
    std = np.array([[0.3, 0.7, 0.2]] * 2, np.float32)
    results = []
    for T in (torch, tt):
        T.manual_seed(0)
        m, s = T.tensor(mean, requires_grad=True), T.tensor(std, requires_grad=True)
        y = make(T, m, s)
        leaves = [t for t in (m, s) if t.grad_fn is None and t.requires_grad]
        grads = T.autograd.grad(y.sum(), leaves, allow_unused=True)
        results.append((y.grad_fn.name(), y.detach().numpy(), [None if g is None else g.numpy() for g in grads]))
    (t_name, t_y, t_g), (o_name, o_y, o_g) = results
    assert o_name == t_name
    np.testing.assert_allclose(o_y, t_y, rtol=1e-6)
    for o, t in zip(o_g, t_g):
        assert (o is None) == (t is None)
        if t is not None:
            np.testing.assert_array_equal(o, t)


def test_no_node_without_grad():
    assert tt.normal(tt.zeros(3), tt.ones(3)).grad_fn is None
    assert tt.bernoulli(tt.full((3,), 0.5)).grad_fn is None
