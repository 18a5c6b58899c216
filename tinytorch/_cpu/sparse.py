"""The sparse kernels' multiply-adds as PyTorch's CPU build does them: the sparse-dense product's axpy per stored
element and a COO sum's ``a + alpha * b`` on the matched values, in float32 and float64, each ``a * b + c`` in one
rounding (its FMA builds, AVX2 and AVX512). Registered onto ``_ops/sparse/arrays.py``'s ``_fma``, which rounds
twice in the reference."""
from __future__ import annotations

import numpy as np

from .._ops._core import paths
from .._ops.sparse import arrays
from .._random.fpmath import fma32, fma64

_reference = paths.reference_kernel(arrays, "_fma")


@paths.kernel(arrays, "_fma", ulps=None, when="float32 and float64 values",
              why="PyTorch's bits on its FMA builds (AVX2, AVX512): one rounding")
def fma(a, b, c, dtype):
    if dtype == np.float32:
        return fma32(a, b, c)
    if dtype == np.float64:
        return fma64(a, b, c)
    return _reference(a, b, c, dtype)
