"""The rest of torch.linalg (and the torch-level triangular/Cholesky/LU functions) against PyTorch:
values in float32/float64, returned structures, gradients in float64 (gradcheck and gradgradcheck on
the primitives solve_triangular, lu and matrix_exp) and error texts."""
import numpy as np
import pytest

import tinytorch
from tinytorch.autograd import gradcheck, gradgradcheck

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

pytestmark = pytest.mark.filterwarnings("ignore:torch.*deprecated:UserWarning")  # PyTorch's deprecation notes

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 4, 4))
B = RNG.standard_normal((2, 4, 3))
L = np.linalg.cholesky(A @ np.swapaxes(A, -1, -2) + np.eye(4))

CASES = {
    "solve_triangular": lambda T, a, b: [T.linalg.solve_triangular(a, b, upper=u, unitriangular=w)
                                         for u in (True, False) for w in (True, False)],
    "solve_triangular_right": lambda T, a, b: T.linalg.solve_triangular(a, b.mT, upper=False, left=False),
    "triangular_solve": lambda T, a, b: T.triangular_solve(b, a, upper=False, transpose=True),
    "cholesky_solve": lambda T, a, b: T.cholesky_solve(b, T.tensor(L.astype(a.numpy().dtype))),
    "cholesky_solve_upper": lambda T, a, b: T.cholesky_solve(b, T.tensor(L.astype(a.numpy().dtype)).mT, True),
    "cholesky_inverse": lambda T, a, b: T.cholesky_inverse(T.tensor(L.astype(a.numpy().dtype))),
    "cholesky_ex": lambda T, a, b: T.linalg.cholesky_ex(T.tensor((L @ np.swapaxes(L, -1, -2)).astype(a.numpy().dtype))),
    "solve_ex": lambda T, a, b: T.linalg.solve_ex(a, b),
    "inv_ex": lambda T, a, b: [T.linalg.inv_ex(a), T.linalg.inv_ex(a * 0)[1]],
    "lstsq": lambda T, a, b: T.linalg.lstsq(a, b)[:3],
    "lstsq_tall_gelsd": lambda T, a, b: T.linalg.lstsq(b, a, driver="gelsd"),
    "lu_factor": lambda T, a, b: T.linalg.lu_factor(a),
    "lu_factor_ex_wide": lambda T, a, b: T.linalg.lu_factor_ex(b.mT),
    "lu": lambda T, a, b: T.linalg.lu(b),
    "lu_unpack": lambda T, a, b: T.lu_unpack(*T.linalg.lu_factor(b)),
    "lu_solve": lambda T, a, b: [T.linalg.lu_solve(*T.linalg.lu_factor(a), c, left=left, adjoint=adj)
                                 for left, c in ((True, b), (False, b.mT)) for adj in (True, False)],
    "lu_solve_old": lambda T, a, b: T.lu_solve(b, *T.linalg.lu_factor(a)),
    "matrix_exp": lambda T, a, b: [T.linalg.matrix_exp(a), T.matrix_exp(a * 6), a.matrix_exp()],
    "matrix_power": lambda T, a, b: [T.linalg.matrix_power(a, n) for n in (-3, -1, 0, 1, 2, 5)],
    "multi_dot": lambda T, a, b: [T.linalg.multi_dot([a[0], b[0], b[1].mT]), T.linalg.multi_dot([a[0, 0], a[1], b[0]]),
                                  T.linalg.multi_dot([a[0, 0], a[1, 1]]), T.chain_matmul(a[0], a[1], b[0])],
    "matrix_rank": lambda T, a, b: [T.linalg.matrix_rank(b), T.linalg.matrix_rank(a @ a.mT, hermitian=True),
                                    T.linalg.matrix_rank(a, atol=1.0, rtol=0.1), T.linalg.matrix_rank(a[0] * 0)],
    "cond": lambda T, a, b: [T.linalg.cond(a, p) for p in (None, 2, -2, "fro", "nuc", 1, -1, float("inf"))],
    "vecdot": lambda T, a, b: T.linalg.vecdot(a, b[..., :1], dim=-2),
    "householder_product": lambda T, a, b: [T.linalg.householder_product(b, b[:, 0, :2]), T.orgqr(a, a[:, 0])],
    "tensorinv": lambda T, a, b: T.linalg.tensorinv(a[0].reshape(2, 2, 4), ind=2),
    "tensorsolve": lambda T, a, b: [T.linalg.tensorsolve(a[0].reshape(4, 2, 2), a[1, 0]),
                                    T.linalg.tensorsolve(a[0].reshape(2, 4, 2), a[1, 0], dims=(0,))],
    "vander": lambda T, a, b: [T.linalg.vander(a[0, 0]), T.linalg.vander(a[0], N=6)],
    "diagonal": lambda T, a, b: T.linalg.diagonal(a, offset=1, dim1=0, dim2=2),
}


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _flat(item)]
    return [x]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values(name, dtype):
    fn = CASES[name]
    expected = fn(torch, torch.tensor(A.astype(dtype)), torch.tensor(B.astype(dtype)))
    got = fn(tinytorch, tinytorch.tensor(A.astype(dtype)), tinytorch.tensor(B.astype(dtype)))
    if isinstance(expected, tuple) and hasattr(expected, "_fields"):
        assert type(got).__name__ == type(expected).__name__.split(".")[-1] or hasattr(got, expected._fields[0])
        for f in expected._fields:
            assert hasattr(got, f)
    for e, g in zip(_flat(expected), _flat(got), strict=True):
        assert tuple(g.shape) == tuple(e.shape)
        assert str(g.dtype).split(".")[-1] == str(e.dtype).split(".")[-1]
        tol = 2e-4 if dtype == "float32" else 1e-9
        np.testing.assert_allclose(g.numpy(), e.detach().numpy(), rtol=tol, atol=tol)


