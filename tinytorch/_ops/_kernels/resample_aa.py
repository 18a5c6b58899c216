"""Antialiased resampling along one axis with PyTorch's CPU floats (``UpSampleKernel.cpp``'s
``interpolate_aa_single_dim``, as PyTorch's FMA builds compile it).

The formula (``_ops/nn/resize.py``) is a weighted sum per output position: a window of ``xsize`` inputs
starting at ``xmin`` times the filter's normalised weights, which ``interpolate`` applies as one dense
matrix product per axis. PyTorch's kernel walks each window in order instead, starting from
``x[xmin] * w[0]`` and adding one ``x[xmin + j] * w[j]`` at a time. Its AVX2 and AVX-512 builds compile
that loop into a vector part and a scalar tail: the steps in whole 16-byte vectors (4 float32 or 2 float64
steps) multiply first and then add in order, two roundings per step; the remaining steps are fused
multiply-adds, one rounding each. A matrix product sums the same terms in BLAS's order, so a value landing
within an ulp of a rounding boundary (uint8 images resized in float and rounded back) can round the other
way. This kernel reproduces the window walk, vectorized over all output positions at once: one step per
window slot. (PyTorch's DEFAULT build has no FMA: every step is a product and a sum there.)"""
from __future__ import annotations

import numpy as np

from ..._quiet_fp import silent
from ..._random.fpmath import fma32, fma64
from . import compiled

_LANES = {np.dtype(np.float32): 4, np.dtype(np.float64): 2}  # steps per 16-byte vector
_COMPILED_FROM = 4096  # elements of input from which the compiled walk (numba, when there) pays for its call


@silent
def resample_aa(x: np.ndarray, axis: int, xmin: np.ndarray, w: np.ndarray, xsize: np.ndarray) -> np.ndarray:
    """``x`` resampled along ``axis``: output ``o`` is ``sum_j x[xmin[o] + j] * w[o, j]`` for ``j < xsize[o]``,
    summed in the window's order, rounded step by step as PyTorch's FMA builds do (``w``: (n_out, width)
    in ``x``'s dtype)."""
    lanes = _LANES[x.dtype]
    fast = compiled.family("resample") if x.size >= _COMPILED_FROM else None
    if fast is not None:  # x as (outer, n_in, inner): no copy of a contiguous x
        axis %= x.ndim
        outer = int(np.prod(x.shape[:axis], dtype=np.int64))
        x3 = np.ascontiguousarray(x).reshape(outer, x.shape[axis], -1)
        out = np.empty((outer, len(xmin), x3.shape[2]), dtype=x.dtype)
        fast.walk(x3, xmin.astype(np.int64, copy=False), np.ascontiguousarray(w, dtype=x.dtype),
                  xsize.astype(np.int64, copy=False), lanes, out)
        return out.reshape(x.shape[:axis] + (len(xmin),) + x.shape[axis + 1:])
    fma = fma32 if x.dtype == np.float32 else fma64
    vector_steps = (xsize - 1) // lanes * lanes  # steps 1..vector_steps run in the vector part
    xs = np.ascontiguousarray(np.moveaxis(x, axis, 0))  # the resampled axis first: each tap is a block of rows
    wb = w.reshape(w.shape + (1,) * (xs.ndim - 1))
    acc = xs[xmin] * wb[:, 0]
    for j in range(1, w.shape[1]):
        for rows, fused in ((np.flatnonzero((j < xsize) & (j <= vector_steps)), False),
                            (np.flatnonzero((j < xsize) & (j > vector_steps)), True)):
            if rows.size == 0:
                continue
            whole = rows.size == len(xmin)
            term, a, wj = xs[xmin[rows] + j], (acc if whole else acc[rows]), wb[rows, j]
            step = fma(term, wj, a) if fused else a + term * wj
            if whole:
                acc = step
            else:
                acc[rows] = step
    return np.ascontiguousarray(np.moveaxis(acc.astype(x.dtype, copy=False), 0, axis))
