"""Functions of matrices in ``torch.linalg`` beyond products, factorizations and solves: the determinants
linalg.det (+ torch.det), linalg.slogdet (+ torch.slogdet) and torch.logdet, matrix_exp
(+ torch.matrix_exp), matrix_power (+ torch.matrix_power), multi_dot (+ torch.chain_matmul),
matrix_rank, cond, vecdot, householder_product (+ orgqr), tensorinv, tensorsolve, vander, diagonal.

The determinants' forwards are numpy.linalg (LAPACK, an LU factorization); the gradient of det is the
adjugate, taken as det(A) A^-H for an invertible matrix and through the SVD for a singular one, so it is
defined everywhere. matrix_exp is a primitive: scaling and squaring of its Taylor series in float64; its
backward is PyTorch's block formula, exp([[A^T, G], [0, A^T]]) read in the upper-right block, so it is
itself differentiable. The others are compositions of tinytorch ops (matmul, inv, svdvals, ...), which
give their gradients and double backward."""
from __future__ import annotations

import math

import numpy as np

from ..._dtype import INEXACT_NP, cpp_name
from ..._meta_array import MetaArray
from ..._quiet_fp import silent
from ...autograd.node import Node
from ..creation.factory import ones_like
from ..shape.conversions import contiguous_format
from ...tensor import Tensor, _make
from ...autograd.grad_mode import _State
from .._core.record import OUT, legacy_name, record
from .._core.batching import composite
from .._core.registry import op
from .._core.util import as_array, holomorphic_backward, lapack_order
from .._core.return_types import _named
from ..pointwise.compare import where
from ..pointwise.complex import conj, imag
from ..reduce.scan import _others_product
from .solve import _LapackGradLayout, _eps_times, _lu_field, _mH, _mT, _square, batch_matrices, inv, lapack_layout, solve
from .decompositions import svd, svdvals
from .norms import matrix_norm
from ..shape.join import cat


def _expm(a: np.ndarray) -> np.ndarray:
    """exp of a batch of square matrices: A / 2^s has 1-norm <= 1/2, then Taylor to degree 18 (error
    below 2^-19 / 19!), then s squarings."""
    a64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    n = a.shape[-1]
    if a.size == 0 or type(a) is MetaArray:  # (a meta batch: its shape, no series summed)
        return a64
    norm = np.abs(a64).sum(-2).max(-1).max(initial=0.0)
    s = 0 if not np.isfinite(norm) or norm <= 0.5 else int(math.ceil(math.log2(norm / 0.5)))
    x = a64 / 2.0 ** s
    eye = np.broadcast_to(np.eye(n, dtype=a64.dtype), a.shape)
    term = eye.copy()
    out = eye.copy()
    for k in range(1, 19):
        term = term @ x / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


class LinalgMatrixExpBackward0(Node):
    saved_fields = (("self", 0),)

    @holomorphic_backward  # complex: the same block formula with A^H (conj of the real-written one)
    def backward(self, g):
        (A,) = self._unpacked_saved
        n = A._data.shape[-1]
        At = _mT(A)
        top = cat([At, g], -1)
        bottom = cat([g * 0, At], -1)
        big = matrix_exp(cat([top, bottom], -2))
        return (big[..., :n, n:],)


def _matrix_exp(A: Tensor) -> Tensor:
    a = A._data
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError("linalg.matrix_exp: A must be batches of square matrices, but they are "
                           + (f"{a.shape[-2]} by {a.shape[-1]} matrices" if a.ndim >= 2 else "not matrices"))
    if a.dtype not in INEXACT_NP:
        raise RuntimeError(f"\"linalg_matrix_exp\" not implemented for '{legacy_name(a.dtype)}'")
    with np.errstate(all="ignore"):
        out = _expm(a).astype(a.dtype)
    return record(out, LinalgMatrixExpBackward0, (A,), (A,))


matrix_exp = op("matrix_exp", variants="function method")(_matrix_exp)
linalg_matrix_exp = op("linalg.matrix_exp")(lambda A: matrix_exp(A))


