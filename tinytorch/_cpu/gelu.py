"""The exact GELU's CPU path: oneDNN's float32 steps (``_ops/_kernels/gelu_onednn.py``, fused by the compiled
kernel where numba is installed, a large array in runs of elements across threads), where PyTorch runs oneDNN's
kernel: a C-contiguous float32 input. Its forward keeps erf(x / sqrt 2) and exp(-x^2 / 2) for the backward, which
then takes oneDNN's steps too. Each element takes the same steps however the array is cut: the same floats."""
from __future__ import annotations

import numpy as np

from .._ops._core import paths
from .._ops._kernels import compiled as _compiled, gelu_onednn as _gelu_onednn, parallel
from .._ops.nn import activation_smooth as _smooth
from ..tensor import _make

_reference_forward = paths.reference_kernel(_smooth, "_gelu_arrays")
_reference_grad = paths.reference_kernel(_smooth, "_gelu_grad_arrays")

_WHEN = "approximate='none' on a C-contiguous float32 array of 2 or more elements (the backward: where the forward " \
    "took these steps, on a gradient of its shape and dtype)"
_WHY = "PyTorch's bits where oneDNN runs its AVX2 kernel (its polynomial for erf and exp), and speed"


def _forward_compiled(fast, x: np.ndarray):
    """(gelu, erf(x / sqrt 2), exp(-x^2 / 2)) of a C-contiguous float32 array by the compiled kernel, a large
    one in runs of elements across threads (each element the same steps: the same floats)."""
    out, erf, q = (np.empty(x.shape, np.float32) for _ in range(3))
    parallel.flat_runs(fast.forward_into, x, out, erf, q)
    return out, erf, q


def _backward_compiled(fast, g: np.ndarray, x: np.ndarray, erf: np.ndarray, q: np.ndarray) -> np.ndarray:
    """GELU's input gradient by the compiled kernel (float32 arrays of one shape), split as the forward."""
    d = np.empty(x.shape, np.float32)
    parallel.flat_runs(fast.backward_into, g, x, erf, q, d)
    return d


@paths.kernel(_smooth, "_gelu_arrays", ulps=None, when=_WHEN, why=_WHY)
def gelu_arrays(storage, approximate):
    if (approximate != "tanh" and storage.dtype == np.float32 and storage.size > 1 and type(storage) is np.ndarray
            and storage.flags.c_contiguous):
        fast = _compiled.family("gelu")
        if fast is not None:  # the same steps, fused (the same floats)
            return _forward_compiled(fast, storage)
        return _gelu_onednn.gelu_forward(storage)
    return _reference_forward(storage, approximate)


@paths.kernel(_smooth, "_gelu_grad_arrays", ulps=None, when=_WHEN, why=_WHY)
def gelu_grad_arrays(g, x, erf, exp_half_sq):
    if exp_half_sq is not None:
        gd, xd = g._data, x._data
        if gd.dtype == np.float64:  # oneDNN takes a view of the gradient as float32, half or bfloat16: none fits
            raise RuntimeError("itensor_view_from_dense expects float/bfloat16/half/int8/fp8 tensor inputDouble")
        if gd.dtype == xd.dtype and gd.shape == xd.shape and gd.flags.c_contiguous and xd.flags.c_contiguous:
            fast = _compiled.family("gelu")
            if fast is not None:  # the same steps, fused (the same floats)
                return _make(_backward_compiled(fast, gd, xd, erf, exp_half_sq))
        return _make(_gelu_onednn.gelu_backward(gd, xd, erf, exp_half_sq))
    return _reference_grad(g, x, erf, exp_half_sq)
