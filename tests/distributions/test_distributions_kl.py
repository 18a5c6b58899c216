"""kl_divergence: the registry holds PyTorch's pairs, and every registered pair gives PyTorch's
value (and parameter gradients), dispatching to the same function for subclasses."""
import numpy as np
import pytest

import tinytorch
import tinytorch.distributions as TD

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
D = torch.distributions

R = np.random.RandomState(1)


def _a(*v):
    return np.array(v, np.float32)


# one instance builder per family, parameters chosen so most cross pairs are finite
FAMILY = {
    "Bernoulli": ({"p": _a(0.3, 0.6)}, lambda M, t: M.Bernoulli(probs=t["p"])),
    "Beta": ({"a": _a(1.5, 2.0), "b": _a(2.5, 0.8)}, lambda M, t: M.Beta(t["a"], t["b"])),
    "Binomial": ({"p": _a(0.3, 0.6)}, lambda M, t: M.Binomial(5, probs=t["p"])),
    "Categorical": ({"p": _a(0.2, 0.3, 0.5)}, lambda M, t: M.Categorical(probs=t["p"])),
    "ContinuousBernoulli": ({"p": _a(0.3, 0.7)}, lambda M, t: M.ContinuousBernoulli(probs=t["p"])),
    "Dirichlet": ({"c": _a(1.0, 2.0, 0.7)}, lambda M, t: M.Dirichlet(t["c"])),
    "Exponential": ({"r": _a(1.5, 0.7)}, lambda M, t: M.Exponential(t["r"])),
    "Gamma": ({"c": _a(1.5, 3.0), "r": _a(2.0, 0.5)}, lambda M, t: M.Gamma(t["c"], t["r"])),
    "Gumbel": ({"l": _a(0.2, -0.5), "s": _a(1.2, 0.8)}, lambda M, t: M.Gumbel(t["l"], t["s"])),
    "Geometric": ({"p": _a(0.3, 0.6)}, lambda M, t: M.Geometric(probs=t["p"])),
    "HalfNormal": ({"s": _a(1.2, 0.8)}, lambda M, t: M.HalfNormal(t["s"])),
    "Laplace": ({"l": _a(0.2, -0.5), "s": _a(1.2, 0.8)}, lambda M, t: M.Laplace(t["l"], t["s"])),
    "LowRankMultivariateNormal": ({"l": _a(0.1, 0.2, -0.3), "W": R.randn(3, 2).astype(np.float32),
                                   "d": _a(1.0, 0.5, 2.0)},
                                  lambda M, t: M.LowRankMultivariateNormal(t["l"], t["W"], t["d"])),
    "MultivariateNormal": ({"l": _a(0.3, -0.2, 0.1),
                            "L": np.array([[1.0, 0, 0], [0.3, 0.8, 0], [-0.2, 0.1, 1.5]], np.float32)},
                           lambda M, t: M.MultivariateNormal(t["l"], scale_tril=t["L"])),
    "Normal": ({"l": _a(0.2, -0.5), "s": _a(1.2, 0.8)}, lambda M, t: M.Normal(t["l"], t["s"])),
    "OneHotCategorical": ({"p": _a(0.2, 0.3, 0.5)}, lambda M, t: M.OneHotCategorical(probs=t["p"])),
    "Pareto": ({"s": _a(1.2, 0.8), "a": _a(3.0, 2.5)}, lambda M, t: M.Pareto(t["s"], t["a"])),
    "Poisson": ({"r": _a(1.5, 0.7)}, lambda M, t: M.Poisson(t["r"])),
    "TransformedDistribution": ({"l": _a(0.2, -0.5), "s": _a(1.2, 0.8)},
                                lambda M, t: M.TransformedDistribution(M.Normal(t["l"], t["s"]),
                                                                       [M.transforms.ExpTransform()])),
    "Uniform": ({"lo": _a(0.1, 0.2), "hi": _a(0.7, 0.9)}, lambda M, t: M.Uniform(t["lo"], t["hi"])),
    "Independent": ({"l": _a(0.2, -0.5), "s": _a(1.2, 0.8)},
                    lambda M, t: M.Independent(M.Normal(t["l"], t["s"]), 1)),
    "Cauchy": ({"l": _a(0.2, -0.5), "s": _a(1.2, 0.8)}, lambda M, t: M.Cauchy(t["l"], t["s"])),
}
# the second operand: shifted parameters so the pair is not trivially zero
SHIFT = 1.3


