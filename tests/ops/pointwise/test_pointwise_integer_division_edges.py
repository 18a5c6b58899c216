"""Integer division at its edges as PyTorch: the lowest integer // -1 wraps to itself without a numpy warning,
trunc division is exact for int64s past 2**53, and a zero divisor raises PyTorch's RuntimeError."""
import warnings

import numpy as np
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

SIGNED = ["int8", "int16", "int32", "int64"]
CALLS = {
    "floordiv": lambda lib, a, b: a // b,
    "remainder": lambda lib, a, b: a % b,
    "div_floor": lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
}


def _pair(values, dtype):
    return torch.tensor(values, dtype=getattr(torch, dtype)), tinytorch.tensor(values, dtype=getattr(tinytorch, dtype))


@pytest.mark.parametrize("dtype", SIGNED)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_lowest_by_minus_one_wraps_silently(dtype, name):
    lowest = int(np.iinfo(dtype).min)
    (ta, ua), (tb, ub) = _pair([lowest, 7, -7], dtype), _pair([-1, 2, 2], dtype)
    want = CALLS[name](torch, ta, tb)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = CALLS[name](tinytorch, ua, ub)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_trunc_division_exact_in_int64():
    # (PyTorch's trunc division of the lowest integer by -1 traps the process: left out)
    a, b = [2**62 + 1, -(2**62 + 1), 7, -7, 2**53 + 3, 0], [3, 3, -2, 2, -1, 5]
    (ta, ua), (tb, ub) = _pair(a, "int64"), _pair(b, "int64")
    np.testing.assert_array_equal(tinytorch.div(ua, ub, rounding_mode="trunc").numpy(),
                                  torch.div(ta, tb, rounding_mode="trunc").numpy())
    np.testing.assert_array_equal(tinytorch.div(ua, 3, rounding_mode="trunc").numpy(),
                                  torch.div(ta, 3, rounding_mode="trunc").numpy())


@pytest.mark.parametrize("dtype", SIGNED + ["uint8"])
@pytest.mark.parametrize("name", ["floordiv", "remainder", "div_floor", "div_trunc", "fmod"])
def test_zero_divisor(dtype, name):
    call = CALLS.get(name, lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"))
    (ta, ua), (tb, ub) = _pair([5, 6], dtype), _pair([0, 1], dtype)
    with pytest.raises(RuntimeError) as want:
        call(torch, ta, tb)
    with pytest.raises(RuntimeError) as got:
        call(tinytorch, ua, ub)
    assert str(got.value) == str(want.value)
