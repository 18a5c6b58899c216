"""The schedulers that keep state beyond the epoch (ReduceLROnPlateau, OneCycleLR, CyclicLR,
CosineAnnealingWarmRestarts, SequentialLR, ChainedScheduler), PolynomialLR, and swa_utils' SWALR and
AveragedModel against PyTorch: lr (and momentum) sequences, state_dicts, errors."""
import math
import warnings

import pytest

import tinytorch
import tinytorch.optim as optim
from tinytorch.optim import lr_scheduler

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

STEPS = 60


def _optimizers(kind="SGD", lrs=(0.1, 0.02)):
    def build(lib, mod):
        ps = [lib.tensor([1.0], requires_grad=True) for _ in lrs]
        groups = [{"params": [p], "lr": lr} for p, lr in zip(ps, lrs)]
        if kind == "SGD":
            return mod.SGD(groups, lr=lrs[0], momentum=0.9)
        return getattr(mod, kind)(groups, lr=lrs[0])
    return build(tinytorch, optim), build(torch, torch.optim)


def _trace(opt, sched, steps=STEPS, metric=None):
    """Each step's (lrs, momentum or beta1, get_last_lr)."""
    out = []
    for i in range(steps):
        opt.step()
        if metric is None:
            sched.step()
        else:
            sched.step(metric(i))
        moms = [g.get("momentum", g.get("betas", (None,))[0]) for g in opt.param_groups]
        out.append(([g["lr"] for g in opt.param_groups], moms, list(sched.get_last_lr())))
    return out


def _metric(i):
    # improves, then plateaus with noise, then improves again, then plateaus
    return [1.0 / (1 + i), 0.3 + 0.01 * (i % 3), 0.2 - 0.001 * i, 0.5][min(i // 15, 3)]


SCHEDULERS = [
    ("OneCycleLR", dict(max_lr=0.5, total_steps=STEPS)),
    ("OneCycleLR", dict(max_lr=[0.5, 0.1], epochs=6, steps_per_epoch=10, pct_start=0.25,
                        anneal_strategy="linear", div_factor=10.0, final_div_factor=100.0)),
    ("OneCycleLR", dict(max_lr=0.3, total_steps=STEPS, three_phase=True, cycle_momentum=False)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=7)),
    ("CyclicLR", dict(base_lr=[0.01, 0.001], max_lr=0.1, step_size_up=5, step_size_down=9,
                      mode="triangular2", base_momentum=0.7, max_momentum=0.95)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4, mode="exp_range", gamma=0.97,
                      cycle_momentum=False)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4,
                      scale_fn=lambda x: 0.5 ** x, scale_mode="iterations")),
    ("CosineAnnealingWarmRestarts", dict(T_0=10)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.001)),
    ("PolynomialLR", dict(total_iters=40)),
    ("PolynomialLR", dict(total_iters=25, power=2.5)),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULERS)]


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("name, kw", SCHEDULERS, ids=IDS)
def test_sequence_matches_pytorch(name, kw, kind):
    tt_opt, th_opt = _optimizers(kind)
    tt = getattr(lr_scheduler, name)(tt_opt, **kw)
    th = getattr(torch.optim.lr_scheduler, name)(th_opt, **kw)
    assert tt.get_last_lr() == th.get_last_lr()
    assert _trace(tt_opt, tt) == _trace(th_opt, th)
    assert tt_opt.param_groups[0].keys() == th_opt.param_groups[0].keys()


def _comparable(sd):
    return {k: v for k, v in sd.items() if k not in ("_scale_fn_ref", "_scale_fn_custom")}


@pytest.mark.parametrize("name, kw", SCHEDULERS[::2], ids=IDS[::2])
def test_state_dict_matches_and_resumes(name, kw):
    tt_opt, th_opt = _optimizers()
    tt = getattr(lr_scheduler, name)(tt_opt, **kw)
    th = getattr(torch.optim.lr_scheduler, name)(th_opt, **kw)
    _trace(tt_opt, tt, 17)
    _trace(th_opt, th, 17)
    assert _comparable(tt.state_dict()) == _comparable(th.state_dict())
    # PyTorch's scheduler state into a fresh tinytorch scheduler (and optimizer) continues alike
    tt_opt2, _ = _optimizers()
    tt_opt2.load_state_dict(tt_opt.state_dict())
    tt2 = getattr(lr_scheduler, name)(tt_opt2, **kw)
    tt2.load_state_dict(th.state_dict())
    assert _trace(tt_opt2, tt2, 20) == _trace(th_opt, th, 20)


