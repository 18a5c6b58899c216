"""Matrix functions: inv, det, slogdet, solve, cholesky, qr, svd, svdvals, eigh, eigvalsh, pinv.

Forwards are numpy.linalg (LAPACK); each backward is the matrix-calculus formula written in
tinytorch ops (matmul, transpose, triangles), so second derivatives work too."""
from __future__ import annotations

import numpy as np

from ..autograd.node import Node
from ..tensor import Tensor, _make
from ._record import OUT, legacy_name, record


class LinAlgError(RuntimeError):
    """A matrix function failed on its input (singular, not positive-definite, ...)."""


LinAlgError.__module__ = "tinytorch.linalg"
LinAlgError.__name__ = LinAlgError.__qualname__ = "LinAlgError"


def _named(name: str, fields: tuple):
    def rep(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"tinytorch.return_types.{name}(\n{body})"
    ns = {"__new__": lambda cls, *v: tuple.__new__(cls, v), "__repr__": rep}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: self[i])
    return type(name, (tuple,), ns)


qr_result = _named("linalg_qr", ("Q", "R"))
svd_result = _named("linalg_svd", ("U", "S", "Vh"))
eigh_result = _named("linalg_eigh", ("eigenvalues", "eigenvectors"))
slogdet_result = _named("linalg_slogdet", ("sign", "logabsdet"))


def _square(A: Tensor, fn: str, square: bool = True) -> np.ndarray:
    a = A._data
    if a.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if a.dtype.kind != "f":
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got {legacy_name(a.dtype)}")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")
    return a


def _mT(t: Tensor) -> Tensor:
    return t.transpose(-2, -1)


def _eye_like(n: int, t: Tensor) -> Tensor:
    return _make(np.eye(n, dtype=t._data.dtype))


# -- inverse, determinant, solve -------------------------------------------------------------------
class LinalgInvExBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        yt = _mT(y)
        return (-(yt.matmul(g).matmul(yt)),)


def inv(A: Tensor, *, out=None) -> Tensor:
    """The inverse of square matrices (batched)."""
    a = _square(A, "linalg.inv")
    try:
        r = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.inv: The diagonal element 1 is zero, the inversion could not be completed "
                          "because the input matrix is singular.") from None
    return record(r.astype(a.dtype), LinalgInvExBackward0, (A,), (OUT,))


class LinalgDetBackward0(Node):
    def backward(self, g):
        A, d = self.saved_tensors
        a = A._data
        if np.all(np.linalg.matrix_rank(a) == a.shape[-1]) if a.size else True:
            return ((g * d).unsqueeze(-1).unsqueeze(-1) * _mT(inv(A)),)
        # a singular matrix has no inverse but still an adjugate: adj(A)^T = det(U) det(Vh) U diag(prod_{j!=i} s_j) Vh
        from .scan import _others_product
        U, S, Vh = svd(A, full_matrices=False)
        sign = _make(np.asarray(np.linalg.det(U._data) * np.linalg.det(Vh._data), dtype=a.dtype))
        adj_t = (U * _others_product(S, -1).unsqueeze(-2)).matmul(Vh) * sign.unsqueeze(-1).unsqueeze(-1)
        return (g.unsqueeze(-1).unsqueeze(-1) * adj_t,)


def det(A: Tensor, *, out=None) -> Tensor:
    """Determinants of square matrices (batched); the gradient is the adjugate, singular matrices included."""
    a = _square(A, "linalg.det")
    return record(np.asarray(np.linalg.det(a), dtype=a.dtype), LinalgDetBackward0, (A,), (A, OUT))


class LinalgSlogdetBackward0(Node):
    def backward(self, g_sign, g_logabs=None):
        (A,) = self.saved_tensors
        if g_logabs is None:
            return (A * 0,)
        return (g_logabs.unsqueeze(-1).unsqueeze(-1) * _mT(inv(A)),)


def slogdet(A: Tensor, *, out=None):
    """(sign, log|det|) of square matrices."""
    a = _square(A, "linalg.slogdet")
    s, l = np.linalg.slogdet(a)
    s, l = np.asarray(s, dtype=a.dtype), np.asarray(l, dtype=a.dtype)
    from ._record import _State, edge
    if _State.enabled and A._requires_grad:
        node = LinalgSlogdetBackward0((edge(A),))
        node._n_outputs = 2
        st, lt = _make(s, node), _make(l, node)
        lt._output_nr = 1
        node.save_for_backward(A)
        return slogdet_result(st, lt)
    return slogdet_result(_make(s), _make(l))


def logdet(input: Tensor) -> Tensor:
    """log(det(A)): NaN for a negative determinant."""
    from .arith import where
    s, l = slogdet(input)
    return where(s < 0, float("nan"), l)


