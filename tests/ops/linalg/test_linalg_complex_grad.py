"""Complex (and real) gradients of lstsq, householder_product, pinv and svd against PyTorch:
values, grad_fn names, input gradients for a random complex cotangent, and second derivatives.

Double precision throughout: the op_db walk's complex64 differences for these ops are single-precision
rounding (PyTorch's MKL factors vs NumPy's double-precision LAPACK), which double precision leaves out."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

DTYPES = ["float64", "complex128"]


def _rand(gen, shape, dtype):
    x = gen.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * gen.standard_normal(shape)
    return x.astype(dtype)


def _pair(x):
    t = torch.from_numpy(x.copy()).requires_grad_()
    return t, tt.from_numpy(x.copy()).requires_grad_()


def _close(got, expected, tol=1e-8):
    got = got.detach().numpy() if hasattr(got, "detach") else got.numpy()
    np.testing.assert_allclose(got, expected.detach().resolve_conj().resolve_neg().numpy(), rtol=tol, atol=tol)


def _check_grads(fn_t, fn_tt, inputs, gen, tol=1e-8, second=True):
    """fn(*inputs) -> tuple of outputs; compares outputs, grads for random cotangents, then the
    gradient of |grads|^2 (double backward)."""
    pairs = [_pair(x) for x in inputs]
    ins_t, ins_tt = [p[0] for p in pairs], [p[1] for p in pairs]
    outs_t, outs_tt = fn_t(*ins_t), fn_tt(*ins_tt)
    for a, b in zip(outs_t, outs_tt):
        _close(b, a, tol)
        assert b.grad_fn.name() == type(a.grad_fn).__name__
    cots = [_rand(gen, tuple(o.shape), str(o.dtype).split(".")[-1]) for o in outs_t]
    g_t = torch.autograd.grad(outs_t, ins_t, [torch.from_numpy(c) for c in cots], create_graph=second)
    g_tt = tt.autograd.grad(outs_tt, ins_tt, [tt.from_numpy(c.copy()) for c in cots], create_graph=second)
    for a, b in zip(g_t, g_tt):
        _close(b, a, tol)
    if second:
        h_t = torch.autograd.grad(sum((g.abs() ** 2).sum() for g in g_t), ins_t)
        h_tt = tt.autograd.grad(sum((g.abs() ** 2).sum() for g in g_tt), ins_tt)
        for a, b in zip(h_t, h_tt):
            _close(b, a, tol * 100)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,driver", [((5, 3, 2), "gelsd"), ((5, 3, 2), "gels"), ((3, 3, 2), None),
                                          ((2, 4, 3), "gelsy"), ((6, 3, None), "gelss")])
def test_lstsq_solution_and_residuals(dtype, shape, driver):
    gen = np.random.default_rng(sum(shape[:2]) + len(driver or ""))
    m, n, k = shape
    A = _rand(gen, (2, m, n), dtype)
    B = _rand(gen, (2, m) if k is None else (2, m, k), dtype)

    def run(lib):
        def f(a, b):
            r = lib.linalg.lstsq(a, b, driver=driver)
            # the residuals are empty (no gradient) unless m > n, full rank and driver != gelsy
            return (r.solution, r.residuals) if r.residuals.numel() else (r.solution,)
        return f
    _check_grads(run(torch), run(tt), [A, B], gen)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lstsq_grad_of_one_input(dtype):
    gen = np.random.default_rng(7)
    A, B = _rand(gen, (5, 3), dtype), _rand(gen, (5,), dtype)
    At, Att = _pair(A)
    Bt, Btt = torch.from_numpy(B), tt.from_numpy(B.copy())   # B constant, vector right-hand side
    rt, rtt = torch.linalg.lstsq(At, Bt, driver="gelsd"), tt.linalg.lstsq(Att, Btt, driver="gelsd")
    assert tuple(rtt.residuals.shape) == tuple(rt.residuals.shape)
    c = _rand(gen, (3,), dtype)
    (ga,) = torch.autograd.grad((rt.solution * torch.from_numpy(c)).sum().real + rt.residuals.sum(), At)
    (gb,) = tt.autograd.grad((rtt.solution * tt.from_numpy(c.copy())).sum().real + rtt.residuals.sum(), Att)
    _close(gb, ga)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,n,k", [(5, 4, 3), (4, 4, 4), (3, 3, 1)])
def test_householder_product(dtype, m, n, k):
    gen = np.random.default_rng(m * 10 + n + k)
    A, tau = _rand(gen, (2, m, n), dtype), _rand(gen, (2, k), dtype)

    def run(lib):
        return lambda a, t: (lib.linalg.householder_product(a, t),)
    _check_grads(run(torch), run(tt), [A, tau], gen)


def test_householder_product_no_reflector():
    """tau empty: Q is the identity's first columns, and neither input gets a gradient."""
    A = np.random.default_rng(0).standard_normal((4, 3))
    (At, Att), (Tt, Ttt) = _pair(A), _pair(np.zeros((0,)))
    Q, Qt = torch.linalg.householder_product(At, Tt), tt.linalg.householder_product(Att, Ttt)
    _close(Qt, Q)
    with pytest.raises(RuntimeError) as e_t:
        torch.autograd.grad(Q.sum(), At, retain_graph=True)
    with pytest.raises(RuntimeError) as e_tt:
        tt.autograd.grad(Qt.sum(), Att, retain_graph=True)
    assert str(e_tt.value) == str(e_t.value)
    g_t = torch.autograd.grad(Q.sum(), (At, Tt), allow_unused=True)
    g_tt = tt.autograd.grad(Qt.sum(), (Att, Ttt), allow_unused=True)
    assert [g is None for g in g_tt] == [g is None for g in g_t]