@op(variants="function method out")
def matrix_power(input: Tensor, n: int) -> Tensor:
    """input^n by repeated squaring (n < 0: the inverse's power; n = 0: the identity)."""
    a = input._data
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if n == 0:
        # the identity copied into a clone of input, as PyTorch's: an output of input with a zero gradient
        # (CopyBackwards), and 1 where input holds inf or NaN (identity + input * 0 would be NaN there)
        out = input.clone(memory_format=contiguous_format)
        return out.copy_(_make(np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)))
    base = inv(input) if n < 0 else input
    n = abs(n)
    if n == 3:  # PyTorch's shortcut (A A) A; with inf or NaN the order decides where NaN lands
        return base.matmul(base).matmul(base)
    result = None
    while n:
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return result


linalg_matrix_power = op("linalg.matrix_power", variants="function out")(
    lambda A, n: matrix_power(A, n))


@op("linalg.multi_dot", variants="function out")
def multi_dot(tensors) -> Tensor:
    """The product of the matrices (the first may be a row vector, the last a column vector)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0], tensors[-1]
    mats = [first.unsqueeze(0) if first.dim() == 1 else first] + tensors[1:-1] + \
        [last.unsqueeze(-1) if last.dim() == 1 else last]
    # PyTorch's order of checks: the first tensor's dims, the last's, the middle ones', then for each
    # tensor after the first its dtype and whether it can multiply the one before
    for which, t in (("first", first), ("last", last)):
        if t.dim() not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {t.dim()}D")
    for i, t in enumerate(mats[1:-1], 1):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    for i, t in enumerate(tensors[1:], 1):
        if t._data.dtype != first._data.dtype:
            raise RuntimeError("multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{cpp_name(first._data.dtype)} and tensor {i} {cpp_name(t._data.dtype)}")
        if mats[i - 1].shape[-1] != mats[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(tensors[i - 1].shape)} and "
                               f"{list(t.shape)} cannot be multiplied")
    # PyTorch views the 2-D product as the output's shape (a vector end drops its dim): ViewBackward0
    out_shape = ((first.shape[0],) if first.dim() == 2 else ()) + ((last.shape[1],) if last.dim() == 2 else ())
    return _chain_product(mats).view(out_shape)


def _chain_product(mats: list) -> Tensor:
    """The product in PyTorch's order (which sets the rounding and the graph): two matrices directly;
    three by comparing the two costs; more by the dynamic programme of the cheapest parenthesisation
    (Cormen et al., section 15.2), the first cheapest split winning ties."""
    n = len(mats)
    if n == 2:
        return mats[0].matmul(mats[1])
    if n == 3:
        a, b = mats[0].shape[0], mats[1].shape[0]
        c, d = mats[2].shape
        if (a * c) * (b + d) > (b * d) * (a + c):
            return mats[0].matmul(mats[1].matmul(mats[2]))
        return mats[0].matmul(mats[1]).matmul(mats[2])
    dims = [t.shape[0] for t in mats] + [mats[-1].shape[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k

    def product(i, j):
        if i == j:
            return mats[i]
        return product(i, split[i][j]).matmul(product(split[i][j] + 1, j))
    return product(0, n - 1)


@op(variants="function out")
def chain_matmul(*matrices) -> Tensor:
    """The deprecated torch.chain_matmul: linalg.multi_dot of 2-D matrices."""
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(list(matrices))


@op("linalg.matrix_rank", variants="function out", autocast="fp32")
def matrix_rank(A: Tensor, tol=None, hermitian: bool = False, *, atol=None, rtol=None) -> Tensor:
    """The number of singular values above max(atol, rtol * largest) (rtol eps * max(m, n) by default)."""
    a = A._data
    if a.dtype not in INEXACT_NP:
        raise RuntimeError(f"linalg.matrix_rank: Expected a floating point or complex tensor as input. "
                           f"Got {legacy_name(a.dtype)}")
    if tol is not None:
        atol, rtol = tol, 0.0
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    smax = s.max(-1, initial=0.0) if s.shape[-1] else np.zeros(s.shape[:-1])
    eps_dtype = a.real.dtype
    at = 0.0 if atol is None else (atol._data if isinstance(atol, Tensor) else atol)
    if rtol is None:
        rt = _eps_times(eps_dtype, max(a.shape[-2:])) if atol is None or np.all(np.asarray(at) <= 0) else 0.0
    else:
        rt = rtol._data if isinstance(rtol, Tensor) else rtol
    tol_ = np.maximum(at, rt * smax)
    return _make(as_array((s > np.asarray(tol_)[..., None]).sum(-1), dtype=np.int64))


@op("linalg.cond", variants="function out", autocast="fp32")
def cond(A: Tensor, p=None) -> Tensor:
    """The condition number in the norm ``p`` (2 by default: largest / smallest singular value)."""
    if p is None or p in (2, -2):
        s = svdvals(A)
        big, small = s[..., 0], s[..., -1]
        return big / small if p != -2 else small / big
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


@op("linalg.vecdot", variants="function out", batch=composite, autocast="lower")
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """sum(conj(x) * y) along ``dim``."""
    return (x.conj() * y).sum(dim)


class LinalgHouseholderProductBackward0(Node):
    """PyTorch's householder_product_backward: with K = Q G^H, reflector i's gradient reads
    K_i = H_i^-1 ... H_0^-1 K H_0 ... H_(i-1) (H(tau)^-1 = H(sigma), sigma = tau / (tau |v|^2 - 1));
    v_i gets -conj(t_i) K_i^H v_i - t_i K_i v_i below the diagonal, tau_i gets -conj(v_i^H K_i v_i).
    The same recurrence as PyTorch's: a nearly singular reflector (op_db's random tau) loses digits
    in both alike. (Forming the products H_0 ... H_(i-1) directly loses fewer, but matched one op_db
    float32 sample fewer: the walk compares with PyTorch, not with the exact gradient.) In tinytorch
    ops: differentiates again."""
    saved_fields = (("input", 0), ("tau", 1), ("result", 2))

    def backward(self, g):
        A, tau, Q = self._unpacked_saved
        m, n = A._data.shape[-2:]
        k = tau._data.shape[-1]
        if k == 0:   # as PyTorch: no gradient at all (autograd.grad reports the inputs unused)
            return None, None
        dtype = A._data.dtype
        rows = np.arange(m)
        # the masks on A's device (meta ones for a meta A: shapes only, never a CPU tensor beside meta ones)
        mask = (lambda a: _make(MetaArray(a.shape, dtype))) if type(A._data) is MetaArray else \
            (lambda a: _make(a.astype(dtype)))
        K = Q.matmul(_mH(g))
        cols, tau_grads = [], []
        for i in range(k):
            below = mask(rows > i)
            v = (A[..., :, i] * below + mask(rows == i)).unsqueeze(-1)     # (..., m, 1)
            t = tau[..., i].unsqueeze(-1).unsqueeze(-1)
            sigma = t / (t * (v * v.conj()).sum(-2, keepdim=True) - 1)
            K = K - sigma * v.matmul(_mH(v).matmul(K))          # H(sigma_i) K = H_i^-1 K
            vHK = _mH(v).matmul(K)                               # (..., 1, m)
            Kv = K.matmul(v)                                     # (..., m, 1)
            gv = (-t * vHK).conj().squeeze(-2) - (t * Kv).squeeze(-1)
            cols.append(gv * below)
            tau_grads.append(-(vHK.matmul(v)).conj().squeeze(-1).squeeze(-1))
            K = K - t * Kv.matmul(_mH(v))                        # K H_i
        cols += [A[..., :, 0] * 0] * (n - k)
        return stack_cols(cols), stack_cols(tau_grads)


def stack_cols(cols: list) -> Tensor:
    return cat([c.unsqueeze(-1) for c in cols], -1)


@op("linalg.householder_product", variants="function out", autocast="fp32")
def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i = (0, ..., 1, A[i+1:, i])."""
    a, ta = A._data, tau._data
    m, n = a.shape[-2:]
    k = ta.shape[-1]
    if n > m:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if k > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    q = _householder_array(a, ta, k)
    return record(lapack_order(q.astype(a.dtype)), LinalgHouseholderProductBackward0, (A, tau), (A, tau, OUT))