class LinalgSolveExBackward0(Node):
    def backward(self, g):
        A, X = self.saved_tensors
        if self.vector:
            g, X = g.unsqueeze(-1), X.unsqueeze(-1)
        gB = solve(_mT(A), g)
        gA = -gB.matmul(_mT(X)) if self.need_a else None
        if gA is not None and gA._data.shape != A._data.shape:
            from ._util import sum_to
            gA = sum_to(gA, A._data.shape)
        if self.vector:
            gB = gB.squeeze(-1)
        return gA, (gB if self.need_b else None)


def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    """X with A X = B (B a matrix or a batch of vectors)."""
    if not left:
        return _mT(solve(_mT(A), _mT(B)))
    a = _square(A, "linalg.solve")
    b = B._data
    if b.dtype != a.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{legacy_name(a.dtype)} and B of type {legacy_name(b.dtype)} instead")
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    bb = b[..., None] if vector else b
    try:
        r = np.linalg.solve(a, bb)
    except np.linalg.LinAlgError:
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.") from None
    if vector:
        r = r[..., 0]
    return record(r.astype(a.dtype), LinalgSolveExBackward0, (A, B), (A, OUT), vector=vector,
                  need_a=A._requires_grad, need_b=B._requires_grad)


# -- factorizations ----------------------------------------------------------------------------------
def _phi(x: Tensor) -> Tensor:
    """The lower triangle with the diagonal halved."""
    return x.tril() - 0.5 * x.tril() * _eye_like(x._data.shape[-1], x)


class LinalgCholeskyExBackward0(Node):
    def backward(self, g):
        (L,) = self.saved_tensors
        if self.upper:
            L, g = _mT(L), _mT(g)
        Linv = inv(L)
        s = _mT(Linv).matmul(_phi(_mT(L).matmul(g))).matmul(Linv)
        return (0.5 * (s + _mT(s)),)


def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """L with A = L L^T (lower), or U with A = U^T U."""
    a = _square(A, "linalg.cholesky")
    try:
        L = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        order = _failing_minor(a)
        raise LinAlgError(f"linalg.cholesky: The factorization could not be completed because the input is not "
                          f"positive-definite (the leading minor of order {order} is not positive-definite).") from None
    r = np.swapaxes(L, -1, -2).copy() if upper else L
    return record(r.astype(a.dtype), LinalgCholeskyExBackward0, (A,), (OUT,), upper=upper)


def _failing_minor(a: np.ndarray) -> int:
    m = a.reshape(-1, a.shape[-2], a.shape[-1])
    for mat in m:
        for k in range(1, mat.shape[0] + 1):
            try:
                np.linalg.cholesky(mat[:k, :k])
            except np.linalg.LinAlgError:
                return k
    return 1


class LinalgQrBackward0(Node):
    def backward(self, gQ, gR=None):
        Q, R = self.saved_tensors
        if self.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                               "through linalg.qr.")
        m, n = self.shape
        if self.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        gQ = Q * 0 if gQ is None else gQ
        gR = R * 0 if gR is None else gR
        if m >= n:
            return (_qr_tall_backward(Q, R, gQ, gR),)
        # a wide A = Q [R1 R2]: its first m columns X = Q R1 are a square QR; Y = Q R2 is linear in Q
        R1, R2 = R[..., :, :m], R[..., :, m:]
        gR1, gR2 = gR[..., :, :m], gR[..., :, m:]
        Y = Q.matmul(R2)
        from .join import cat
        gX = _qr_tall_backward(Q, R1, gQ + Y.matmul(_mT(gR2)), gR1)
        return (cat([gX, Q.matmul(gR2)], -1),)


def _qr_tall_backward(Q: Tensor, R: Tensor, gQ: Tensor, gR: Tensor) -> Tensor:
    """gA = (gQ + Q copyltu(M)) R^-T with M = R gR^T - gQ^T Q (m >= n, reduced)."""
    M = R.matmul(_mT(gR)) - _mT(gQ).matmul(Q)
    low = M.tril(-1)
    sym = low + _mT(low) + M * _eye_like(M._data.shape[-1], M)  # copyltu(M)
    rhs = gQ + Q.matmul(sym)
    return _mT(solve(R, _mT(rhs)))  # rhs R^-T: R is square and invertible here


def qr(A: Tensor, mode: str = "reduced", *, out=None):
    """Q (orthonormal columns) and R (upper triangular) with A = Q R."""
    a = _square(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           f"or 'complete'")
    q, r = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    q, r = q.astype(a.dtype), r.astype(a.dtype)
    if mode == "r":
        q = np.zeros((0,), a.dtype)
    from ._record import _State, edge
    if _State.enabled and A._requires_grad:
        node = LinalgQrBackward0((edge(A),))
        node._n_outputs = 2
        node.mode, node.shape = mode, a.shape[-2:]
        qt, rt = _make(q, node), _make(r, node)
        rt._output_nr = 1
        node.save_for_backward(qt, rt)
        return qr_result(qt, rt)
    return qr_result(_make(q), _make(r))


