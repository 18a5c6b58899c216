"""add/sub with alpha, lerp/addcmul/addcdiv in the half types and with complex values, against
PyTorch: which dtype combinations run, the result dtypes, the errors, and the half kernels' single
rounding of a float32 multiply-add."""
import numpy as np
import pytest

import tinytorch as tt
from _compare import outcome as _outcome

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


_ALPHA_CASES = [
    lambda m: m.add(m.tensor([1, 2]), m.tensor([3, 4]), alpha=0.5),
    lambda m: m.sub(m.tensor([1, 2]), m.tensor([3, 4]), alpha=0.5),
    lambda m: m.tensor([1, 2]).add_(m.tensor([3, 4]), alpha=0.5),
    lambda m: m.tensor([1, 2]).sub_(m.tensor([1]), alpha=2.0),
    lambda m: m.add(m.tensor([1.0]), m.tensor([2.0]), alpha=1j),
    lambda m: m.add(m.tensor([1]), m.tensor([2]), alpha=2j),
    lambda m: m.add(m.tensor([1.0]), m.tensor([2.0]), alpha=True),
    lambda m: m.add(m.tensor([True, False]), m.tensor([True, True]), alpha=2),
    lambda m: m.add(m.tensor([True, False]), m.tensor([False, False]), alpha=0),
    lambda m: m.sub(m.tensor([1, 2], dtype=m.uint8), m.tensor([3, 4], dtype=m.uint8), alpha=3),
    lambda m: m.add(m.tensor([1, 2]), m.tensor([3, 4]), alpha=2),
    lambda m: m.add(m.tensor([1, 2]), 2.5, alpha=2),
    lambda m: m.sub(m.tensor([1 + 0j]), m.tensor([2]), alpha=2j),
    lambda m: m.add(m.tensor([1, 2]), m.tensor([3, 4]), alpha=m.tensor(2.0)),
    lambda m: m.add(m.tensor([0.1, 2.3, -1.7]), m.tensor([0.7, 1.1, 5.3]), alpha=np.float32(0.3)),
    lambda m: m.sub(m.tensor([0.1, 2.3, -1.7]), m.tensor([0.7, 1.1, 5.3]), alpha=m.tensor(0.3)),
]


@pytest.mark.parametrize("i", range(len(_ALPHA_CASES)))
def test_add_sub_alpha_checks_and_dtypes(i):
    fn = _ALPHA_CASES[i]
    ours, theirs = _outcome(fn, tt), _outcome(fn, torch)
    if ours[0] == theirs[0] == "float32":  # a + alpha * b: one FMA on PyTorch's AVX2/AVX512 paths, two roundings on DEFAULT
        _paths.assert_bits(np.float32(ours[1]), np.float32(theirs[1]), ulps=1, scale="max", what="add/sub")
    else:
        assert ours == theirs



def _half_same(got: np.ndarray, want, what: str) -> None:
    """The half/bfloat16 kernels' float32 multiply-add is one FMA on PyTorch's AVX2/AVX512 paths (bit for
    bit there) and two roundings on DEFAULT: within 1 ulp of the dtype at the array's largest value."""
    _paths.assert_bits(got, want.float().numpy().astype(got.dtype), ulps=1, scale="max", what=what)


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("weight", [0.3, 0.7, "tensor"])
def test_lerp_half_rounds_once(dtype, weight):
    g = torch.Generator().manual_seed(0)
    a, b, w = (torch.randn(2000, generator=g).to(getattr(torch, dtype)) for _ in range(3))
    w = w.abs().clamp(max=1) if weight == "tensor" else weight

    def tt_of(t):
        return tt.tensor(t.float().numpy()).to(getattr(tt, dtype))

    got = tt.lerp(tt_of(a), tt_of(b), tt_of(w) if weight == "tensor" else w).numpy()
    _half_same(got, torch.lerp(a, b, w), "lerp")


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("value", [0.3, 1, -2.5])
def test_addcmul_half_rounds_once(dtype, value):
    g = torch.Generator().manual_seed(1)
    a, b, c = (torch.randn(2000, generator=g).to(getattr(torch, dtype)) for _ in range(3))
    got = tt.addcmul(*(tt.tensor(t.float().numpy()).to(getattr(tt, dtype)) for t in (a, b, c)), value=value)
    _half_same(got.numpy(), torch.addcmul(a, b, c, value=value), "addcmul")


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("value", [0.3, 1, -2.5])
def test_addcdiv_half_rounds_once(dtype, value):
    g = torch.Generator().manual_seed(2)
    a, b, c = (torch.randn(2000, generator=g).to(getattr(torch, dtype)) for _ in range(3))
    got = tt.addcdiv(*(tt.tensor(t.float().numpy()).to(getattr(tt, dtype)) for t in (a, b, c)), value=value)
    np.testing.assert_array_equal(got.float().numpy(), torch.addcdiv(a, b, c, value=value).float().numpy())



_VALUE_CASES = [
    lambda m: m.addcmul(m.ones(2), m.ones(2), m.ones(2), value=0.3j),
    lambda m: m.addcdiv(m.ones(2, dtype=m.float64), m.ones(2), m.ones(2), value=1j),
    lambda m: m.ones(2).addcmul_(m.ones(2), m.ones(2), value=1 + 0j),
    lambda m: m.addcmul(*(m.ones(2, dtype=m.int64) for _ in range(3)), value=1j),
    lambda m: m.addcmul(m.ones(2), m.ones(2), m.ones(2, dtype=m.complex64), value=1j),
]


@pytest.mark.parametrize("i", range(len(_VALUE_CASES)))
def test_addcmul_addcdiv_complex_value(i):
    assert _outcome(_VALUE_CASES[i], tt) == _outcome(_VALUE_CASES[i], torch)
