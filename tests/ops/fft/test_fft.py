"""tinytorch.fft against torch.fft: values, dtypes, grad_fn names, gradients (first and second) and
errors for every transform, ``n``/``s``/``dim``/``norm``; frequencies and shifts."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

RNG = np.random.default_rng(0)
REAL = RNG.standard_normal((4, 6))
CPLX = RNG.standard_normal((4, 6)) + 1j * RNG.standard_normal((4, 6))


def _np(t):
    return t.detach().resolve_conj().numpy()


def _weights(shape, is_complex):
    rng = np.random.default_rng(1)
    w = rng.standard_normal(shape)
    return w + 1j * rng.standard_normal(shape) if is_complex else w


def _run(T, fn, data, dtype):
    """fn's output, its dtype name, its grad_fn name and the gradient of a random real projection."""
    x = T.tensor(data, dtype=getattr(T, dtype), requires_grad=True)
    y = fn(T, x)
    w = T.tensor(_weights(tuple(y.shape), y.is_complex()), dtype=y.dtype)
    loss = (y * w.conj()).real.sum() if y.is_complex() else (y * w).sum()
    loss.backward()
    return _np(y), str(y.dtype).split(".")[-1], type(y.grad_fn).__name__, _np(x.grad)


def _compare(fn, data, dtype, tol):
    ours, theirs = _run(tt, fn, data, dtype), _run(torch, fn, data, dtype)
    assert ours[0].shape == theirs[0].shape
    np.testing.assert_allclose(ours[0], theirs[0], rtol=tol, atol=tol)
    assert ours[1:3] == theirs[1:3]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=tol, atol=tol)


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
_REAL_ONLY = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("n", [None, 4, 9])
@pytest.mark.parametrize("name", ONE_D)
def test_one_dimensional(name, n, norm):
    for data in (REAL, CPLX):
        if name in _REAL_ONLY and data is CPLX:
            continue
        _compare(lambda T, x: getattr(T.fft, name)(x, n=n, norm=norm), data, "float64" if data is REAL else "complex128",
                 1e-10)


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
@pytest.mark.parametrize("s", [None, (3, 5), (5, 8), (-1, 4)])
@pytest.mark.parametrize("name", N_D)
def test_n_dimensional(name, s, norm):
    for data in (REAL, CPLX):
        if name in _REAL_ONLY and data is CPLX:
            continue
        _compare(lambda T, x: getattr(T.fft, name)(x, s=s, norm=norm), data, "float64" if data is REAL else "complex128",
                 1e-10)


@pytest.mark.parametrize("call", [
    lambda T, x: T.fft.fft(x, dim=0), lambda T, x: T.fft.rfft(x, dim=0, n=7), lambda T, x: T.fft.irfft(x, dim=0),
    lambda T, x: T.fft.fftn(x, dim=(0,)), lambda T, x: T.fft.fftn(x, s=(3,), dim=[0]),
    lambda T, x: T.fft.rfftn(x, dim=(1, 0)), lambda T, x: T.fft.irfftn(x, s=(4, 6), dim=(1, 0)),
    lambda T, x: T.fft.hfftn(x.reshape(2, 2, 6), dim=(0, 2)), lambda T, x: T.fft.fftn(x.reshape(2, 2, 6)),
    lambda T, x: T.fft.fftshift(T.fft.fft2(x)), lambda T, x: T.fft.ifftshift(x, dim=1),
    lambda T, x: T.fft.fftshift(x, dim=(0, 1)),
])
def test_dims_float32(call):
    """float32 in, complex64 out (numpy computes in double and the result is cast)."""
    _compare(call, REAL, "float32", 1e-4)


@pytest.mark.parametrize("name", ["fft", "rfft", "ifft", "hfft", "fftn", "rfft2"])
def test_integer_input_dtype(name):
    results = [getattr(T.fft, name)(T.arange(8).reshape(2, 4)) for T in (tt, torch)]
    assert str(results[0].dtype).split(".")[-1] == str(results[1].dtype).split(".")[-1]
    np.testing.assert_allclose(_np(results[0]), _np(results[1]), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_second_derivatives(name):
    data = REAL if name in _REAL_ONLY else CPLX
    results = []
    for T in (tt, torch):
        x = T.tensor(data, requires_grad=True)
        y = getattr(T.fft, name)(x, n=5)
        w = T.tensor(_weights(tuple(y.shape), y.is_complex()), dtype=y.dtype)
        loss = ((y * w).abs() ** 2).sum()
        (g,) = T.autograd.grad(loss, x, create_graph=True)
        (gg,) = T.autograd.grad((g.abs() ** 2).sum(), x)
        results.append((_np(g), _np(gg)))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-8)


def test_gradcheck():
    # gradcheck works on real numbers: complex values go in and out as (real, imag) pairs, so both halves
    # of every complex gradient are checked
    x = tt.view_as_real(tt.tensor(CPLX[:2, :5])).detach().requires_grad_()
    assert tt.autograd.gradcheck(lambda z: tt.fft.irfft(tt.view_as_complex(z), n=7), (x,))
    r = tt.tensor(REAL[:2, :5], requires_grad=True)
    assert tt.autograd.gradcheck(lambda z: tt.view_as_real(tt.fft.rfft2(z, norm="ortho")), (r,))


