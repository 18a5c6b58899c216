"""batch_norm's CPU paths: the training steps on a C-contiguous (N, C) float32/float64 input (BatchNorm1d's common
case), forward and the backward without a graph of the gradient, each fused into one compiled loop
(``_kernels/compiled/batch_norm.py``, numba) that gives the reference's floats: the same operations in the same
order and precisions."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import _State
from ..tensor import _make
from .._ops._core import paths
from .._ops._kernels import compiled as _compiled
from .._ops.nn import batch_norm
from .._ops.nn.batch_norm import NativeBatchNormBackward0

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_EMPTY = {t: np.empty(0, t) for t in _FLOATS}  # a compiled kernel's "None"


def _arrays_ok(x: np.ndarray, *arrays) -> bool:
    """Whether the parameters and running statistics (each None or an array) are 1-d contiguous arrays of the
    input's dtype, which a compiled kernel reads and updates in place (a read-only one gets numpy's error on
    the reference's steps)."""
    for a in arrays:
        if a is not None and (a.ndim != 1 or a.dtype != x.dtype or not a.flags.c_contiguous or not a.flags.writeable):
            return False
    return True


_train_ref = paths.reference_kernel(batch_norm, "_train_arrays")


@paths.kernel(batch_norm, "_train_arrays", when="a C-contiguous (N, C) float32/float64 input, N and C at least 2, "
              "with parameters and running statistics 1-d of its dtype (numba installed)",
              why="speed: the training forward's steps (about 24 numpy calls) in one compiled loop")
def train_arrays(x, w, b, rm, rv, momentum, eps, axes, shape, n):
    if (x.ndim == 2 and n > 1 and x.shape[1] > 1 and x.dtype in _FLOATS and x.flags.c_contiguous
            and _arrays_ok(x, w, b, rm, rv)):
        fast = _compiled.family("batch_norm")
        if fast is not None:
            none = _EMPTY[x.dtype]
            return fast.train_forward(x, none if w is None else w, none if b is None else b,
                                      none if rm is None else rm, none if rv is None else rv, float(momentum),
                                      float(eps))
    return _train_ref(x, w, b, rm, rv, momentum, eps, axes, shape, n)


_train_backward_ref = paths.reference_kernel(batch_norm, "_train_backward_arrays")


def _compiled_backward(fast, gd, xc, invstd, wd, need) -> tuple:
    """(grad_input, grad_weight, grad_bias) by the compiled kernel, the parameters' gradients in arrays made here
    (numpy's own memory: kept as the leaves' ``.grad`` without a copy); one not asked for is empty."""
    c, dt = gd.shape[1], gd.dtype
    gw = np.empty(c, dt) if need[1] else _EMPTY[dt]
    gb = np.empty(c, dt) if need[2] else _EMPTY[dt]
    return fast.train_backward(gd, xc, invstd, wd, *need, gw, gb), gw, gb


@paths.kernel(batch_norm, "_train_backward_arrays", when="a C-contiguous (N, C) float32/float64 gradient and centred "
              "input, C at least 2, a weight of that dtype or none (numba installed)",
              why="speed: the centred-input formulas in one compiled loop (native_batch_norm_backward's steps)")
def train_backward_arrays(gd, xc, invstd, wd, n, shape, axes, need):
    if (gd.ndim == 2 and gd.shape[1] > 1 and gd.dtype in _FLOATS and gd.dtype == xc.dtype == invstd.dtype
            and gd.flags.c_contiguous and xc.flags.c_contiguous and (wd is None or wd.dtype == gd.dtype)):
        fast = _compiled.family("batch_norm")
        if fast is not None:
            grads = _compiled_backward(fast, gd, xc, invstd, _EMPTY[gd.dtype] if wd is None else wd.reshape(-1), need)
            return tuple(t if wanted else None for t, wanted in zip(grads, need))
    return _train_backward_ref(gd, xc, invstd, wd, n, shape, axes, need)


@paths.backward(NativeBatchNormBackward0, when="no graph of the gradient wanted; training on a C-contiguous (N, C) "
                "float32/float64 input, C at least 2 (numba installed)",
                why="speed: the centred-input formulas (_centred_grads) in one compiled loop")
def batch_norm_backward(self, g):
    gd, xc = g._data, self.xc
    if (not _State.enabled and xc is not None and gd.ndim == 2 and gd.shape[1] > 1 and gd.dtype == xc.dtype
            and gd.dtype == self.invstd.dtype and gd.dtype in _FLOATS and gd.flags.c_contiguous
            and xc.flags.c_contiguous):
        saved = self._arrays_of_saved()  # None when saved through pack hooks: their unpack runs in the formula
        fast = _compiled.family("batch_norm") if saved is not None else None
        if fast is not None and (saved[1] is None or saved[1].dtype == gd.dtype):
            need = tuple(e[0] is not None for e in self.next_functions)
            wd = _EMPTY[gd.dtype] if saved[1] is None else saved[1].reshape(-1)
            grads = _compiled_backward(fast, gd, xc, self.invstd, wd, need)
            return tuple(_make(t) if wanted else None for t, wanted in zip(grads, need))
    return NativeBatchNormBackward0.formula(self, g)
