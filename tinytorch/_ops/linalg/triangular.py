"""Triangular and Cholesky solves and the ``_ex`` variants: ``linalg.solve_triangular``,
``triangular_solve``, ``cholesky_solve``, ``cholesky_inverse``, ``linalg.solve_ex``,
``linalg.cholesky_ex``, ``linalg.lstsq``.

solve_triangular is the primitive (substitution on the named triangle, in float64; its backward is
two more triangular solves, so double backward works). cholesky_solve/cholesky_inverse are solve/inv
of the factor's Gram matrix L L^T, whose gradients are PyTorch's for the factor (full, not masked to
the triangle); the rest compose the matrix functions of ``solve.py``."""
from __future__ import annotations

import numpy as np

from ..._dtype import FLOATING_NP, INEXACT_NP
from ...autograd.node import Node
from ...autograd.grad_mode import _State
from ...tensor import Tensor, _make
from .._core.record import OUT, legacy_name, record
from .._core.registry import op
from .._core.util import edge
from ...autograd.node import sum_to
from .solve import _mH, _mT, _named, batch_matrices, pinv, pinv_backward, solve
from .decompositions import cholesky
from .solve import _eps_times, inv
from .decompositions import _failing_minor

triangular_solve_result = _named("triangular_solve", ("solution", "cloned_coefficient"))
inv_ex_result = _named("linalg_inv_ex", ("inverse", "info"))
solve_ex_result = _named("linalg_solve_ex", ("result", "info"))
cholesky_ex_result = _named("linalg_cholesky_ex", ("L", "info"))
lstsq_result = _named("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


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
        A, X = self.saved_tensors
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
    return record(np.ascontiguousarray(x).astype(a.dtype), LinalgSolveTriangularBackward0, (A, B), (A, OUT),
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
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        rest = t[..., i:i + 1, :] @ x        # the solved rows (the others are still zero)
        x[..., i, :] = (b[..., i, :] - rest[..., 0, :]) / t[..., i, i:i + 1]
    return x


@op(variants="function method out", autocast="fp32")
def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False):
    """(X, A.clone()) with op(A) X = input, op(A) = A or A^T (the deprecated form of solve_triangular)."""
    coef = _mT(A) if transpose else A
    x = solve_triangular(coef, input, upper=upper != transpose, unitriangular=unitriangular)
    return triangular_solve_result(x, A.clone())


def _gram(factor: Tensor, upper: bool) -> Tensor:
    """L L^T (U^T U when ``upper``) of the whole factor: PyTorch's gradients for the factor are
    those of this product (full matrices, not masked to the triangle)."""
    return _mH(factor).matmul(factor) if upper else factor.matmul(_mH(factor))


@op(variants="function method out", autocast="fp32")
def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """X with (L L^T) X = input for the Cholesky factor L = input2 (U^T U when ``upper``)."""
    return solve(_gram(input2, upper), input)


@op(variants="function method out", autocast="fp32")
def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    """(L L^T)^-1 from the Cholesky factor L (U^T U when ``upper``)."""
    return inv(_gram(input, upper))


def _int32_zeros(shape) -> Tensor:
    return _make(np.zeros(shape, dtype=np.int32))


@op("linalg.solve_ex", variants="function out")
def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False):
    """(X, info): info 0 where the solve succeeded (a singular matrix raises here)."""
    return solve_ex_result(solve(A, B, left=left), _int32_zeros(A._data.shape[:-2]))


@op("linalg.inv_ex", variants="function out", batch=batch_matrices, autocast="fp32")
def inv_ex(A: Tensor, *, check_errors: bool = False):
    """(inverse, info): info 0, or (for a singular matrix) the 1-based index of LU's first zero pivot,
    with a nan inverse there (``check_errors`` raises linalg.inv's error instead)."""
    a = A._data
    if a.ndim >= 2 and a.shape[-1] == a.shape[-2] and a.dtype in FLOATING_NP:
        from .lu import _getrf  # linalg_lu imports this module's solve_triangular
        info = _getrf(a)[2]
        if info.any():
            if check_errors:
                inv(A)
            return inv_ex_result(_make(np.full(a.shape, np.nan, dtype=a.dtype)), _make(info))
    return inv_ex_result(inv(A), _int32_zeros(a.shape[:-2]))


