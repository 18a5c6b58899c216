"""``y += alpha * x`` for many array pairs at once (an optimizer's parameters and gradients), with
``_ops._kernels.muladd``'s checked OpenBLAS axpy: the same floats as ``muladd_into(y, y, x, alpha)`` pair by
pair (PyTorch's fused ``add_(x, alpha=)``), in as few BLAS calls as possible."""
from __future__ import annotations

import numpy as np

from .._ops._kernels import muladd as _m

__all__ = ["add_scaled_many"]

_GATHER_BELOW = 16384  # arrays of fewer elements go whole through the gathered call


def add_scaled_many(ys: list, xs: list, alpha: float, scratch: dict) -> list:
    """``y += alpha * x`` in place for each pair, as ``muladd_into(y, y, x, alpha)`` gives it: a large
    array's whole blocks by one BLAS call each, and every small array and every large one's sub-block
    tail together, gathered into one padded buffer for one BLAS call and scattered back (an optimizer's
    many small parameters then cost a copy each, not a BLAS call and three copies). Returns the indices
    of the pairs it left alone (not both contiguous float32/float64 of one shape and dtype, or no
    checked BLAS): the caller updates those its own way. ``ys`` must be distinct arrays, none sharing
    memory with an ``x``."""
    axpy = _m._axpy if _m._axpy is not None else _m._checked_axpy()
    if not (alpha != 0 and -_m._INF < alpha < _m._INF):
        return list(range(len(ys)))
    left, gathered = [], {}
    unit, gather_below, blas_body = _m._BLAS_UNIT, _GATHER_BELOW, _m._blas_body
    for i, (y, x) in enumerate(zip(ys, xs)):
        dt = y.dtype
        fn = axpy.get(dt)
        fy = y.flags  # (each ``.flags`` read makes an object: read once)
        if (fn is None or x.dtype != dt or x.shape != y.shape or not fy.c_contiguous or not fy.writeable
                or not x.flags.c_contiguous):
            left.append(i)
            continue
        n = y.size
        if n < gather_below:  # whole into the gathered call (numpy flattens them there: no view made here)
            pairs = gathered.get(dt)
            if pairs is None:
                pairs = gathered[dt] = ([], [])
            pairs[0].append(y)
            pairs[1].append(x)
            continue
        m = n - n % unit
        blas_body(y, x, alpha, fn)
        if m < n:
            pairs = gathered.get(dt)
            if pairs is None:
                pairs = gathered[dt] = ([], [])
            pairs[0].append(y.reshape(-1)[m:])
            pairs[1].append(x.reshape(-1)[m:])
    for dt, (tys, txs) in gathered.items():
        total = sum([y.size for y in tys])
        size = total + (-total) % unit
        key = ("muladd-gather", dt)
        bufs = scratch.get(key)
        if bufs is None or bufs[0].size < size:
            bufs = scratch[key] = (np.zeros(size, dt), np.zeros(size, dt))
        py, px = bufs[0][:size], bufs[1][:size]
        np.concatenate(tys, axis=None, out=py[:total])
        np.concatenate(txs, axis=None, out=px[:total])
        # past ``total``: earlier steps' values, updated by this call and never read back
        blas_body(py, px, alpha, axpy[dt])
        at = 0
        for y in tys:
            k = y.size
            np.copyto(y.reshape(k) if y.ndim != 1 else y, py[at:at + k])
            at += k
    return left