@pytest.mark.parametrize("kw", [
    dict(), dict(mode="max", factor=0.5, patience=2), dict(patience=3, cooldown=4, min_lr=0.005),
    dict(threshold_mode="abs", threshold=0.01, patience=1, min_lr=[0.01, 0.0]),
    dict(mode="max", threshold_mode="abs", patience=0, eps=0.05),
])
def test_reduce_on_plateau(kw):
    tt_opt, th_opt = _optimizers()
    tt = lr_scheduler.ReduceLROnPlateau(tt_opt, **kw)
    th = torch.optim.lr_scheduler.ReduceLROnPlateau(th_opt, **kw)
    assert _trace(tt_opt, tt, metric=_metric) == _trace(th_opt, th, metric=_metric)
    sd = {k: v for k, v in tt.state_dict().items()}
    assert sd == th.state_dict()
    tt.load_state_dict(th.state_dict())
    assert _trace(tt_opt, tt, 10, metric=_metric) == _trace(th_opt, th, 10, metric=_metric)
    # a tensor metric is accepted as well
    tt.step(tinytorch.tensor(0.1))
    th.step(torch.tensor(0.1))
    assert tt.get_last_lr() == th.get_last_lr()


def _composites(lib, mod, opt, which):
    s = mod.lr_scheduler
    if which == "sequential":
        a = s.LinearLR(opt, start_factor=0.1, total_iters=5)
        b = s.CosineAnnealingLR(opt, T_max=20)
        c = s.ExponentialLR(opt, gamma=0.9)
        return s.SequentialLR(opt, [a, b, c], milestones=[5, 25])
    if which == "sequential-nested":
        a = s.ConstantLR(opt, factor=0.5, total_iters=3)
        inner = s.ChainedScheduler([s.ExponentialLR(opt, gamma=0.95),
                                    s.StepLR(opt, step_size=4, gamma=0.5)])
        return s.SequentialLR(opt, [inner, a], milestones=[6])
    a = s.ExponentialLR(opt, gamma=0.97)
    b = s.CosineAnnealingWarmRestarts(opt, T_0=7)
    return s.ChainedScheduler([a, b])


@pytest.mark.parametrize("which", ["sequential", "sequential-nested", "chained"])
def test_composite_schedulers(which):
    tt_opt, th_opt = _optimizers()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tt = _composites(tinytorch, optim, tt_opt, which)
        th = _composites(torch, torch.optim, th_opt, which)
    assert tt.get_last_lr() == th.get_last_lr()
    assert _trace(tt_opt, tt, 40) == _trace(th_opt, th, 40)
    sd_tt, sd_th = tt.state_dict(), th.state_dict()
    assert sd_tt.keys() == sd_th.keys()
    assert len(sd_tt["_schedulers"]) == len(sd_th["_schedulers"])
    tt.load_state_dict(sd_th)
    assert _trace(tt_opt, tt, 5) == _trace(th_opt, th, 5)


def test_warm_restarts_with_fractional_epochs():
    tt_opt, th_opt = _optimizers()
    tt = lr_scheduler.CosineAnnealingWarmRestarts(tt_opt, T_0=4, T_mult=2, eta_min=1e-3)
    th = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(th_opt, T_0=4, T_mult=2,
                                                              eta_min=1e-3)
    for i in range(60):
        epoch = i * 0.37
        tt.step(epoch)
        th.step(epoch)
        assert tt.get_last_lr() == th.get_last_lr()
        assert (tt.T_cur, tt.T_i, tt.last_epoch) == (th.T_cur, th.T_i, th.last_epoch)


def _err(fn_tt, fn_th):
    with pytest.raises(Exception) as expected:
        fn_th()
    with pytest.raises(type(expected.value)) as got:
        fn_tt()
    assert str(got.value) == str(expected.value)


ERRORS = [
    ("OneCycleLR", dict(max_lr=0.1)), ("OneCycleLR", dict(max_lr=0.1, total_steps=0)),
    ("OneCycleLR", dict(max_lr=0.1, epochs=0, steps_per_epoch=3)),
    ("OneCycleLR", dict(max_lr=0.1, epochs=2, steps_per_epoch=-1)),
    ("OneCycleLR", dict(max_lr=0.1, total_steps=10, pct_start=1)),
    ("OneCycleLR", dict(max_lr=0.1, total_steps=10, anneal_strategy="exp")),
    ("OneCycleLR", dict(max_lr=[0.1, 0.2, 0.3], total_steps=10)),
    ("CyclicLR", dict(base_lr=0.1, max_lr=1.0, mode="nope")),
    ("CosineAnnealingWarmRestarts", dict(T_0=0)), ("CosineAnnealingWarmRestarts", dict(T_0=2.0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=2, eta_min="x")),
    ("ReduceLROnPlateau", dict(factor=1.0)), ("ReduceLROnPlateau", dict(mode="avg")),
    ("ReduceLROnPlateau", dict(threshold_mode="x")), ("ReduceLROnPlateau", dict(min_lr=[0.1])),
]


