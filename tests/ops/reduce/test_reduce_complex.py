"""Complex inputs to reductions and statistics against PyTorch: logsumexp and logaddexp (values and
gradients under PyTorch's convention), the masked reductions (mean, var, std, logsumexp, normalize),
cov/corrcoef, addbmm with complex alpha/beta, vector_norm's dtype rules."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

RNG = np.random.default_rng(11)


def _c(*shape, dtype=np.complex64):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _close(ours, theirs, tol=2e-5):
    assert str(ours.dtype).replace("tinytorch.", "") == str(theirs.dtype).replace("torch.", "")
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().resolve_conj().numpy(), theirs.detach().resolve_conj().numpy(),
                               rtol=tol, atol=tol)


def _differential(fn, arrays, grads=True, same_node=True):
    t_in = [torch.tensor(a, requires_grad=grads and a.dtype.kind in "fc") for a in arrays]
    o_in = [tt.tensor(a, requires_grad=grads and a.dtype.kind in "fc") for a in arrays]
    t_out, o_out = fn(torch, *t_in), fn(tt, *o_in)
    _close(o_out, t_out)
    if not grads:
        return
    assert not same_node or type(o_out.grad_fn).__name__ == t_out.grad_fn.name()
    cot = _c(*t_out.shape) if t_out.is_complex() else RNG.standard_normal(tuple(t_out.shape)).astype(np.float32)
    leaves = [i for i, a in enumerate(arrays) if a.dtype.kind in "fc"]
    t_g = torch.autograd.grad(t_out, [t_in[i] for i in leaves], torch.tensor(cot), allow_unused=True)
    o_g = tt.autograd.grad(o_out, [o_in[i] for i in leaves], tt.tensor(cot), allow_unused=True)
    for ours, theirs, i in zip(o_g, t_g, leaves):
        if ours is None and theirs is not None:  # beta=0: PyTorch's zero gradient, tinytorch's no edge
            assert not theirs.abs().sum().item()
            continue
        assert (ours is None) == (theirs is None)
        if theirs is not None:
            _close(ours, theirs, 1e-4)


@pytest.mark.parametrize("dim,keepdim", [(1, False), ((0, 2), True), (-1, True)])
def test_logsumexp(dim, keepdim):
    x = _c(3, 4, 5)
    x[0, 0, 0] = 40 + 1j  # the shift by the largest real part keeps exp finite
    _differential(lambda T, x: T.logsumexp(x, dim, keepdim=keepdim), [x])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_logaddexp(dtype):
    a, b = _c(4, 5, dtype=dtype), _c(1, 5, dtype=dtype)
    b[0, 2] = 30 - 2j
    _differential(lambda T, a, b: T.logaddexp(a, b), [a, b])
    _differential(lambda T, a: T.logaddexp(a, T.tensor(1.5 - 0.5j, dtype=a.dtype)), [a])


MASK = np.array([[True, False, True, True, False], [False] * 5, [True] * 5])


@pytest.mark.parametrize("name,kwargs", [
    ("mean", {}), ("var", {}), ("std", {}), ("var", {"unbiased": False}), ("std", {"keepdim": True}),
    ("logsumexp", {}), ("sum", {}), ("prod", {}),
])
@pytest.mark.parametrize("masked", [True, False])
def test_masked_reductions(name, kwargs, masked):
    x = _c(3, 5)
    mask = {"mask": MASK} if masked else {}
    # a fully masked-out row makes NaN/inf gradients in both: compare values there, gradients on the rest
    grads = not (masked and name in ("var", "std", "mean", "logsumexp"))
    _differential(lambda T, x: getattr(T.masked, name)(
        x, 1, **kwargs, **({"mask": T.tensor(mask["mask"])} if mask else {})), [x], grads=grads)
    if masked:
        _differential(lambda T, x: getattr(T.masked, name)(x, 1, **kwargs, mask=T.tensor(MASK[[0, 2]])),
                      [x[[0, 2]]])


def test_masked_normalize():
    x = _c(3, 5)
    _differential(lambda T, x: T.masked.normalize(x, 2.0, 1, mask=T.tensor(MASK)), [x], grads=False)
    _differential(lambda T, x: T.masked.normalize(x, 2.0, 0), [x])


@pytest.mark.parametrize("kwargs", [{}, {"correction": 0}, {"fweights": np.array([3, 1, 2, 5])},
                                    {"aweights": np.array([0.5, 1.5, 1.0, 0.25], np.float32)}])
def test_cov_corrcoef(kwargs):
    x = _c(3, 4)

    def call(T, x):
        return T.cov(x, **{k: T.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()})

    _differential(call, [x])
    _differential(lambda T, x: T.corrcoef(x), [x])


@pytest.mark.parametrize("beta,alpha", [(1 + 2j, 2 + 3j), (0.6, 0.2), (0, 1j)])
def test_addbmm_complex_scalars(beta, alpha):
    _differential(lambda T, i, a, b: T.addbmm(i, a, b, beta=beta, alpha=alpha), [_c(4, 6), _c(3, 4, 5), _c(3, 5, 6)])
    _differential(lambda T, i, a, b: T.baddbmm(i, a, b, beta=beta, alpha=alpha), [_c(3, 4, 6), _c(3, 4, 5), _c(3, 5, 6)])


def test_vector_norm_dtype_rules():
    x = _c(3, 4)
    _differential(lambda T, x: T.linalg.vector_norm(x, 2, 0, dtype=T.complex128), [x])
    for call in (lambda T: T.linalg.vector_norm(T.tensor(x), 2, 0, dtype=T.float32),
                 lambda T: T.linalg.vector_norm(T.ones(3), 2, 0, dtype=T.complex64)):
        with pytest.raises(RuntimeError) as theirs:
            call(torch)
        with pytest.raises(RuntimeError) as ours:
            call(tt)
        assert str(ours.value) == str(theirs.value)
