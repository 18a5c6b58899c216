"""Learning-rate schedulers against PyTorch's: the lr sequences, state_dict, resume, warnings."""
import re
import warnings

import numpy as np
import pytest

import tinytorch
import tinytorch.optim as optim
from tinytorch.optim import lr_scheduler

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

EPOCHS = 50


def _optimizers(lrs=(0.1, 0.02)):
    tt = [tinytorch.tensor([1.0], requires_grad=True) for _ in lrs]
    th = [torch.tensor([1.0], requires_grad=True) for _ in lrs]
    tt_opt = optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(tt, lrs)], lr=lrs[0],
                       momentum=0.9)
    th_opt = torch.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(th, lrs)], lr=lrs[0],
                             momentum=0.9)
    return tt_opt, th_opt


def _warmup(epoch):
    return min(1.0, (epoch + 1) / 5) * 0.97 ** epoch


SCHEDULERS = [
    ("StepLR", dict(step_size=7)),
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("CosineAnnealingLR", dict(T_max=10)),
    ("CosineAnnealingLR", dict(T_max=50, eta_min=1e-3)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.01)),  # past T_max: the schedule climbs back up
    ("LambdaLR", dict(lr_lambda=_warmup)),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.95)),
    ("MultiStepLR", dict(milestones=[5, 20, 20, 30], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("ConstantLR", dict(factor=0.25, total_iters=6)),
    ("LinearLR", dict(start_factor=0.1, end_factor=0.9, total_iters=12)),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULERS)]


def _sequence(sched, opt):
    lrs = [[g["lr"] for g in opt.param_groups]]
    for _ in range(EPOCHS):
        opt.step()
        sched.step()
        lrs.append([g["lr"] for g in opt.param_groups])
        assert sched.get_last_lr() == lrs[-1]
    return np.array(lrs)


@pytest.mark.parametrize("name, kw", SCHEDULERS, ids=IDS)
def test_lr_sequence_matches_pytorch(name, kw):
    tt_opt, th_opt = _optimizers()
    tt = _sequence(getattr(lr_scheduler, name)(tt_opt, **kw), tt_opt)
    th = _sequence(getattr(torch.optim.lr_scheduler, name)(th_opt, **kw), th_opt)
    # same float operations in the same order: equal bit for bit, beyond the 1e-12 asked for
    np.testing.assert_array_equal(tt, th)
    assert len(np.unique(th[:, 0])) > 1  # the schedule really changed the lr


@pytest.mark.parametrize("name, kw", SCHEDULERS, ids=IDS)
def test_resume_from_state_dict_continues_the_sequence(name, kw):
    opt, _ = _optimizers()
    sched = getattr(lr_scheduler, name)(opt, **kw)
    full = _sequence(sched, opt)

    opt1, _ = _optimizers()
    sched1 = getattr(lr_scheduler, name)(opt1, **kw)
    for _ in range(17):
        opt1.step()
        sched1.step()
    opt_sd, sched_sd = opt1.state_dict(), sched1.state_dict()
    assert "optimizer" not in sched_sd and sched_sd["last_epoch"] == 17

    opt2, _ = _optimizers()
    sched2 = getattr(lr_scheduler, name)(opt2, **kw)
    sched2.load_state_dict(sched_sd)
    opt2.load_state_dict(opt_sd)  # PyTorch's order: scheduler first, then the optimizer's lrs
    lrs = [[g["lr"] for g in opt2.param_groups]]
    for _ in range(EPOCHS - 17):
        opt2.step()
        sched2.step()
        lrs.append([g["lr"] for g in opt2.param_groups])
    np.testing.assert_array_equal(np.array(lrs), full[17:])


def test_initial_lr_is_recorded_and_last_epoch_starts_at_zero():
    tt_opt, th_opt = _optimizers()
    tt = lr_scheduler.StepLR(tt_opt, 3)
    th = torch.optim.lr_scheduler.StepLR(th_opt, 3)
    initial = [g["initial_lr"] for g in th_opt.param_groups]
    assert [g["initial_lr"] for g in tt_opt.param_groups] == initial
    assert tt.last_epoch == th.last_epoch == 0
    assert tt.base_lrs == th.base_lrs == [0.1, 0.02]
    assert tt.get_last_lr() == th.get_last_lr()


def test_resuming_with_last_epoch_needs_initial_lr():
    tt_opt, th_opt = _optimizers()
    with pytest.raises(KeyError) as th_err:
        torch.optim.lr_scheduler.StepLR(th_opt, 3, last_epoch=4)
    with pytest.raises(KeyError) as tt_err:
        lr_scheduler.StepLR(tt_opt, 3, last_epoch=4)
    assert str(tt_err.value) == str(th_err.value)


