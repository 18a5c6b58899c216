"""tinytorch.distributions against torch.distributions: for every family, the same samples for the
same seed (sample and rsample), log_prob and its parameter gradients, the rsample gradients,
entropy, mean, mode, variance, stddev, cdf/icdf, enumerate_support, expand and shapes."""
import numpy as np
import pytest

import tinytorch
import tinytorch.distributions as TD

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
pytestmark = pytest.mark.filterwarnings("ignore:Singular sample detected")
D = torch.distributions

R = np.random.RandomState(0)
F32 = np.float32


def pos(*shape, lo=0.5, hi=2.0, dtype=F32):
    return R.uniform(lo, hi, shape).astype(dtype)


def real(*shape, dtype=F32):
    return R.randn(*shape).astype(dtype)


def unit(*shape, dtype=F32):
    return R.uniform(0.1, 0.9, shape).astype(dtype)


def simplex(*shape):
    p = R.uniform(0.1, 1.0, shape)
    return (p / p.sum(-1, keepdims=True)).astype(F32)


def tril_pd(n, *batch):
    a = R.randn(*batch, n, n) * 0.3
    cov = a @ np.swapaxes(a, -1, -2) + np.eye(n)
    return cov.astype(F32)


def lower(n, *batch):
    return np.linalg.cholesky(tril_pd(n, *batch)).astype(F32)


