"""linalg.solve_triangular, the primitive of the triangular solves: substitution on the named triangle, in
float64, the result column-major as LAPACK's trtrs gives it to PyTorch; its backward is two more triangular solves,
so double backward works. Apart from ``triangular.py`` so that the factorizations' backwards (Cholesky's, QR's in
``decompositions.py``) end in it as PyTorch's do."""
from __future__ import annotations

import numpy as np

from ..._dtype import INEXACT_NP
from ..._meta_array import MetaArray
from ...autograd.node import Node, sum_to
from ...tensor import Tensor
from .._core.record import OUT, legacy_name, record
from .._core.registry import op
from .._core.util import lapack_order
from .solve import _mH


def _triangle(a: np.ndarray, upper: bool, unit: bool) -> np.ndarray:
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        n = a.shape[-1]
        t = t.copy()
        t[..., np.arange(n), np.arange(n)] = 1
    return t


class LinalgSolveTriangularBackward0(Node):
    saved_fields = (("self", 0), ("upper", "upper"), ("left", "left"), ("unitriangular", "unit"), ("result", 1))

    def backward(self, g):
        A, X = self._unpacked_saved
        up, unit = self.upper, self.unit
        gA = gB = None
        if self.left:   # X = A^-1 B
            gB = solve_triangular(_mH(A), g, upper=not up, left=True, unitriangular=unit)
            if self.need_a:
                gA = -gB.matmul(_mH(X))
        else:           # X = B A^-1
            gB = solve_triangular(_mH(A), g, upper=not up, left=False, unitriangular=unit)
            if self.need_a:
                gA = -_mH(X).matmul(gB)
        if gA is not None:
            gA = gA.triu(1 if unit else 0) if up else gA.tril(-1 if unit else 0)
            gA = sum_to(gA, A._data.shape)
        return gA, (sum_to(gB, self.b_shape) if self.need_b else None)


@op("linalg.solve_triangular", variants="function out")
def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """X with A X = B (or X A = B when ``left=False``) for triangular A; only A's ``upper`` or lower
    triangle is read (and not its diagonal when ``unitriangular``)."""
    a, b = A._data, B._data
    if a.ndim < 2 or b.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor " + ("A" if a.ndim < 2 else "B")
                           + " must have at least 2 dimensions.")
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type "
                           f"{legacy_name(a.dtype)} and B of type {legacy_name(b.dtype)} instead")
    if a.dtype not in INEXACT_NP:
        raise RuntimeError(f"\"triangular_solve_cpu\" not implemented for '{legacy_name(a.dtype)}'")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    inner = b.shape[-2] if left else b.shape[-1]
    if inner != a.shape[-1]:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({a.shape[-2]}x{a.shape[-1]} and "
                           f"{b.shape[-2]}x{b.shape[-1]})")
    t = _triangle(a, upper, unitriangular)
    with np.errstate(all="ignore"):
        if left:
            x = _tri_solve(t, b, upper)
        else:
            x = np.swapaxes(_tri_solve(np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2), not upper), -1, -2)
    x = x.astype(a.dtype, order="C")
    # column-major, as LAPACK writes it; but PyTorch solves the transposed equation, into a C-ordered result, where
    # A is a conjugate view of a transposed C-contiguous matrix (A^H of one: it then needs no copy of A)
    if not (A.is_conj() and A.transpose(-2, -1).is_contiguous()):
        x = lapack_order(x)
    return record(x, LinalgSolveTriangularBackward0, (A, B), (A, OUT),
                  upper=upper, left=left, unit=unitriangular, need_a=A._requires_grad, need_b=B._requires_grad,
                  b_shape=b.shape)


def _tri_solve(t: np.ndarray, b: np.ndarray, upper: bool) -> np.ndarray:
    """Back or forward substitution, batched (a zero on the diagonal gives inf/nan, as LAPACK's trtrs)."""
    shape = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    wide = np.complex128 if t.dtype.kind == "c" else np.float64
    t = np.broadcast_to(t, shape + t.shape[-2:]).astype(wide)
    b = np.broadcast_to(b, shape + b.shape[-2:]).astype(wide)
    n = t.shape[-1]
    x = np.zeros_like(b)
    if type(t) is MetaArray or type(b) is MetaArray:  # meta matrices: one step per row, none changes a shape
        return x if type(x) is MetaArray else MetaArray(x.shape, x.dtype)
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        rest = t[..., i:i + 1, :] @ x        # the solved rows (the others are still zero)
        x[..., i, :] = (b[..., i, :] - rest[..., 0, :]) / t[..., i, i:i + 1]
    return x
