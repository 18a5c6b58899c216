"""Complex tensors against PyTorch: creation and promotion, printing, the views (real, imag,
view_as_real, view_as_complex), conjugation, arithmetic and functions, errors, and gradients under
PyTorch's convention for complex inputs."""
import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _same(ours, theirs, rtol=1e-5, atol=1e-6):
    assert str(ours.dtype).replace("tinytorch.", "") == str(theirs.dtype).replace("torch.", "")
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().resolve_conj().numpy(), theirs.detach().resolve_conj().numpy(),
                               rtol=rtol, atol=atol)


def _raises_alike(fn):
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)) as ours:
        fn(tt)
    assert str(ours.value) == str(theirs.value).replace("torch.", "tinytorch.")


RNG = np.random.default_rng(0)
Z = (RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))).astype(np.complex64)
W = (RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))).astype(np.complex64)


# -- dtypes, creation, promotion ----------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda T: T.tensor([1 + 2j, 3 - 1j]),
    lambda T: T.tensor([1, 2.5, 3j]),
    lambda T: T.tensor(2j),
    lambda T: T.tensor([[1, 2], [3, 4]], dtype=T.cfloat),
    lambda T: T.tensor([1 + 1j], dtype=T.complex128),
    lambda T: T.zeros(2, dtype=T.cdouble),
    lambda T: T.ones(2) + 1j,
    lambda T: T.ones(2, dtype=T.float64) + 1j,
    lambda T: T.arange(3) * 1j,
    lambda T: T.ones(2) + T.tensor(1j, dtype=T.complex128),
    lambda T: T.ones(2, dtype=T.float64) * T.ones(2, dtype=T.complex64),
    lambda T: T.ones(2, dtype=T.complex64) + T.ones(2, dtype=T.complex128),
    lambda T: T.tensor([1 + 2j]).to(T.float32),
    lambda T: T.tensor([1.5]).to(T.complex128),
])
def test_creation_and_promotion(make):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(make(tt), make(torch))


def test_dtype_predicates():
    z = tt.tensor([1j])
    assert z.is_complex() and tt.is_complex(z) and not z.is_floating_point()
    assert not tt.ones(1).is_complex()
    assert tt.cfloat is tt.complex64 and tt.cdouble is tt.complex128
    assert tt.complex64.is_complex and not tt.complex64.is_floating_point
    assert tt.promote_types(tt.float64, tt.complex64) is tt.complex128
    assert tt.can_cast(tt.complex64, tt.float32) == torch.can_cast(torch.complex64, torch.float32)
    assert tt.can_cast(tt.float32, tt.complex64) == torch.can_cast(torch.float32, torch.complex64)
    assert repr(tt.finfo(tt.cfloat)) == repr(torch.finfo(torch.cfloat))


def test_default_complex_follows_default_float():
    torch.set_default_dtype(torch.float64)  # (first: where PyTorch is missing, this skips before tinytorch's changes)
    tt.set_default_dtype(tt.float64)
    try:
        _same(tt.tensor([1j]), torch.tensor([1j]))
        assert repr(tt.tensor([1j])) == repr(torch.tensor([1j])).replace("torch.", "tinytorch.")
    finally:
        tt.set_default_dtype(tt.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("data", [
    "[1+2j, 3-1j]", "[1.5+2j, -3-1.25j]", "[[1e-5+2j, 3-1j], [1, 2]]", "[float('nan')+1j, float('inf')-2j]",
    "[0j, -0.0-0.0j]", "[1e10+1j]", "[1j] * 2000", "3+4j", "[[0.1+0.2j] * 12] * 3",
])
def test_repr(data):
    assert repr(tt.tensor(eval(data))) == repr(torch.tensor(eval(data))).replace("torch.", "tinytorch.")


def test_repr_dtypes_and_grad():
    for T in (tt, torch):
        z = T.tensor([1 + 1j, 2], dtype=T.complex128, requires_grad=True)
        text = repr(z) + repr(z * 2) + repr(T.zeros(0, dtype=T.cfloat))
        if T is tt:
            ours = text
    assert ours == text.replace("torch.", "tinytorch.")


# -- views and parts ------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda T, z: T.real(z), lambda T, z: T.imag(z), lambda T, z: z.real, lambda T, z: z.imag,
    lambda T, z: T.view_as_real(z), lambda T, z: T.view_as_complex(T.view_as_real(z)),
    lambda T, z: T.view_as_real(z[:, ::2]), lambda T, z: T.conj(z), lambda T, z: z.conj_physical(),
    lambda T, z: z.angle(), lambda T, z: z.abs(), lambda T, z: z.sgn(), lambda T, z: T.complex(z.real, z.imag),
    lambda T, z: T.polar(z.abs(), z.angle()), lambda T, z: T.angle(T.tensor([-1.0, 0.0, 2.0])),
    lambda T, z: T.angle(T.tensor([-1, 0, 2])), lambda T, z: T.real(T.ones(2)),
    lambda T, z: T.sgn(T.tensor([0j, 3 + 4j])), lambda T, z: T.view_as_real(T.tensor(1 + 2j)),
    lambda T, z: T.view_as_complex(T.tensor([1.0, 2.0])),
])
def test_parts(fn):
    _same(fn(tt, tt.tensor(Z)), fn(torch, torch.tensor(Z)))


