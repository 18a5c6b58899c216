"""``finfo``/``iinfo`` (numeric limits of a dtype, PyTorch's fields and reprs) and the promotion queries
``promote_types``, ``result_type`` and ``can_cast``."""
from __future__ import annotations

import numpy as np

from . import _dtype
from .tensor import Tensor


_NUMPY_FLOATS = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))


class finfo:
    """Machine limits of a floating dtype: bits, eps, max, min, tiny (= smallest_normal), resolution."""

    def __init__(self, type=None):  # noqa: A002
        d = _dtype.get_default_dtype() if type is None else type
        if isinstance(d, _dtype.dtype) and d.is_complex:  # a complex dtype's limits are its parts'
            d = _dtype.FROM_NP[_dtype.TO_REAL[d.np]]
        if not isinstance(d, _dtype.dtype) or not d.is_floating_point:
            raise TypeError("tinytorch.finfo() requires a floating point input type. Use tinytorch.iinfo to "
                            "handle 'tinytorch.finfo'")
        if d.np in _NUMPY_FLOATS:
            info = np.finfo(d.np)
        else:
            np_type = _dtype.to_np(d).type  # first: without ml_dtypes it raises the ImportError that names it
            info = _dtype._ml_dtypes.finfo(np_type)
        self.bits = info.bits
        # PyTorch's float8_e5m2fnuz epsilon is 2 ** -3, half of the format's 2 ** -2
        self.eps = 0.125 if d is _dtype.float8_e5m2fnuz else float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        # PyTorch's resolution is 10 ** -digits10: a float8's three or fewer mantissa bits hold no decimal digit
        self.resolution = 1.0 if d in _dtype.FLOAT8 else 10.0 ** -info.precision
        self.dtype = d.name

    def __getattr__(self, name):
        raise AttributeError(f"'tinytorch.finfo' object has no attribute '{name}'")

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Machine limits of an integer dtype: bits, min, max."""

    def __init__(self, type):  # noqa: A002
        if type is _dtype.bool_:
            raise TypeError("tinytorch.bool is not supported by tinytorch.iinfo")
        if not isinstance(type, _dtype.dtype) or type._category != 1:
            raise TypeError("tinytorch.iinfo() requires an integer input type. Use tinytorch.finfo to handle "
                            "'tinytorch.iinfo'")
        info = np.iinfo(type.np)
        self.bits = info.bits
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = type.name

    def __getattr__(self, name):
        raise AttributeError(f"'tinytorch.iinfo' object has no attribute '{name}'")

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"


def promote_types(type1: _dtype.dtype, type2: _dtype.dtype) -> _dtype.dtype:
    """The smallest dtype both ``type1`` and ``type2`` cast to without losing category."""
    return _dtype.FROM_NP[_dtype.PROMOTE[type1.np, type2.np]]


def result_type(tensor1, tensor2) -> _dtype.dtype:
    """The dtype an arithmetic op on the two operands (tensors or Python numbers) produces."""
    def operand(x):
        return x._data if isinstance(x, Tensor) else x

    a, b = operand(tensor1), operand(tensor2)
    if not isinstance(tensor1, Tensor) and not isinstance(tensor2, Tensor):
        # two Python numbers: the higher category's default dtype (bool, int64, the default float)
        return max((_dtype.FROM_NP[_dtype._scalar_np(x)] for x in (a, b)), key=lambda d: d._category)
    return _dtype.FROM_NP[np.dtype(_dtype.result_np_dtype(a, b))]


def can_cast(from_: _dtype.dtype, to: _dtype.dtype) -> bool:
    """PyTorch's casting rule: floating to integral and non-bool to bool are not allowed."""
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    return not (from_._category != 0 and to._category == 0)
