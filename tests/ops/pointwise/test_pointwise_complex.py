"""More ops on complex tensors against PyTorch (values and gradients under its convention): scalar **
complex tensor, ldexp, silu, logcumsumexp, matrix_exp, torch.gradient, var_mean/std_mean's
(input, unbiased) overload, isreal."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

RNG = np.random.default_rng(5)


def _c(*shape, dtype=np.complex64):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _close(ours, theirs, tol):
    assert str(ours.dtype).replace("tinytorch.", "") == str(theirs.dtype).replace("torch.", "")
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().resolve_conj().numpy(), theirs.detach().resolve_conj().numpy(),
                               rtol=tol, atol=tol)


def _differential(fn, arrays, tol=2e-5, grads=True, same_node=True):
    t_in = [torch.tensor(a, requires_grad=grads) for a in arrays]
    o_in = [tt.tensor(a, requires_grad=grads) for a in arrays]
    t_out, o_out = fn(torch, *t_in), fn(tt, *o_in)
    if isinstance(t_out, tuple):
        for o, t in zip(o_out, t_out):
            _close(o, t, tol)
        return
    _close(o_out, t_out, tol)
    if not grads:
        return
    assert not same_node or type(o_out.grad_fn).__name__ == t_out.grad_fn.name()
    cot = _c(*t_out.shape, dtype=arrays[0].dtype)
    t_g = torch.autograd.grad(t_out, t_in, torch.tensor(cot))
    o_g = tt.autograd.grad(o_out, o_in, tt.tensor(cot))
    for ours, theirs in zip(o_g, t_g):
        _close(ours, theirs, tol * 10)


@pytest.mark.parametrize("base", [2.0, 0.5, 1.5 - 0.5j])
def test_scalar_to_complex_power(base):
    _differential(lambda T, y: base ** y, [_c(3, 4)])


def test_ldexp():
    # tinytorch's ldexp is input * 2 ** other (MulBackward0, not LdexpBackward0): the gradients are compared
    _differential(lambda T, x, y: T.ldexp(x, y), [_c(3, 4), _c(1, 4)], same_node=False)


def test_silu():
    _differential(lambda T, x: T.nn.functional.silu(x), [_c(3, 4)], grads=False)
    for T in (torch, tt):  # PyTorch's silu has a complex kernel but no complex gradient
        with pytest.raises(RuntimeError, match="^silu does not support automatic differentiation for outputs "
                                               "with complex dtype.$"):
            T.nn.functional.silu(T.tensor(_c(3), requires_grad=True))
    with pytest.raises(NotImplementedError, match="^\"silu_cpu\" not implemented for 'Long'$"):
        tt.nn.functional.silu(tt.ones(2, dtype=tt.int64))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logcumsumexp(dim):
    _differential(lambda T, x: T.logcumsumexp(x, dim), [_c(4, 3, 5) * 3])
    _differential(lambda T, x: T.logcumsumexp(x, 0), [_c(4, dtype=np.complex128)], tol=1e-10)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_matrix_exp(dtype):
    _differential(lambda T, a: T.matrix_exp(a), [_c(2, 4, 4, dtype=dtype) * 0.7], tol=1e-4)


@pytest.mark.parametrize("kwargs", [{}, {"spacing": 2.0}, {"dim": 1, "edge_order": 2}, {"spacing": [2.0, 0.5]}])
def test_gradient(kwargs):
    x = _c(5, 6)
    theirs = torch.gradient(torch.tensor(x), **kwargs)
    ours = tt.gradient(tt.tensor(x), **kwargs)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        _close(o, t, 1e-5)


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
@pytest.mark.parametrize("unbiased", [True, False])
def test_moments_unbiased_overload(fn, unbiased):
    _differential(lambda T, x: getattr(T, fn)(x, unbiased), [_c(4, 5)], grads=False)


def test_isreal():
    x = np.array([1 + 0j, 2 - 1j, -0.0 + 0j, np.nan + 0j, 1 + np.nan * 1j], np.complex64)
    np.testing.assert_array_equal(tt.isreal(tt.tensor(x)).numpy(), torch.isreal(torch.tensor(x)).numpy())
    assert tt.isreal(tt.tensor(2.5)).item() is torch.isreal(torch.tensor(2.5)).item()


def test_vdot_conjugates_its_first_argument():
    # tinytorch's vdot is conj(input).dot(other) (DotBackward0, not VdotBackward0): values and gradients
    _differential(lambda T, a, b: T.vdot(a, b), [_c(5), _c(5)], same_node=False)


@pytest.mark.parametrize("value", [2.0 - 1j, -3.0 + 0j])
@pytest.mark.parametrize("p", [1.2, 2.0])
def test_normalize_of_a_scalar(value, p):
    _differential(lambda T, x: T.nn.functional.normalize(x, p=p, dim=0), [np.array(value, np.complex64)])
    _differential(lambda T, x: T.nn.functional.normalize(x, p=p, dim=-1), [np.array(value.real, np.float32)],
                  grads=False)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("fn", ["tanh", "abs", "neg"])
def test_quiet_unary_ops_on_nonfinite_complex_values_warn_as_pytorch(fn, dtype):
    """tanh, abs and neg skip numpy's error state on real inputs (they raise no warning there); numpy's complex
    tanh of an infinite imaginary part warns, PyTorch's does not: their values and warnings as PyTorch's, gradient
    through tanh too."""
    import warnings
    inf = float("inf")
    values = np.array([complex(inf, 0), complex(-inf, 1), complex(0, inf), complex(1, 1e30), complex(0, float("nan"))],
                      dtype=dtype)

    def run(lib):
        x = lib.tensor(values, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = getattr(lib, fn)(x)
            y.real.sum().backward()
        return y.detach().numpy(), x.grad.numpy(), [str(w.message) for w in caught]

    (y, g, warned), (y_t, g_t, warned_t) = run(tt), run(torch)
    assert warned == warned_t == []
    np.testing.assert_allclose(y, y_t, rtol=1e-6)
    np.testing.assert_allclose(g, g_t, rtol=1e-6)
