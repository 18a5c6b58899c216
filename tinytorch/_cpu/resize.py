"""Antialiased resizing as PyTorch's CPU kernels round it (``UpSampleKernel.cpp``, its FMA builds): the cubic
filter's multiply-adds in one rounding each, and the forward's window walk with its vector part and fused tail
(``_ops/_kernels/resample_aa.py``, compiled where numba is installed), where the reference rounds each step twice.
Registered onto ``_ops/nn/resize.py``'s steps."""
from __future__ import annotations

import numpy as np

from .._ops._core import paths
from .._ops._kernels.resample_aa import resample_aa
from .._ops.nn import resize
from .._random.fpmath import fma32, fma64

_reference_fma = paths.reference_kernel(resize, "_fma")
_FMA_BUILDS = "PyTorch's bits on its FMA builds (AVX2, AVX512)"


# (each weight an ulp or so apart, normalised: the weighted sums within a few ulps of the largest input)
@paths.kernel(resize, "_fma", ulps=8, scale="program",
              when="the antialiased bicubic filter on float32 and float64 positions",
              why=f"{_FMA_BUILDS}: one rounding")
def fma(a, b, c):
    if b.dtype == np.float32:
        return fma32(a, b, c)
    if b.dtype == np.float64:
        return fma64(a, b, c)
    return _reference_fma(a, b, c)


def _walk(windows):
    def forward(data):
        for axis, (xmin, w, xsize) in windows[::-1]:
            data = resample_aa(data, axis, xmin, w, xsize)
        return np.ascontiguousarray(data) if windows else data.copy()  # never the input's own array
    return forward


# (the same window order, rounded otherwise: within a few ulps of the largest input)
paths.kernel(resize, "_antialias_kernel", ulps=4, scale="program", when="antialiased float32 and float64 resizes",
             why=f"{_FMA_BUILDS}: the window walk's vector part and fused tail")(_walk)
