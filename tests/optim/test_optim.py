"""Optimizer bookkeeping: parameter groups, errors (row 50), zero_grad, repr."""
import re

import numpy as np
import pytest

import tinytorch
import tinytorch.optim as optim

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _pair(*arrays):
    """The same leaves in both libraries."""
    tt = [tinytorch.tensor(np.asarray(a, np.float32), requires_grad=True) for a in arrays]
    th = [torch.tensor(np.asarray(a, np.float32), requires_grad=True) for a in arrays]
    return tt, th


def _same_error(tt_call, th_call):
    """Both calls raise the same exception type with the same text (torch. spelt tinytorch.)."""
    with pytest.raises(Exception) as th_err:
        th_call()
    expected = str(th_err.value).replace("torch.", "tinytorch.")
    with pytest.raises(type(th_err.value), match="^" + re.escape(expected) + "$"):
        tt_call()


def _exactly(text):
    return "^" + re.escape(text) + "$"


# -- row 50 and the other constructor errors ------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(lr=-0.1), dict(momentum=-1), dict(weight_decay=-0.5),
                                dict(nesterov=True),
                                dict(momentum=0.9, dampening=0.1, nesterov=True),
                                dict(lr=-1, momentum=-1)])
def test_sgd_argument_errors_match_pytorch(kw):
    tt, th = _pair([1.0])
    _same_error(lambda: optim.SGD(tt, **kw), lambda: torch.optim.SGD(th, **kw))


def test_row50_messages():
    w = tinytorch.tensor([1.0], requires_grad=True)
    cases = [(lambda: optim.SGD([]), "optimizer got an empty parameter list"),
             (lambda: optim.SGD([w], lr=-0.1), "Invalid learning rate: -0.1"),
             (lambda: optim.SGD([w], momentum=-1), "Invalid momentum value: -1"),
             (lambda: optim.SGD([w], momentum=0, nesterov=True),
              "Nesterov momentum requires a momentum and zero dampening")]
    for call, text in cases:
        with pytest.raises(ValueError, match=_exactly(text)):
            call()


@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
@pytest.mark.parametrize("kw", [dict(lr=-1e-3), dict(eps=-1.0), dict(betas=(1.0, 0.9)),
                                dict(betas=(0.9, -0.1)), dict(weight_decay=-1.0),
                                dict(betas=(0, 0.9))])
def test_adam_argument_errors_match_pytorch(cls, kw):
    tt, th = _pair([1.0])
    _same_error(lambda: getattr(optim, cls)(tt, **kw),
                lambda: getattr(torch.optim, cls)(th, **kw))


@pytest.mark.parametrize("params", ["empty", "tensor", "non_tensor", "non_leaf", "set",
                                    "duplicate_groups"])
