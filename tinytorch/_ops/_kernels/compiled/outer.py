"""The outer product ``u v^T`` of two vectors (a matmul whose inner dimension is 1: the weight gradient of a batch
of one) in one pass that writes each product once. The numpy path (``_cpu/blas_outer.py``) fills the result
with -0.0 and adds the products with the BLAS's rank-1 update, two passes over a result of megabytes; numpy's
broadcast multiply is one pass but runs its inner loop per row without SIMD. Each element is the one rounded
product ``u[i] * v[j]``, as in both (signed zeros, infinities and NaNs as the multiply gives them)."""
from __future__ import annotations

from numba import float32, float64, types

from ._common import fma, jit, readonly


def _sig(t):
    return types.void(readonly(t, 1), readonly(t, 1), t[:, ::1])


@jit([_sig(float32), _sig(float64)])
def outer_into(u, v, out):
    """out[i, j] = u[i] * v[j] for a C-contiguous (len(u), len(v)) ``out``."""
    n = v.size
    for i in range(u.size):
        ui = u[i]
        row = out[i]
        for j in range(n):
            row[j] = ui * v[j]


def _fma_sig(t):
    return types.void(readonly(t, 1), readonly(t, 1), t, t[:, ::1])


@jit([_fma_sig(float32), _fma_sig(float64)])
def outer_fma_into(u, v, alpha, w):
    """w[i, j] = fma(alpha, u[i] * v[j], w[i, j]): the outer product's element, rounded once as ``outer_into``
    writes it, then added to ``w`` scaled by ``alpha`` with one rounding, as PyTorch's fused
    ``w.add_(grad, alpha=alpha)`` adds it (an SGD step), without the product ever stored."""
    n = v.size
    for i in range(u.size):
        ui = u[i]
        row = w[i]
        for j in range(n):
            row[j] = fma(alpha, ui * v[j], row[j])
