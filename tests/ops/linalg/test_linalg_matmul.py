"""matmul's outer products (inner dimension 1) against PyTorch: shapes, values, gradients and grad_fn
names."""
import numpy as np
import pytest

import tinytorch
from _paths import assert_bits


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


@pytest.mark.parametrize("m,n", [(3, 4), (300, 260)])  # numpy's multiply, and the large outer product's path
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_outer_product_of_infinities_and_zeros_is_pytorchs_silently(torch, m, n, dtype):
    """inf * 0 is NaN and -0.0 products keep their sign, as PyTorch's bits, with no numpy warning (the tests
    turn warnings into errors). Under TINYTORCH_REFERENCE=1 the product is the reference's GEMM, whose zeroed
    accumulator gives +0.0 for a -0.0 product: equal values there, signs aside."""
    rng = np.random.default_rng(m)
    a, b = rng.standard_normal((m, 1)).astype(dtype), rng.standard_normal((1, n)).astype(dtype)
    a[0, 0], a[1, 0], a[2, 0] = np.inf, -0.0, np.nan
    b[0, 0], b[0, 1], b[0, 2] = 0.0, -np.inf, -0.0
    got = (tinytorch.tensor(a) @ tinytorch.tensor(b)).numpy()
    want = (torch.tensor(a) @ torch.tensor(b)).numpy()
    assert_bits(got, want, ulps=0, exact_on=("DEFAULT", "AVX2", "AVX512"), nan_payload=False, what="outer product")


# (call, operand shapes): matmul of every rank pairing that reaches another kernel, and the fused products
_MIXED = [("matmul", ((2, 3), (3,))), ("matmul", ((2, 2, 3), (2, 3, 2))), ("matmul", ((2, 3), (2, 3, 2))),
          ("matmul", ((2, 2, 3), (3, 2))), ("matmul", ((3,), (3, 2))), ("matmul", ((2, 3), (3, 2))),
          ("matmul", ((3,), (3,))), ("mv", ((2, 3), (3,))), ("bmm", ((2, 2, 3), (2, 3, 2))),
          ("addmv", ((2,), (2, 3), (3,))), ("baddbmm", ((2, 2, 2), (2, 2, 3), (2, 3, 2))),
          ("einsum", ((2, 3), (3, 2)))]


@pytest.mark.parametrize("call, shapes, which", [(c, s, i) for c, s in _MIXED for i in range(len(s))])
def test_mixed_dtypes_raise_pytorchs_error(torch, call, shapes, which):
    """One float64 operand among float32 ones: refused in the words of the kernel PyTorch reaches (addmv and
    baddbmm promoted silently)."""

    def error(lib):
        ops = [lib.ones(s, dtype=lib.float64 if i == which else lib.float32) for i, s in enumerate(shapes)]
        try:
            if call == "einsum":
                lib.einsum("ij,jk->ik", *ops)
            else:
                getattr(lib, call)(*ops)
        except RuntimeError as e:
            return str(e)
        return None

    theirs = error(torch)
    assert theirs is not None and error(tinytorch) == theirs