GRADS = {
    "solve_triangular": lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True),
    "solve_triangular_unit_right": lambda T, a, b: T.linalg.solve_triangular(a, b.mT, upper=False, left=False,
                                                                            unitriangular=True),
    "triangular_solve": lambda T, a, b: T.triangular_solve(b, a, upper=False).solution,
    "cholesky_solve": lambda T, a, b: T.cholesky_solve(b, a.tril() + 4 * T.eye(4, dtype=a.dtype)),
    "lu": lambda T, a, b: sum((m * m).sum() for m in T.linalg.lu(a)[1:]),
    "lu_factor": lambda T, a, b: T.linalg.lu_factor(a).LU.sin(),
    "lu_solve": lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b),
    "lu_unpack": lambda T, a, b: T.lu_unpack(*T.linalg.lu_factor(a))[2],
    "matrix_exp": lambda T, a, b: T.linalg.matrix_exp(a * 0.5),
    "matrix_power": lambda T, a, b: T.linalg.matrix_power(a, -2),
    "lstsq": lambda T, a, b: T.linalg.lstsq(a, b).solution,
    "householder_product": lambda T, a, b: T.linalg.householder_product(b, b[:, 0, :2]),
    "cond": lambda T, a, b: T.linalg.cond(a),
    "multi_dot": lambda T, a, b: T.linalg.multi_dot([a[0], a[1], b[0]]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(name):
    fn = GRADS[name]
    ta, tb = (torch.tensor(v, requires_grad=True) for v in (A, B))
    ua, ub = (tinytorch.tensor(v, requires_grad=True) for v in (A, B))
    ya, yb = fn(torch, ta, tb), fn(tinytorch, ua, ub)
    w = RNG.standard_normal(tuple(ya.shape))
    ga = torch.autograd.grad((ya * torch.tensor(w)).sum(), [ta, tb], allow_unused=True)
    gb = tinytorch.autograd.grad((yb * tinytorch.tensor(w)).sum(), [ua, ub], allow_unused=True)
    for e, g in zip(ga, gb):
        assert (e is None) == (g is None)
        if e is not None:
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-7, atol=1e-9)


def test_grad_fn_names():
    a = tinytorch.tensor(A, requires_grad=True)
    assert type(tinytorch.linalg.solve_triangular(a, a, upper=True).grad_fn).__name__ == \
        "LinalgSolveTriangularBackward0"
    assert type(tinytorch.linalg.matrix_exp(a).grad_fn).__name__ == "LinalgMatrixExpBackward0"
    assert type(tinytorch.linalg.lu(a).L.grad_fn).__name__ == "LinalgLuBackward0"
    assert type(tinytorch.linalg.lu_factor(a).LU.grad_fn).__name__ == "LinalgLuFactorExBackward0"


@pytest.mark.parametrize("fn", [
    lambda a, b: tinytorch.linalg.solve_triangular(a, b, upper=False),
    lambda a, b: tinytorch.linalg.matrix_exp(a * 0.3),
    lambda a, b: tinytorch.linalg.lu(a)[2],
    lambda a, b: tinytorch.linalg.lu_solve(*tinytorch.linalg.lu_factor(a), b),
], ids=["solve_triangular", "matrix_exp", "lu", "lu_solve"])
def test_gradcheck_and_gradgradcheck(fn):
    a = tinytorch.tensor(A[0] + 3 * np.eye(4), requires_grad=True)
    b = tinytorch.tensor(B[0], requires_grad=True)
    assert gradcheck(fn, (a, b))
    assert gradgradcheck(fn, (a, b))


def test_lu_pivots_and_info():
    s = np.array([[0.0, 1.0], [0.0, 2.0]])
    e, g = torch.linalg.lu_factor_ex(torch.tensor(s)), tinytorch.linalg.lu_factor_ex(tinytorch.tensor(s))
    assert g.pivots.dtype == tinytorch.int32 and g.info.dtype == tinytorch.int32
    assert g.pivots.tolist() == e.pivots.tolist() and g.info.item() == e.info.item()
    f = torch.linalg.cholesky_ex(-torch.eye(3)).info.item()
    assert tinytorch.linalg.cholesky_ex(-tinytorch.eye(3)).info.item() == f


def test_errors():
    t = tinytorch.ones(2, 3)
    with pytest.raises(RuntimeError, match="multi_dot\\(\\): expected at least 2 tensors but got 1"):
        tinytorch.linalg.multi_dot([t])
    with pytest.raises(RuntimeError, match="linalg.matrix_power: A must be batches of square matrices, but they "
                                           "are 2 by 3 matrices"):
        tinytorch.linalg.matrix_power(t, 2)
    with pytest.raises(RuntimeError, match="but got 3 != 2"):
        tinytorch.linalg.tensorinv(t, 1)
    with pytest.raises(RuntimeError, match="linalg.solve_triangular: Incompatible shapes of A and B"):
        tinytorch.linalg.solve_triangular(tinytorch.ones(3, 3), t, upper=True)