@silent  # an inf or NaN among the reflectors reaches Q through inf * 0 and inf - inf, silently as in PyTorch
def _householder_array(a: np.ndarray, ta: np.ndarray, k: int) -> np.ndarray:
    m, n = a.shape[-2:]
    if type(a) is MetaArray:  # a meta input: Q's shape, LAPACK's layout, no reflector applied
        return lapack_order(MetaArray(a.shape, np.result_type(a.dtype, ta.dtype)))
    rows = np.arange(m)
    q = np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape[:-2] + (m, n)).copy()
    for i in range(k - 1, -1, -1):   # Q = H_i Q, from the last reflector to the first
        v = np.where(rows > i, a[..., :, i], (rows == i).astype(a.dtype))[..., :, None]
        t = ta[..., i][..., None, None]
        q = q - t * np.matmul(v, np.matmul(np.swapaxes(v, -1, -2).conj(), q))
    return q


@op(variants="function method out", autocast="fp32")
def orgqr(input: Tensor, input2: Tensor) -> Tensor:
    """linalg.householder_product(input, input2)."""
    return householder_product(input, input2)


geqrf_result = _named("geqrf", ("a", "tau"))


@op(variants="function method out", meta="no_kernel")
def geqrf(input: Tensor):
    """LAPACK's geqrf: R on and above the diagonal, the Householder vectors below it, and their scales tau
    (``householder_product(a, tau)`` is Q). No gradient (as PyTorch's)."""
    a = input._data
    if a.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if a.dtype not in INEXACT_NP:
        raise RuntimeError(f"torch.geqrf: Expected a floating point or complex tensor as input. Got "
                           f"{legacy_name(a.dtype)}")
    m, n = a.shape[-2:]
    k = min(m, n)
    out = np.empty(a.shape, dtype=a.dtype)
    tau = np.empty(a.shape[:-2] + (k,), dtype=a.dtype)
    for idx in np.ndindex(a.shape[:-2]):
        if m and n:
            h, t = np.linalg.qr(a[idx], mode="raw")  # h is the transpose of LAPACK's array (Fortran order)
            out[idx], tau[idx] = h.T, t
        else:
            out[idx] = a[idx]
    return geqrf_result(_make(lapack_order(out)), _make(tau))


