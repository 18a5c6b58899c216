"""Vectorised Jacobians: func.jacrev/jacfwd/hessian and autograd.functional.jacobian(vectorize=True)
against torch.func and torch.autograd.functional, with a check that the one-pass (vmap) path is the one
that ran, and that functions using ops outside vmap's table still get their Jacobian (by the loop)."""
import numpy as np
import pytest

import tinytorch
import tinytorch.func._vectorized as vec

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4))
Y = RNG.standard_normal(4)
W = RNG.standard_normal((5, 4))


def F(L):
    return L.nn.functional


# name -> (function of (library, *inputs), inputs, vectorised: whether vmap covers every op it uses)
FNS = {
    "elementwise": (lambda L, x: (x.sin() * x.exp() + x ** 2) / (1 + x.abs()), (X,), True),
    "matmul_tanh": (lambda L, x: (x @ L.tensor(W).t()).tanh(), (X,), True),
    "softmax_rows": (lambda L, x: L.softmax(x * 2, 1), (X,), True),
    "log_softmax_linear": (lambda L, x: F(L).log_softmax(F(L).linear(x, L.tensor(W)), -1), (X,), True),
    "reductions": (lambda L, x: (x.sum(0), x.mean(1), x.amax(1), L.logsumexp(x, 0)), (X,), True),
    "two_inputs": (lambda L, x, y: (x * y, (x @ y).exp(), x.reshape(-1)[:5] - y.sum()), (X, Y), True),
    "views": (lambda L, x: L.cat([x.t(), x[:2].t()], 1).unsqueeze(0) * x.sum(), (X,), True),
    "unused_input": (lambda L, x, y: x * 3, (X, Y), True),
    "scans": (lambda L, x: (x.cumsum(1) * x, x.cumprod(0), x.prod(1)), (X,), True),
    # masked_fill has no batching rule of its own: vmap runs it per sample (PyTorch's fallback), in the same pass
    "masked_fill_per_sample": (lambda L, x: x.masked_fill(x > 0, 0.5) * x, (X,), True),
}
SCALARS = {
    "poly": (lambda L, x: (x ** 3 * x.sin()).sum(), True),
    "mlp_loss": (lambda L, x: F(L).cross_entropy((x @ L.tensor(W).t()).tanh(), L.tensor([0, 3, 1])), True),
    "logsumexp": (lambda L, x: L.logsumexp(x * x, 1).mean(), True),
    "masked_fill_per_sample": (lambda L, x: (x.masked_fill(x > 0, 0.5) * x.sin()).sum() ** 2, True),
}


@pytest.fixture
def vmap_runs(monkeypatch):
    """Counts the batched (one pass) Jacobian computations that succeeded."""
    runs = []
    orig = vec._run

    def spy(*a):
        out = orig(*a)
        runs.append(1)
        return out
    monkeypatch.setattr(vec, "_run", spy)
    return runs


def _close(a, b, tol=1e-10):
    if isinstance(b, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, tol)
        return
    assert tuple(a.shape) == tuple(b.shape) and str(a.dtype)[10:] == str(b.dtype)[6:]
    assert a.requires_grad == b.requires_grad
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def _args(L, arrays):
    return [L.tensor(a) for a in arrays]


@pytest.mark.parametrize("name", list(FNS))
def test_func_jacrev_jacfwd(name, vmap_runs):
    fn, arrays, vectorised = FNS[name]
    nums = tuple(range(len(arrays)))
    for transform in ("jacrev", "jacfwd"):
        vmap_runs.clear()
        ours = getattr(tinytorch.func, transform)(lambda *a: fn(tinytorch, *a), argnums=nums)(*_args(tinytorch, arrays))
        theirs = getattr(torch.func, transform)(lambda *a: fn(torch, *a), argnums=nums)(*_args(torch, arrays))
        _close(ours, theirs)
        assert len(vmap_runs) == (1 if vectorised else 0), transform


@pytest.mark.parametrize("name", list(FNS))
def test_autograd_functional_jacobian_vectorize(name, vmap_runs):
    fn, arrays, vectorised = FNS[name]
    for strategy in ("reverse-mode", "forward-mode"):
        vmap_runs.clear()
        ours = tinytorch.autograd.functional.jacobian(lambda *a: fn(tinytorch, *a), tuple(_args(tinytorch, arrays)),
                                                      vectorize=True, strategy=strategy)
        theirs = torch.autograd.functional.jacobian(lambda *a: fn(torch, *a), tuple(_args(torch, arrays)),
                                                    vectorize=True, strategy=strategy)
        _close(ours, theirs)
        assert len(vmap_runs) == (1 if vectorised else 0), strategy


