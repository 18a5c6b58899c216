"""RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop (and LBFGS) against PyTorch:
50 steps side by side on a small float64 model, checkpoints loading into each other, errors."""
import numpy as np
import pytest

import tinytorch
import tinytorch.optim as optim

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

CONFIGS = [
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.005, momentum=0.9, weight_decay=0.01)),
    ("RMSprop", dict(lr=0.005, momentum=0.5, centered=True, alpha=0.9, eps=1e-6, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, eps=1e-8)),
    ("Adagrad", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.01)),
    ("Adadelta", dict(maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.01, betas=(0.5, 0.9), maximize=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.8, 0.9))),
    ("RAdam", dict(lr=0.01, maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=10, weight_decay=0.01)),
    ("ASGD", dict(lr=0.05, t0=0, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.001, etas=(0.3, 1.5), step_sizes=(1e-4, 0.05))),
    ("Rprop", dict(lr=0.01, maximize=True)),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]

RNG = np.random.default_rng(0)
X = RNG.standard_normal((16, 4))
Y = RNG.standard_normal((16, 1))
INIT = [RNG.standard_normal(s) * 0.5 for s in [(8, 4), (8,), (1, 8), (1,)]]


def _model(lib, dtype=np.float64, sign=1.0):
    params = [lib.tensor(a.astype(dtype), requires_grad=True) for a in INIT]
    x, y = lib.tensor(X.astype(dtype)), lib.tensor(Y.astype(dtype))

    def loss_fn():
        w1, b1, w2, b2 = params
        out = (x @ w1.T + b1).tanh() @ w2.T + b2
        return ((out - y) ** 2).mean() * sign

    return params, loss_fn


def _groups(params, kw):
    # two groups, the second with its own lr, so per-group options are exercised
    return [{"params": params[:2]}, {"params": params[2:], "lr": kw.get("lr", 1.0) * 0.5}]


def _step(opt, params, loss_fn):
    opt.zero_grad()
    loss = loss_fn()
    loss.backward()
    opt.step()
    return loss.item()


