"""Layers, activations, dropout, init and gradient clipping: against PyTorch, numpy and statistics."""
import math
import warnings

import numpy as np
import pytest

import tinytorch as tt
import tinytorch.nn as nn
import tinytorch.nn.functional as F
import tinytorch.nn.init as init
from tinytorch.autograd import gradcheck, gradgradcheck
from tinytorch.nn.utils import (clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters)


def _x(shape=(3, 4), seed=0, scale=2.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


# -- activations ----------------------------------------------------------------------------------
ACTIVATIONS = [
    ("ReLU", (), {}), ("ReLU6", (), {}), ("LeakyReLU", (0.2,), {}), ("Sigmoid", (), {}), ("Tanh", (), {}),
    ("GELU", (), {}), ("GELU", (), {"approximate": "tanh"}), ("SiLU", (), {}), ("ELU", (0.7,), {}),
    ("Softplus", (), {"beta": 2.0, "threshold": 3.0}), ("Softmax", (1,), {}), ("LogSoftmax", (0,), {}),
    ("Softmin", (-1,), {}), ("Identity", (), {}), ("Flatten", (0, -1), {}), ("Unflatten", (1, (2, 2)), {}),
]


@pytest.mark.parametrize("name,args,kwargs", ACTIVATIONS, ids=[f"{a[0]}{a[2]}" for a in ACTIVATIONS])
def test_activation_modules_match_torch(torch, name, args, kwargs):
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    x = _x()
    a, ta = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = ours(a), theirs(ta)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    if name not in ("Identity",):
        assert y.grad_fn.name() == ty.grad_fn.name() or name in ("ReLU6",)
    seed = _x(tuple(ty.shape), seed=1)
    (y * tt.tensor(seed)).sum().backward()
    (ty * torch.tensor(seed)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda x: F.leaky_relu(x, 0.1), lambda x: F.gelu(x), lambda x: F.gelu(x, approximate="tanh"),
    lambda x: F.silu(x), lambda x: F.elu(x, 1.3), lambda x: F.softplus(x, beta=1.5, threshold=2.0),
    lambda x: F.softmax(x, 1), lambda x: F.log_softmax(x, 0),
], ids=["leaky_relu", "gelu", "gelu_tanh", "silu", "elu", "softplus", "softmax", "log_softmax"])
def test_activation_derivatives_first_and_second_order(fn):
    # values away from the kinks at 0 (and from softplus's threshold), where finite differences are exact enough
    x = np.array([[-1.7, -0.6, 0.4, 1.1], [2.3, -2.9, 0.8, -0.3]])
    t = tt.tensor(x, dtype=tt.float64, requires_grad=True)
    assert gradcheck(fn, (t,))
    assert gradgradcheck(fn, (t,))


def test_inplace_activations(torch):
    x = _x()
    for ours, theirs in [(nn.ReLU(inplace=True), torch.nn.ReLU(inplace=True)),
                         (nn.LeakyReLU(0.1, inplace=True), torch.nn.LeakyReLU(0.1, inplace=True))]:
        assert repr(ours) == repr(theirs)
        a, ta = tt.tensor(x), torch.tensor(x)
        assert ours(a) is a and theirs(ta) is ta
        np.testing.assert_allclose(a.numpy(), ta.numpy(), rtol=1e-6)


def test_functional_activations_and_errors(torch):
    x = _x()
    for name in ("relu", "sigmoid", "tanh", "relu6", "silu", "elu", "softplus", "hardtanh"):
        np.testing.assert_allclose(getattr(F, name)(tt.tensor(x)).numpy(),
                                   getattr(torch.nn.functional, name)(torch.tensor(x)).numpy(), rtol=1e-5, atol=1e-7)
    with pytest.raises(RuntimeError, match="^approximate argument must be either none or tanh.$"):
        F.gelu(tt.tensor(x), approximate="fast")
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        y = F.softmax(tt.tensor(x))
    np.testing.assert_allclose(y.numpy(), torch.nn.functional.softmax(torch.tensor(x), 1).numpy(), rtol=1e-6)
    assert F.softmax(tt.tensor(x), 1, dtype=tt.float64).dtype == tt.float64


