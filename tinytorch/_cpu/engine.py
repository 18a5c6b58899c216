"""The backward engine's CPU path: two gradients of one shape and dtype arriving at one input, summed on their
arrays without the add op's dispatch. A micrograd step sums thousands of 0-d gradients this way. (The engine's
loop itself is one, in autograd/engine.py; its per-node costs are cut there.)"""
from __future__ import annotations

import numpy as np

from .._quiet_fp import ARRAY_OUT as _ARRAY_OUT, F32, F32_MAX, F64
from ..autograd import engine
from ..autograd.grad_mode import _State
from .._meta_array import MetaArray
from ..tensor import Tensor, _make
from .._ops._core import paths

_sum_ref = paths.reference_kernel(engine, "_sum_grads")


@paths.kernel(engine, "_sum_grads", when="no graph of the gradient wanted; two plain tensors of one shape and dtype",
              why="speed: the add op's sum without its dispatch; 0-d floats as Python floats, as add sums them")
def sum_grads(prev, g):
    pd, gd = prev._data, g._data
    dt = pd.dtype
    if (_State.enabled or pd.shape != gd.shape or dt != gd.dtype or type(prev) is not Tensor or type(g) is not Tensor
            or type(pd) is MetaArray):  # (meta: the layout rule of the sum is the reference's)
        return _sum_ref(prev, g)
    if not pd.ndim and (dt is F32 or dt is F64):
        r = float(pd) + float(gd)
        if dt is F64 or -F32_MAX <= r <= F32_MAX:  # _quiet_fp.zero_dim, inline
            out = pd.copy()
            out[()] = r
            return _make(out)
    out = np.add(pd, gd, out=_ARRAY_OUT)
    return _make(out if type(out) is np.ndarray else np.asarray(out))