def _to_torch(value):
    if isinstance(value, tinytorch.Tensor):
        return torch.tensor(value.numpy().copy())
    if isinstance(value, dict):
        return {k: _to_torch(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_torch(v) for v in value]
    return value


def _to_tiny(value):
    if isinstance(value, torch.Tensor):
        return tinytorch.tensor(value.numpy().copy())
    if isinstance(value, dict):
        return {k: _to_tiny(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_tiny(v) for v in value]
    return value


def _compare(tt_params, th_params, tt_opt, th_opt, tol=1e-6, dtypes=True):
    for a, b in zip(tt_params, th_params):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
        sa, sb = tt_opt.state[a], th_opt.state[b]
        assert sorted(sa) == sorted(sb)
        for key, value in sb.items():
            np.testing.assert_allclose(sa[key].numpy(), value.numpy(), rtol=tol, atol=tol)
            assert not dtypes or str(sa[key].dtype).split(".")[1] == str(value.dtype).split(".")[1], key


@pytest.mark.parametrize("name, kw", CONFIGS, ids=IDS)
def test_fifty_steps_match_pytorch(name, kw):
    # maximizing the negated loss keeps the run convergent, so rounding differences stay small
    sign = -1.0 if kw.get("maximize") else 1.0
    tt_params, tt_loss = _model(tinytorch, sign=sign)
    th_params, th_loss = _model(torch, sign=sign)
    tt_opt = getattr(optim, name)(_groups(tt_params, kw), **kw)
    th_opt = getattr(torch.optim, name)(_groups(th_params, kw), **kw, foreach=False)
    for _ in range(50):
        la = _step(tt_opt, tt_params, tt_loss)
        lb = _step(th_opt, th_params, th_loss)
        assert la == pytest.approx(lb, rel=1e-6, abs=1e-6)
    _compare(tt_params, th_params, tt_opt, th_opt)
    assert tt_opt.param_groups[1]["lr"] == th_opt.param_groups[1]["lr"]
    sd_a, sd_b = tt_opt.state_dict(), th_opt.state_dict()
    assert sd_a["param_groups"] == [{**g, "foreach": None} for g in sd_b["param_groups"]]


@pytest.mark.parametrize("name, kw", CONFIGS[::2], ids=IDS[::2])
def test_state_dicts_load_into_each_other(name, kw):
    tt_params, tt_loss = _model(tinytorch)
    th_params, th_loss = _model(torch)
    tt_opt = getattr(optim, name)(_groups(tt_params, kw), **kw)
    th_opt = getattr(torch.optim, name)(_groups(th_params, kw), **kw)
    for _ in range(10):
        _step(tt_opt, tt_params, tt_loss)
    # tinytorch's checkpoint into PyTorch: both continue from the same point
    for a, b in zip(tt_params, th_params):
        with torch.no_grad():
            b.copy_(torch.tensor(a.detach().numpy()))
    th_opt.load_state_dict(_to_torch(tt_opt.state_dict()))
    for _ in range(10):
        _step(tt_opt, tt_params, tt_loss)
        _step(th_opt, th_params, th_loss)
    # loading casts float state (mu_product, eta, mu) to the parameter's dtype, as PyTorch does
    _compare(tt_params, th_params, tt_opt, th_opt, dtypes=False)
    # and PyTorch's back into a fresh tinytorch optimizer
    fresh_params, fresh_loss = _model(tinytorch)
    for a, b in zip(fresh_params, th_params):
        a.data = tinytorch.tensor(b.detach().numpy().copy())
    fresh = getattr(optim, name)(_groups(fresh_params, kw), **kw)
    fresh.load_state_dict(_to_tiny(th_opt.state_dict()))
    for _ in range(5):
        _step(fresh, fresh_params, fresh_loss)
        _step(th_opt, th_params, th_loss)
    _compare(fresh_params, th_params, fresh, th_opt)


@pytest.mark.parametrize("name, kw", [("RMSprop", dict(centered=True, momentum=0.9)),
                                      ("Adagrad", {}), ("NAdam", {}), ("ASGD", {}),
                                      ("Rprop", {})])
def test_float32_state_and_repr(name, kw):
    tt_params, tt_loss = _model(tinytorch, np.float32)
    th_params, th_loss = _model(torch, np.float32)
    tt_opt = getattr(optim, name)(tt_params, **kw)
    th_opt = getattr(torch.optim, name)(th_params, **kw)
    for _ in range(5):
        _step(tt_opt, tt_params, tt_loss)
        _step(th_opt, th_params, th_loss)
    _compare(tt_params, th_params, tt_opt, th_opt, tol=1e-5)
    assert repr(tt_opt) == repr(th_opt)


ERRORS = [
    ("RMSprop", dict(lr=-1)), ("RMSprop", dict(eps=-1)), ("RMSprop", dict(momentum=-1)),
    ("RMSprop", dict(weight_decay=-1)), ("RMSprop", dict(alpha=-1)),
    ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(initial_accumulator_value=-1)),
    ("Adagrad", dict(eps=-1)), ("Adagrad", dict(weight_decay=-0.5)),
    ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(eps=-1)),
    ("Adamax", dict(betas=(1.0, 0.9))), ("Adamax", dict(betas=(0.9, -0.1))),
    ("NAdam", dict(momentum_decay=-1)), ("NAdam", dict(betas=(0.9, 1.0))),
    ("RAdam", dict(eps=-1e-3)), ("ASGD", dict(weight_decay=-1)), ("ASGD", dict(lr=-0.1)),
    ("Rprop", dict(etas=(1.1, 1.2))), ("Rprop", dict(etas=(0.5, 0.9))),
]


@pytest.mark.parametrize("name, kw", ERRORS)
def test_argument_errors_match_pytorch(name, kw):
    with pytest.raises(Exception) as expected:
        getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)], **kw)
    with pytest.raises(type(expected.value)) as got:
        getattr(optim, name)([tinytorch.zeros(1, requires_grad=True)], **kw)
    assert str(got.value) == str(expected.value)


def test_adagrad_creates_state_up_front():
    p = tinytorch.ones(2, requires_grad=True)
    q = torch.ones(2, requires_grad=True)
    a = optim.Adagrad([p], initial_accumulator_value=0.5)
    b = torch.optim.Adagrad([q], initial_accumulator_value=0.5)
    assert sorted(a.state_dict()["state"][0]) == sorted(b.state_dict()["state"][0])
    np.testing.assert_array_equal(a.state[p]["sum"].numpy(), b.state[q]["sum"].numpy())


