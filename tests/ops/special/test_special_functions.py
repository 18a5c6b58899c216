"""torch.special's functions against PyTorch: values in float32/float64 over representative ranges and
edge values (0, negatives, +-inf, nan, large), gradients and gradcheck in float64, grad_fn names,
the functions PyTorch does not differentiate, error texts, and SciPy staying optional."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tinytorch
from tinytorch.autograd import gradcheck, gradgradcheck

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
pytest.importorskip("scipy")

EDGES = [-np.inf, -700.0, -50.0, -10.0, -3.0, -1.0, -0.5, -1e-3, -0.0, 0.0, 1e-3, 0.3, 1.0, 2.5, 7.0, 20.0,
         100.0, 700.0, np.inf, np.nan]
# PyTorch's own Bessel kernels carry ~1e-6 absolute error beyond |x| = 5 (SciPy's agree with mpmath)
LOOSE = {"bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"}
UNARY = ["i0", "i0e", "i1", "i1e", "erfcx", "ndtr", "log_ndtr", "entr", "sinc", "bessel_j0", "bessel_j1",
         "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
         "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
         "airy_ai"]


def _close(a, b, dtype, loose=False):
    rtol = 1e-5 if dtype == "float32" else 1e-12
    atol = 1e-5 if loose else 0.0
    np.testing.assert_allclose(np.asarray(b, dtype=np.float64), a.astype(np.float64), rtol=rtol, atol=atol,
                               equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_values(name, dtype):
    x = np.array(EDGES, dtype=dtype)
    expected = getattr(torch.special, name)(torch.tensor(x)).numpy()
    got = getattr(tinytorch.special, name)(tinytorch.tensor(x))
    assert str(got.dtype).split(".")[-1] == dtype
    _close(expected, got.numpy(), dtype, loose=name in LOOSE)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ndtri_values(dtype):
    p = np.array([-1.0, 0.0, 1e-30, 1e-6, 0.01, 0.3, 0.5, 0.9, 1 - 1e-7, 1.0, 2.0, np.nan], dtype=dtype)
    _close(torch.special.ndtri(torch.tensor(p)).numpy(), tinytorch.special.ndtri(tinytorch.tensor(p)).numpy(), dtype)


def test_integer_inputs_compute_in_float():
    for name in ("i0e", "erfcx", "bessel_j0", "entr"):
        got = getattr(tinytorch.special, name)(tinytorch.tensor([0, 1, 2]))
        expected = getattr(torch.special, name)(torch.tensor([0, 1, 2]))
        assert str(got.dtype) == str(expected.dtype).replace("torch", "tinytorch")
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


BINARY = [("xlogy", [0.0, 0.0, 1.5, -2.0, 3.0, 0.0], [0.0, np.nan, 2.0, 3.0, -1.0, -1.0]),
          ("xlog1py", [0.0, 0.0, 1.5, -2.0, 3.0, 0.0], [-1.0, np.nan, 2.0, 3.0, -2.0, -1.5]),
          ("zeta", [2.0, 1.0, 0.5, 3.0, 4.5, -1.0, 2.0], [1.0, 2.0, 2.0, 0.5, 7.0, 2.0, -2.0]),
          ("gammainc", [0.5, 1.0, 2.0, 10.0, 0.0, 3.0, -1.0], [0.5, 0.0, 3.0, 12.0, 1.0, np.inf, 1.0]),
          ("gammaincc", [0.5, 1.0, 2.0, 10.0, 0.0, 3.0, -1.0], [0.5, 0.0, 3.0, 12.0, 1.0, np.inf, 1.0])]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,a,b", BINARY)
def test_binary_values(name, a, b, dtype):
    a, b = np.array(a, dtype=dtype), np.array(b, dtype=dtype)
    expected = getattr(torch.special, name)(torch.tensor(a), torch.tensor(b)).numpy()
    _close(expected, getattr(tinytorch.special, name)(tinytorch.tensor(a), tinytorch.tensor(b)).numpy(), dtype)


def test_scalar_operands_and_spellings():
    x = [0.5, 2.0, 3.0]
    for fn in (lambda T: T.xlogy(2.0, T.tensor(x)), lambda T: T.xlogy(T.tensor(x), 3),
               lambda T: T.special.zeta(2.0, T.tensor(x)), lambda T: T.special.xlog1py(T.tensor(x), 0.5),
               lambda T: T.tensor(x).xlogy(T.tensor(x)), lambda T: T.tensor(x).igamma(T.tensor(x)),
               lambda T: T.igammac(T.tensor(x), T.tensor(x)), lambda T: T.i0(T.tensor(x)),
               lambda T: T.tensor(x).sinc(), lambda T: T.mvlgamma(T.tensor(x) + 2, 3),
               lambda T: T.special.multigammaln(T.tensor(x) + 2, 2), lambda T: T.tensor(x).i0_(),
               lambda T: T.special.softmax(T.tensor(x), 0), lambda T: T.special.log_softmax(T.tensor(x), 0),
               lambda T: T.special.logsumexp(T.tensor(x), 0)):
        np.testing.assert_allclose(fn(tinytorch).numpy(), fn(torch).numpy(), rtol=1e-6)


GRAD = [("i0", [-3.0, -0.5, 0.0, 0.7, 4.0]), ("i0e", [-3.0, -0.5, 0.3, 0.7, 4.0]),
        ("i1", [-3.0, -0.5, 0.0, 0.7, 4.0]), ("i1e", [-3.0, -0.5, 0.0, 0.7, 4.0]),
        ("erfcx", [-2.0, -0.3, 0.0, 1.0, 5.0]), ("ndtr", [-3.0, 0.0, 1.5]),
        ("log_ndtr", [-10.0, -2.0, 0.0, 3.0]), ("ndtri", [0.01, 0.3, 0.5, 0.97]),
        ("entr", [0.1, 0.5, 2.0]), ("sinc", [-1.3, 0.0, 0.4, 2.5])]


@pytest.mark.parametrize("name,x", GRAD)
def test_gradients(name, x):
    a = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    b = tinytorch.tensor(x, dtype=tinytorch.float64, requires_grad=True)
    ya, yb = getattr(torch.special, name)(a), getattr(tinytorch.special, name)(b)
    if name != "ndtr":   # PyTorch's composite ends in MulBackward1 (a tensor times a number)
        assert type(yb.grad_fn).__name__ == ya.grad_fn.name()
    (ga,) = torch.autograd.grad(ya.sum(), a, create_graph=True)
    (gb,) = tinytorch.autograd.grad(yb.sum(), b, create_graph=True)
    np.testing.assert_allclose(gb.detach().numpy(), ga.detach().numpy(), rtol=1e-10, atol=1e-12)
    (gga,) = torch.autograd.grad(ga.sum(), a)
    (ggb,) = tinytorch.autograd.grad(gb.sum(), b)
    ok = ~np.isnan(gga.numpy())
    np.testing.assert_allclose(ggb.numpy()[ok], gga.numpy()[ok], rtol=1e-8, atol=1e-10)
    if name not in ("sinc", "i1", "i1e"):   # their x = 0 branches are not smooth in the numeric sense
        inp = tinytorch.tensor(x, dtype=tinytorch.float64, requires_grad=True)
        assert gradcheck(getattr(tinytorch.special, name), (inp,))
        assert gradgradcheck(getattr(tinytorch.special, name), (inp,))


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "zeta", "gammainc", "gammaincc"])
def test_binary_gradients(name):
    a_val, b_val = [0.0, 1.5, 2.5, 3.0], [0.5, 1.5, 2.0, 4.0]
    first = name in ("xlogy", "xlog1py")
    ta, tb = (torch.tensor(v, dtype=torch.float64, requires_grad=r) for v, r in ((a_val, first), (b_val, True)))
    ua, ub = (tinytorch.tensor(v, dtype=tinytorch.float64, requires_grad=r)
              for v, r in ((a_val, first), (b_val, True)))
    ya, yb = getattr(torch.special, name)(ta, tb), getattr(tinytorch.special, name)(ua, ub)
    assert type(yb.grad_fn).__name__ == ya.grad_fn.name()
    wrt_a, wrt_u = ([ta, tb], [ua, ub]) if first else ([tb], [ub])
    for ga, gb in zip(torch.autograd.grad(ya.sum(), wrt_a), tinytorch.autograd.grad(yb.sum(), wrt_u)):
        np.testing.assert_allclose(gb.numpy(), ga.numpy(), rtol=1e-10)
    ub2 = tinytorch.tensor(b_val, dtype=tinytorch.float64, requires_grad=True)
    assert gradcheck(lambda q: getattr(tinytorch.special, name)(tinytorch.tensor(a_val[1:] + [2.0],
                                                                                 dtype=tinytorch.float64), q), (ub2,))


@pytest.mark.parametrize("name,what", [("zeta", "zeta"), ("gammainc", "igamma: input"),
                                       ("gammaincc", "igammac: input")])
def test_first_argument_not_differentiable(name, what):
    a = tinytorch.tensor([1.5, 2.5], dtype=tinytorch.float64, requires_grad=True)
    y = getattr(tinytorch.special, name)(a, tinytorch.tensor([1.0, 2.0], dtype=tinytorch.float64))
    with pytest.raises(NotImplementedError, match=f"the derivative for '{what}' is not implemented."):
        y.sum().backward()


def test_not_differentiable_functions():
    x = tinytorch.tensor([0.5, 1.5], requires_grad=True)
    for name in ("bessel_j0", "modified_bessel_k1", "airy_ai", "spherical_bessel_j0"):
        y = getattr(tinytorch.special, name)(x)
        assert not y.requires_grad and y.grad_fn is None
    assert not tinytorch.special.hermite_polynomial_h(x, 3).requires_grad


def test_mvlgamma_values_and_gradient():
    x = [1.6, 2.0, 4.5, 10.0]
    a = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    b = tinytorch.tensor(x, dtype=tinytorch.float64, requires_grad=True)
    ya, yb = torch.mvlgamma(a, 3), tinytorch.mvlgamma(b, 3)
    np.testing.assert_allclose(yb.detach().numpy(), ya.detach().numpy(), rtol=1e-13)
    assert type(yb.grad_fn).__name__ == ya.grad_fn.name()
    np.testing.assert_allclose(tinytorch.autograd.grad(yb.sum(), b)[0].numpy(),
                               torch.autograd.grad(ya.sum(), a)[0].numpy(), rtol=1e-12)
    assert gradcheck(lambda t: tinytorch.mvlgamma(t, 2), (b,))


POLYS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
         "laguerre_polynomial_l", "legendre_polynomial_p"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", POLYS)
def test_polynomials(name, dtype):
    # nan inputs are left out: PyTorch's vectorized loop gives the neighbouring lane's value there
    x = np.array([-3.0, -1.0, -0.7, -0.0, 0.0, 0.2, 0.5, 1.0, 1.3, 4.0, np.inf], dtype=dtype)[:, None]
    n = np.array([-2.0, 0.0, 1.0, 2.0, 3.0, 4.7, 6.0, 7.0, 9.0, 12.0, 25.0], dtype=dtype)
    expected = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    got = getattr(tinytorch.special, name)(tinytorch.tensor(x), tinytorch.tensor(n)).numpy()
    assert got.dtype == expected.dtype
    if dtype == "float32" and not _paths.running(_paths.FMA_PATHS):
        # PyTorch's DEFAULT build rounds each multiply-add of the float32 recurrences twice (its AVX2/AVX512
        # builds fuse them, as tinytorch's steps): there within 32 ulp, counted at max(|value|, 1)
        # (laguerre n=25 at -0.7 measured 17)
        _paths.assert_bits(got, expected, ulps=32, scale=1.0, what=name)
        return
    np.testing.assert_allclose(got, expected, rtol=1e-6 if dtype == "float32" else 1e-10, atol=1e-6,
                               equal_nan=True)


def test_polynomial_scalar_arguments():
    for T in (torch, tinytorch):
        assert T.special.chebyshev_polynomial_t(T.tensor([1, 2]), 3).dtype == T.float32
    np.testing.assert_allclose(tinytorch.special.legendre_polynomial_p(0.3, tinytorch.tensor([2, 5])).numpy(),
                               torch.special.legendre_polynomial_p(0.3, torch.tensor([2, 5])).numpy(), rtol=1e-6)


def test_error_texts():
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        tinytorch.mvlgamma(tinytorch.tensor([2.0]), 0)
    with pytest.raises(RuntimeError, match="\"igamma_cpu\" not implemented for 'Long'"):
        tinytorch.special.gammainc(tinytorch.tensor([2]), tinytorch.tensor([2]))
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        tinytorch.special.i0e(tinytorch.tensor([1.0], requires_grad=True), out=tinytorch.empty(1))


def test_scipy_is_optional():
    """``import tinytorch`` does not import SciPy; without SciPy, numpy-only functions work and the
    others say how to install it."""
    code = ("import sys; sys.modules['scipy'] = None\n"
            "import tinytorch as t\n"
            "x = t.tensor([0.5])\n"
            "t.i0(x); t.xlogy(x, x); t.special.chebyshev_polynomial_t(x, 3); t.special.ndtr(x)\n"
            "try:\n    t.special.bessel_j0(x)\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install scipy" in out and "tinytorch-numpy[special]" in out
    out = subprocess.run([sys.executable, "-c", "import sys, tinytorch; print('scipy' in sys.modules)"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_erf_of_a_transposed_tensor_as_pytorch(dtype):
    """A few values at or above 1 (the large-argument formula, scattered back through a flat view) in a
    non-contiguous tensor, infinities among them, silently."""
    a = np.full((4, 5), 0.1, dtype)
    a[0, 1], a[1, 1], a[2, 3] = 3.0, np.inf, -np.inf
    want = torch.erf(torch.tensor(a).t()).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = tinytorch.erf(tinytorch.tensor(a).t()).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
