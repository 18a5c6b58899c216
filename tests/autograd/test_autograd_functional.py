"""autograd.functional against PyTorch: values, result structures, create_graph chains, strict errors."""
import numpy as np
import pytest

import tinytorch

torch = pytest.importorskip("torch")
import torch.autograd.functional as TF  # noqa: E402

from tinytorch.autograd import functional as F  # noqa: E402

RNG = np.random.default_rng(0)
X3 = RNG.standard_normal(3)
X23 = RNG.standard_normal((2, 3))
X1 = RNG.standard_normal(1)

# (name, function taking the library module, input arrays as a tuple or a single array)
FUNCS = [
    ("exp", lambda L: lambda x: x.exp(), X3),
    ("scalar_out", lambda L: lambda x: (x.sin() * x).sum(), X3),
    ("matrix", lambda L: lambda x: x @ x.t(), X23),
    ("tuple_in", lambda L: lambda a, b: (a.tanh() * b).sum(1), (X3, X23)),
    ("tuple_out", lambda L: lambda x: (x ** 2, x.sum()), X3),
    ("tuple_both", lambda L: lambda a, b: (a * b, (a.exp() + b).mean()), (X3, X3[::-1].copy())),
    ("softmax", lambda L: lambda x: L.softmax(x, dim=-1), X23),
    ("one_element", lambda L: lambda x: x * x, X1),
]


def _inputs(L, arrays, requires_grad=False):
    if isinstance(arrays, tuple):
        return tuple(L.tensor(a, requires_grad=requires_grad) for a in arrays)
    return L.tensor(arrays, requires_grad=requires_grad)


def _assert_same(a, b):
    if isinstance(b, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
        return
    assert isinstance(a, tinytorch.Tensor), type(a)
    assert tuple(a.shape) == tuple(b.shape)
    assert a.dtype.__repr__().split(".")[-1] == repr(b.dtype).split(".")[-1]
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert a.requires_grad == b.requires_grad


def _v_like(L, out):
    if isinstance(out, tuple):
        return tuple(_v_like(L, o) for o in out)
    return L.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))


@pytest.mark.parametrize("name,fn,arrays", FUNCS, ids=[f[0] for f in FUNCS])
@pytest.mark.parametrize("api", ["vjp", "jvp", "jacobian", "jacobian_fwd"])
def test_first_order_vs_torch(name, fn, arrays, api):
    results = []
    for L, mod in ((tinytorch, F), (torch, TF)):
        f = fn(L)
        inp = _inputs(L, arrays)
        if api == "jacobian":
            results.append(mod.jacobian(f, inp))
        elif api == "jacobian_fwd":
            results.append(mod.jacobian(f, inp, vectorize=True, strategy="forward-mode"))
        elif api == "vjp":
            out = f(*inp) if isinstance(inp, tuple) else f(inp)
            results.append(mod.vjp(f, inp, _v_like(L, out)))
        else:
            results.append(mod.jvp(f, inp, _v_like(L, inp)))
    _assert_same(*results)


SCALAR_FUNCS = [
    ("cubic", lambda x: (x ** 3).sum(), X3),
    ("mixed", lambda x: (x.exp() * x.sin()).mean(), X23),
    ("tuple", lambda a, b: (a * a * b.sum()).sum() + (b ** 3).sum(), (X3, X23)),
    ("linear", lambda x: (2 * x).sum(), X3),
]


