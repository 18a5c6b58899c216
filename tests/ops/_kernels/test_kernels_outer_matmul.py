"""Fast paths that must not change a single bit: the outer-product matmul (inner dimension 1)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytorch
from tinytorch._malloc import tune_malloc
from tinytorch._ops.linalg.matmul import _np_matmul


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


@settings(max_examples=40, deadline=None)
@given(m=st.integers(1, 9), n=st.integers(1, 9), batch=st.sampled_from([(), (3,), (2, 1)]),
       dtype=st.sampled_from([np.float32, np.float64, np.int64]))
def test_inner_dimension_one_is_bitwise_the_gemm(m, n, batch, dtype):
    rng = np.random.default_rng(m * 10 + n)
    a = (rng.standard_normal(batch + (m, 1)) * 100).astype(dtype)
    b = (rng.standard_normal((n,) if not batch else (1, n)) * 100).astype(dtype)
    b = b.reshape(1, n) if b.ndim == 1 else b
    got = _np_matmul(a, b)
    want = np.matmul(a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_tune_malloc_is_harmless(monkeypatch):
    assert tune_malloc() in (True, False)
    assert float(tinytorch.ones(1 << 20).sum()) == float(1 << 20)
    monkeypatch.setenv("TINYTORCH_NO_MALLOPT", "1")
    assert tune_malloc() is False  # the opt-out for programs that tune malloc themselves


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