# name -> (params, builder(dist module, tensors)); float params get requires_grad
CASES = {
    "Normal": ({"loc": real(3), "scale": pos(3)}, lambda M, p: M.Normal(p["loc"], p["scale"])),
    "Normal64": ({"loc": real(2, 3, dtype=np.float64), "scale": pos(3, dtype=np.float64)},
                 lambda M, p: M.Normal(p["loc"], p["scale"])),
    "Uniform": ({"low": real(3), "high": real(3) + 4}, lambda M, p: M.Uniform(p["low"], p["high"])),
    "Bernoulli": ({"probs": unit(4)}, lambda M, p: M.Bernoulli(probs=p["probs"])),
    "BernoulliLogits": ({"logits": real(4)}, lambda M, p: M.Bernoulli(logits=p["logits"])),
    "Categorical": ({"probs": simplex(2, 4)}, lambda M, p: M.Categorical(probs=p["probs"])),
    "CategoricalLogits": ({"logits": real(3, 5)}, lambda M, p: M.Categorical(logits=p["logits"])),
    "OneHotCategorical": ({"probs": simplex(2, 4)}, lambda M, p: M.OneHotCategorical(probs=p["probs"])),
    "OneHotCategoricalStraightThrough": ({"logits": real(3)},
                                         lambda M, p: M.OneHotCategoricalStraightThrough(logits=p["logits"])),
    "Independent": ({"loc": real(2, 3), "scale": pos(2, 3)},
                    lambda M, p: M.Independent(M.Normal(p["loc"], p["scale"]), 1)),
    "MultivariateNormalCov": ({"loc": real(2, 3), "cov": tril_pd(3)},
                              lambda M, p: M.MultivariateNormal(p["loc"], covariance_matrix=p["cov"])),
    "MultivariateNormalPrec": ({"loc": real(3), "prec": tril_pd(3, 2)},
                               lambda M, p: M.MultivariateNormal(p["loc"], precision_matrix=p["prec"])),
    "MultivariateNormalTril": ({"loc": real(3), "tril": lower(3)},
                               lambda M, p: M.MultivariateNormal(p["loc"], scale_tril=p["tril"])),
    "LowRankMultivariateNormal": ({"loc": real(3), "W": real(3, 2), "D": pos(3)},
                                  lambda M, p: M.LowRankMultivariateNormal(p["loc"], p["W"], p["D"])),
    "Exponential": ({"rate": pos(3)}, lambda M, p: M.Exponential(p["rate"])),
    "Laplace": ({"loc": real(3), "scale": pos(3)}, lambda M, p: M.Laplace(p["loc"], p["scale"])),
    "LogNormal": ({"loc": real(3), "scale": pos(3)}, lambda M, p: M.LogNormal(p["loc"], p["scale"])),
    "Gamma": ({"c": pos(4, lo=0.3, hi=12), "r": pos(4)}, lambda M, p: M.Gamma(p["c"], p["r"])),
    "Gamma64": ({"c": pos(4, lo=0.3, hi=12, dtype=np.float64), "r": pos(4, dtype=np.float64)},
                lambda M, p: M.Gamma(p["c"], p["r"])),
    "Chi2": ({"df": pos(3, lo=1, hi=5)}, lambda M, p: M.Chi2(p["df"])),
    "Beta": ({"a": pos(3), "b": pos(3)}, lambda M, p: M.Beta(p["a"], p["b"])),
    "Dirichlet": ({"c": pos(2, 3)}, lambda M, p: M.Dirichlet(p["c"])),
    "DirichletWide": ({"c": np.array([[0.3, 9.0, 12.0, 0.7], [7.0, 8.0, 0.2, 30.0]], F32)},
                      lambda M, p: M.Dirichlet(p["c"])),
    "Beta64": ({"a": pos(5, lo=0.2, hi=15, dtype=np.float64), "b": pos(5, lo=0.2, hi=15, dtype=np.float64)},
               lambda M, p: M.Beta(p["a"], p["b"])),
    "Poisson": ({"rate": np.array([0.5, 3.0, 15.0, 40.0], F32)}, lambda M, p: M.Poisson(p["rate"])),
    "Binomial": ({"n": np.array([5.0, 30.0, 100.0], F32), "probs": np.array([0.3, 0.5, 0.9], F32)},
                 lambda M, p: M.Binomial(p["n"].detach(), probs=p["probs"])),
    "Multinomial": ({"probs": simplex(2, 3)}, lambda M, p: M.Multinomial(6, probs=p["probs"])),
    "Geometric": ({"probs": unit(3)}, lambda M, p: M.Geometric(probs=p["probs"])),
    "Cauchy": ({"loc": real(3), "scale": pos(3)}, lambda M, p: M.Cauchy(p["loc"], p["scale"])),
    "HalfNormal": ({"scale": pos(3)}, lambda M, p: M.HalfNormal(p["scale"])),
    "HalfCauchy": ({"scale": pos(3)}, lambda M, p: M.HalfCauchy(p["scale"])),
    "Gumbel": ({"loc": real(3), "scale": pos(3)}, lambda M, p: M.Gumbel(p["loc"], p["scale"])),
    "StudentT": ({"df": pos(3, lo=2.5, hi=6), "loc": real(3), "scale": pos(3)},
                 lambda M, p: M.StudentT(p["df"], p["loc"], p["scale"])),
    "Pareto": ({"scale": pos(3), "alpha": pos(3, lo=2.5, hi=4)}, lambda M, p: M.Pareto(p["scale"], p["alpha"])),
    "ContinuousBernoulli": ({"probs": np.array([0.2, 0.4995, 0.8], F32)},
                            lambda M, p: M.ContinuousBernoulli(probs=p["probs"])),
    "MixtureSameFamily": ({"w": simplex(2, 3), "loc": real(2, 3), "scale": pos(2, 3)},
                          lambda M, p: M.MixtureSameFamily(M.Categorical(probs=p["w"]),
                                                           M.Normal(p["loc"], p["scale"]))),
    "MixtureOfMVN": ({"w": simplex(3), "loc": real(3, 2)},
                     lambda M, p: M.MixtureSameFamily(M.Categorical(logits=p["w"]),
                                                      M.Independent(M.Normal(p["loc"], 1.0), 1))),
    "RelaxedBernoulli": ({"t": np.array(0.7, F32), "probs": unit(3)},
                         lambda M, p: M.RelaxedBernoulli(p["t"].detach(), probs=p["probs"])),
    "RelaxedOneHotCategorical": ({"t": np.array(0.5, F32), "logits": real(2, 3)},
                                 lambda M, p: M.RelaxedOneHotCategorical(p["t"].detach(), logits=p["logits"])),
    "Weibull": ({"scale": pos(3), "c": pos(3, lo=1.2, hi=3)}, lambda M, p: M.Weibull(p["scale"], p["c"])),
    "NegativeBinomial": ({"n": pos(3, lo=1, hi=6), "probs": unit(3)},
                         lambda M, p: M.NegativeBinomial(p["n"], probs=p["probs"])),
    "Kumaraswamy": ({"a": pos(3, lo=1.2, hi=3), "b": pos(3, lo=1.2, hi=3)},
                    lambda M, p: M.Kumaraswamy(p["a"], p["b"])),
    "FisherSnedecor": ({"d1": pos(3, lo=3, hi=8), "d2": pos(3, lo=5, hi=9)},
                       lambda M, p: M.FisherSnedecor(p["d1"], p["d2"])),
    "InverseGamma": ({"c": pos(3, lo=2.5, hi=5), "r": pos(3)}, lambda M, p: M.InverseGamma(p["c"], p["r"])),
    "LogisticNormal": ({"loc": real(2, 3), "scale": pos(2, 3)}, lambda M, p: M.LogisticNormal(p["loc"], p["scale"])),
    "GeneralizedPareto": ({"loc": real(3), "scale": pos(3), "c": np.array([-0.2, 0.0, 0.3], F32)},
                          lambda M, p: M.GeneralizedPareto(p["loc"], p["scale"], p["c"])),
    "VonMises": ({"loc": real(3), "k": np.array([0.5, 2.0, 8.0], F32)}, lambda M, p: M.VonMises(p["loc"], p["k"])),
    "LKJCholesky": ({"c": np.array([0.5, 2.0], F32)}, lambda M, p: M.LKJCholesky(3, p["c"])),
    "WishartCov": ({"df": np.array([4.0, 6.5], F32), "cov": tril_pd(3)},
                   lambda M, p: M.Wishart(p["df"], covariance_matrix=p["cov"])),
    "WishartTril": ({"tril": lower(2, 2)}, lambda M, p: M.Wishart(5.0, scale_tril=p["tril"])),
    "WishartPrec": ({"prec": tril_pd(2)}, lambda M, p: M.Wishart(3.0, precision_matrix=p["prec"])),
    "Transformed": ({"loc": real(3), "scale": pos(3)},
                    lambda M, p: M.TransformedDistribution(
                        M.Normal(p["loc"], p["scale"]),
                        [M.transforms.SigmoidTransform(), M.transforms.AffineTransform(1.0, 2.0)])),
}