def test_orgqr_grad_fn_and_complex64():
    gen = np.random.default_rng(3)
    A, tau = _rand(gen, (5, 3), "complex64"), _rand(gen, (3,), "complex64")
    (At, Att), (Tt, Ttt) = _pair(A), _pair(tau)
    Q, Qt = torch.orgqr(At, Tt), tt.orgqr(Att, Ttt)
    assert Qt.grad_fn.name() == type(Q.grad_fn).__name__ == "LinalgHouseholderProductBackward0"
    c = _rand(gen, (5, 3), "complex64")
    g = torch.autograd.grad(Q, (At, Tt), torch.from_numpy(c))
    gt = tt.autograd.grad(Qt, (Att, Ttt), tt.from_numpy(c.copy()))
    for a, b in zip(g, gt):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4)])
def test_pinv(dtype, shape):
    gen = np.random.default_rng(len(shape) + shape[-1])

    def run(lib):
        return lambda a: (lib.linalg.pinv(a),)
    _check_grads(run(torch), run(tt), [_rand(gen, shape, dtype)], gen)


@pytest.mark.parametrize("dtype", DTYPES)
def test_pinv_hermitian_input(dtype):
    gen = np.random.default_rng(11)
    a = _rand(gen, (4, 4), dtype)
    a = a + a.conj().T

    def run(lib):
        return lambda x: (lib.linalg.pinv(x, hermitian=True),)
    _check_grads(run(torch), run(tt), [a], gen, tol=1e-7)


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("shape", [(4, 3), (3, 5)])
def test_svd_gauge_invariant_complex(full, shape):
    """op_db's gauge-invariant views of svd's outputs: |U|, S, U Vh, (S, |Vh|)."""
    gen = np.random.default_rng(shape[0] * 7 + full)
    a = _rand(gen, (2,) + shape, "complex128")
    k = min(shape)

    def run(lib):
        def f(x):
            U, S, Vh = lib.linalg.svd(x, full_matrices=full)
            U, Vh = U[..., :k], Vh[..., :k, :]
            return U.abs(), S, U.matmul(Vh), Vh.abs()
        return f
    _check_grads(run(torch), run(tt), [a], gen, tol=1e-7)
