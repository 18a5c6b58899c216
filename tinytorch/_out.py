"""``out=`` for the functional forms (``tinytorch.matmul(a, b, out=c)``), as PyTorch's tutorials use it."""
from __future__ import annotations

import functools
import warnings

import numpy as np

from .autograd.grad_mode import _State, no_grad
from .ops.inplace import _cast_check
from .tensor import Tensor


def _requires_grad(args) -> bool:
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
        if isinstance(a, (list, tuple)) and _requires_grad(a):
            return True
    return False


def with_out(fn):
    """``fn`` plus an ``out=`` argument: the result is written into ``out``, which is returned."""

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if _State.enabled and (_requires_grad(args) or _requires_grad(kwargs.values()) or out._requires_grad):
            raise RuntimeError(f"{fn.__name__}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        with no_grad():
            res = fn(*args, **kwargs)
        data = res._data
        _cast_check(data.dtype, out._data.dtype)
        if out._data.shape != data.shape:
            if out._data.size:
                old = ", ".join(map(str, out._data.shape))
                new = ", ".join(map(str, data.shape))
                warnings.warn(f"An output with one or more elements was resized since it had shape [{old}], which "
                              f"does not match the required output shape [{new}]. This behavior is deprecated, and "
                              "in a future PyTorch release outputs will not be resized unless they have zero "
                              "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                              "elements with t.resize_(0).", UserWarning, stacklevel=2)
            out._data = np.empty(data.shape, dtype=out._data.dtype)
        np.copyto(out._data, data, casting="unsafe")
        out._vc[0] += 1
        return out

    return wrapper
