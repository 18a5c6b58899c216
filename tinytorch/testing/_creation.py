"""``make_tensor``: a tensor of a shape and dtype filled from ``[low, high)`` with PyTorch's draws
(``randint`` for bool and integers, ``uniform_`` for floating and complex), so a seeded call gives the
values PyTorch's gives."""
from __future__ import annotations

import collections.abc
import functools
import math
import warnings

from .. import _dtype
from .._dtype_info import finfo, iinfo
from .._ops.creation.factory import empty
from .._ops.pointwise.complex import view_as_real
from .._ops.random.sampling import randint

_INTEGRAL = (_dtype.uint8, _dtype.int8, _dtype.int16, _dtype.int32, _dtype.int64)
_BOOL_OR_INTEGRAL = (_dtype.bool_, *_INTEGRAL)
_COMPLEX = (_dtype.complex64, _dtype.complex128)
_FLOATING_OR_COMPLEX = (_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64, *_COMPLEX)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False, memory_format=None):
    """Values uniform in ``[low, high)``; defaults: bool [0, 2), unsigned [0, 10), signed [-9, 10),
    floating and complex [-9, 9). ``noncontiguous`` takes every other column of a wider tensor;
    ``exclude_zero`` replaces zeros with 1 (bool, integers) or the dtype's ``tiny``."""
    def low_high(low, high, lowest, highest, default_low, default_high):
        low = default_low if low is None else low
        high = default_high if high is None else high
        if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
        if low == high and dtype in _FLOATING_OR_COMPLEX:
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                          "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                          FutureWarning, stacklevel=3)
        elif low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        elif high < lowest or low >= highest:
            raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} "
                             f"only supports [{lowest}, {highest})")
        low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
        if dtype in _BOOL_OR_INTEGRAL:
            return math.ceil(low), math.ceil(high)
        return low, high

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is _dtype.bool_:
        low, high = low_high(low, high, 0, 2, 0, 2)
        result = randint(low, high, shape, dtype=dtype, device=device)
    elif dtype in _INTEGRAL:
        info = iinfo(dtype)
        low, high = low_high(low, high, info.min, info.max + (dtype is not _dtype.int64), -9, 10)
        result = randint(low, high, shape, dtype=dtype, device=device)
    elif dtype in _FLOATING_OR_COMPLEX:
        info = finfo(dtype)
        low, high = low_high(low, high, info.min, info.max, -9, 9)
        result = empty(shape, dtype=dtype, device=device)
        target = view_as_real(result) if dtype in _COMPLEX else result
        if high - low >= finfo(target.dtype).max:  # the width overflows: draw half of it and double
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). "
                        "To request support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOL_OR_INTEGRAL else finfo(dtype).tiny
    if dtype in _FLOATING_OR_COMPLEX:
        result.requires_grad = requires_grad
    return result

