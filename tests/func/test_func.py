"""tinytorch.func against torch.func: grad/vjp/jvp/jacrev/jacfwd/hessian, functional_call, and vmap
(vs a Python loop over the samples and vs torch.func.vmap)."""
import numpy as np
import pytest

import tinytorch
from tinytorch import func as tfunc

torch = pytest.importorskip("torch")
import torch.func as TF  # noqa: E402

RNG = np.random.default_rng(1)
X = RNG.standard_normal((4, 3))
W = RNG.standard_normal((5, 3))
V = RNG.standard_normal(3)
LIBS = ((tinytorch, tfunc), (torch, TF))


def _same(a, b, tol=1e-10):
    if isinstance(b, dict):
        assert isinstance(a, dict) and a.keys() == b.keys()
        for k in b:
            _same(a[k], b[k], tol)
        return
    if isinstance(b, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _same(x, y, tol)
        return
    if not isinstance(b, (torch.Tensor, tinytorch.Tensor)):
        assert a == b
        return
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    assert a.requires_grad == b.requires_grad


def _both(build):
    return [build(L, M) for L, M in LIBS]


# -- grad family --------------------------------------------------------------------------------
SCALAR_FNS = [
    ("poly", lambda L: lambda x: (x ** 3 - 2 * x).sum()),
    ("trig", lambda L: lambda x: (x.sin() * x.cos().exp()).mean()),
    ("softmax", lambda L: lambda x: (L.softmax(x, -1) * x).sum()),
    ("logsumexp", lambda L: lambda x: L.logsumexp(x, dim=0).sum()),
    ("matmul", lambda L: lambda x: (x @ x.t()).tanh().sum()),
]


@pytest.mark.parametrize("name,fn", SCALAR_FNS, ids=[f[0] for f in SCALAR_FNS])
def test_grad_jacobians_hessian(name, fn):
    def build(L, M):
        f = fn(L)
        x = L.tensor(X)
        x0 = L.tensor(X[0])
        g = lambda t: f(t).reshape(())  # noqa: E731
        return (M.grad(g)(x), M.grad_and_value(g)(x), M.jacrev(lambda t: t * f(t))(x0),
                M.jacfwd(lambda t: t * f(t))(x0), M.hessian(g)(x0))
    _same(*_both(build))


def test_argnums_has_aux_and_pytrees():
    def build(L, M):
        x, w = L.tensor(X), L.tensor(W)

        def f(a, b):
            y = (a @ b.t()).sigmoid().sum()
            return y, {"y": y, "z": (a * 2,)}
        return (M.grad(f, argnums=(0, 1), has_aux=True)(x, w),
                M.grad(lambda d: (d["a"] * d["b"][0]).sum())({"a": L.tensor(V), "b": (L.tensor(V),)}),
                M.grad(f, argnums=-1, has_aux=True)(x, w)[0],
                M.jacrev(lambda a, b: (a * b, a.sum()), argnums=(0, 1))(L.tensor(V), L.tensor(V)),
                M.jacfwd(lambda a, b: (a * b, a.sum()), argnums=1)(L.tensor(V), L.tensor(V)))
    _same(*_both(build))


def test_vjp_and_jvp():
    def build(L, M):
        x = L.tensor(X)
        out, fn = M.vjp(lambda t: (t.exp() * t, t.sum()), x)
        g = fn((L.ones(4, 3, dtype=L.float64), L.tensor(2.0, dtype=L.float64)))
        out2, tan = M.jvp(lambda a, b: (a * b).sin(), (x, x), (L.ones(4, 3, dtype=L.float64), x))
        out3, tan3, aux = M.jvp(lambda a: (a.cos(), a), (x,), (x,), has_aux=True)
        return out, g, out2, tan, out3, tan3, aux
    _same(*_both(build))


def test_transforms_see_outside_parameters():
    # a captured tensor that requires grad keeps its graph through the transform, as torch.func's does
    def build(L, M):
        w = L.tensor(V, requires_grad=True)
        g = M.grad(lambda x: (x * w).sin().sum())(L.tensor(V))
        (gw,) = L.autograd.grad(g.sum(), w)
        return g, gw
    _same(*_both(build))


def test_functional_call():
    tinytorch.manual_seed(0)
    m = tinytorch.nn.Sequential(tinytorch.nn.Linear(3, 4), tinytorch.nn.ReLU(), tinytorch.nn.Linear(4, 2))
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    with torch.no_grad():
        for (_, p), (_, q) in zip(m.named_parameters(), tm.named_parameters()):
            q.copy_(torch.tensor(p.detach().numpy()))
    res = []
    for L, M, mod in ((tinytorch, tfunc, m), (torch, TF, tm)):
        params = {k: v.detach() for k, v in mod.named_parameters()}
        x = L.tensor(X, dtype=L.float32)
        new = {k: v * 2 for k, v in params.items()}
        out = M.functional_call(mod, new, (x,))
        g = M.grad(lambda p, M=M, mod=mod, x=x: M.functional_call(mod, p, (x,)).square().sum())(params)
        # per-sample gradients: vmap over the batch of grad of a one-sample loss
        y = L.tensor([0, 1, 1, 0])

        def loss(p, xi, yi, L=L, M=M, mod=mod):
            return L.nn.functional.cross_entropy(M.functional_call(mod, p, (xi[None],)), yi[None])
        ps = M.vmap(M.grad(loss), in_dims=(None, 0, 0))(params, x, y)
        res.append((out, g, ps, mod(x)))
    _same(*res, tol=1e-5)
    assert m[0].weight.grad is None  # the module's own parameters were untouched


# -- vmap -------------------------------------------------------------------------------------------
def _F(L):
    return L.nn.functional


VMAP_FNS = [
    ("unary_chain", lambda L, w: lambda x: x.exp().log1p().sqrt().tanh()),
    ("binary_scalar", lambda L, w: lambda x: 2 * x - x / 3 + x ** 2),
    ("broadcast_plain", lambda L, w: lambda x: x + w),
    ("compare_where", lambda L, w: lambda x: L.where(x > 0, x, -x * 0.5)),
    ("sum_dims", lambda L, w: lambda x: (x.sum(), x.sum(0), x.sum(-1, keepdim=True), x.mean((0, 1)))),
    ("reductions", lambda L, w: lambda x: (x.amax(1), x.max(0).values, x.argmax(), x.var(1), x.std(),
                                          L.logsumexp(x, 1))),
    ("softmax", lambda L, w: lambda x: (L.softmax(x, 1), x.log_softmax(-1), _F(L).softmin(x, 0))),
    ("shapes", lambda L, w: lambda x: (x.t(), x.reshape(-1), x.view(3, 2), x.unsqueeze(0).squeeze(0),
                                      x.permute(1, 0), x.transpose(0, 1), x.flatten(), x.T, x[1], x[:, :1],
                                      x[None, ..., 0], x.unsqueeze(-1).expand(2, 3, 4))),
    ("matmul_plain_right", lambda L, w: lambda x: x @ w.t()),
    ("matmul_plain_left", lambda L, w: lambda x: w @ x[0]),
    ("matmul_self", lambda L, w: lambda x: x @ x.t()),
    ("dot", lambda L, w: lambda x: x[0].dot(x[1])),
    ("linear_act", lambda L, w: lambda x: _F(L).gelu(_F(L).linear(x, w)).relu()),
    ("activations", lambda L, w: lambda x: (_F(L).silu(x), _F(L).elu(x), _F(L).softplus(x),
                                           _F(L).leaky_relu(x, 0.1), _F(L).sigmoid(x), L.clamp(x, -0.5, 0.5))),
    ("cat_stack", lambda L, w: lambda x: (L.cat([x, x * 2], 1), L.stack([x, L.ones_like(x)], 0))),
    # a plain tensor's method given the batch (gpytorch's sum_interaction_terms: neg_one.pow(k))
    ("plain_method_batched_arg", lambda L, w: lambda x: (w[0].mul(x), w[0].abs().pow(x), w[0].add(x, alpha=2),
                                                         w[0].atan2(x), w[0].maximum(x),
                                                         L.tensor(-1.0).pow(x.round()))),
    ("losses", lambda L, w: lambda x: (_F(L).mse_loss(x, x.sin()), _F(L).l1_loss(x, L.zeros_like(x)),
                                      _F(L).cross_entropy(x, L.tensor([0, 2])),
                                      _F(L).cross_entropy(x[0], L.tensor(1)))),
]


@pytest.mark.parametrize("name,fn", VMAP_FNS, ids=[f[0] for f in VMAP_FNS])
def test_vmap_vs_torch_and_loop(name, fn):
    xs = RNG.standard_normal((4, 2, 3))
    res = []
    for L, M in LIBS:
        f = fn(L, L.tensor(W[:3]) if name != "matmul_plain_left" else L.tensor(W))
        if name == "broadcast_plain":
            f = fn(L, L.tensor(W[:2, None, :]))
        x = L.tensor(xs)
        out = M.vmap(f)(x)
        # a loop over the samples, stacked, must give the same
        per = [f(x[i]) for i in range(4)]
        if isinstance(out, tuple):
            loop = tuple(L.stack([p[k] for p in per]) for k in range(len(out)))
        else:
            loop = L.stack(per)
        _same(out, loop)
        res.append(out)
    _same(*res)


def test_vmap_dims_and_nesting():
    ys = RNG.standard_normal((3, 4))
    zs = RNG.standard_normal((2, 3, 4))

    def build(L, M):
        x = L.tensor(X)
        y = L.tensor(ys)
        return (M.vmap(lambda a, b: a * b, in_dims=(0, 1))(x, y),
                M.vmap(lambda a: a.sum(0), in_dims=1, out_dims=0)(x),
                M.vmap(lambda a: (a, a * 2), out_dims=(0, 1))(x),
                M.vmap(lambda a, b: a + b, in_dims=(0, None))(x, L.tensor(V)),
                M.vmap(M.vmap(lambda a: a * a.sum()))(L.tensor(zs)),
                M.vmap(M.vmap(lambda a, b: a @ b, in_dims=(None, 1)), in_dims=(0, None))(x.reshape(2, 2, 3), L.tensor(W[:3].T)),
                M.vmap(lambda a: L.ones(2, dtype=L.float64))(x),
                M.vmap(M.jacrev(lambda a: a.sin() * a.sum()))(x),
                M.vmap(M.jacfwd(lambda a: a.exp() @ a))(x),
                M.vmap(M.hessian(lambda a: (a ** 3).sum()))(x))
    _same(*_both(build))


VMAP_ERRORS = [
    ("sizes", lambda L, M: M.vmap(lambda a, b: a + b)(L.ones(2, 3), L.ones(3, 3))),
    ("in_dim_range", lambda L, M: M.vmap(lambda a: a, in_dims=2)(L.ones(3))),
    ("item", lambda L, M: M.vmap(lambda a: a.sum().item())(L.ones(2, 3))),
    ("non_tensor_out", lambda L, M: M.vmap(lambda a: 3)(L.ones(3))),
    ("grad_not_scalar", lambda L, M: M.grad(lambda a: a * 2)(L.ones(3))),
    ("argnum", lambda L, M: M.grad(lambda a: a.sum(), argnums=1)(L.ones(3))),
    ("has_aux", lambda L, M: M.grad(lambda a: a.sum(), has_aux=True)(L.ones(3))),
    ("not_tensor", lambda L, M: M.grad(lambda a: a.sum())(3.0)),
]


@pytest.mark.parametrize("name,call", VMAP_ERRORS, ids=[e[0] for e in VMAP_ERRORS])
def test_errors_vs_torch(name, call):
    got = []
    for L, M in LIBS:
        with pytest.raises(Exception) as info:
            call(L, M)
        got.append((type(info.value), str(info.value)))
    assert got[0][0] is got[1][0], got
    assert got[0][1] == got[1][1], got


def test_vmap_unsupported_op_is_an_error_not_a_loop():
    with pytest.raises(RuntimeError, match="vmap"):
        tfunc.vmap(lambda a: a.nonzero())(tinytorch.ones(2, 3))  # a data-dependent shape
    # an in-place op into an unbatched tensor cannot hold the batch (PyTorch refuses too); into a batched
    # one it is the batching rule written back (tests/func/test_func_ensembling.py compares it with PyTorch)
    with pytest.raises(RuntimeError, match="vmap"):
        y = tinytorch.ones(3)
        tfunc.vmap(lambda a: y.add_(a))(tinytorch.ones(2, 3))
    # the namespace is restored afterwards, Tensor's methods too (a plain tensor's method given a batch
    # wraps them for one more run of the function)
    plain_pow = tinytorch.Tensor.pow
    tfunc.vmap(lambda a: tinytorch.ones(3).pow(a))(tinytorch.ones(2, 3))
    assert tinytorch.Tensor.pow is plain_pow
    assert tinytorch.exp.__module__ != "tinytorch.func._vmap" or tinytorch.exp(tinytorch.ones(1)).item() > 2
    assert "dispatcher" not in repr(tinytorch.nn.functional.relu)


def test_vmap_is_vectorised():
    # one batched call: the function body runs once, whatever the batch size
    calls = []

    def f(a):
        calls.append(1)
        return a.exp().sum()
    tfunc.vmap(f)(tinytorch.ones(64, 3))
    assert len(calls) == 1


def _ntk_setup(L, M):
    """PyTorch's neural tangent kernel tutorial, on a small CNN in float64 (its fnet_single and data)."""
    nn = L.nn

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 4, (3, 3))
            self.conv2 = nn.Conv2d(4, 4, (3, 3))
            self.fc = nn.Linear(4 * 4 * 4, 3)

        def forward(self, x):
            return self.fc(self.conv2(self.conv1(x).relu()).relu().flatten(1))

    net = CNN().double()
    rng = np.random.default_rng(7)  # values from numpy: PyTorch's float32 init differs between its CPU paths
    params = {k: L.tensor(rng.standard_normal(tuple(v.shape)) * 0.3) for k, v in net.named_parameters()}
    x1, x2 = L.tensor(rng.standard_normal((3, 3, 8, 8))), L.tensor(rng.standard_normal((2, 3, 8, 8)))

    def fnet_single(params, x):
        return M.functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)
    return fnet_single, params, x1, x2