def test_one_hot_matches_torch(torch):
    t = np.array([[0, 3], [1, 1]])
    np.testing.assert_array_equal(F.one_hot(tt.tensor(t)).numpy(), torch.nn.functional.one_hot(torch.tensor(t)))
    assert F.one_hot(tt.tensor(t), 5).shape == (2, 2, 5) and F.one_hot(tt.tensor(t)).dtype == tt.int64
    for bad, n in [(np.array([0, 3]), 3), (np.array([0, -1]), 3), (np.array([0.0, 1.0]), 3),
                   (np.zeros(0, np.int64), -1)]:
        with pytest.raises(RuntimeError) as ref:
            torch.nn.functional.one_hot(torch.tensor(bad), n)
        with pytest.raises(RuntimeError, match="^" + str(ref.value) + "$"):
            F.one_hot(tt.tensor(bad), n)


# -- Linear ---------------------------------------------------------------------------------------
def test_linear_matches_torch_given_the_same_weights(torch):
    for bias in (True, False):
        ours, theirs = nn.Linear(5, 3, bias=bias), torch.nn.Linear(5, 3, bias=bias)
        assert repr(ours) == repr(theirs)
        ours.load_state_dict({k: tt.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
        for shape in [(4, 5), (5,), (2, 3, 5)]:
            x = _x(shape)
            a, ta = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
            y, ty = ours(a), theirs(ta)
            np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
            y.sum().backward()
            ty.sum().backward()
            np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-5, atol=1e-5)
    assert nn.Linear(4, 2)(tt.ones(3, 4)).grad_fn.name() == "AddmmBackward0"


def test_linear_default_init_bounds_and_spread():
    tt.manual_seed(0)
    lin = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) gives the same bound as the bias
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound  # a uniform's std is bound / sqrt(3)
    assert np.abs(w).max() > 0.99 * bound
    tt.manual_seed(0)
    np.testing.assert_array_equal(nn.Linear(400, 300).weight.detach().numpy(), w)  # the default generator
    assert nn.Linear(3, 2, dtype=tt.float64).weight.dtype == tt.float64


# -- Dropout --------------------------------------------------------------------------------------
def test_dropout_statistics_and_modes(torch):
    assert repr(nn.Dropout(0.3)) == repr(torch.nn.Dropout(0.3))
    tt.manual_seed(1)
    drop = nn.Dropout(0.3)
    x = tt.ones(200, 500, requires_grad=True)
    y = drop(x)
    kept = y.detach().numpy() != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(y.detach().numpy()[kept], 1 / 0.7, rtol=1e-6)
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())  # d(x * mask)/dx = mask
    tt.manual_seed(1)
    np.testing.assert_array_equal(drop(x).detach().numpy(), y.detach().numpy())
    assert drop.eval()(x) is x
    assert F.dropout(x, 0.0) is x
    z = F.dropout(tt.tensor([-1.0, 2.0]), 1.0)
    np.testing.assert_array_equal(z.numpy(), [0.0, 0.0])
    assert math.copysign(1, z.numpy()[0]) == -1  # x * 0 keeps the sign, as PyTorch
    a = tt.ones(4)
    assert F.dropout(a, 0.5, inplace=True) is a
    for p in (-0.1, 1.5):
        with pytest.raises(ValueError, match=f"^dropout probability has to be between 0 and 1, but got {p}$"):
            nn.Dropout(p)