@pytest.mark.parametrize("name, kw", ERRORS)
def test_errors_match_pytorch(name, kw):
    tt_opt, th_opt = _optimizers()
    _err(lambda: getattr(lr_scheduler, name)(tt_opt, **kw),
         lambda: getattr(torch.optim.lr_scheduler, name)(th_opt, **kw))


def test_one_cycle_past_total_steps_and_cyclic_needs_momentum():
    tt_opt, th_opt = _optimizers()
    tt = lr_scheduler.OneCycleLR(tt_opt, max_lr=0.1, total_steps=3)
    th = torch.optim.lr_scheduler.OneCycleLR(th_opt, max_lr=0.1, total_steps=3)
    for _ in range(3):
        tt_opt.step()
        th_opt.step()
        if th.last_epoch < 3:
            tt.step()
            th.step()
    _err(tt.step, th.step)
    tt_opt, th_opt = _optimizers("Adagrad")
    _err(lambda: lr_scheduler.CyclicLR(tt_opt, 0.01, 0.1),
         lambda: torch.optim.lr_scheduler.CyclicLR(th_opt, 0.01, 0.1))
    tt_opt, th_opt = _optimizers()
    _err(lambda: lr_scheduler.SequentialLR(tt_opt, [lr_scheduler.StepLR(tt_opt, 2)], [3]),
         lambda: torch.optim.lr_scheduler.SequentialLR(
             th_opt, [torch.optim.lr_scheduler.StepLR(th_opt, 2)], [3]))
    _err(lambda: lr_scheduler.ChainedScheduler([]),
         lambda: torch.optim.lr_scheduler.ChainedScheduler([]))
    _err(lambda: lr_scheduler.SequentialLR(tt_opt, [lr_scheduler.ReduceLROnPlateau(tt_opt)], []),
         lambda: torch.optim.lr_scheduler.SequentialLR(
             th_opt, [torch.optim.lr_scheduler.ReduceLROnPlateau(th_opt)], []))
    assert math.isfinite(tt.get_last_lr()[0])


@pytest.mark.parametrize("kw", [dict(swa_lr=0.05), dict(swa_lr=[0.01, 0.2], anneal_epochs=4,
                                                        anneal_strategy="linear"),
                                dict(swa_lr=0.03, anneal_epochs=0)])
def test_swalr_matches_pytorch(kw):
    tt_opt, th_opt = _optimizers()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tt = optim.swa_utils.SWALR(tt_opt, **kw)
        th = torch.optim.swa_utils.SWALR(th_opt, **kw)
    assert _trace(tt_opt, tt, 20) == _trace(th_opt, th, 20)
    assert tt.state_dict() == th.state_dict()


@pytest.mark.parametrize("how", ["swa", "ema", "ema-multi", "buffers"])
def test_averaged_model_matches_pytorch(how):
    import numpy as np

    def build(lib):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
        su = lib.optim.swa_utils
        kw = {"swa": {}, "ema": dict(avg_fn=su.get_ema_avg_fn(0.9)),
              "ema-multi": dict(multi_avg_fn=su.get_ema_multi_avg_fn(0.8)),
              "buffers": dict(use_buffers=True)}[how]
        return net, su.AveragedModel(net, **kw)

    nets = [build(tinytorch), build(torch)]
    # the same starting weights in both
    for pa, pb in zip(nets[0][0].parameters(), nets[1][0].parameters()):
        with torch.no_grad():
            pb.copy_(torch.tensor(pa.detach().numpy()))
    rng = np.random.default_rng(1)
    for _ in range(5):
        deltas = [rng.standard_normal(tuple(p.shape)).astype(np.float32)
                  for p in nets[0][0].parameters()]
        for (net, avg), lib in zip(nets, (tinytorch, torch)):
            with lib.no_grad():
                for p, dlt in zip(net.parameters(), deltas):
                    p.add_(lib.tensor(dlt))
            avg.update_parameters(net)
    (_, a), (_, b) = nets
    assert int(a.n_averaged) == int(b.n_averaged) == 5
    assert list(a.state_dict()) == list(b.state_dict())
    for key, value in b.state_dict().items():
        np.testing.assert_allclose(a.state_dict()[key].numpy(), value.numpy(), rtol=1e-6,
                                   atol=1e-6)
    x = np.ones((2, 3), dtype=np.float32)
    np.testing.assert_allclose(a(tinytorch.tensor(x)).detach().numpy(),
                               b(torch.tensor(x)).detach().numpy(), rtol=1e-5)
    assert repr(a) == repr(b)
