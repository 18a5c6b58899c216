"""relu's CPU path, forward and backward, registered onto its array steps (``_ops/nn/activation.py``: ``_relu``
is max(0, x), ``_threshold_backward_array`` the select ``y <= 0 ? 0 : g``). Every branch gives the step's floats:

- forward: float32 through numpy's clip ufunc (its float32 loop is vectorised where maximum's is not, about 3x
  faster, with maximum(0, x)'s bits: NaN payloads and -0.0 kept), float32 and float64 arrays of
  ``parallel.SPLIT_FROM`` elements or more cut across threads.
- backward: a 0-d select in Python (numpy's 0-d ``where`` costs more than the step), the select as bits for
  float32/float64 gradients of ``y``'s shape (the gradient AND an all-ones or all-zeros mask, +0.0 where
  masked, about 5x faster than ``np.where``), large ones in one compiled pass (``compiled/relu.py``) across
  threads.

A relu on small float32/float64 tensors runs the micrograd-style scalar graphs and every MLP's hidden layer, so
these paths take the common dtypes themselves rather than calling the step: registered, a path costs no
Python call more than the reference did; other dtypes go to the step."""
from __future__ import annotations

import numpy as np

from .._ops._core import paths
from .._ops._core.tensor_iterator import elementwise_empty
from .._ops._kernels import compiled as _compiled, parallel
from .._ops._kernels.parallel import SPLIT_FROM as _SPLIT_FROM
from .._ops.nn import activation

_relu_reference = paths.reference_kernel(activation, "_relu")
_threshold_backward_reference = paths.reference_kernel(activation, "_threshold_backward_array")

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _constant(value, dtype) -> np.ndarray:
    """A read-only 0-d array (a Python number costs numpy a conversion per call)."""
    a = np.array(value, dtype)
    a.flags.writeable = False
    return a


_ZERO = {_F32: _constant(0, _F32), _F64: _constant(0, _F64)}
_F32_INF = _constant(np.inf, _F32)
# numpy's clip ufunc, what np.clip calls without its Python layer (numpy 2; None on 1.x: maximum then)
_clip = getattr(getattr(getattr(np, "_core", None), "umath", None), "clip", None)


@paths.kernel(activation, "_relu", when=f"float32 (clip's vectorised loop) and float64 arrays, those of {_SPLIT_FROM} "
              "elements or more across threads", why="speed: the same bits as max(0, x)")
def relu_arrays(x):
    dt = x.dtype
    if dt is _F32 and _clip is not None:
        if x.size < _SPLIT_FROM:
            return _clip(x, _ZERO[_F32], _F32_INF)
        return parallel.elementwise(_clip, elementwise_empty(x, x), x, _ZERO[_F32], _F32_INF)
    if dt is _F32 or dt is _F64:
        if x.size < _SPLIT_FROM:
            return np.maximum(_ZERO[dt], x)
        return parallel.elementwise(np.maximum, elementwise_empty(x, x), _ZERO[dt], x)  # (a meta x: meta out)
    return _relu_reference(x)


_SAME_SIZE_INT = {_F32: np.dtype(np.int32), _F64: np.dtype(np.int64)}
_ONE = {dt: _constant(1, dt) for dt in _SAME_SIZE_INT.values()}


def _select_into(g: np.ndarray, y: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The select as bits for same-shape float32/float64 ``g`` and ``y``: ``g`` AND a mask of all ones where
    ``y > 0`` (0 - 1) and all zeros where ``y <= 0`` (1 - 1), into ``out`` (any layout: one part of a split)."""
    ints = _SAME_SIZE_INT[g.dtype]
    mask = np.less_equal(y, _ZERO[y.dtype]).view(np.uint8).astype(ints)
    np.subtract(mask, _ONE[ints], out=mask)
    return np.bitwise_and(g.view(ints), mask, out=out.view(ints))  # a same-size view: any strides


@paths.kernel(activation, "_threshold_backward_array", when=f"0-d arrays; float32/float64 gradients of the result's "
              f"shape and dtype (the bitwise select; {_SPLIT_FROM} elements or more compiled and across threads)",
              why="speed: the same select, without numpy's where")
def threshold_backward_arrays(g, y):
    if g.ndim == 0 and y.ndim == 0:  # a scalar graph's step: numpy's 0-d select costs more than this
        return np.zeros((), g.dtype) if y <= 0 else g.copy()
    dt = g.dtype
    if (dt is _F32 or dt is _F64) and y.dtype is dt and g.shape == y.shape:
        if g.size < _SPLIT_FROM:
            ints = _SAME_SIZE_INT[dt]  # (_select_into's steps, written over the mask: no call more on the hot path)
            mask = np.less_equal(y, _ZERO[dt]).view(np.uint8).astype(ints)
            np.subtract(mask, _ONE[ints], out=mask)
            return np.bitwise_and(g.view(ints), mask, out=mask).view(dt)
        out = elementwise_empty(g, y, g)  # the reference's order (a meta g: a meta out)
        if g.flags.c_contiguous and y.flags.c_contiguous and out.flags.c_contiguous:
            fast = _compiled.family("relu")
            if fast is not None:  # the same select in one pass (``compiled/relu.py``)
                parallel.flat_runs(fast.threshold_backward, g, y, out)
                return out
        return parallel.elementwise(_select_into, out, g, y)
    return _threshold_backward_reference(g, y)