@pytest.mark.parametrize("name", list(SCALARS))
def test_hessians(name, vmap_runs):
    fn, vectorised = SCALARS[name]
    ours = tinytorch.func.hessian(lambda x: fn(tinytorch, x))(tinytorch.tensor(X))
    theirs = torch.func.hessian(lambda x: fn(torch, x))(torch.tensor(X))
    _close(ours, theirs, 1e-9)
    # the outer jacfwd is one vmap over the 12 input directions; the inner jacrev runs batched inside it
    assert len(vmap_runs) == (1 if vectorised else 0)
    for strategy in ("reverse-mode", "forward-mode"):
        vmap_runs.clear()
        ours = tinytorch.autograd.functional.hessian(lambda x: fn(tinytorch, x), tinytorch.tensor(X), vectorize=True,
                                                     outer_jacobian_strategy=strategy)
        theirs = torch.autograd.functional.hessian(lambda x: fn(torch, x), torch.tensor(X), vectorize=True,
                                                   outer_jacobian_strategy=strategy)
        if not vectorised and strategy == "forward-mode":
            # PyTorch's forward-mode Hessian leaks a graph (requires_grad=True); the batched path keeps
            # it as PyTorch does, the element loop does not: values only
            ours, theirs = ours.detach(), theirs.detach()
        _close(ours, theirs, 1e-9)
        assert len(vmap_runs) == (1 if vectorised else 0)


@pytest.mark.parametrize("strategy,create_graph", [("reverse-mode", False), ("reverse-mode", True),
                                                   ("forward-mode", False)])
def test_autograd_functional_hessian_of_several_inputs(strategy, create_graph, vmap_runs):
    def run(L):
        a, b = L.tensor(X[0], requires_grad=True), L.tensor(Y, requires_grad=True)
        unused = L.tensor(X[1], requires_grad=True)
        h = L.autograd.functional.hessian(lambda p, q, r: ((p * q).sin() * q.sum()).sum(), (a, b, unused),
                                          create_graph=create_graph, vectorize=True,
                                          outer_jacobian_strategy=strategy)
        flat = [blk for row in h for blk in row]
        g = L.autograd.grad(sum((blk ** 2).sum() for blk in flat), (a, b))[0] if create_graph else None
        return h, g
    (h1, g1), (h2, g2) = run(tinytorch), run(torch)
    _close(h1, h2, 1e-9)
    assert len(vmap_runs) == 1
    if create_graph:
        np.testing.assert_allclose(g1.numpy(), g2.numpy(), rtol=1e-9, atol=1e-9)


def test_create_graph_through_the_vectorised_jacobian():
    def run(L):
        x = L.tensor(X, requires_grad=True)
        jac = L.autograd.functional.jacobian(lambda t: (t @ L.tensor(W).t()).tanh() * t.sum(), x,
                                             create_graph=True, vectorize=True)
        g, = L.autograd.grad((jac ** 2).sum(), x)
        return jac, g
    (j1, g1), (j2, g2) = run(tinytorch), run(torch)
    _close(j1, j2)
    assert j1.grad_fn is not None
    np.testing.assert_allclose(g1.numpy(), g2.numpy(), rtol=1e-10, atol=1e-10)


def test_jacrev_of_a_parameter_keeps_the_outer_graph():
    def run(L):
        w = L.tensor(W, requires_grad=True)
        jac = L.func.jacrev(lambda x: (x @ w.t()).sigmoid())(L.tensor(X[0]))
        g, = L.autograd.grad(jac.sum(), w)
        return jac, g
    (j1, g1), (j2, g2) = run(tinytorch), run(torch)
    _close(j1, j2)
    np.testing.assert_allclose(g1.numpy(), g2.numpy(), rtol=1e-10, atol=1e-10)


def test_has_aux_and_float32():
    def run(L):
        x = L.tensor(X, dtype=L.float32)
        return L.func.jacrev(lambda t: (t.exp() * 2, t.sum()), has_aux=True)(x)
    (j1, a1), (j2, a2) = run(tinytorch), run(torch)
    _close(j1, j2, 1e-6)
    _close(a1, a2, 1e-6)


@pytest.mark.parametrize("chunk_size", [1, 5, 7, 100])
def test_jacrev_chunk_size(chunk_size, vmap_runs):
    fn, arrays, _ = FNS["two_inputs"]
    ours = tinytorch.func.jacrev(lambda *a: fn(tinytorch, *a), argnums=(0, 1), chunk_size=chunk_size)(
        *_args(tinytorch, arrays))
    theirs = torch.func.jacrev(lambda *a: fn(torch, *a), argnums=(0, 1), chunk_size=chunk_size)(*_args(torch, arrays))
    _close(ours, theirs)
    n_out = 12 + 3 + 5
    assert len(vmap_runs) == -(-n_out // chunk_size)  # one batched pass per chunk of rows


@pytest.mark.parametrize("chunk_size", [0, -1])
def test_jacrev_chunk_size_error(chunk_size):
    errors = []
    for L in (tinytorch, torch):
        with pytest.raises(ValueError) as e:
            L.func.jacrev(lambda x: x.sin(), chunk_size=chunk_size)(L.ones(3))
        errors.append(str(e.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("outer,inner", [("jacrev", "jacrev"), ("jacfwd", "jacfwd"), ("jacrev", "jacfwd")])
def test_nested_jacobians_and_per_sample_jacobians(outer, inner):
    def run(L):
        f = lambda x: (x @ L.tensor(W[:3]).t()).sin() * x[:3]  # noqa: E731  R^4 -> R^3
        second = getattr(L.func, outer)(getattr(L.func, inner)(f))(L.tensor(Y))
        per_sample = L.func.vmap(getattr(L.func, inner)(f))(L.tensor(X))  # inside vmap: the loop path
        return second, per_sample
    _close(run(tinytorch), run(torch), 1e-9)
