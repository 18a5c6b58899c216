"""matmul's outer products (inner dimension 1) against PyTorch: shapes, values, gradients and grad_fn
names."""
import numpy as np
import pytest

import tinytorch


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


@pytest.mark.parametrize("shape_a,shape_b", [((4, 1), (1, 3)), ((1,), (1, 3)), ((4, 1), (1,)), ((2, 4, 1), (1, 3))])
def test_outer_product_shapes_and_grads_vs_pytorch(torch, shape_a, shape_b):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(shape_a), rng.standard_normal(shape_b)
    out = []
    for lib in (tinytorch, torch):
        ta, tb = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        y = ta @ tb
        y.square().sum().backward()
        out.append((y.detach().numpy(), ta.grad.numpy(), tb.grad.numpy(), type(y.grad_fn).__name__))
    (y0, ga0, gb0, n0), (y1, ga1, gb1, n1) = out
    assert n0 == n1
    np.testing.assert_allclose(y0, y1, rtol=1e-13)
    np.testing.assert_allclose(ga0, ga1, rtol=1e-12)
    np.testing.assert_allclose(gb0, gb1, rtol=1e-12)
