"""``g * v`` on arrays as mul's own fast forward (``_core/binary.py``) computes it: mul's gradient when no
graph of it is wanted (``MulBackward0``: the formula ``g * other`` straight on the gradient's array and
the saved one's, or a Python number), without the forward's dispatch. The same floats as the formula run
on tensors (``tests/ops/_kernels/test_kernels_formulas.py`` holds it so): a 0-d float32/float64 product in
Python floats where float32 keeps it (``_quiet_fp.F32_MAX``), large arrays cut across threads."""
from __future__ import annotations

import numpy as np

from ..._meta_array import MetaArray
from ..._quiet_fp import ARRAY_OUT, F32 as _F32, F32_MAX as _F32_MAX, F64 as _F64
from .._core.tensor_iterator import elementwise_empty, elementwise_layout
from . import parallel

__all__ = ["times"]

_multiply = np.multiply


def times(gd: np.ndarray, v):
    """``gd * v`` as an array when the Tensor product would compute exactly that (``v`` an array of
    ``gd``'s shape and dtype, or a Python number with a floating ``gd``), else None."""
    if type(v) is np.ndarray:
        if v.dtype != gd.dtype or v.shape != gd.shape:
            return None
        if not gd.ndim:
            dt = gd.dtype
            if dt is _F32 or dt is _F64:  # Python floats (see _quiet_fp.F32_MAX)
                r = float(gd) * float(v)
                if dt is _F64 or -_F32_MAX <= r <= _F32_MAX:
                    out = gd.copy()
                    out[()] = r
                    return out
    elif not ((type(v) is float or type(v) is int) and gd.dtype.kind == "f"):
        return None
    if not gd.ndim:
        out = _multiply(gd, v, out=ARRAY_OUT, dtype=gd.dtype)
    elif gd.size < parallel.SPLIT_FROM:
        out = elementwise_layout(gd * v, gd, v)
    else:  # written into PyTorch's order (a meta gd: a meta out)
        out = parallel.elementwise(_multiply, elementwise_empty(gd, gd, v), gd, v)
    return out if type(out) is np.ndarray or type(out) is MetaArray else np.asarray(out)