@pytest.mark.parametrize("name,f,arrays", SCALAR_FUNCS, ids=[f[0] for f in SCALAR_FUNCS])
@pytest.mark.parametrize("api", ["hessian", "hvp", "vhp"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_second_order_vs_torch(name, f, arrays, api, create_graph):
    results = []
    for L, mod in ((tinytorch, F), (torch, TF)):
        inp = _inputs(L, arrays, requires_grad=create_graph)
        if api == "hessian":
            results.append(mod.hessian(f, inp, create_graph=create_graph))
        else:
            results.append(getattr(mod, api)(f, inp, _v_like(L, inp), create_graph=create_graph))
    _assert_same(*results)


def test_create_graph_chain_vs_torch():
    # the jacobian, taken with create_graph, differentiated again down to the caller's leaf
    grads = []
    for L, mod in ((tinytorch, F), (torch, TF)):
        x = L.tensor(X3, requires_grad=True)
        jac = mod.jacobian(lambda t: t.sin() * t.sum(), x, create_graph=True)
        assert jac.requires_grad
        (g,) = L.autograd.grad((jac ** 2).sum(), x)
        _, jv = mod.jvp(lambda t: t.exp() * t, x, L.ones(3, dtype=L.float64), create_graph=True)
        (g2,) = L.autograd.grad(jv.sum(), x)
        _, hv = mod.hvp(lambda t: (t ** 4).sum(), x, L.ones(3, dtype=L.float64), create_graph=True)
        (g3,) = L.autograd.grad(hv.sum(), x)
        grads.append((g, g2, g3))
    _assert_same(*grads)


def test_no_create_graph_results_are_detached():
    x = tinytorch.tensor(X3, requires_grad=True)
    out, vj = F.vjp(lambda t: t * 2, x, tinytorch.ones(3, dtype=tinytorch.float64))
    assert not out.requires_grad and not vj.requires_grad and x.grad is None


def _errors(call):
    msgs = []
    for L, mod in ((tinytorch, F), (torch, TF)):
        with pytest.raises(Exception) as info:
            call(L, mod)
        msgs.append((type(info.value), str(info.value)))
    (t1, m1), (t2, m2) = msgs
    assert t1 is t2 and m1.replace("tinytorch.", "torch.") == m2, msgs


ERRORS = [
    ("v_missing", lambda L, m: m.vjp(lambda x: x * 2, L.ones(3))),
    ("v_missing_jvp", lambda L, m: m.jvp(lambda x: x * 2, L.ones(3))),
    ("v_size", lambda L, m: m.vjp(lambda x: x * 2, L.ones(3), L.ones(2))),
    ("v_len", lambda L, m: m.jvp(lambda x, y: x * y, (L.ones(3), L.ones(3)), (L.ones(3),))),
    ("v_single", lambda L, m: m.jvp(lambda x: x * 2, L.ones(3), (L.ones(3), L.ones(3)))),
    ("entry_size", lambda L, m: m.jvp(lambda x, y: x * y, (L.ones(3), L.ones(3)), (L.ones(3), L.ones(2)))),
    ("not_tensor", lambda L, m: m.jacobian(lambda x: x, (L.ones(3), 3))),
    ("strict_independent", lambda L, m: m.jacobian(lambda x, y: x * 2, (L.ones(3), L.ones(3)), strict=True)),
    ("strict_no_grad", lambda L, m: m.vjp(lambda x: L.ones(3), L.ones(3), L.ones(3), strict=True)),
    ("strict_jvp", lambda L, m: m.jvp(lambda x: L.ones(3), L.ones(3), L.ones(3), strict=True)),
    ("strict_linear_hessian", lambda L, m: m.hessian(lambda x: (2 * x).sum(), L.ones(3), strict=True)),
    ("strict_linear_hvp", lambda L, m: m.hvp(lambda x: (2 * x).sum(), L.ones(3), L.ones(3), strict=True)),
    ("hessian_tuple_out", lambda L, m: m.hessian(lambda x: (x.sum(), x.sum()), L.ones(3))),
    ("hessian_many", lambda L, m: m.hessian(lambda x: x * 2, L.ones(3))),
    ("vhp_many", lambda L, m: m.vhp(lambda x: x * 2, L.ones(3), L.ones(3))),
    ("strategy", lambda L, m: m.jacobian(lambda x: x, L.ones(3), strategy="sideways")),
    ("fwd_strict", lambda L, m: m.jacobian(lambda x: x, L.ones(3), strict=True, strategy="forward-mode")),
    ("fwd_create_graph", lambda L, m: m.jacobian(lambda x: x, L.ones(3), create_graph=True,
                                                 strategy="forward-mode")),
    ("fwd_not_vectorized", lambda L, m: m.jacobian(lambda x: x, L.ones(3), strategy="forward-mode")),
    ("vectorize_strict", lambda L, m: m.jacobian(lambda x: x * 2, L.ones(3), strict=True, vectorize=True)),
]


@pytest.mark.parametrize("name,call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_vs_torch(name, call):
    _errors(call)
