"""A replayed training step's ``loss.backward()`` run inline (``_dynamo/step_plan.py``) and its cross-entropy run as
eager's fused loss (``lowering.keep_cross_entropy``): every step bit for bit with eager tinytorch (the loss, every
``.grad`` after the step, the parameters, the optimizer's state), in both orders of ``zero_grad``; the engine
still runs the backward wherever a hook or ``retain_grad`` makes its walk observable."""
import numpy as np
import pytest

import tinytorch as tt
from tinytorch._ops._core import paths
from tinytorch._dynamo import train_step as _train_step
from tinytorch._dynamo.step_plan import FusedSgd

STEPS = 200


def _quickstart():
    return tt.nn.Sequential(tt.nn.Flatten(), tt.nn.Linear(784, 512), tt.nn.ReLU(), tt.nn.Linear(512, 512),
                            tt.nn.ReLU(), tt.nn.Linear(512, 10))


def _small():
    return tt.nn.Sequential(tt.nn.Linear(6, 16), tt.nn.ReLU(), tt.nn.Linear(16, 3))


def _step(model, opt, loss_fn, zero_first: bool):
    """The quickstart's step (``zero_grad`` last, as the benchmark writes it) or the tutorial's (first)."""
    if zero_first:
        def step(x, y):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            return loss
    else:
        def step(x, y):
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            return loss
    return step


def _state(model, opt) -> list:
    """Every value a user can read after a step: parameters, their ``.grad`` (None or values), the optimizer's
    state tensors and counters."""
    out = []
    for p in model.parameters():
        out.append(p.detach().numpy().copy())
        out.append(None if p.grad is None else p.grad.numpy().copy())
        for key, value in sorted(opt.state[p].items()) if p in opt.state else ():
            out.append((key, value.numpy().copy() if isinstance(value, tt.Tensor) else value))
    return out


def _assert_state_same(a: list, b: list, k: int) -> None:
    assert len(a) == len(b), k
    for u, v in zip(a, b):
        if isinstance(u, tuple):
            assert u[0] == v[0], k
            u, v = u[1], v[1]
        if u is None or v is None:
            assert u is None and v is None, k
        else:
            np.testing.assert_array_equal(u, v, err_msg=f"step {k}")
            assert np.array_equal(np.signbit(u), np.signbit(v)), k


def _run_both(make_model, make_opt, shape, classes, steps, zero_first, seed, check=None):
    """Eager and compiled steps side by side on the same data, compared after every step."""
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((steps, *shape), dtype=np.float32)
    ys = rng.integers(0, classes, (steps, shape[0]))
    runs = []
    for compiled in (False, True):
        tt.manual_seed(0)
        model = make_model()
        opt = make_opt(model.parameters())
        step = _step(model, opt, tt.nn.CrossEntropyLoss(), zero_first)
        runs.append((model, opt, tt.compile(step) if compiled else step))
    for k, (x, y) in enumerate(zip(xs, ys)):
        got = [(step(tt.tensor(x), tt.tensor(y)), _state(model, opt)) for model, opt, step in runs]
        (le, se), (lc, sc) = got
        np.testing.assert_array_equal(lc.detach().numpy(), le.detach().numpy(), err_msg=f"loss {k}")
        _assert_state_same(sc, se, k)
        if check is not None:
            check(lc)
    return runs[1][2]


_OPTIMIZERS = {
    "sgd": lambda ps: tt.optim.SGD(ps, lr=1e-3),
    "momentum": lambda ps: tt.optim.SGD(ps, lr=1e-2, momentum=0.9),
    "nesterov_decay": lambda ps: tt.optim.SGD(ps, lr=1e-2, momentum=0.9, nesterov=True, weight_decay=1e-2),
    "decay_dampening": lambda ps: tt.optim.SGD(ps, lr=1e-2, momentum=0.5, dampening=0.3, weight_decay=1e-3),
    "adam": lambda ps: tt.optim.Adam(ps, lr=1e-3),
}


def _counting_inline(monkeypatch) -> list:
    """A list that grows by one at each backward the step plan ran without the engine."""
    runs = []
    real = _train_step.backward_inline

    def counted(loss, retain):
        done = real(loss, retain)
        runs.append(1) if done else None
        return done
    monkeypatch.setattr(_train_step, "backward_inline", counted)
    return runs


def _counting_fused(monkeypatch) -> list:
    """A list that grows by one at each step run as one backward plan with SGD's update in it."""
    runs = []
    real = FusedSgd.run

    def counted(self, leaves, outputs):
        done = real(self, leaves, outputs)
        runs.append(1) if done else None
        return done
    monkeypatch.setattr(FusedSgd, "run", counted)
    return runs