def _ntk_vps(L, M):
    fnet_single, params, x1, x2 = _ntk_setup(L, M)

    def get_ntk(x1, x2):
        output, vjp_fn = M.vjp(lambda p: fnet_single(p, x1), params)

        def get_ntk_slice(vec):
            vjps = vjp_fn(vec)  # vec @ J(x1)
            return M.jvp(lambda p: fnet_single(p, x2), (params,), vjps)[1]  # J(x2) @ vjps
        basis = L.eye(output.numel(), dtype=output.dtype).view(output.numel(), -1)
        return M.vmap(get_ntk_slice)(basis)
    return M.vmap(M.vmap(get_ntk, (None, 0)), (0, None))(x1, x2)


def _ntk_jacobian_contraction(L, M):
    fnet_single, params, x1, x2 = _ntk_setup(L, M)
    jac1 = [j.flatten(2) for j in M.vmap(M.jacrev(fnet_single), (None, 0))(params, x1).values()]
    jac2 = [j.flatten(2) for j in M.vmap(M.jacrev(fnet_single), (None, 0))(params, x2).values()]
    return L.stack([L.einsum("Naf,Mbf->NMab", j1, j2) for j1, j2 in zip(jac1, jac2)]).sum(0)


def _per_sample_grads_by_closure(L, M):
    fnet_single, params, x1, _ = _ntk_setup(L, M)
    return M.vmap(lambda x: M.grad(lambda p: fnet_single(p, x).square().sum())(params))(x1)


@pytest.mark.parametrize("build", [_ntk_vps, _ntk_jacobian_contraction, _per_sample_grads_by_closure])
def test_ntk_tutorial_as_pytorch(build):
    # vmap over vjp_fn / jvp of a functional_call whose outputs are batched through a tensor the function closed
    # over (x1 and x2 of outer vmaps): tinytorch's batching cannot follow, so vmap runs those levels per sample
    ours, theirs = _both(build)
    _same(ours, theirs, tol=1e-9)
