"""Optimizer checkpoints: PyTorch's layout, bitwise resume, no aliasing, casting, row 33 errors."""
import re

import numpy as np
import pytest

import tinytorch
import tinytorch.optim as optim

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

CONFIGS = [
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]


def _grads(seed, steps, shapes):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(steps)]


SHAPES = [(3, 2), (2,), (4,)]
INIT = [np.linspace(-1, 1, int(np.prod(s)), dtype=np.float32).reshape(s) for s in SHAPES]


def _params(dtype=np.float32):
    return [tinytorch.tensor(a.astype(dtype), requires_grad=True) for a in INIT]


def _make(name, kw, params):
    groups = [{"params": params[:2]}, {"params": params[2:], "lr": kw["lr"] / 2}]
    return getattr(optim, name)(groups, **kw)


def _run(opt, params, grads):
    for step in grads:
        for p, g in zip(params, step):
            p.grad = tinytorch.tensor(g.astype(p.numpy(force=True).dtype))
        opt.step()


def _state_arrays(opt, params):
    return [{k: v.numpy().copy() for k, v in opt.state[p].items()} for p in params]


@pytest.mark.parametrize("name, kw", CONFIGS, ids=IDS)
@pytest.mark.parametrize("through_file", [False, True])
def test_resume_from_state_dict_is_bitwise_identical(name, kw, through_file, tmp_path):
    grads = _grads(0, 12, SHAPES)
    straight = _params()
    opt = _make(name, kw, straight)
    _run(opt, straight, grads)

    first = _params()
    opt1 = _make(name, kw, first)
    _run(opt1, first, grads[:5])
    sd = opt1.state_dict()
    weights = [p.detach().numpy().copy() for p in first]
    if through_file:
        tinytorch.save(sd, tmp_path / "opt.pt")
        sd = tinytorch.load(tmp_path / "opt.pt")
    del opt1, first

    resumed = [tinytorch.tensor(w, requires_grad=True) for w in weights]
    opt2 = _make(name, kw, resumed)
    opt2.load_state_dict(sd)
    _run(opt2, resumed, grads[5:])

    for a, b in zip(resumed, straight):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    for sa, sb in zip(_state_arrays(opt2, resumed), _state_arrays(opt, straight)):
        assert sa.keys() == sb.keys()
        for key in sa:
            np.testing.assert_array_equal(sa[key], sb[key])


@pytest.mark.parametrize("name, kw", CONFIGS, ids=IDS)
def test_state_dict_layout_matches_pytorch(name, kw):
    grads = _grads(1, 3, SHAPES)
    tt_params = _params()
    th_params = [torch.tensor(a, requires_grad=True) for a in INIT]
    tt_opt = _make(name, kw, tt_params)
    th_groups = [{"params": th_params[:2]}, {"params": th_params[2:], "lr": kw["lr"] / 2}]
    th_opt = getattr(torch.optim, name)(th_groups, **kw)
    for step in grads:
        for a, b, g in zip(tt_params, th_params, step):
            a.grad, b.grad = tinytorch.tensor(g), torch.tensor(g)
        tt_opt.step()
        th_opt.step()
    tt_sd, th_sd = tt_opt.state_dict(), th_opt.state_dict()
    assert tt_sd.keys() == th_sd.keys() == {"state", "param_groups"}
    assert tt_sd["param_groups"] == th_sd["param_groups"]
    assert list(tt_sd["state"]) == list(th_sd["state"]) == [0, 1, 2]
    for i, th_state in th_sd["state"].items():
        assert list(tt_sd["state"][i]) == list(th_state)
        for key, value in th_state.items():
            mine = tt_sd["state"][i][key]
            assert isinstance(mine, tinytorch.Tensor)
            assert mine.shape == tuple(value.shape) and str(mine.dtype)[10:] == str(value.dtype)[6:]
            np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=1e-6, atol=1e-7)