def test_cosine_resumed_with_last_epoch_matches_pytorch():
    tt_opt, th_opt = _optimizers()
    for opt in (tt_opt, th_opt):
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"]
    tt = lr_scheduler.CosineAnnealingLR(tt_opt, T_max=20, eta_min=0.001, last_epoch=6)
    th = torch.optim.lr_scheduler.CosineAnnealingLR(th_opt, T_max=20, eta_min=0.001, last_epoch=6)
    seq_tt, seq_th = [], []
    for _ in range(10):
        tt_opt.step()
        th_opt.step()
        tt.step()
        th.step()
        seq_tt.append(tt.get_last_lr())
        seq_th.append(th.get_last_lr())
    np.testing.assert_allclose(seq_tt, seq_th, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name, kw", [("StepLR", dict(step_size=4)),
                                      ("MultiStepLR", dict(milestones=[3, 9])),
                                      ("CosineAnnealingLR", dict(T_max=12)),
                                      ("ExponentialLR", dict(gamma=0.8))])
def test_explicit_epoch_uses_the_closed_form_and_warns(name, kw):
    tt_opt, th_opt = _optimizers()
    tt = getattr(lr_scheduler, name)(tt_opt, **kw)
    th = getattr(torch.optim.lr_scheduler, name)(th_opt, **kw)
    deprecated = re.escape("The epoch parameter in `scheduler.step()` was not necessary")
    for epoch in (5, 2, 11):
        tt_opt.step()
        th_opt.step()
        with pytest.warns(UserWarning, match=deprecated):
            tt.step(epoch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            th.step(epoch)
        np.testing.assert_allclose(tt.get_last_lr(), th.get_last_lr(), rtol=0, atol=1e-12)


def test_warns_when_the_scheduler_steps_before_the_optimizer():
    tt_opt, _ = _optimizers()
    sched = lr_scheduler.StepLR(tt_opt, 3)
    text = "Detected call of `lr_scheduler.step()` before `optimizer.step()`"
    with pytest.warns(UserWarning, match=re.escape(text)):
        sched.step()


def test_no_warning_in_the_right_order():
    tt_opt, _ = _optimizers()
    sched = lr_scheduler.StepLR(tt_opt, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tt_opt.step()
        sched.step()
        sched.step()


def test_get_lr_outside_step_warns():
    tt_opt, _ = _optimizers()
    sched = lr_scheduler.ExponentialLR(tt_opt, 0.5)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_lambda_state_dict_keeps_callable_objects_state_but_not_functions():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate ** epoch

    tt_opt, th_opt = _optimizers()
    tt_sd = lr_scheduler.LambdaLR(tt_opt, [Decay(), _warmup]).state_dict()
    th_sd = torch.optim.lr_scheduler.LambdaLR(th_opt, [Decay(), _warmup]).state_dict()
    assert tt_sd["lr_lambdas"] == th_sd["lr_lambdas"] == [{"rate": 0.5}, None]
    other = Decay()
    other.rate = 0.1
    opt2, _ = _optimizers()
    sched2 = lr_scheduler.LambdaLR(opt2, [other, _warmup])
    sched2.load_state_dict(tt_sd)
    assert other.rate == 0.5 and "lr_lambdas" in tt_sd


def test_scheduler_argument_errors_match_pytorch():
    tt_opt, th_opt = _optimizers()
    cases = [(lambda: lr_scheduler.LambdaLR(tt_opt, [lambda e: 1.0]),
              lambda: torch.optim.lr_scheduler.LambdaLR(th_opt, [lambda e: 1.0])),
             (lambda: lr_scheduler.StepLR(object(), 3),
              lambda: torch.optim.lr_scheduler.StepLR(object(), 3)),
             (lambda: lr_scheduler.MultiplicativeLR(tt_opt, 0.5),
              lambda: torch.optim.lr_scheduler.MultiplicativeLR(th_opt, 0.5)),
             (lambda: lr_scheduler.ConstantLR(tt_opt, factor=2.0),
              lambda: torch.optim.lr_scheduler.ConstantLR(th_opt, factor=2.0)),
             (lambda: lr_scheduler.LinearLR(tt_opt, start_factor=0.0),
              lambda: torch.optim.lr_scheduler.LinearLR(th_opt, start_factor=0.0))]
    for tt_call, th_call in cases:
        with pytest.raises(Exception) as th_err:
            th_call()
        with pytest.raises(type(th_err.value)) as tt_err:
            tt_call()
        assert str(tt_err.value) == str(th_err.value)


def test_scheduled_lr_drives_the_optimizer_like_pytorch():
    tt_w = tinytorch.tensor([1.0, -1.0], requires_grad=True)
    th_w = torch.tensor([1.0, -1.0], requires_grad=True)
    tt_opt, th_opt = optim.Adam([tt_w], lr=0.1), torch.optim.Adam([th_w], lr=0.1)
    tt_s = lr_scheduler.CosineAnnealingLR(tt_opt, T_max=8)
    th_s = torch.optim.lr_scheduler.CosineAnnealingLR(th_opt, T_max=8)
    for _ in range(12):
        tt_opt.zero_grad()
        th_opt.zero_grad()
        (tt_w * tt_w * tt_w).sum().backward()
        (th_w * th_w * th_w).sum().backward()
        tt_opt.step()
        th_opt.step()
        tt_s.step()
        th_s.step()
    np.testing.assert_allclose(tt_w.detach().numpy(), th_w.detach().numpy(), rtol=1e-6, atol=1e-7)
