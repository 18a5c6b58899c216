"""cumsum and cumprod accumulate as PyTorch's CPU scans do: in the result dtype's accumulation type (float32
for float16/bfloat16, double for float32, complex128 for complex64), each running value rounded once, so a
float16 count of ones reaches 5000 rather than stopping at 2048."""
import numpy as np
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64"]


def _pair(a: np.ndarray, dtype: str):
    a = a.astype(np.float32)  # the narrow dtypes' inputs rounded from float32 alike in both
    return torch.tensor(a).to(getattr(torch, dtype)), tinytorch.tensor(a).to(getattr(tinytorch, dtype))


def _same(t, u):
    assert str(u.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    want = t.detach().to(torch.complex128 if t.is_complex() else torch.float64).numpy()
    got = u.detach().to(tinytorch.complex128 if u.is_complex() else tinytorch.float64).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_of_ones_counts_past_the_dtype_spacing(dtype):
    t, u = _pair(np.ones(5000), dtype)
    _same(t.cumsum(0), u.cumsum(0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_and_cumprod_of_random_values(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((7, 3000))
    t, u = _pair(a, dtype)
    _same(t.cumsum(1), u.cumsum(1))
    _same(t.t().cumsum(0), u.t().cumsum(0))  # a transposed input: the result is contiguous as PyTorch's
    t, u = _pair(1 + a * 0.01, dtype)
    _same(t.cumprod(1), u.cumprod(1))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_scan_to_another_dtype_accumulates_in_that_dtypes_type(dtype):
    ones = np.ones(5000, np.float32)
    _same(torch.tensor(ones).cumsum(0, dtype=getattr(torch, dtype)),
          tinytorch.tensor(ones).cumsum(0, dtype=getattr(tinytorch, dtype)))
    t, u = _pair(ones, dtype)
    _same(t.cumsum(0, dtype=torch.float32), u.cumsum(0, dtype=tinytorch.float32))
    _same(torch.cumsum(t, 0, out=torch.empty(5000, dtype=t.dtype)),
          tinytorch.cumsum(u, 0, out=tinytorch.empty(5000, dtype=u.dtype)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_gradients(dtype, name):
    a = np.ones(5000) if name == "cumsum" else 1 + np.random.default_rng(1).standard_normal(3000) * 0.001
    t, u = _pair(a, dtype)
    t.requires_grad_(True)
    u.requires_grad_(True)
    getattr(t, name)(0).sum().backward()
    getattr(u, name)(0).sum().backward()
    _same(t.grad, u.grad)