def _build(lib, mod, name, shift=1.0):
    params, build = FAMILY[name]
    tensors = {}
    for k, v in params.items():
        w = v if k in ("p", "c", "L", "W") else v * shift
        if k == "p" and shift != 1.0:
            w = v[::-1].copy()
        tensors[k] = lib.tensor(w).requires_grad_()
    return build(mod, tensors), tensors


def _pairs():
    return sorted((p.__name__, q.__name__) for p, q in D.kl._KL_REGISTRY)


def test_registry_matches_pytorch():
    ours = sorted((p.__name__, q.__name__) for p, q in TD.kl._KL_REGISTRY)
    assert ours == _pairs()


@pytest.mark.parametrize("pair", [p for p in _pairs() if p != ("ExponentialFamily", "ExponentialFamily")])
def test_registered_pair_value_and_grads(pair):
    pn, qn = pair
    tp, tpp = _build(tinytorch, TD, pn)
    tq, tqp = _build(tinytorch, TD, qn, SHIFT)
    pp, ppp = _build(torch, D, pn)
    pq, pqp = _build(torch, D, qn, SHIFT)
    try:
        expected = D.kl_divergence(pp, pq)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            TD.kl_divergence(tp, tq)
        return
    got = TD.kl_divergence(tp, tq)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-4, atol=1e-5)
    if not expected.requires_grad or not np.isfinite(expected.detach().numpy()).all():
        return
    pleaves, tleaves = list(ppp.values()) + list(pqp.values()), list(tpp.values()) + list(tqp.values())
    pg = torch.autograd.grad(expected.sum(), pleaves, allow_unused=True)
    tg = tinytorch.autograd.grad(got.sum(), tleaves, allow_unused=True)
    for a, b in zip(tg, pg):
        if b is None:
            assert a is None or not a.numpy().any()
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("name", ["Poisson", "Geometric", "Bernoulli", "Normal", "Gamma", "Dirichlet"])
def test_exponential_family_bregman(name):
    # the generic Bregman KL (registered for ExponentialFamily pairs) against PyTorch's
    tp, _ = _build(tinytorch, TD, name)
    tq, _ = _build(tinytorch, TD, name, SHIFT)
    pp, _ = _build(torch, D, name)
    pq, _ = _build(torch, D, name, SHIFT)
    if not isinstance(pp, D.ExponentialFamily):
        pytest.skip("not an exponential family in PyTorch")
    got = TD.kl._kl_expfamily_expfamily(tp, tq)
    expected = D.kl._kl_expfamily_expfamily(pp, pq)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_unregistered_pair_message():
    with pytest.raises(NotImplementedError) as t_err:
        TD.kl_divergence(TD.Cauchy(0.0, 1.0), TD.Normal(0.0, 1.0))
    with pytest.raises(NotImplementedError) as p_err:
        D.kl_divergence(D.Cauchy(0.0, 1.0), D.Normal(0.0, 1.0))
    assert str(t_err.value) == str(p_err.value)


def test_register_kl_subclass_dispatch():
    class MyNormal(TD.Normal):
        pass

    calls = []

    @TD.register_kl(MyNormal, TD.Normal)
    def _kl(p, q):
        calls.append(1)
        return tinytorch.zeros(())

    try:
        TD.kl_divergence(MyNormal(0.0, 1.0), TD.Normal(1.0, 2.0))
        assert calls == [1]
        # the base pair still goes to the Normal formula
        v = TD.kl_divergence(TD.Normal(0.0, 1.0), TD.Normal(1.0, 2.0))
        np.testing.assert_allclose(v.numpy(), D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 2.0)).numpy(),
                                   rtol=1e-6)
    finally:
        del TD.kl._KL_REGISTRY[MyNormal, TD.Normal]
        TD.kl._KL_MEMOIZE.clear()