@pytest.mark.parametrize("batch", [1, 8])
@pytest.mark.parametrize("zero_first", [False, True])
def test_quickstart_200_steps_bit_for_bit_without_the_engine(batch, zero_first, monkeypatch):
    inline, fused = _counting_inline(monkeypatch), _counting_fused(monkeypatch)
    step = _run_both(_quickstart, _OPTIMIZERS["sgd"], (batch, 1, 28, 28), 10, STEPS, zero_first, seed=batch)
    # every replay's backward (the capture's was eager's): with zero_grad last, fused with SGD's update
    # (TINYTORCH_REFERENCE=1: SGD's update is the add op's, the step's calls run as recorded)
    fusing = not zero_first and not paths.REFERENCE
    assert (len(inline), len(fused)) == ((0, STEPS - 1) if fusing else (STEPS - 1, 0))
    (entry,) = step._tinytorch_frame.entries
    assert entry.program.step is not None and entry.last is not None


@pytest.mark.parametrize("name", sorted(_OPTIMIZERS))
@pytest.mark.parametrize("zero_first", [False, True])
def test_optimizers_bit_for_bit_after_every_step(name, zero_first):
    _run_both(_small, _OPTIMIZERS[name], (8, 6), 3, STEPS, zero_first, seed=3)


@pytest.mark.parametrize("batch", [1, 8])
def test_quickstart_with_momentum_and_weight_decay_bit_for_bit(batch):
    _run_both(_quickstart, _OPTIMIZERS["nesterov_decay"], (batch, 1, 28, 28), 10, 40, False, seed=5)


def _hooked(kind):
    """A model whose backward shows the engine's walk: a hook on a parameter's gradient, one run after its
    accumulation, a hook on the AccumulateGrad node itself."""
    def make():
        model = _small()
        w = model[0].weight
        if kind == "tensor_hook":
            w.register_hook(lambda g: g * 2)
        elif kind == "post_accumulate":
            w.register_post_accumulate_grad_hook(lambda p: p.grad.mul_(0.5))
        else:
            node = w.view_as(w).grad_fn.next_functions[0][0]
            model._keep = node  # (a node held alive: the parameter's AccumulateGrad, shared by every graph)
            node.register_prehook(lambda grads: (grads[0] * 3,))
        return model
    return make


@pytest.mark.parametrize("kind", ["tensor_hook", "post_accumulate", "node_prehook"])
@pytest.mark.parametrize("zero_first", [False, True])
def test_a_hook_sends_the_backward_through_the_engine(kind, zero_first, monkeypatch):
    inline, fused = _counting_inline(monkeypatch), _counting_fused(monkeypatch)
    step = _run_both(_hooked(kind), _OPTIMIZERS["sgd"], (1, 6), 3, 20, zero_first, seed=6)
    assert not inline and not fused and step._tinytorch_frame.entries[0].program.step is not None


def test_learning_rates_changed_and_per_group_in_the_fused_update(monkeypatch):
    """Two parameter groups with their own learning rates, changed between calls (a scheduler's work): each
    step's update uses the rates in ``param_groups`` then, bit for bit with eager."""
    fused = _counting_fused(monkeypatch)
    rng = np.random.default_rng(9)
    data = [(rng.standard_normal((1, 6), dtype=np.float32), rng.integers(0, 3, 1)) for _ in range(30)]
    results = []
    for compiled in (False, True):
        tt.manual_seed(0)
        model = _small()
        opt = tt.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.05}],
                           lr=0.1)
        step = _step(model, opt, tt.nn.CrossEntropyLoss(), False)
        step = tt.compile(step) if compiled else step
        for i, (x, y) in enumerate(data):
            if i % 7 == 6:
                opt.param_groups[i % 2]["lr"] *= 0.5
            step(tt.tensor(x), tt.tensor(y))
        results.append(_state(model, opt) + [p._version for p in model.parameters()])
    _assert_state_same(results[1][:-4], results[0][:-4], -1)
    assert results[1][-4:] == results[0][-4:]  # each update counted once, as eagerly
    assert len(fused) == (0 if paths.REFERENCE else len(data) - 1)


def test_retain_grad_on_the_loss_sends_the_backward_through_the_engine(monkeypatch):
    runs = _counting_inline(monkeypatch)
    tt.manual_seed(0)
    model = _small()
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    seen = []

    def step(x, y):
        opt.zero_grad()
        loss = tt.nn.functional.cross_entropy(model(x), y)
        loss.retain_grad()
        loss.backward()
        seen.append(loss)
        opt.step()
        return loss
    step = tt.compile(step)
    x, y = tt.randn(4, 6), tt.tensor([0, 1, 2, 0])
    step(x, y)
    loss = step(x, y)
    assert not runs
    assert loss.grad is not None and float(loss.grad) == 1.0


def test_a_gradient_already_there_is_summed_by_the_engine(monkeypatch):
    """Without ``zero_grad`` each step's gradient adds to the last one's, as eagerly, through the engine."""
    runs = _counting_inline(monkeypatch)
    results = []
    rng = np.random.default_rng(7)
    data = [(rng.standard_normal((4, 6), dtype=np.float32), rng.integers(0, 3, 4)) for _ in range(6)]
    for compiled in (False, True):
        tt.manual_seed(0)
        model = _small()
        opt = tt.optim.SGD(model.parameters(), lr=0.1)

        def step(x, y):
            loss = tt.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss
        step = tt.compile(step) if compiled else step
        for x, y in data:
            step(tt.tensor(x), tt.tensor(y))
        results.append(_state(model, opt))
    _assert_state_same(results[1], results[0], -1)
    assert not runs