@op(variants="function method out", autocast="fp32")
def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False) -> Tensor:
    """``input3`` multiplied by the Q of geqrf's (input, input2): Q @ C (left) or C @ Q, with Q^H when
    ``transpose``; differentiable through linalg.householder_product."""
    a = input._data
    if a.ndim < 2:
        raise RuntimeError("torch.ormqr: input must have at least 2 dimensions.")
    m, n = a.shape[-2:]
    if input3.dim() < 2:
        raise RuntimeError("torch.ormqr: other must have at least 2 dimensions.")
    # the full m x m Q: the reflectors' columns of input, padded (or cut) to m columns
    if n < m:
        full = cat([input, input.new_zeros(a.shape[:-2] + (m, m - n))], -1)
    else:
        full = input[..., :, :m]
    q = householder_product(full, input2)
    if transpose:
        q = _mH(q)
    if input3._requires_grad and _State.enabled:
        # PyTorch's gradient of ``other`` is another ormqr (LAPACK's, column-major): the same values, so laid out
        input3 = record(input3._data.copy(order="K"), _LapackGradLayout, (input3,))
    return lapack_layout(q.matmul(input3) if left else input3.matmul(q))  # LAPACK's result: column-major


@op("linalg.tensorinv", variants="function out", autocast="fp32")
def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The tensor X with tensordot(A, X, ind) the identity: inv of A as a prod(shape[:ind]) square matrix."""
    shape = tuple(A._data.shape)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(shape[:ind]), math.prod(shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return inv(A.reshape(rows, cols)).reshape(shape[ind:] + shape[:ind])


@op("linalg.tensorsolve", variants="function out", autocast="fp32")
def tensorsolve(A: Tensor, B: Tensor, dims=None) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B."""
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        order = [d for d in range(nd) if d not in dims] + dims
        A = A.permute(*order)
    rest = tuple(A._data.shape[B.dim():])
    rows = B.numel()
    cols = math.prod(rest)
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(rest)


@op("linalg.vander")
def vander(x: Tensor, *, N=None) -> Tensor:
    """The Vandermonde matrix: x[..., i] ** j for j < N (N = x.shape[-1] by default)."""
    if x.dim() < 1:
        if N is None:
            raise RuntimeError("N must be greater than 1.")
        x = x.unsqueeze(0)
    n = x._data.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = x.unsqueeze(-1).expand(*x._data.shape, n - 1).cumprod(-1)
    # PyTorch's column of ones is new (x * 0 + 1 would be NaN at an inf or NaN x), in the powers' dtype
    return cat([ones_like(powers.narrow(-1, 0, 1)), powers], -1)


