"""Transforms, constraints, biject_to/transform_to and argument validation against PyTorch."""
import numpy as np
import pytest

import tinytorch
import tinytorch.distributions as TD

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
D = torch.distributions

R = np.random.RandomState(2)


def _t(lib, a):
    return lib.tensor(np.asarray(a, np.float32))


def _msg(err):
    return str(err.value).replace("tinytorch.", "torch.")


def _same_error(make_t, make_p, exc=ValueError):
    with pytest.raises(exc) as p_err:
        make_p()
    with pytest.raises(exc) as t_err:
        make_t()
    assert _msg(t_err) == str(p_err.value)


TRANSFORMS = {
    "Exp": (lambda M: M.ExpTransform(), (2, 3)),
    "Affine": (lambda M: M.AffineTransform(0.5, -2.0), (4,)),
    "AffineEvent": (lambda M: M.AffineTransform(0.5, 3.0, event_dim=1), (2, 3)),
    "Sigmoid": (lambda M: M.SigmoidTransform(), (4,)),
    "Tanh": (lambda M: M.TanhTransform(), (4,)),
    "Softplus": (lambda M: M.SoftplusTransform(), (4,)),
    "Power": (lambda M: M.PowerTransform(2.5), (4,)),
    "Abs": (lambda M: M.AbsTransform(), (4,)),
    "Softmax": (lambda M: M.SoftmaxTransform(), (2, 4)),
    "StickBreaking": (lambda M: M.StickBreakingTransform(), (2, 3)),
    "LowerCholesky": (lambda M: M.LowerCholeskyTransform(), (2, 3, 3)),
    "PositiveDefinite": (lambda M: M.PositiveDefiniteTransform(), (3, 3)),
    "CorrCholesky": (lambda M: M.CorrCholeskyTransform(), (2, 6)),
    "Compose": (lambda M: M.ComposeTransform([M.ExpTransform(), M.AffineTransform(1.0, 2.0)]), (3,)),
    "Independent": (lambda M: M.IndependentTransform(M.SigmoidTransform(), 1), (2, 3)),
    "Reshape": (lambda M: M.ReshapeTransform((2, 3), (6,)), (4, 2, 3)),
    "Cat": (lambda M: M.CatTransform([M.ExpTransform(), M.SigmoidTransform()], dim=0, lengths=[2, 1]), (3, 2)),
    "Stack": (lambda M: M.StackTransform([M.ExpTransform(), M.TanhTransform()], dim=1), (3, 2)),
    "InverseExp": (lambda M: M.ExpTransform().inv, (3,)),
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_forward_inverse_logdet(name):
    make, shape = TRANSFORMS[name]
    x = R.randn(*shape).astype(np.float32)
    if name in ("Power", "InverseExp"):
        x = np.abs(x) + 0.5
    tt, pt = make(TD.transforms), make(D.transforms)
    tx, px = _t(tinytorch, x).requires_grad_(), _t(torch, x).requires_grad_()
    ty, py = tt(tx), pt(px)
    np.testing.assert_allclose(ty.detach().numpy(), py.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tt.inv(ty).detach().numpy(), pt.inv(py).detach().numpy(), rtol=1e-4, atol=1e-5)
    try:
        expected = pt.log_abs_det_jacobian(px, py)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            tt.log_abs_det_jacobian(tx, ty)
    else:
        got = tt.log_abs_det_jacobian(tx, ty)
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-4, atol=1e-5)
        gx = tinytorch.autograd.grad((got.sum() + ty.sum()), tx)[0]
        px_grad = torch.autograd.grad((expected.sum() + py.sum()), px)[0]
        np.testing.assert_allclose(gx.numpy(), px_grad.numpy(), rtol=1e-4, atol=1e-5)
    assert repr(tt.domain) == repr(pt.domain) and repr(tt.codomain) == repr(pt.codomain)
    assert tt.bijective == pt.bijective
    assert tuple(tt.forward_shape(torch.Size(shape))) == tuple(pt.forward_shape(torch.Size(shape)))
    assert repr(tt) == repr(pt)


def test_transform_cache_and_equality():
    t = TD.transforms.ExpTransform(cache_size=1)
    x = tinytorch.randn(3)
    y = t(x)
    assert t.inv(y) is x
    assert TD.transforms.ExpTransform() == TD.transforms.ExpTransform()
    assert TD.transforms.AffineTransform(1.0, 2.0) == TD.transforms.AffineTransform(1.0, 2.0)
    assert TD.transforms.AffineTransform(1.0, 2.0) != TD.transforms.AffineTransform(1.0, 3.0)
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        TD.transforms.ExpTransform(cache_size=2)


CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "simplex", "lower_cholesky", "corr_cholesky",
               "positive_definite", "real_vector", "greater_than", "less_than", "interval", "half_open_interval",
               "independent"]


def _constraint(M, name):
    c = M.constraints
    return {"greater_than": lambda: c.greater_than(1.5), "less_than": lambda: c.less_than(-0.5),
            "interval": lambda: c.interval(-1.0, 2.0), "half_open_interval": lambda: c.half_open_interval(0.0, 3.0),
            "independent": lambda: c.independent(c.positive, 1)}.get(name, lambda: getattr(c, name))()