def test_parameter_errors_match_pytorch(params):
    def build(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        return {"empty": [], "tensor": w, "non_tensor": [w, 3], "non_leaf": [w * 2],
                "set": [{"params": {w}}],
                "duplicate_groups": [{"params": [w]}, {"params": [w], "lr": 0.5}]}[params]

    _same_error(lambda: optim.SGD(build(tinytorch), lr=0.1),
                lambda: torch.optim.SGD(build(torch), lr=0.1))


def test_add_param_group_rejects_a_parameter_already_optimized():
    w = tinytorch.tensor([1.0], requires_grad=True)
    v = tinytorch.tensor([2.0], requires_grad=True)
    opt = optim.SGD([w, v], lr=0.1)
    with pytest.raises(ValueError,
                       match=_exactly("some parameters appear in more than one parameter group")):
        opt.add_param_group({"params": [v]})
    assert len(opt.param_groups) == 1
    with pytest.raises(ValueError, match=_exactly("can't optimize a non-leaf Tensor")):
        opt.add_param_group({"params": [v + 1]})


def test_duplicate_parameter_in_one_group_warns_like_pytorch():
    w = tinytorch.tensor([1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate"):
        optim.SGD([w, w], lr=0.1)


def test_retained_non_leaf_can_be_optimized():
    w = tinytorch.tensor([1.0], requires_grad=True)
    h = w * 2
    h.retain_grad()
    opt = optim.SGD([h], lr=0.1)  # PyTorch accepts tensors that retain their grad
    assert opt.param_groups[0]["params"][0] is h


# -- param groups ---------------------------------------------------------------------------------
def test_param_groups_filled_with_defaults_like_pytorch():
    tt, th = _pair([1.0], [2.0, 3.0], [4.0])

    def groups(lib, opt_mod, p):
        opt = opt_mod.Adam([{"params": [p[0]]},
                            {"params": p[1:], "lr": 0.5, "betas": (0.5, 0.6)}], lr=0.01)
        extra = lib.tensor([5.0], requires_grad=True)
        opt.add_param_group({"params": [extra], "weight_decay": 0.1})
        return [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups], opt

    tt_groups, tt_opt = groups(tinytorch, optim, tt)
    th_groups, _ = groups(torch, torch.optim, th)
    assert tt_groups == th_groups
    assert [len(g["params"]) for g in tt_opt.param_groups] == [1, 2, 1]
    assert tt_opt.param_groups[1]["params"][0] is tt[1]


def test_named_parameters_are_accepted_and_kept_as_param_names():
    w = tinytorch.tensor([1.0], requires_grad=True)
    v = tinytorch.tensor([2.0], requires_grad=True)
    opt = optim.SGD([("w", w), ("v", v)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["w", "v"]
    assert opt.param_groups[0]["params"][0] is w and opt.param_groups[0]["params"][1] is v
    with pytest.raises(ValueError, match="cannot add param group without names"):
        opt.add_param_group({"params": [tinytorch.tensor([3.0], requires_grad=True)]})


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_groups_with_different_learning_rates_match_pytorch(name):
    arrays = ([1.0, -2.0], [0.5], [3.0, 1.0, -1.0])
    tt, th = _pair(*arrays)
    extra = dict(momentum=0.9) if name == "SGD" else {}
    tt_opt = getattr(optim, name)([{"params": tt[:2]}, {"params": tt[2:], "lr": 0.3}], lr=0.05,
                                  **extra)
    th_opt = getattr(torch.optim, name)([{"params": th[:2]}, {"params": th[2:], "lr": 0.3}],
                                        lr=0.05, **extra)
    for _ in range(5):
        for a, b in zip(tt, th):
            a.grad, b.grad = None, None
        sum((p * p).sum() for p in tt).backward()
        sum((p * p).sum() for p in th).backward()
        tt_opt.step()
        th_opt.step()
    for a, b in zip(tt, th):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)
    # the two groups really did move at different rates
    moved = [abs(tt[i].detach().numpy()[0] - arrays[i][0]) for i in (0, 2)]
    assert moved[0] != pytest.approx(moved[1])


# -- repr -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", {}),
                                      ("AdamW", dict(amsgrad=True, betas=(0.8, 0.9)))])
def test_repr_matches_pytorch(name, kw):
    tt, th = _pair([1.0], [2.0])
    tt_opt = getattr(optim, name)([{"params": tt[:1]}, {"params": tt[1:], "lr": 0.5}], **kw)
    th_opt = getattr(torch.optim, name)([{"params": th[:1]}, {"params": th[1:], "lr": 0.5}], **kw)
    assert repr(tt_opt) == repr(th_opt)


# -- zero_grad ------------------------------------------------------------------------------------
def test_zero_grad_sets_grads_to_none_by_default():
    w = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    v = tinytorch.tensor([3.0], requires_grad=True)
    opt = optim.SGD([w, v], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad()
    assert w.grad is None and v.grad is None


def test_zero_grad_without_set_to_none_zeroes_in_place():
    tt, th = _pair([1.0, 2.0])
    w, tw = tt[0], th[0]
    opt, topt = optim.SGD([w], lr=0.1), torch.optim.SGD([tw], lr=0.1)
    (w * w).sum().backward()
    (tw * tw).sum().backward()
    grad, version, th_version = w.grad, w.grad._version, tw.grad._version
    opt.zero_grad(set_to_none=False)
    topt.zero_grad(set_to_none=False)
    assert w.grad is grad
    np.testing.assert_array_equal(grad.numpy(), [0.0, 0.0])
    assert grad._version - version == tw.grad._version - th_version == 1


def test_zero_grad_detaches_a_grad_that_has_a_graph():
    w = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    (w * w * w).sum().backward(create_graph=True)
    assert w.grad.requires_grad
    opt.zero_grad(set_to_none=False)
    assert not w.grad.requires_grad and w.grad.grad_fn is None
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])


def test_step_skips_parameters_without_grad_and_zero_grads_still_step():
    w = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    v = tinytorch.tensor([3.0], requires_grad=True)
    opt = optim.SGD([w, v], lr=0.1, momentum=0.9)
    w.grad = tinytorch.tensor([1.0, 1.0])
    opt.step()
    np.testing.assert_array_equal(v.detach().numpy(), [3.0])
    assert v not in opt.state and v._version == 0
    w.grad = tinytorch.zeros(2)
    before = w._version
    opt.step()  # a zero gradient is still a step: momentum keeps moving the parameter
    assert w._version == before + 1
    np.testing.assert_allclose(w.detach().numpy(), [1.0 - 0.1 - 0.09, 2.0 - 0.1 - 0.09], rtol=1e-6)


def test_differentiable_is_refused_rather_than_ignored():
    w = tinytorch.tensor([1.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        optim.SGD([w], lr=0.1, differentiable=True)