def test_views_share_memory():
    for T in (tt, torch):
        z = T.tensor([1 + 2j, 3 - 1j])
        z.real.mul_(10)
        z.imag[0] = 7
        T.view_as_real(z)[1, 1] = 5
        r = T.ones(2, 2)
        c = T.view_as_complex(r)
        c.mul_(1j)
        z.real = T.tensor([0.5, 0.25])
        got = (z.numpy().copy(), r.numpy().copy(), z.real.stride(), T.view_as_real(z).stride())
        if T is tt:
            ours = got
    for a, b in zip(ours, got):
        np.testing.assert_array_equal(a, b)


def test_conj_bit():
    for T in (tt, torch):
        z = T.tensor([1 + 2j])
        c = z.conj()
        got = (c.is_conj(), T.is_conj(z), c.resolve_conj().is_conj(), T.ones(1).conj().is_conj(),
               c.resolve_neg().is_neg(), c.resolve_conj().numpy().tolist())
        if T is tt:
            ours = got
    assert ours == got


# -- arithmetic and functions ----------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda T, z, w: z + w, lambda T, z, w: z - w * 2, lambda T, z, w: z * w, lambda T, z, w: z / w,
    lambda T, z, w: z * 1j + 2, lambda T, z, w: 1 / z, lambda T, z, w: z ** 2, lambda T, z, w: z ** 0.5,
    lambda T, z, w: z.exp(), lambda T, z, w: z.log(), lambda T, z, w: z.sqrt(), lambda T, z, w: z.sin(),
    lambda T, z, w: z.cos(), lambda T, z, w: z.tanh(), lambda T, z, w: z.sigmoid(), lambda T, z, w: -z,
    lambda T, z, w: z @ w.mT, lambda T, z, w: z.sum(), lambda T, z, w: z.mean(0), lambda T, z, w: z.prod(1),
    lambda T, z, w: z.sum(1, keepdim=True), lambda T, z, w: z == w, lambda T, z, w: z != z,
    lambda T, z, w: z.real * w, lambda T, z, w: z.reshape(4, 3).t(), lambda T, z, w: T.cat([z, w]),
    lambda T, z, w: z.reciprocal(), lambda T, z, w: z.square(), lambda T, z, w: z.abs().pow(2),
])
def test_functions(fn):
    _same(fn(tt, tt.tensor(Z), tt.tensor(W)), fn(torch, torch.tensor(Z), torch.tensor(W)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("fn", [
    lambda T: T.tensor([1j]) < T.tensor([1j]),
    lambda T: T.tensor([1j]) > 1,
    lambda T: T.tensor([1j]).sign(),
    lambda T: T.imag(T.ones(2)),
    lambda T: T.view_as_complex(T.ones(3)),
    lambda T: T.view_as_complex(T.ones(2, 2).t()),
    lambda T: T.view_as_real(T.ones(2)),
    lambda T: T.complex(T.ones(2), T.ones(2, dtype=T.float64)),
    lambda T: T.complex(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64)),
    lambda T: T.tensor([1 + 1j], requires_grad=True).sum().backward(),
    lambda T: (T.tensor([1 + 1j], requires_grad=True) * 2).sum().backward(),
])
def test_errors(fn):
    _raises_alike(fn)


# -- gradients ---------------------------------------------------------------------------------------------
GRADS = {
    "abs": lambda T, z, w: z.abs().sum(),
    "real_imag": lambda T, z, w: (T.real(z) * T.imag(w)).sum(),
    "angle": lambda T, z, w: z.angle().sum(),
    "mul": lambda T, z, w: (z * w).abs().sum(),
    "div": lambda T, z, w: (z / w).real.sum(),
    "exp": lambda T, z, w: z.exp().imag.sum(),
    "sin_cos": lambda T, z, w: (z.sin() * w.cos()).abs().sum(),
    "log": lambda T, z, w: z.log().abs().pow(2).sum(),
    "sqrt": lambda T, z, w: z.sqrt().abs().sum(),
    "tanh": lambda T, z, w: z.tanh().real.sum(),
    "pow": lambda T, z, w: (z ** 3).real.sum(),
    "matmul": lambda T, z, w: (z.reshape(2, 6) @ w.reshape(6, 2)).abs().sum(),
    "matmul_batched": lambda T, z, w: (z.reshape(3, 2, 2) @ w.reshape(3, 2, 2)).abs().sum(),
    "view_as_real": lambda T, z, w: (T.view_as_real(z) ** 2).sum() + T.view_as_real(w)[:, :, 1].sum(),
    "view_as_complex": lambda T, z, w: T.view_as_complex(T.view_as_real(z) * 2).abs().sum(),
    "sum_mean": lambda T, z, w: z.sum().abs() + w.mean().real,
    "sgn": lambda T, z, w: (z.sgn() * w).real.sum(),
    "conj": lambda T, z, w: (z.conj() * w).imag.sum() + (z.conj_physical() * w).real.sum(),
    "complex": lambda T, z, w: T.complex(z.real * 2, w.imag).abs().sum(),
    "polar": lambda T, z, w: (T.polar(z.abs(), w.angle()) * (1 + 2j)).real.sum(),
    "real_times_complex": lambda T, z, w: (z.real * w).abs().sum(),
    "prod": lambda T, z, w: z.prod().abs(),
    "reciprocal": lambda T, z, w: (1 / z).abs().sum(),
    "broadcast": lambda T, z, w: (z[:1] * w).abs().sum(),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(name):
    fn = GRADS[name]
    results = []
    for T in (tt, torch):
        z = T.tensor(Z.astype(np.complex128), requires_grad=True)
        w = T.tensor(W.astype(np.complex128), requires_grad=True)
        out = fn(T, z, w)
        out.backward()
        results.append((out, z.grad, w.grad, type(out.grad_fn).__name__))
    ours, theirs = results
    _same(ours[0], theirs[0], rtol=1e-10, atol=1e-12)
    for a, b in zip(ours[1:3], theirs[1:3]):
        assert (a is None) == (b is None)
        if a is not None:
            _same(a, b, rtol=1e-10, atol=1e-12)
    assert ours[3] == theirs[3]


def test_real_leaf_gets_real_gradient():
    results = []
    for T in (tt, torch):
        x = T.tensor([1.0, -2.0, 0.5], requires_grad=True)
        c = T.tensor([1 + 2j, 3 - 1j, -1j])
        (x * c).abs().sum().backward()
        results.append(x.grad)
    _same(*results)


@pytest.mark.parametrize("name", ["exp", "mul", "div", "abs", "angle", "sgn", "view_as_real"])
def test_grad_fn_names(name):
    fn = {"exp": lambda T, z: z.exp(), "mul": lambda T, z: z * z, "div": lambda T, z: z / 2,
          "abs": lambda T, z: z.abs(), "angle": lambda T, z: z.angle(), "sgn": lambda T, z: z.sgn(),
          "view_as_real": lambda T, z: T.view_as_real(z)}[name]
    names = [type(fn(T, T.tensor([1 + 1j], requires_grad=True)).grad_fn).__name__ for T in (tt, torch)]
    assert names[0] == names[1]


# -- random draws: PyTorch's stream (the real view, each part with std 1/sqrt(2)) ----------------------------
@pytest.mark.bitexact
@pytest.mark.parametrize("shape", [(3,), (5, 7), (40,), (1000,)])
@pytest.mark.parametrize("dtype", ["cfloat", "cdouble"])
@pytest.mark.parametrize("draw", [
    lambda T, shape, dt: T.randn(*shape, dtype=dt),
    lambda T, shape, dt: T.rand(*shape, dtype=dt),
    lambda T, shape, dt: T.empty(*shape, dtype=dt).normal_(),
    lambda T, shape, dt: T.randn_like(T.zeros(*shape, dtype=dt)),
])
def test_random_stream(draw, dtype, shape):
    tt.manual_seed(3)
    torch.manual_seed(3)
    ours, theirs = draw(tt, shape, getattr(tt, dtype)), draw(torch, shape, getattr(torch, dtype))
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    # bit for bit on PyTorch's FMA paths, within _paths.DRAW_ULPS at the draws' scale (1) on DEFAULT
    _paths.assert_drawn(ours, theirs, scale=1.0)


def test_save_load_both_ways():
    import io
    buf = io.BytesIO()
    tt.save({"z": tt.tensor([1 + 2j, 3 - 1j]), "w": tt.tensor([1j], dtype=tt.cdouble), "d": tt.cdouble}, buf)
    buf.seek(0)
    theirs = torch.load(buf)
    assert theirs["z"].dtype == torch.complex64 and theirs["w"].dtype == torch.complex128
    assert theirs["d"] is torch.complex128
    np.testing.assert_array_equal(theirs["z"].numpy(), [1 + 2j, 3 - 1j])
    buf = io.BytesIO()
    torch.save({"z": torch.tensor([1 + 2j]), "d": torch.cfloat}, buf)
    buf.seek(0)
    ours = tt.load(buf)
    assert ours["z"].dtype is tt.complex64 and ours["d"] is tt.complex64
    np.testing.assert_array_equal(ours["z"].numpy(), [1 + 2j])


@pytest.mark.parametrize("make", [lambda T: T.full((2,), 1j), lambda T: T.full((2,), 1j, dtype=T.cdouble),
                                  lambda T: T.ones(2, dtype=T.cfloat).fill_(2j),
                                  lambda T: T.zeros(2, dtype=T.cfloat).new_full((2,), 3 + 1j)])
def test_fill_with_complex(make):
    _same(make(tt), make(torch))


# -- reductions with real results: norms and variances (through |z| and the parts) -----------------------
@pytest.mark.parametrize("fn", [
    lambda T, z: T.linalg.vector_norm(z), lambda T, z: T.linalg.vector_norm(z, 1, dim=1),
    lambda T, z: T.linalg.vector_norm(z, float("inf")), lambda T, z: T.linalg.vector_norm(z, 3, dim=0, keepdim=True),
    lambda T, z: T.linalg.matrix_norm(z), lambda T, z: T.linalg.matrix_norm(z, 1), lambda T, z: T.norm(z),
    lambda T, z: z.norm(dim=1), lambda T, z: T.linalg.norm(z), lambda T, z: T.nn.functional.normalize(z, dim=1).abs(),
    lambda T, z: z.var(), lambda T, z: z.var(1), lambda T, z: z.std(0, keepdim=True),
    lambda T, z: T.var(z, 1, correction=0), lambda T, z: T.var_mean(z, 1)[0] + T.var_mean(z, 1)[1].abs(),
    lambda T, z: T.std_mean(z)[0],
    lambda T, z: T.addcmul(z, z, z.conj(), value=0.5).abs(), lambda T, z: T.addmm(z[:, :3], z, z.mT).abs(),
    lambda T, z: T.baddbmm(z[:, :3], z[None], z.mT[None]).abs(), lambda T, z: T.cumprod(z, 1).abs(),
    lambda T, z: (z ** (z * 0.5)).abs(), lambda T, z: T.addcdiv(z, z, z + 3, value=2).abs(),
])
def test_real_valued_reductions_and_products(fn):
    results = []
    for T in (tt, torch):
        z = T.tensor(Z.astype(np.complex128), requires_grad=True)
        y = fn(T, z)
        y.sum().backward()
        results.append((y, z.grad))
    _same(results[0][0], results[1][0], rtol=1e-10, atol=1e-12)
    _same(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda T, z, w: T.lerp(z, w, 0.3), lambda T, z, w: T.lerp(z, w, T.full_like(z.real, 0.7).to(z.dtype)),
    lambda T, z, w: T.isclose(z, z + 1e-3j, rtol=0, atol=1e-2), lambda T, z, w: T.isclose(z, w),
    lambda T, z, w: T.float_power(z, 2), lambda T, z, w: T.float_power(z.real, 0.5j),
])
def test_more_functions(fn):
    _same(fn(tt, tt.tensor(Z), tt.tensor(W)), fn(torch, torch.tensor(Z), torch.tensor(W)), rtol=1e-5, atol=1e-6)
    assert tt.allclose(tt.tensor(Z), tt.tensor(Z) + 1e-9j) == torch.allclose(torch.tensor(Z), torch.tensor(Z) + 1e-9j)


def test_lerp_gradient():
    results = []
    for T in (tt, torch):
        z = T.tensor(Z.astype(np.complex128), requires_grad=True)
        w = T.tensor(W.astype(np.complex128), requires_grad=True)
        T.lerp(z, w, 0.25).abs().sum().backward()
        results.append((z.grad, w.grad))
    _same(results[0][0], results[1][0], rtol=1e-10, atol=1e-12)
    _same(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)