@pytest.mark.parametrize("name", CONSTRAINTS)
def test_biject_to_transform_to(name):
    tc, pc = _constraint(TD, name), _constraint(D, name)
    assert repr(tc) == repr(pc) and tc.event_dim == pc.event_dim and tc.is_discrete == pc.is_discrete
    shape = {"simplex": (2, 3), "lower_cholesky": (3, 3), "corr_cholesky": (3,), "positive_definite": (3, 3),
             "real_vector": (2, 3), "independent": (2, 3)}.get(name, (5,))
    x = R.randn(*shape).astype(np.float32)
    for reg in ("biject_to", "transform_to"):
        try:
            pt = getattr(D, reg)(pc)
        except NotImplementedError as e:
            with pytest.raises(NotImplementedError) as err:
                getattr(TD, reg)(tc)
            assert str(err.value) == str(e)
            continue
        tt = getattr(TD, reg)(tc)
        assert repr(tt) == repr(pt)
        ty, py = tt(_t(tinytorch, x)), pt(_t(torch, x))
        np.testing.assert_allclose(ty.numpy(), py.numpy(), rtol=1e-5, atol=1e-6)
        assert tc.check(ty).numpy().all()
        np.testing.assert_array_equal(tc.check(ty).numpy(), pc.check(py).numpy())


def test_constraint_checks_match():
    vals = np.array([[-1.0, 0.0, 0.5, 1.0, 2.0, np.nan]], np.float32)
    for name in ["real", "positive", "nonnegative", "unit_interval", "boolean", "nonnegative_integer",
                 "positive_integer", "greater_than", "less_than", "interval", "half_open_interval"]:
        tc, pc = _constraint(TD, name), _constraint(D, name)
        np.testing.assert_array_equal(tc.check(_t(tinytorch, vals)).numpy(), pc.check(_t(torch, vals)).numpy())
    m = np.array([[[1.0, 0.0], [0.5, 2.0]], [[1.0, 0.2], [0.5, 2.0]], [[-1.0, 0.0], [0.5, 2.0]]], np.float32)
    for name in ["lower_triangular", "lower_cholesky", "square", "symmetric", "positive_definite",
                 "positive_semidefinite"]:
        tc, pc = getattr(TD.constraints, name), getattr(D.constraints, name)
        np.testing.assert_array_equal(tc.check(_t(tinytorch, m)).numpy(), pc.check(_t(torch, m)).numpy())


def test_parameter_validation_messages():
    _same_error(lambda: TD.Normal(_t(tinytorch, [0.0, 1.0]), _t(tinytorch, [1.0, -1.0])),
                lambda: D.Normal(_t(torch, [0.0, 1.0]), _t(torch, [1.0, -1.0])))
    _same_error(lambda: TD.Bernoulli(probs=_t(tinytorch, [1.5])), lambda: D.Bernoulli(probs=_t(torch, [1.5])))
    _same_error(lambda: TD.Categorical(probs=_t(tinytorch, [0.5, -0.5])),
                lambda: D.Categorical(probs=_t(torch, [0.5, -0.5])))
    _same_error(lambda: TD.Gamma(1.0, -2.0), lambda: D.Gamma(1.0, -2.0))
    _same_error(lambda: TD.Uniform(2.0, 1.0), lambda: D.Uniform(2.0, 1.0))
    _same_error(lambda: TD.Bernoulli(), lambda: D.Bernoulli())
    _same_error(lambda: TD.Categorical(probs=_t(tinytorch, 0.5)), lambda: D.Categorical(probs=_t(torch, 0.5)))
    _same_error(lambda: TD.Geometric(probs=_t(tinytorch, [0.0, 0.5])),
                lambda: D.Geometric(probs=_t(torch, [0.0, 0.5])))
    _same_error(lambda: TD.MultivariateNormal(_t(tinytorch, [0.0, 0.0])),
                lambda: D.MultivariateNormal(_t(torch, [0.0, 0.0])))
    _same_error(lambda: TD.Independent(TD.Normal(0.0, 1.0), 1), lambda: D.Independent(D.Normal(0.0, 1.0), 1))


def test_sample_validation_messages():
    _same_error(lambda: TD.Exponential(_t(tinytorch, [1.0, 2.0])).log_prob(_t(tinytorch, [-1.0, 1.0])),
                lambda: D.Exponential(_t(torch, [1.0, 2.0])).log_prob(_t(torch, [-1.0, 1.0])))
    _same_error(lambda: TD.Normal(0.0, 1.0).log_prob(1.0), lambda: D.Normal(0.0, 1.0).log_prob(1.0))
    _same_error(lambda: TD.Normal(tinytorch.zeros(3), 1.0).log_prob(tinytorch.zeros(2)),
                lambda: D.Normal(torch.zeros(3), 1.0).log_prob(torch.zeros(2)))
    _same_error(lambda: TD.Dirichlet(tinytorch.ones(3)).log_prob(tinytorch.ones(2)),
                lambda: D.Dirichlet(torch.ones(3)).log_prob(torch.ones(2)))
    _same_error(lambda: TD.Categorical(logits=tinytorch.zeros(3)).log_prob(_t(tinytorch, [3.0])),
                lambda: D.Categorical(logits=torch.zeros(3)).log_prob(_t(torch, [3.0])))


def test_validate_args_switches():
    # validate_args=False skips the checks; the class default can be switched off and on
    TD.Normal(0.0, -1.0, validate_args=False)
    TD.Distribution.set_default_validate_args(False)
    try:
        d = TD.Normal(0.0, -1.0)
        assert not d._validate_args
    finally:
        TD.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        TD.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        TD.Distribution.set_default_validate_args("yes")