class LinalgSvdBackward0(Node):
    def backward(self, gU, gS=None, gVh=None):
        U, S, Vh = self.saved_tensors
        k = S._data.shape[-1]
        if self.full:  # as PyTorch: the columns beyond k are an arbitrary basis, their gradient is ignored
            U, Vh = U[..., :, :k], Vh[..., :k, :]
            gU = None if gU is None else gU[..., :, :k]
            gVh = None if gVh is None else gVh[..., :k, :]
        gA = None
        if gS is not None:
            gA = (U * gS.unsqueeze(-2)).matmul(Vh)
        if gU is None and gVh is None:
            return (gA if gA is not None else U.matmul(Vh) * 0,)
        V = _mT(Vh)
        eye = _eye_like(k, S)
        S2 = S * S
        E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye  # E_ij = S_j^2 - S_i^2, 1 on the diagonal
        inner = None
        if gU is not None:
            UgU = _mT(U).matmul(gU)
            skew = UgU - _mT(UgU)
            inner = skew * S.unsqueeze(-2) / E * (1 - eye)
        if gVh is not None:
            gV = _mT(gVh)
            VgV = _mT(V).matmul(gV)
            skew = VgV - _mT(VgV)
            part = S.unsqueeze(-1) * skew / E * (1 - eye)
            inner = part if inner is None else inner + part
        term = U.matmul(inner).matmul(Vh)
        m, n = self.shape
        if gU is not None and m > k:
            term = term + ((gU - U.matmul(_mT(U).matmul(gU))) / S.unsqueeze(-2)).matmul(Vh)
        if gVh is not None and n > k:
            gV = _mT(gVh)
            term = term + U.matmul(_mT((gV - V.matmul(_mT(V).matmul(gV))) / S.unsqueeze(-2)))
        return (term if gA is None else gA + term,)


def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None):
    """U, S, Vh with A = U diag(S) Vh (S descending)."""
    a = _square(A, "linalg.svd", square=False)
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    u, s, vh = u.astype(a.dtype), s.astype(a.dtype), vh.astype(a.dtype)
    from ._record import _State, edge
    if _State.enabled and A._requires_grad:
        node = LinalgSvdBackward0((edge(A),))
        node._n_outputs = 3
        node.full, node.shape = full_matrices, a.shape[-2:]
        outs = [_make(u, node), _make(s, node), _make(vh, node)]
        for i, t in enumerate(outs):
            t._output_nr = i
        node.save_for_backward(*outs)
        return svd_result(*outs)
    return svd_result(_make(u), _make(s), _make(vh))


def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    """The singular values, descending."""
    return svd(A, full_matrices=False)[1]


class LinalgEighBackward0(Node):
    def backward(self, gw, gV=None):
        w, V = self.saved_tensors
        n = w._data.shape[-1]
        eye = _eye_like(n, w)
        inner = None
        if gV is not None:
            VgV = _mT(V).matmul(gV)
            E = w.unsqueeze(-2) - w.unsqueeze(-1) + eye  # E_ij = w_j - w_i
            inner = 0.5 * (VgV - _mT(VgV)) / E * (1 - eye)
        if gw is not None:
            d = gw.unsqueeze(-2) * eye
            inner = d if inner is None else inner + d
        return (V.matmul(inner).matmul(_mT(V)),)


def eigh(A: Tensor, UPLO: str = "L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices (one triangle read)."""
    a = _square(A, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    w, v = w.astype(a.dtype), v.astype(a.dtype)
    from ._record import _State, edge
    if _State.enabled and A._requires_grad:
        node = LinalgEighBackward0((edge(A),))
        node._n_outputs = 2
        wt, vt = _make(w, node), _make(v, node)
        vt._output_nr = 1
        node.save_for_backward(wt, vt)
        return eigh_result(wt, vt)
    return eigh_result(_make(w), _make(v))


def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    """The eigenvalues (ascending) of symmetric matrices."""
    return eigh(A, UPLO)[0]


class LinalgPinvBackward0(Node):
    def backward(self, g):
        A, X = self.saved_tensors
        m, n = A._data.shape[-2:]
        Xt = _mT(X)
        gt = _mT(g)
        term = -Xt.matmul(g).matmul(Xt)
        term = term + (_eye_like(m, A) - A.matmul(X)).matmul(gt).matmul(X).matmul(Xt)
        term = term + Xt.matmul(X).matmul(gt).matmul(_eye_like(n, A) - X.matmul(A))
        return (term,)


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse (singular values below max(atol, rtol * largest) are dropped)."""
    a = _square(A, "linalg.pinv", square=False)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else max(a.shape[-2:]) * np.finfo(a.dtype).eps
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    smax = s.max(axis=-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), a.dtype)
    cut = np.maximum(atol or 0.0, rtol * smax)
    with np.errstate(divide="ignore"):
        sinv = np.where(s > cut, 1.0 / s, 0.0)
    r = np.swapaxes(vh, -1, -2) @ (sinv[..., :, None] * np.swapaxes(u, -1, -2))
    return record(r.astype(a.dtype), LinalgPinvBackward0, (A,), (A, OUT))