@pytest.mark.parametrize("call", [
    lambda T: T.fft.fft(T.ones(4), n=0),
    lambda T: T.fft.irfft(T.ones(4, dtype=T.cfloat), n=0),
    lambda T: T.fft.rfft(T.ones(4, dtype=T.cfloat)),
    lambda T: T.fft.ihfft(T.ones(4, dtype=T.cfloat)),
    lambda T: T.fft.rfftn(T.ones(4, dtype=T.cfloat)),
    lambda T: T.fft.ihfftn(T.ones(2, 4, dtype=T.cfloat)),
    lambda T: T.fft.fft(T.ones(4), dim=2),
    lambda T: T.fft.fft(T.ones(4), norm="bad"),
    lambda T: T.fft.fftn(T.ones(4), s=(2, 3)),
    lambda T: T.fft.fft2(T.ones(4)),
    lambda T: T.fft.fftn(T.ones(4), s=(2, 2), dim=(0, 0)),
])
def test_errors(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(tt)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("call", [
    lambda T: T.fft.fftfreq(5), lambda T: T.fft.fftfreq(8, d=0.1), lambda T: T.fft.rfftfreq(7, 2.0),
    lambda T: T.fft.rfftfreq(8, dtype=T.float64), lambda T: T.fft.fftfreq(1),
    lambda T: T.fft.fftshift(T.fft.fftfreq(6)), lambda T: T.fft.ifftshift(T.arange(7)),
    lambda T: T.fft.fftshift(T.arange(12).reshape(3, 4)), lambda T: T.fft.fftshift(T.arange(12).reshape(3, 4), 1),
])
def test_frequencies_and_shifts(call):
    ours, theirs = call(tt), call(torch)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-6)


def test_out_and_namespace():
    out = tt.empty(0, dtype=tt.cfloat)
    tt.fft.fft(tt.ones(4), out=out)
    np.testing.assert_allclose(out.numpy(), torch.fft.fft(torch.ones(4)).numpy())
    public = {n for n in dir(torch.fft) if not n.startswith("_") and callable(getattr(torch.fft, n))} - {"Tensor"}
    assert public <= set(dir(tt.fft)), public - set(dir(tt.fft))


def test_roundtrip_float32():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = tt.randn(3, 16)
        np.testing.assert_allclose(tt.fft.irfft(tt.fft.rfft(x), n=16).numpy(), x.numpy(), atol=1e-5)
        np.testing.assert_allclose(tt.fft.ifft(tt.fft.fft(x)).real.numpy(), x.numpy(), atol=1e-5)


_LAYOUT_CASES = [  # (transform, input shape, complex input, dim): results and gradients laid out by the plan
    ("fft", (4, 6), True, 0), ("ifft", (3, 4, 5), True, 1), ("rfft", (3, 4, 5), False, 0),
    ("irfft", (3, 4, 5), True, 1), ("hfft", (4, 6), True, 0), ("ihfft", (3, 4, 5), False, 1), ("fft", (3, 4, 5), False, -1),
    ("fftn", (3, 4, 5), True, (1, 0)), ("fftn", (2, 3, 4, 6), True, None), ("rfftn", (3, 4, 5), False, (1, 0)),
    ("rfftn", (2, 3, 4, 6), False, (0, 2)), ("irfftn", (3, 4, 5), True, (0, 1)), ("hfftn", (3, 4, 5), True, (1, 0)),
    ("ihfftn", (2, 3, 4, 6), False, (1, 2)), ("fft2", (2, 3, 4, 6), True, (-1, 0)),
]


@pytest.mark.parametrize("transposed", [False, True])
def test_cpu_layouts_as_pytorch(transposed):
    """The results and input gradients of transforms over dims other than the last (or over several) have the
    strides PyTorch's CPU kernels give them (the batch dims outermost in the input's order of strides, then the
    transformed ones), over C-ordered and transposed inputs, with PyTorch's values."""
    for name, shape, is_complex, dim in _LAYOUT_CASES:
        data = RNG.standard_normal(shape) + (1j * RNG.standard_normal(shape) if is_complex else 0)
        seen = []
        for T in (torch, tt):
            x = T.tensor(data.astype(np.complex64 if is_complex else np.float32))
            x = (x.transpose(0, -1).contiguous().transpose(0, -1) if transposed else x).requires_grad_()
            y = getattr(T.fft, name)(x, dim=dim)
            w = _weights(tuple(y.shape), y.is_complex())
            w = T.tensor(w.astype(np.complex64 if y.is_complex() else np.float32))
            seen.append((x.stride(), y, T.autograd.grad(y, x, w)[0]))
        (txs, ty, tg), (oxs, oy, og) = seen
        assert oxs == txs
        for what, want, got in (("y", ty, oy), ("grad", tg, og)):
            assert got.stride() == want.stride(), (name, shape, dim, transposed, what)
            np.testing.assert_allclose(_np(got), _np(want), rtol=1e-4, atol=1e-4, err_msg=f"{name} {dim} {what}")
