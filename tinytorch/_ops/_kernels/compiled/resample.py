"""The antialiased resize's window walk of ``_kernels/resample_aa.py`` in one compiled loop: per output
position, the window's terms in order, the vector part's steps a product then a sum and the tail's steps
one fused multiply-add (``llvm.fma``), as the numpy path emulates them; the same floats."""
from __future__ import annotations

from numba import float32, float64, int64, types

from ._common import fma, jit, readonly

_SIGS = []
for _f in (float32, float64):
    _SIGS.append(types.void(readonly(_f, 3), readonly(int64, 1), readonly(_f, 2), readonly(int64, 1), int64,
                            _f[:, :, ::1]))


@jit(_SIGS)
def walk(x, xmin, w, xsize, lanes, out):
    """``out[a, o, b] = sum_j x[a, xmin[o] + j, b] * w[o, j]`` for ``j < xsize[o]``: ``x`` (outer, n_in,
    inner), ``out`` (outer, n_out, inner), each window summed in order."""
    n_outer, n_out, n_inner = out.shape
    for a in range(n_outer):
        for o in range(n_out):
            lo = xmin[o]
            size = xsize[o]
            vector_steps = (size - 1) // lanes * lanes
            w0 = w[o, 0]
            for b in range(n_inner):
                acc = x[a, lo, b] * w0
                for j in range(1, size):
                    if j <= vector_steps:
                        acc = acc + x[a, lo + j, b] * w[o, j]
                    else:
                        acc = fma(x[a, lo + j, b], w[o, j], acc)
                out[a, o, b] = acc