@op("linalg.cholesky_ex", variants="function out", autocast="fp32")
def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False):
    """(L, info): info is 0, or the order of the first leading minor that is not positive-definite
    (then L is nan there unless ``check_errors``, which raises)."""
    a = A._data
    batch = a.shape[:-2]
    count = int(np.prod(batch, dtype=np.int64))
    flat = a.reshape((count,) + a.shape[-2:])
    info = np.zeros(count, dtype=np.int32)
    for i in range(len(info)):
        try:
            np.linalg.cholesky(flat[i])
        except np.linalg.LinAlgError:
            info[i] = _failing_minor(flat[i][None])
    info = info.reshape(batch)
    if not info.any():
        return cholesky_ex_result(cholesky(A, upper=upper), _make(info))
    if check_errors:
        cholesky(A, upper=upper)    # raises linalg.cholesky's error
    return cholesky_ex_result(_make(np.full(a.shape, np.nan, dtype=a.dtype)), _make(info))


class LinalgLstsqBackward0(Node):
    """PyTorch's linalg_lstsq_backward: the solution's gradient through pinv(A) B (pinv recomputed with
    its default tolerance, as PyTorch), the residuals' directly (at the least-squares optimum the path
    through the solution contributes nothing: PyTorch leaves it out, and so does this)."""
    saved_fields = (("self", 0), ("b", 1), ("solution", 2))

    def backward(self, gX, gL=None):
        A, B, X = self.saved_tensors
        if self.vector:
            B, X = B.unsqueeze(-1), X.unsqueeze(-1)
            gX = None if gX is None else gX.unsqueeze(-1)
        gA = gB = None
        if gX is not None:
            P = pinv(A)
            gA = pinv_backward(gX.matmul(_mH(B)), P, A)
            gB = _mH(P).matmul(gX)
        if gL is not None and gL._data.size:
            r = A.matmul(X) - B
            rg = r * gL.unsqueeze(-2)
            gA_L, gB_L = 2 * rg.matmul(_mH(X)), -2 * rg
            gA = gA_L if gA is None else gA + gA_L
            gB = gB_L if gB is None else gB + gB_L
        if gB is not None and self.vector:
            gB = gB.squeeze(-1)
        return gA, gB


@op("linalg.lstsq", variants="function out", autocast="fp32")
def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None):
    """The least-squares solution of A X = B (via the pseudo-inverse), with the residuals (m > n and
    full rank, as PyTorch), the rank (drivers gelsy/gelsd/gelss) and the singular values
    (gelsd/gelss); solution and residuals differentiate as PyTorch's ``LinalgLstsqBackward0``."""
    drivers = ("gels", "gelsy", "gelsd", "gelss")
    if driver is not None and driver not in drivers:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    a, b = A._data, B._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A.dtype} and other's dtype {B.dtype}")
    vector = b.ndim == a.ndim - 1
    bm = b[..., None] if vector else b
    m, n = a.shape[-2:]
    s = np.linalg.svd(a, compute_uv=False)
    eps = _eps_times(a.dtype, max(m, n))
    tol = (eps if rcond is None else rcond) * s[..., :1]
    rank = (s > tol).sum(-1).astype(np.int64)
    p = pinv(A.detach(), rtol=(eps if rcond is None else rcond))._data
    x = np.matmul(p, bm)
    real = a.real.dtype
    if m > n and driver != "gelsy" and bool(np.all(rank == n)):
        r = np.matmul(a, x) - bm
        residuals = (np.abs(r) ** 2).sum(-2).astype(real)
    else:   # empty, but an output of the graph as PyTorch's (its gradient is nothing)
        residuals = np.zeros((0,), dtype=real)
    if vector:
        x = x[..., 0]
    x = x.astype(a.dtype)
    rank_t = _make(rank) if driver != "gels" else _make(np.zeros((0,), dtype=np.int64))
    sv = _make(s.astype(real)) if driver in ("gelsd", "gelss") else _make(np.zeros((0,), dtype=real))
    if _State.enabled and (A._requires_grad or B._requires_grad):
        node = LinalgLstsqBackward0((edge(A), edge(B)))
        node._n_outputs = 2
        node.vector = vector
        Xt, Lt = _make(x, node), _make(residuals, node)
        Lt._output_nr = 1
        node.save_for_backward(A, B, Xt)
        return lstsq_result(Xt, Lt, rank_t, sv)
    return lstsq_result(_make(x), _make(residuals), rank_t, sv)