@op("linalg.diagonal")
def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A.diagonal(offset, dim1, dim2)."""
    return A.diagonal(offset, dim1, dim2)


# -- determinants ----------------------------------------------------------------------------------
slogdet_result = _named("linalg_slogdet", ("sign", "logabsdet"))
legacy_slogdet_result = _named("slogdet", ("sign", "logabsdet"))  # torch.slogdet's own class


class LinalgDetBackward0(Node):
    saved_fields = (("A", 0), ("LU", _lu_field(0, True)), ("pivots", _lu_field(1, True)), ("result", 1))

    def backward(self, g):
        A, d = self._unpacked_saved
        a = A._data
        if np.all(np.linalg.matrix_rank(a) == a.shape[-1]) if a.size else True:
            return ((g * conj(d)).unsqueeze(-1).unsqueeze(-1) * _mH(inv(A)),)
        # a singular matrix has no inverse but still an adjugate: adj(A)^T = det(U) det(Vh) U diag(prod_{j!=i} s_j) Vh
        U, S, Vh = svd(A, full_matrices=False)
        sign = _make(as_array(np.conj(np.linalg.det(U._data) * np.linalg.det(Vh._data)), dtype=a.dtype))
        adj_t = (U * _others_product(S, -1).unsqueeze(-2)).matmul(Vh) * sign.unsqueeze(-1).unsqueeze(-1)
        return (g.unsqueeze(-1).unsqueeze(-1) * adj_t,)


# LAPACK's LU of a matrix holding inf or NaN gives NaN as PyTorch's does; numpy then warns
_det, _slogdet = silent(np.linalg.det), silent(np.linalg.slogdet)


@op("linalg.det", variants="function out", batch=batch_matrices)
def linalg_det(A: Tensor) -> Tensor:
    """Determinants of square matrices (batched); the gradient is the adjugate, singular matrices included."""
    a = _square(A, "linalg.det")
    return record(np.asarray(_det(a), dtype=a.dtype), LinalgDetBackward0, (A,), (A, OUT))


@op(variants="function method", batch=batch_matrices)
def det(input: Tensor) -> Tensor:
    """``linalg.det``."""
    return linalg_det(input)


class LinalgSlogdetBackward0(Node):
    saved_fields = (("A", 0), ("LU", _lu_field(0, True)), ("pivots", _lu_field(1, True)), ("sign", 1))

    def backward(self, g_sign, g_logabs=None):
        A, sign = self._unpacked_saved
        if A._data.dtype.kind == "c" and g_sign is not None:
            # d sign = i Im(tr(A^-1 dA)) sign, d log|det| = Re(tr(A^-1 dA))
            c = imag(conj(g_sign) * sign) * -1j
            g_logabs = c if g_logabs is None else g_logabs + c
        if g_logabs is None:
            return (A * 0,)
        return (g_logabs.unsqueeze(-1).unsqueeze(-1) * _mH(inv(A)),)


@op("linalg.slogdet", variants="function out", batch=batch_matrices)
def linalg_slogdet(A: Tensor):
    """(sign, log|det|) of square matrices."""
    a = _square(A, "linalg.slogdet")
    s, l = _slogdet(a)
    s, l = np.asarray(s, dtype=a.dtype), np.asarray(l, dtype=a.real.dtype)
    return slogdet_result(*record((s, l), LinalgSlogdetBackward0, (A,), (A, OUT)))


@op(variants="function method out", batch=batch_matrices)
def slogdet(input: Tensor):
    """``linalg.slogdet``, as PyTorch's ``return_types.slogdet``."""
    return legacy_slogdet_result(*linalg_slogdet(input))


@op(variants="function method", batch=batch_matrices)
def logdet(input: Tensor) -> Tensor:
    """log(det(A)): NaN for a negative determinant."""
    s, l = linalg_slogdet(input)
    if input._data.dtype.kind == "c":  # log(det) = log(sign) + log|det|, with sign on the unit circle
        return l + s.log()
    return where(s < 0, float("nan"), l)