def test_state_dict_never_aliases_the_optimizer_state():
    params = _params()
    opt = _make("Adam", dict(lr=0.01), params)
    _run(opt, params, _grads(2, 2, SHAPES))
    sd = opt.state_dict()
    saved = {k: v.numpy().copy() for k, v in sd["state"][0].items()}
    for key, value in sd["state"][0].items():
        assert not np.shares_memory(value.numpy(), opt.state[params[0]][key].numpy())
    _run(opt, params, _grads(3, 2, SHAPES))  # training goes on: the checkpoint must not move
    for key, value in sd["state"][0].items():
        np.testing.assert_array_equal(value.numpy(), saved[key])
    sd["param_groups"][0]["betas"] = (0.0, 0.0)
    assert opt.param_groups[0]["betas"] == (0.9, 0.999)


def test_load_state_dict_copies_instead_of_aliasing():
    params = _params()
    opt = _make("SGD", dict(lr=0.1, momentum=0.9), params)
    _run(opt, params, _grads(4, 2, SHAPES))
    sd = opt.state_dict()
    saved = sd["state"][0]["momentum_buffer"].numpy().copy()
    fresh = _params()
    opt2 = _make("SGD", dict(lr=0.1, momentum=0.9), fresh)
    opt2.load_state_dict(sd)
    loaded = opt2.state[fresh[0]]["momentum_buffer"]
    assert not np.shares_memory(loaded.numpy(), sd["state"][0]["momentum_buffer"].numpy())
    _run(opt2, fresh, _grads(5, 2, SHAPES))
    np.testing.assert_array_equal(sd["state"][0]["momentum_buffer"].numpy(), saved)
    sd["param_groups"][0]["lr"] = 123.0
    assert opt2.param_groups[0]["lr"] == 0.1


def test_load_state_dict_restores_hyper_parameters_and_keeps_the_parameters():
    params = _params()
    opt = _make("SGD", dict(lr=0.1, momentum=0.9), params)
    sd = opt.state_dict()
    sd["param_groups"][1]["lr"] = 0.005
    opt.param_groups[0]["lr"] = 7.0
    opt.load_state_dict(sd)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.005]
    assert opt.param_groups[0]["params"][0] is params[0]
    assert opt.param_groups[1]["params"][0] is params[2]
    assert len(opt.state) == 0  # no step was taken: nothing to restore


def test_loaded_state_is_cast_to_the_parameter_dtype_but_step_is_kept():
    params64 = _params(np.float64)
    opt = _make("Adam", dict(lr=0.01), params64)
    _run(opt, params64, _grads(6, 2, SHAPES))
    sd = opt.state_dict()
    assert sd["state"][0]["exp_avg"].dtype is tinytorch.float64
    params32 = _params()
    opt32 = _make("Adam", dict(lr=0.01), params32)
    opt32.load_state_dict(sd)
    state = opt32.state[params32[0]]
    assert state["exp_avg"].dtype is tinytorch.float32
    assert state["exp_avg_sq"].dtype is tinytorch.float32
    assert state["step"].dtype is sd["state"][0]["step"].dtype and state["step"].item() == 2.0

    # PyTorch does the same
    th64 = [torch.tensor(a.astype(np.float64), requires_grad=True) for a in INIT]
    th_opt = torch.optim.Adam(th64, lr=0.01)
    for p in th64:
        p.grad = torch.ones_like(p)
    th_opt.step()
    th32 = [torch.tensor(a, requires_grad=True) for a in INIT]
    th_opt32 = torch.optim.Adam(th32, lr=0.01)
    th_opt32.load_state_dict(th_opt.state_dict())
    assert th_opt32.state[th32[0]]["exp_avg"].dtype == torch.float32