# -- init -----------------------------------------------------------------------------------------
def test_calculate_gain_and_fans_match_torch(torch):
    for args in [("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",),
                 ("leaky_relu", 0.2), ("selu",)]:
        assert init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    for shape in [(3, 4), (8, 3, 5, 5), (2, 6, 7)]:
        assert init._calculate_fan_in_and_fan_out(tt.zeros(shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.zeros(shape))
    for call in [lambda lib: lib.nn.init.calculate_gain("swish"), lambda lib: lib.nn.init.calculate_gain(
            "leaky_relu", True), lambda lib: lib.nn.init._calculate_fan_in_and_fan_out(lib.zeros(3)),
            lambda lib: lib.nn.init.kaiming_uniform_(lib.zeros(3, 4), mode="fan_avg"),
            lambda lib: lib.nn.init.eye_(lib.zeros(2, 2, 2))]:
        with pytest.raises(ValueError) as ref:
            call(torch)
        with pytest.raises(ValueError, match="^" + str(ref.value).replace("[", r"\[").replace("]", r"\]") + "$"):
            call(tt)


def test_init_distributions():
    tt.manual_seed(3)
    w = nn.Parameter(tt.empty(256, 400))
    bound = math.sqrt(6 / (256 + 400))
    a = init.xavier_uniform_(w).detach().numpy()
    assert a.max() <= bound and a.min() >= -bound and a.max() > 0.99 * bound
    assert w.grad_fn is None and w.requires_grad  # filled under no_grad
    std = init.xavier_normal_(w, gain=2.0).detach().numpy().std()
    assert abs(std - 2.0 * math.sqrt(2 / 656)) < 0.02 * std
    std = init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu").detach().numpy().std()
    assert abs(std - math.sqrt(2 / 256)) < 0.02 * std
    a = init.kaiming_uniform_(w, nonlinearity="relu").detach().numpy()
    assert np.abs(a).max() <= math.sqrt(6 / 400)
    a = init.uniform_(w, -0.5, 2.0).detach().numpy()
    assert a.min() >= -0.5 and a.max() <= 2.0 and abs(a.mean() - 0.75) < 0.01
    a = init.normal_(w, 1.0, 0.1).detach().numpy()
    assert abs(a.mean() - 1.0) < 0.002 and abs(a.std() - 0.1) < 0.002
    a = init.trunc_normal_(w, std=2.0, a=-1.0, b=1.0).detach().numpy()
    assert a.min() >= -1.0 and a.max() <= 1.0 and a.std() > 0.5
    assert (init.constant_(w, 0.25).detach().numpy() == 0.25).all()
    assert (init.ones_(w).detach().numpy() == 1).all() and (init.zeros_(w).detach().numpy() == 0).all()
    np.testing.assert_array_equal(init.eye_(tt.empty(3, 4)).numpy(), np.eye(3, 4))
    q = init.orthogonal_(tt.empty(4, 6)).numpy()
    np.testing.assert_allclose(q @ q.T, np.eye(4), atol=1e-5)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(tt.empty(0, 3))


def test_init_uses_the_given_generator():
    g1, g2 = tt.Generator().manual_seed(7), tt.Generator().manual_seed(7)
    a = init.kaiming_uniform_(tt.empty(5, 5), generator=g1).numpy()
    b = init.kaiming_uniform_(tt.empty(5, 5), generator=g2).numpy()
    np.testing.assert_array_equal(a, b)


# -- gradient clipping and vector conversion ------------------------------------------------------
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_grad_norm_matches_torch(torch, norm_type, max_norm):
    grads = [_x((3, 4), seed=1), _x((5,), seed=2)]
    ours = [nn.Parameter(tt.zeros(g.shape)) for g in grads]
    theirs = [torch.nn.Parameter(torch.zeros(g.shape)) for g in grads]
    for p, q, g in zip(ours, theirs, grads):
        p.grad, q.grad = tt.tensor(g), torch.tensor(g)
    total = clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    ref = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    np.testing.assert_allclose(total.item(), ref.item(), rtol=1e-5)
    assert total.dtype == tt.float32
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_clip_grad_edge_cases(torch):
    p = nn.Parameter(tt.zeros(2))
    assert clip_grad_norm_([p], 1.0).item() == 0.0  # no gradients at all
    p.grad = tt.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="^The total norm of order 2.0 for gradients from `parameters` is "
                                           "non-finite, so it cannot be clipped."):
        clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    with pytest.warns(UserWarning, match="empty generator"):
        clip_grad_norm_((q for q in []), 1.0)
    p.grad = tt.tensor([-3.0, 0.5])
    clip_grad_value_([p], 1.0)
    np.testing.assert_array_equal(p.grad.numpy(), [-1.0, 0.5])


def test_parameters_vector_round_trip():
    m = nn.Linear(3, 2)
    v = parameters_to_vector(m.parameters())
    assert v.shape == (8,) and v.grad_fn is not None
    np.testing.assert_array_equal(v.detach().numpy()[:6], m.weight.detach().numpy().reshape(-1))
    vector_to_parameters(tt.arange(8, dtype=tt.float32), m.parameters())
    np.testing.assert_array_equal(m.bias.detach().numpy(), [6.0, 7.0])
    with pytest.raises(TypeError, match="^expected tinytorch.Tensor, but got: list$"):
        vector_to_parameters([1.0], m.parameters())


def test_legacy_spellings_warn():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        init.uniform(tt.empty(2))
    assert "`nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`." in str(w[0].message)
