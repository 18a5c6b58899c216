"""linalg.eig/eigvals and complex input for the linalg ops, compared with PyTorch: values, dtypes,
gradients of losses that do not read the eigen/singular vectors' phase, second derivatives, grad_fn
names, and PyTorch's errors (phase-dependent losses, bad input)."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

RNG = np.random.default_rng(22)


def _mat(shape, dtype):
    a = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def _hpd(n, dtype, batch=()):
    a = _mat(batch + (n, n), dtype)
    return (a @ np.swapaxes(a, -1, -2).conj() + n * np.eye(n)).astype(dtype)


def _run(fn, *arrays, grad=True):
    """fn(module, *tensors) in both libraries: (outputs, input grads) as numpy."""
    res = []
    for m in (tt, torch):
        ts = [m.tensor(a, requires_grad=grad) for a in arrays]
        out = fn(m, *ts)
        grads = None
        if grad:
            loss = out if out.dim() == 0 else out.abs().sum()
            grads = [g.resolve_conj().numpy() for g in m.autograd.grad(loss, ts)]
        res.append((out.detach().resolve_conj().numpy(), grads))
    return res


def _close(a, b, dtype):
    tol = 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _same(fn, *arrays, dtype, grad=True):
    (o1, g1), (o2, g2) = _run(fn, *arrays, grad=grad)
    assert o1.dtype == o2.dtype
    _close(o1, o2, dtype)
    if grad:
        for a, b in zip(g1, g2):
            assert a.dtype == b.dtype
            _close(a, b, dtype)


# -- eig / eigvals -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,cdtype", [("float32", "complex64"), ("float64", "complex128"),
                                          ("complex64", "complex64"), ("complex128", "complex128")])
def test_eig_values_match_up_to_phase(dtype, cdtype):
    a = _mat((3, 5, 5), dtype)
    L, V = tt.linalg.eig(tt.tensor(a))
    Lt, Vt = torch.linalg.eig(torch.tensor(a))
    assert str(L.dtype) == str(Lt.dtype).replace("torch", "tinytorch") == f"tinytorch.{cdtype}"
    assert V.dtype == L.dtype
    l, lt, v, vt = L.numpy(), Lt.numpy(), V.numpy(), Vt.numpy()
    if dtype in ("float32", "complex64"):  # MKL's and OpenBLAS's single-precision geev may order them apart
        order = np.abs(l[..., None, :] - lt[..., :, None]).argmin(-1)
        l = np.take_along_axis(l, order, -1)
        v = np.take_along_axis(v, order[..., None, :], -1)
    _close(l, lt, dtype)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, rtol=1e-5)
    # LAPACK geev's vectors: equal to PyTorch's, or (float32: MKL vs OpenBLAS sgeev) a unit phase apart
    phase = (vt.conj() * v).sum(-2, keepdims=True)
    phase /= np.abs(phase)
    _close(v / phase, vt, dtype)
    if dtype in ("float64", "complex128"):
        _close(v, vt, dtype)


def test_eig_result_and_errors():
    r = tt.linalg.eig(tt.eye(2))
    assert r._fields == ("eigenvalues", "eigenvectors") and repr(r).startswith("tinytorch.return_types.linalg_eig(")
    for bad, args in [(np.ones((2, 3)), {}), (np.ones(3), {})]:
        with pytest.raises(RuntimeError) as e1:
            tt.linalg.eig(tt.tensor(bad))
        with pytest.raises(RuntimeError) as e2:
            torch.linalg.eig(torch.tensor(bad))
        assert str(e1.value) == str(e2.value)
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Long"):
        tt.linalg.eigvals(tt.ones(2, 2, dtype=tt.int64))
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Long"):
        torch.linalg.eigvals(torch.ones(2, 2, dtype=torch.int64))
    assert tt.linalg.eig(tt.zeros(0, 0))[0].shape == torch.linalg.eig(torch.zeros(0, 0))[0].shape


def _w(m, n, seed):
    g = np.random.default_rng(seed)
    return m.tensor(g.standard_normal((n, n)) + 1j * g.standard_normal((n, n)))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eig_gradients(dtype):
    a = _mat((4, 4), dtype)

    def loss(m, A):  # reads |V| and the eigenvalues only: invariant under each column's phase
        L, V = m.linalg.eig(A)
        return (L * L).real.sum() + (V.abs() ** 2 * m.arange(16.).reshape(4, 4)).sum() + (L.imag * V[0].abs()).sum()
    _same(loss, a, dtype=dtype)
    _same(lambda m, A: m.linalg.eigvals(A).abs().sum() + m.linalg.eigvals(A).real.sum(), a, dtype=dtype)
    _same(lambda m, A: m.linalg.eig(A)[1].abs().sum(), a, dtype=dtype)
    # second derivatives
    res = []
    for m in (tt, torch):
        A = m.tensor(a, requires_grad=True)
        g, = m.autograd.grad(m.linalg.eig(A)[1].abs().sum() + m.linalg.eigvals(A).abs().sum(), A, create_graph=True)
        (g.abs() ** 2).sum().backward()
        res.append(A.grad.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-7, atol=1e-9)


def test_eig_grad_fn_and_batched():
    a = _mat((2, 3, 3), "float64")
    A = tt.tensor(a, requires_grad=True)
    assert type(tt.linalg.eig(A)[1].grad_fn).__name__ == type(
        torch.linalg.eig(torch.tensor(a, requires_grad=True))[1].grad_fn).__name__ == "LinalgEigBackward0"
    assert type(tt.linalg.eigvals(A).grad_fn).__name__ == "LinalgEigBackward0"
    _same(lambda m, A: m.linalg.eigvals(A), a, dtype="float64")


@pytest.mark.parametrize("case", ["eig", "eigh", "svd"])
def test_phase_dependent_loss_raises_as_pytorch(case):
    a = _hpd(3, "complex128") if case == "eigh" else _mat((3, 3), "complex128")
    fns = {"eig": lambda m, A: m.linalg.eig(A)[1].sum().abs(),
           "eigh": lambda m, A: m.linalg.eigh(A)[1].sum().abs(),
           "svd": lambda m, A: m.linalg.svd(A)[0].sum().abs()}
    msgs = []
    for m in (tt, torch):
        A = m.tensor(a, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            fns[case](m, A).backward()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] and "e^{i phi}" in msgs[0]


# -- conjugate transposes ------------------------------------------------------------------------------
def test_mH_H_adjoint():
    a = _mat((2, 3, 4), "complex64")
    assert np.array_equal(tt.tensor(a).mH.resolve_conj().numpy(), torch.tensor(a).mH.resolve_conj().numpy())
    assert np.array_equal(tt.tensor(a).adjoint().resolve_conj().numpy(), torch.tensor(a).adjoint().resolve_conj().numpy())
    assert np.array_equal(tt.adjoint(tt.tensor(a)).resolve_conj().numpy(), torch.adjoint(torch.tensor(a)).resolve_conj().numpy())
    assert np.array_equal(tt.tensor(a[0]).H.resolve_conj().numpy(), torch.tensor(a[0]).H.resolve_conj().numpy())
    r = _mat((3, 4), "float32")
    assert np.array_equal(tt.tensor(r).mH.numpy(), r.T)
    for m in (tt, torch):
        A = m.tensor(a, requires_grad=True)
        assert type(A.mH.grad_fn).__name__ == "ConjBackward0"
        (A.mH * m.tensor(np.swapaxes(a, -1, -2))).real.sum().backward()
    _same(lambda m, A: (A.mH * A.mH).real, a, dtype="complex64")
    for expr in ("x.mH", "x.H", "x.adjoint()"):
        for shape in ((3,), (2, 2, 2)):
            if expr != "x.H" and shape == (2, 2, 2):
                continue
            errs = []
            for m in (tt, torch):
                with pytest.raises(RuntimeError) as e:
                    eval(expr, {"x": m.ones(shape)})
                errs.append(str(e.value))
            assert errs[0] == errs[1]


# -- complex input for the linalg ops ------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_values_and_gradients(dtype):
    a, b = _mat((2, 4, 4), dtype), _mat((2, 4, 3), dtype)
    hpd = _hpd(4, dtype, (2,))
    _same(lambda m, A: m.linalg.inv(A), a, dtype=dtype)
    _same(lambda m, A, B: m.linalg.solve(A, B), a, b, dtype=dtype)
    _same(lambda m, A: m.linalg.det(A), a, dtype=dtype)
    _same(lambda m, A: m.linalg.slogdet(A)[1], a, dtype=dtype)
    _same(lambda m, A: m.linalg.slogdet(A)[0] * 3 + m.linalg.slogdet(A)[1], a, dtype=dtype)
    _same(lambda m, A: m.linalg.pinv(A), a[..., :3], dtype=dtype)
    _same(lambda m, A: m.linalg.cholesky(A), hpd, dtype=dtype)
    _same(lambda m, A: m.linalg.cholesky(A, upper=True), hpd, dtype=dtype)
    _same(lambda m, A: m.linalg.qr(A)[0] * _w(m, 4, 0)[:, :3].to(A.dtype), a[..., :3], dtype=dtype)
    _same(lambda m, A: m.linalg.qr(A)[1] * _w(m, 4, 1)[:3].to(A.dtype), a[:, :3], dtype=dtype)
    _same(lambda m, A: m.linalg.svdvals(A), a[..., :3], dtype=dtype)
    _same(lambda m, A: m.linalg.eigvalsh(A), hpd, dtype=dtype)
    _same(lambda m, A: m.linalg.eigh(A)[1].abs(), hpd, dtype=dtype)

    def svd_gauge_invariant(m, A):
        U, S, Vh = m.linalg.svd(A, full_matrices=False)
        return (U * S.to(A.dtype).unsqueeze(-2)) @ Vh + U.abs().sum() + Vh.abs().sum()
    _same(svd_gauge_invariant, a[..., :3], dtype=dtype)
    _same(svd_gauge_invariant, a[:, :3], dtype=dtype)


def test_complex_second_derivatives():
    a = _mat((3, 3), "complex128")
    for fn in (lambda m, A: m.linalg.inv(A).abs().sum(), lambda m, A: m.linalg.det(A).abs(),
               lambda m, A: m.linalg.svdvals(A).sum(),
               lambda m, A: m.linalg.cholesky(A @ A.mH + 3 * m.eye(3)).abs().sum()):
        res = []
        for m in (tt, torch):
            A = m.tensor(a, requires_grad=True)
            g, = m.autograd.grad(fn(m, A), A, create_graph=True)
            (g.abs() ** 2).sum().backward()
            res.append(A.grad.numpy())
        np.testing.assert_allclose(res[0], res[1], rtol=1e-7, atol=1e-9)


def test_complex_output_dtypes():
    a = _mat((3, 3), "complex64")
    for name in ("svdvals", "eigvalsh"):
        x = getattr(tt.linalg, name)(tt.tensor(a @ a.conj().T))
        y = getattr(torch.linalg, name)(torch.tensor(a @ a.conj().T))
        assert str(x.dtype)[10:] == str(y.dtype)[6:] == "float32"
    assert str(tt.linalg.slogdet(tt.tensor(a))[1].dtype) == "tinytorch.float32"
    assert str(tt.linalg.svd(tt.tensor(a))[1].dtype) == "tinytorch.float32"


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_triangular_lu_and_friends(dtype):
    a, b = _mat((2, 4, 4), dtype), _mat((2, 4, 3), dtype)
    hpd = _hpd(4, dtype, (2,))
    for upper in (True, False):
        for left in (True, False):
            bb = b if left else np.swapaxes(b, -1, -2)
            _same(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=upper, left=left), a, bb, dtype=dtype)
    L = np.linalg.cholesky(hpd)
    _same(lambda m, L_, B: m.cholesky_solve(B, L_), L, b, dtype=dtype)
    _same(lambda m, L_: m.cholesky_inverse(L_), L, dtype=dtype)
    _same(lambda m, A: m.linalg.lu_factor(A)[0], a, dtype=dtype)
    _same(lambda m, A: m.linalg.lu(A)[1] + m.linalg.lu(A)[2], a, dtype=dtype)
    _same(lambda m, A: m.linalg.lu(A)[2], a[:, :3], dtype=dtype)
    for adjoint in (False, True):
        _same(lambda m, A, B: m.linalg.lu_solve(*m.linalg.lu_factor(A), B, adjoint=adjoint), a, b, dtype=dtype)
    _same(lambda m, A: m.logdet(A), a, dtype=dtype)
    _same(lambda m, x, y: m.linalg.vecdot(x, y), b, b[::-1].copy(), dtype=dtype)
    _same(lambda m, A: m.linalg.matrix_rank(A), a, dtype=dtype, grad=False)


def test_complex_norms_and_legacy_svd():
    a = _mat((2, 3, 3), "complex128")
    for fn in (lambda m, A: m.linalg.matrix_norm(A, "nuc"), lambda m, A: m.linalg.matrix_norm(A, 2),
               lambda m, A: m.linalg.matrix_norm(A), lambda m, A: m.linalg.norm(A), lambda m, A: m.linalg.cond(A),
               lambda m, A: m.linalg.matrix_power(A, -2)):
        _same(fn, a, dtype="complex128")
    w = _mat((4, 3), "complex128")
    for kw in ({}, {"some": False}, {"compute_uv": False}):
        r, q = tt.svd(tt.tensor(w), **kw), torch.svd(torch.tensor(w), **kw)
        assert repr(r).startswith("tinytorch.return_types.svd(")
        for x, y in zip(r, q):
            _close(x.resolve_conj().numpy(), y.resolve_conj().numpy(), "complex128")
    _same(lambda m, A: (lambda U, S, V: (U * S.to(A.dtype)) @ V.mH)(*m.svd(A)), w, dtype="complex128")
    A = tt.tensor(w.real.copy(), requires_grad=True)
    assert type(tt.svd(A).V.grad_fn).__name__ == type(
        torch.svd(torch.tensor(w.real.copy(), requires_grad=True)).V.grad_fn).__name__


def test_complex_householder_product():
    a, tau = _mat((4, 3), "complex128"), _mat((3,), "complex128")
    _same(lambda m, A, T: m.linalg.householder_product(A, T), a, tau, dtype="complex128")


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_pinv_hermitian_reads_the_lower_triangle(dtype):
    a = _mat((2, 4, 4), dtype)   # not Hermitian: PyTorch reads the lower triangle (eigh)
    (o1, _), (o2, _) = _run(lambda m, A: m.linalg.pinv(A, hermitian=True), a, grad=False)
    _close(o1, o2, dtype)
    if dtype == "float64":
        _same(lambda m, A: m.linalg.pinv(A, hermitian=True), a, dtype=dtype)


@pytest.mark.parametrize("a_shape, b_shape", [((2, 5, 5), (5, 3)), ((4, 1, 5, 5), (3, 5, 7)), ((2, 1, 4, 4), (4,)),
                                              ((2, 5, 5), (2, 5)), ((3, 4, 4), (1, 4, 2))])
def test_solve_broadcasts_b_with_fewer_batch_dims(a_shape, b_shape):
    """B with fewer batch dims than A broadcasts as PyTorch's does (numpy 1.x alone would read a B of one dim fewer
    than A as a batch of vectors and refuse it), values and gradients."""
    _same(lambda m, A, B: m.linalg.solve(A, B), _mat(a_shape, "float64"), _mat(b_shape, "float64"), dtype="float64")