def test_a_pytorch_state_dict_continues_the_pytorch_trajectory():
    grads = _grads(7, 8, SHAPES)
    th_params = [torch.tensor(a, requires_grad=True) for a in INIT]
    th_opt = torch.optim.Adam(th_params, lr=0.01, amsgrad=True)
    for step in grads[:4]:
        for p, g in zip(th_params, step):
            p.grad = torch.tensor(g)
        th_opt.step()
    th_sd = th_opt.state_dict()
    state = {i: {k: tinytorch.tensor(v.numpy()) for k, v in s.items()}
             for i, s in th_sd["state"].items()}
    converted = {"state": state, "param_groups": th_sd["param_groups"]}
    tt_params = [tinytorch.tensor(p.detach().numpy().copy(), requires_grad=True) for p in th_params]
    tt_opt = optim.Adam(tt_params, lr=0.5)
    tt_opt.load_state_dict(converted)
    assert tt_opt.param_groups[0]["lr"] == 0.01
    _run(tt_opt, tt_params, grads[4:])
    for step in grads[4:]:
        for p, g in zip(th_params, step):
            p.grad = torch.tensor(g)
        th_opt.step()
    for a, b in zip(tt_params, th_params):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)


# -- row 33 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["fewer_groups", "more_groups", "group_size"])
def test_row33_errors_match_pytorch(case):
    def attempt(lib, opt_mod):
        ps = [lib.tensor([float(i)], requires_grad=True) for i in range(3)]
        source = {"fewer_groups": ps,
                  "more_groups": [{"params": ps[:1]}, {"params": ps[1:2]}, {"params": ps[2:]}],
                  "group_size": [{"params": ps[:1]}, {"params": ps[1:]}]}[case]
        target = [{"params": ps[:2]}, {"params": ps[2:]}]
        sd = opt_mod.SGD(source, lr=0.1).state_dict()
        return lambda: opt_mod.SGD(target, lr=0.1).load_state_dict(sd)

    with pytest.raises(ValueError) as th_err:
        attempt(torch, torch.optim)()
    with pytest.raises(ValueError, match="^" + re.escape(str(th_err.value)) + "$"):
        attempt(tinytorch, optim)()
    assert str(th_err.value) in ("loaded state dict has a different number of parameter groups",
                                 "loaded state dict contains a parameter group that doesn't match "
                                 "the size of optimizer's group")


def test_failed_load_leaves_the_optimizer_untouched():
    params = _params()
    opt = _make("SGD", dict(lr=0.1, momentum=0.9), params)
    _run(opt, params, _grads(8, 1, SHAPES))
    before = opt.state_dict()
    bad = opt.state_dict()
    bad["param_groups"] = bad["param_groups"][:1]
    with pytest.raises(ValueError):
        opt.load_state_dict(bad)
    after = opt.state_dict()
    assert after["param_groups"] == before["param_groups"]
    np.testing.assert_array_equal(after["state"][0]["momentum_buffer"].numpy(),
                                  before["state"][0]["momentum_buffer"].numpy())


# ------------------------------- a wrong-shaped state fails at step() as PyTorch

@pytest.mark.parametrize("kind", ["sgd", "adam", "adamw_amsgrad"])
@pytest.mark.parametrize("bad_shape", [(2,), (1,), (3, 1), (2, 3), ()])
def test_wrong_shaped_state_fails_at_step_like_pytorch(torch, kind, bad_shape):
    key = "momentum_buffer" if kind == "sgd" else "exp_avg"
    errors = []
    for lib in (torch, tinytorch):
        p = lib.nn.Parameter(lib.ones(3))
        opt = {"sgd": lambda: lib.optim.SGD([p], lr=0.1, momentum=0.9),
               "adam": lambda: lib.optim.Adam([p]),
               "adamw_amsgrad": lambda: lib.optim.AdamW([p], amsgrad=True)}[kind]()
        p.grad = lib.ones(3)
        opt.step()
        sd = opt.state_dict()
        sd["state"][0][key] = lib.ones(bad_shape)
        opt.load_state_dict(sd)
        with pytest.raises(RuntimeError) as e:
            opt.step()
        errors.append(str(e.value))
    assert errors[1] == errors[0]