@pytest.mark.parametrize("kw", [dict(), dict(line_search_fn="strong_wolfe"),
                                dict(lr=0.5, max_iter=7, history_size=3),
                                dict(line_search_fn="strong_wolfe", history_size=2, max_iter=10,
                                     tolerance_change=1e-12)])
def test_lbfgs_matches_pytorch(kw):
    results = []
    for lib, mod in ((tinytorch, optim), (torch, torch.optim)):
        params, loss_fn = _model(lib)
        opt = mod.LBFGS(params, **kw)

        def closure(opt=opt, loss_fn=loss_fn):
            opt.zero_grad()
            loss = loss_fn()
            loss.backward()
            return loss

        losses = [opt.step(closure).item() for _ in range(6)]
        results.append((params, losses, opt))
    (pa, la, oa), (pb, lb, ob) = results
    np.testing.assert_allclose(la, lb, rtol=1e-6, atol=1e-9)
    for a, b in zip(pa, pb):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)
    sa, sb = oa.state_dict(), ob.state_dict()
    assert sa["param_groups"] == sb["param_groups"]
    assert sorted(sa["state"][0]) == sorted(sb["state"][0])
    for key, value in sb["state"][0].items():
        mine = sa["state"][0][key]
        if isinstance(value, list):
            assert len(mine) == len(value)
            assert [type(v).__name__ for v in mine] == [type(v).__name__ for v in value]
        else:
            assert type(mine).__name__ == type(value).__name__, key


def test_lbfgs_state_dict_round_trip_and_errors():
    params, loss_fn = _model(tinytorch)
    opt = optim.LBFGS(params, history_size=4)

    def closure():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    opt.step(closure)
    th_params, th_loss = _model(torch)
    for a, b in zip(params, th_params):
        with torch.no_grad():
            b.copy_(torch.tensor(a.detach().numpy()))
    th_opt = torch.optim.LBFGS(th_params, history_size=4)
    th_opt.load_state_dict(_to_torch(opt.state_dict()))

    def th_closure():
        th_opt.zero_grad()
        loss = th_loss()
        loss.backward()
        return loss

    for _ in range(3):
        assert opt.step(closure).item() == pytest.approx(th_opt.step(th_closure).item(), rel=1e-6)
    p = [tinytorch.zeros(2, requires_grad=True)]
    q = [torch.zeros(2, requires_grad=True)]
    for kw in (dict(lr=-1.0),):
        with pytest.raises(ValueError) as expected:
            torch.optim.LBFGS(q, **kw)
        with pytest.raises(ValueError) as got:
            optim.LBFGS(p, **kw)
        assert str(got.value) == str(expected.value)
    with pytest.raises(ValueError) as expected:
        torch.optim.LBFGS([{"params": q}, {"params": [torch.ones(1, requires_grad=True)]}])
    with pytest.raises(ValueError) as got:
        optim.LBFGS([{"params": p}, {"params": [tinytorch.ones(1, requires_grad=True)]}])
    assert str(got.value) == str(expected.value)


def test_rprop_steps_past_a_nan_gradient_as_pytorch():
    # PyTorch's sign is 0 at NaN: the parameter whose gradient is NaN keeps its value, its neighbours step
    w0 = np.linspace(-1, 1, 6).astype(np.float32)
    grads = [np.array([0.5, np.nan, -0.2, 0.1, np.nan, 0.3], np.float32),
             np.array([0.4, 0.1, np.nan, -0.1, 0.2, 0.3], np.float32)]
    got = []
    for lib, opt_of in ((tinytorch, optim.Rprop), (torch, torch.optim.Rprop)):
        w = lib.tensor(w0.copy(), requires_grad=True)
        opt = opt_of([w], lr=0.1)
        for g in grads:
            w.grad = lib.tensor(g)
            opt.step()
        got.append(w.detach().numpy())
    np.testing.assert_array_equal(np.isnan(got[0]), np.isnan(got[1]))
    np.testing.assert_allclose(got[0], got[1], rtol=1e-6)