def test_the_returned_loss_hangs_from_a_spent_compiled_node():
    tt.manual_seed(0)
    model = _small()
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    step = tt.compile(_step(model, opt, tt.nn.CrossEntropyLoss(), False))
    x, y = tt.randn(4, 6), tt.tensor([0, 1, 2, 0])
    for _ in range(3):
        loss = step(x, y)
    assert type(loss.grad_fn).__name__ == "CompiledFunctionBackward" and loss.requires_grad
    assert {type(n).__name__ for n, _ in loss.grad_fn.next_functions if n is not None} == {"AccumulateGrad"}
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_in_the_plans_is_eagers_fused_loss(reduction, weighted):
    """The joint graph's cross-entropy (four operators) runs as eager's loss and its nodes: the plans hold no
    nll_loss or log-softmax operator, and the loss and logits' gradient are eager's, bit for bit, with an
    ignored target among the others."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal((6, 5), dtype=np.float32)
    y = np.array([0, 4, -100, 2, 1, 3])
    w = tt.tensor(rng.random(5, dtype=np.float32)) if weighted else None
    got = []
    for compiled in (False, True):
        tt.manual_seed(0)
        lin = tt.nn.Linear(5, 5)

        def f(x, y):
            out = tt.nn.functional.cross_entropy(lin(x), y, weight=w, reduction=reduction)
            return out if reduction != "none" else out.sum()
        f = tt.compile(f) if compiled else f
        loss = f(tt.tensor(x), tt.tensor(y))
        loss = f(tt.tensor(x), tt.tensor(y))
        loss.backward()
        got.append((loss.detach().numpy(), lin.weight.grad.numpy(), lin.bias.grad.numpy()))
    for a, b in zip(*got):
        np.testing.assert_array_equal(a, b)
    (entry,) = f._tinytorch_frame.entries
    source = entry.last.forward.source + entry.last.backward.source
    assert "cross_entropy_kept" in source and "nll_loss" not in source and "log_softmax" not in source


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_outer_fma_is_the_product_then_sgds_fused_add(dtype):
    """``outer_fma_into`` gives what the plan's outer product and SGD's update give one after the other (the
    products rounded once, then ``w.add_(g, alpha)`` rounded once), signed zeros, subnormals and infinities
    included."""
    from tinytorch._ops._kernels import compiled
    from tinytorch._ops._kernels.muladd import plus_scaled_into

    fam = compiled.family("outer")
    if fam is None:
        pytest.skip("numba's compiled kernels are off")
    rng = np.random.default_rng(10)
    tiny = np.finfo(dtype).tiny
    special = np.array([0.0, -0.0, np.inf, -np.inf, tiny / 4, -tiny, 1e30, -3.0], dtype)
    u = np.concatenate([rng.standard_normal(37).astype(dtype), special])
    v = np.concatenate([rng.standard_normal(29).astype(dtype) * 1e-3, special])
    w = np.concatenate([rng.standard_normal((u.size, v.size - 2)).astype(dtype),
                        np.full((u.size, 2), -0.0, dtype)], axis=1)
    w[3] = special[np.arange(w.shape[1]) % special.size]
    for alpha in (-1e-3, -0.1, -1.0):
        grad = np.empty((u.size, v.size), dtype)
        with np.errstate(all="ignore"):
            fam.outer_into(u, v, grad)
            want = w.copy()
            plus_scaled_into(want, want, grad, alpha, None)
        got = w.copy()
        fam.outer_fma_into(u, v, dtype(alpha), got)
        same = (got.view(np.uint8) == want.view(np.uint8)).reshape(*got.shape, -1).all(-1) | (
            np.isnan(got) & np.isnan(want))
        assert same.all(), (alpha, np.argwhere(~same)[:3])


@pytest.mark.parametrize("zero_first", [False, True])
def test_a_parameter_passed_again_as_an_argument(zero_first):
    """A weight that is both the model's and an argument of the step: its gradient (two terms summed) and its
    update, the versions of the parameters and of their gradients as eagerly."""
    rng = np.random.default_rng(11)
    data = [(rng.standard_normal((1, 6), dtype=np.float32), rng.integers(0, 3, 1)) for _ in range(8)]
    results = []
    for compiled in (False, True):
        tt.manual_seed(0)
        model = _small()
        opt = tt.optim.SGD(model.parameters(), lr=0.1)
        w = model[2].weight

        def step(w, x, y):
            if zero_first:
                opt.zero_grad()
            loss = tt.nn.functional.cross_entropy(model(x), y) + (w * w).sum()
            loss.backward()
            opt.step()
            if not zero_first:
                opt.zero_grad()
            return loss
        step = tt.compile(step) if compiled else step
        for x, y in data:
            step(w, tt.tensor(x), tt.tensor(y))
        results.append(_state(model, opt) + [p.grad._version if p.grad is not None else None
                                             for p in model.parameters()])
    _assert_state_same(results[1][:-4], results[0][:-4], -1)
    assert results[1][-4:] == results[0][-4:]