def _params(lib, params):
    out = {}
    for k, v in params.items():
        t = lib.tensor(v)
        out[k] = t.requires_grad_() if v.dtype.kind == "f" else t
    return out


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _close(a, b, rtol=2e-5, atol=2e-6):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


def _both(name):
    params, build = CASES[name]
    tp, pp = _params(tinytorch, params), _params(torch, params)
    return build(TD, tp), tp, build(D, pp), pp


def _grads(out, params):
    leaves = [p for p in params.values() if p.requires_grad]
    if not out.requires_grad:
        return [None] * len(leaves)
    mod = tinytorch if isinstance(out, tinytorch.Tensor) else torch
    return mod.autograd.grad(out.sum(), leaves, allow_unused=True)


def _same_grads(g1, g2, rtol=2e-4, atol=2e-5):
    for a, b in zip(g1, g2):
        assert (a is None) == (b is None)
        if a is not None:
            _close(a, b, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", list(CASES))
def test_shapes_support_and_moments(name):
    t, _, p, _ = _both(name)
    assert tuple(t.batch_shape) == tuple(p.batch_shape) and tuple(t.event_shape) == tuple(p.event_shape)
    assert t.has_rsample == p.has_rsample and t.has_enumerate_support == p.has_enumerate_support
    assert type(t.support).__name__ == type(p.support).__name__
    for prop in ("mean", "mode", "variance", "stddev"):
        try:
            expected = getattr(p, prop)
        except (NotImplementedError, RuntimeError) as e:  # PyTorch's Wishart.mean fails for a scalar df
            with pytest.raises(type(e)):
                getattr(t, prop)
            continue
        _close(getattr(t, prop), expected, rtol=1e-4, atol=1e-5)
    try:
        expected = p.entropy()
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            t.entropy()
    else:
        _close(t.entropy(), expected, rtol=1e-4, atol=1e-5)
    e = t.expand((2,) + tuple(t.batch_shape))
    assert tuple(e.batch_shape) == tuple(p.expand((2,) + tuple(p.batch_shape)).batch_shape)


@pytest.mark.parametrize("name", list(CASES))
def test_same_seed_same_samples(name):
    t, _, p, _ = _both(name)
    tinytorch.manual_seed(7)
    torch.manual_seed(7)
    ts, ps = t.sample((5,)), p.sample((5,))
    assert ts.dtype.__repr__().split(".")[-1] == repr(ps.dtype).split(".")[-1]
    _close(ts, ps, rtol=1e-5, atol=1e-6)
    ts, ps = t.sample(), p.sample()  # the stream continues identically
    _close(ts, ps, rtol=1e-5, atol=1e-6)
    shape = (2,) + tuple(p.batch_shape)
    # (LKJCholesky's last diagonal entry is sqrt(1 - sum of squares): rounding shows at 1e-6)
    _close(t.expand(shape).sample((2,)), p.expand(shape).sample((2,)), rtol=1e-5, atol=5e-6)


@pytest.mark.parametrize("name", [n for n in CASES if CASES[n][1](D, _params(torch, CASES[n][0])).has_rsample])
def test_rsample_values_and_gradients(name):
    t, tp, p, pp = _both(name)
    tinytorch.manual_seed(3)
    torch.manual_seed(3)
    ts, ps = t.rsample((4,)), p.rsample((4,))
    _close(ts, ps, rtol=1e-5, atol=1e-6)
    if name.startswith("Wishart"):
        # PyTorch's Wishart.rsample writes the redrawn samples in place into a tensor its graph
        # needs, so its backward raises; tinytorch's differentiates
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            _grads(ps, pp)
        assert all(g is not None and np.isfinite(g.numpy()).all() for g in _grads(ts, tp))
        return
    _same_grads(_grads(ts, tp), _grads(ps, pp), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_and_gradients(name):
    t, tp, p, pp = _both(name)
    torch.manual_seed(11)
    value = p.sample((3,))
    tv = tinytorch.tensor(value.numpy())
    tl, pl = t.log_prob(tv), p.log_prob(value)
    _close(tl, pl, rtol=1e-4, atol=1e-5)
    _same_grads(_grads(tl, tp), _grads(pl, pp))


CDF_CASES = ["Normal", "Uniform", "Exponential", "Laplace", "Cauchy", "HalfNormal", "HalfCauchy", "LogNormal",
             "Gumbel", "Pareto", "ContinuousBernoulli", "Transformed", "MixtureSameFamily", "Kumaraswamy",
             "Weibull", "GeneralizedPareto", "Gamma", "Gamma64", "Chi2", "InverseGamma"]


@pytest.mark.parametrize("name", CDF_CASES)
def test_cdf_icdf(name):
    t, tp, p, pp = _both(name)
    torch.manual_seed(5)
    value = p.sample((2,))
    _close(t.cdf(tinytorch.tensor(value.numpy())), p.cdf(value), rtol=1e-4, atol=1e-5)
    q = np.array([0.1, 0.5, 0.8], F32).reshape((3,) + (1,) * len(p.batch_shape))
    try:
        expected = p.icdf(torch.tensor(q))
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            t.icdf(tinytorch.tensor(q))
        return
    got = t.icdf(tinytorch.tensor(q))
    _close(got, expected, rtol=1e-4, atol=1e-5)
    _same_grads(_grads(got, tp), _grads(expected, pp))


@pytest.mark.parametrize("name", ["Bernoulli", "Categorical", "OneHotCategorical", "Binomial", "Independent"])
def test_enumerate_support(name):
    t, _, p, _ = _both(name)
    if name == "Independent":
        with pytest.raises(NotImplementedError, match="cartesian product"):
            t.enumerate_support()
        return
    if name == "Binomial":
        t, p = TD.Binomial(4, probs=tinytorch.tensor([0.2, 0.7])), D.Binomial(4, probs=torch.tensor([0.2, 0.7]))
    for expand in (True, False):
        _close(t.enumerate_support(expand), p.enumerate_support(expand))


def test_scalar_parameters_and_repr():
    t, p = TD.Normal(0.0, 1.0), D.Normal(0.0, 1.0)
    assert t.batch_shape == () and repr(t) == repr(p)
    t, p = TD.Normal(tinytorch.zeros(2), 1.0), D.Normal(torch.zeros(2), 1.0)
    assert repr(t).replace("tinytorch.", "torch.") == repr(p)
    assert repr(TD.Independent(TD.Normal(tinytorch.zeros(2), 1.0), 1)).replace("tinytorch.", "torch.") == \
        repr(D.Independent(D.Normal(torch.zeros(2), 1.0), 1))


def test_multinomial_counts_and_categorical_stream():
    tinytorch.manual_seed(2)
    torch.manual_seed(2)
    probs = simplex(3, 4)
    t = TD.Multinomial(10, probs=tinytorch.tensor(probs)).sample((2,))
    p = D.Multinomial(10, probs=torch.tensor(probs)).sample((2,))
    _close(t, p)
    assert (t.sum(-1) == 10).all()


def test_gamma_cdf_gradient():
    # d cdf / d value is the density; PyTorch has no derivative in the concentration
    tv, pv = tinytorch.tensor([0.3, 1.5, 4.0], requires_grad=True), torch.tensor([0.3, 1.5, 4.0], requires_grad=True)
    tg = tinytorch.autograd.grad(TD.Gamma(2.5, 1.5).cdf(tv).sum(), tv)[0]
    pg = torch.autograd.grad(D.Gamma(2.5, 1.5).cdf(pv).sum(), pv)[0]
    _close(tg, pg, rtol=1e-5)
    tc, pc = tinytorch.tensor(2.5, requires_grad=True), torch.tensor(2.5, requires_grad=True)
    with pytest.raises(RuntimeError) as p_err:
        D.Gamma(pc, 1.5).cdf(torch.tensor(1.0)).backward()
    with pytest.raises(RuntimeError) as t_err:
        TD.Gamma(tc, 1.5).cdf(tinytorch.tensor(1.0)).backward()
    assert str(t_err.value) == str(p_err.value)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_native_samplers_match_and_leave_the_generator_where_pytorch_does(dtype):
    # PyTorch's _standard_gamma, _sample_dirichlet, poisson and binomial kernels, over every regime
    # (boosted gamma below 1, Poisson's product and transformed-rejection methods, binomial
    # inversion and BTRS on both sides of 1/2), then the generator state and cached normal
    from tinytorch.distributions import _draws

    tt, pt = getattr(tinytorch, dtype), getattr(torch, dtype)
    alpha = [0.3, 1.0, 2.5, 9.0, 40.0] * 8
    rates = [0.0, 0.5, 3.0, 12.0, 100.0] * 8
    counts, probs = [0.0, 5.0, 30.0, 100.0, 1000.0] * 8, [0.1, 0.4, 0.7, 0.95, 0.5, 0.02, 1.0, 0.0] * 5
    conc = [[0.5, 2.0, 3.0], [1.0, 1.0, 10.0]] * 4
    tinytorch.manual_seed(9)
    torch.manual_seed(9)
    _close(_draws.standard_gamma(tinytorch.tensor(alpha, dtype=tt)), torch._standard_gamma(torch.tensor(alpha, dtype=pt)),
           rtol=0, atol=0)
    _close(tinytorch.poisson(tinytorch.tensor(rates, dtype=tt)), torch.poisson(torch.tensor(rates, dtype=pt)), rtol=0, atol=0)
    _close(_draws.binomial(tinytorch.tensor(counts, dtype=tt), tinytorch.tensor(probs, dtype=tt)),
           torch.binomial(torch.tensor(counts, dtype=pt), torch.tensor(probs, dtype=pt)), rtol=0, atol=0)
    _close(_draws.sample_dirichlet(tinytorch.tensor(conc, dtype=tt)),
           torch._sample_dirichlet(torch.tensor(conc, dtype=pt)), rtol=0, atol=0)
    _close(tinytorch.empty(7, dtype=tt).cauchy_(), torch.empty(7, dtype=pt).cauchy_(), rtol=0, atol=0)
    np.testing.assert_array_equal(tinytorch.get_rng_state().numpy(), torch.get_rng_state().numpy())
    _close(tinytorch.randn(3, dtype=tinytorch.float64), torch.randn(3, dtype=torch.float64), rtol=0, atol=0)
