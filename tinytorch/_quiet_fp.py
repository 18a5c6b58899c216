"""numpy's floating-point warnings off around one computation, cheaply.

PyTorch computes ``0 * inf``, ``log(0)`` or an overflow silently; numpy computes the same values and
then warns. ``np.errstate`` costs about 1.5 µs to enter and leave, as much as a small op, so the hot
paths set numpy's error-state context variable directly (about 0.2 µs): ``token = quiet()`` before,
``loud(token)`` after (in a ``finally``). The process's own settings (``np.seterr``, the user's
``errstate`` blocks, warning filters) are never changed: the variable is reset to what it was."""
from __future__ import annotations

import functools

import numpy as np

try:  # numpy >= 2: the error state is one context variable
    from numpy._core._ufunc_config import _extobj_contextvar as _state

    with np.errstate(all="ignore"):
        _IGNORE = _state.get()

    def quiet():
        return _state.set(_IGNORE)

    loud = _state.reset
except ImportError:  # older numpy: the documented context manager
    def quiet():
        ctx = np.errstate(all="ignore")
        ctx.__enter__()
        return ctx

    def loud(ctx) -> None:
        ctx.__exit__(None, None, None)


def silent(fn):
    """``fn`` run with numpy's floating-point warnings off (``quiet``/``loud`` around it): for the array
    kernels that compute inf and NaN as PyTorch's do, silently. The parallel regions inside hand this
    setting to their threads."""
    @functools.wraps(fn)
    def run_silently(*args, **kwargs):
        token = quiet()
        try:
            return fn(*args, **kwargs)
        finally:
            loud(token)
    return run_silently


try:  # numpy >= 2.3: ``ufunc(..., out=...)`` returns a 0-d array for 0-d operands, not a numpy scalar
    np.add(np.zeros(()), 1.0, out=...)
    ARRAY_OUT = ...
except TypeError:  # older numpy: the default (callers wrap a scalar result with np.asarray)
    ARRAY_OUT = None


def cast(a: np.ndarray, dtype, copy: bool = True) -> np.ndarray:
    """``a.astype(dtype)`` without numpy's overflow warning (PyTorch casts 1e5 to float16 as inf silently)."""
    token = quiet()
    try:
        return a.astype(dtype, copy=copy)
    except TypeError:  # complex32's structured dtype: numpy casts nothing to or from it
        if NARROW_CAST[0] is None:
            raise
        return NARROW_CAST[0](a, np.dtype(dtype))
    finally:
        loud(token)


# _dtype_casts.py's convert, which it registers here when it loads (it imports this module): cast's way
# for complex32, through PyTorch's roundings
NARROW_CAST = [None]


def bind_narrow_cast(convert) -> None:
    """Give ``cast`` its way for the dtypes numpy cannot cast (complex32's structured dtype)."""
    NARROW_CAST[0] = convert


F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
# 0-d float32/float64 operands of one dtype (a scalar graph's every op) are added, subtracted and
# multiplied as Python floats: a third of numpy's cost for a 0-d ufunc, and no error-state switch
# (Python's float arithmetic never warns). The same values: a double holds the exact product of two
# float32 values, and a sum rounded to double and then to float32 rounds as once to float32
# (53 >= 2 * 24 + 2 bits); a float32 result beyond this (overflow, inf, nan) takes numpy's path,
# whose cast would warn. The add/sub/mul ops (_ops/_core/binary.py) and the backward engine's
# gradient sums (autograd/engine.py) share these.
F32_MAX = float(np.finfo(np.float32).max)


def zero_dim(like: np.ndarray, r: float):
    """A fresh 0-d array of ``like``'s dtype (float32 or float64) holding ``r``, else None where
    float32 cannot hold it without numpy's cast warning (add and mul inline this)."""
    if like.dtype is F64 or -F32_MAX <= r <= F32_MAX:
        out = like.copy()
        out[()] = r
        return out
    return None
