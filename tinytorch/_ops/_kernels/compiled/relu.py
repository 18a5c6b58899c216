"""Relu's backward (``threshold_backward``) on large float32/float64 arrays: ``y <= 0 ? +0.0 : g`` in one pass,
where the numpy path (``tinytorch/_cpu/relu.py``) makes four (a comparison, a widening, a subtraction and a
bitwise and, to select without numpy's slow ``where``). A select, so the same floats: +0.0 where masked
(an inf or NaN gradient included), the gradient's own bits elsewhere, a NaN ``y`` passing its gradient."""
from __future__ import annotations

from numba import float32, float64, types

from ._common import jit, readonly


def _select_sig(t):
    return types.void(readonly(t, 1), readonly(t, 1), t[::1])


@jit([_select_sig(float32), _select_sig(float64)])
def threshold_backward(g, y, out):
    """out = +0.0 where y <= 0, else g, on flat runs of equal length."""
    for k in range(g.size):
        out[k] = 0.0 if y[k] <= 0.0 else g[k]
