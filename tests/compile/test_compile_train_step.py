"""A whole training step compiled: ``torch.compile(step)`` where the step runs ``zero_grad()``, the forward, the
loss, ``loss.backward()`` and ``opt.step()``. Every call fills ``.grad`` and updates the parameters exactly as eager
does (losses and parameters bit for bit with eager tinytorch for 200 steps), and behaves as PyTorch's compiled step
does: gradients filled at every call, ``zero_grad``'s two modes, a changed learning rate used, a new batch size
recompiled within the recompile limit."""
import numpy as np
import pytest

import tinytorch as tt

STEPS = 200


def _quickstart(lib):
    return lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Linear(784, 512), lib.nn.ReLU(), lib.nn.Linear(512, 512),
                             lib.nn.ReLU(), lib.nn.Linear(512, 10))


def _small(lib):
    return lib.nn.Sequential(lib.nn.Linear(6, 16), lib.nn.Tanh(), lib.nn.Linear(16, 3))


def _make_step(model, opt, loss_fn, set_to_none=True):
    def step(x, y):
        opt.zero_grad(set_to_none=set_to_none)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def _data(shape, classes, steps, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((steps, *shape), dtype=np.float32), rng.integers(0, classes, (steps, shape[0])))


def _train(lib, make, optimizer, xs, ys, compiled, weights=None, backend=None, set_to_none=True):
    """Losses (as float32 arrays), the parameters after the last step and the step function."""
    lib.manual_seed(0)
    model = make(lib)
    if weights is not None:
        with lib.no_grad():
            for p, w in zip(model.parameters(), weights):
                p.copy_(lib.tensor(w))
    opt = optimizer(lib, model.parameters())
    step = _make_step(model, opt, lib.nn.CrossEntropyLoss(), set_to_none)
    if compiled:
        step = lib.compile(step, backend=backend) if backend else lib.compile(step)
    losses, filled = [], []
    for x, y in zip(xs, ys):
        losses.append(step(lib.tensor(x), lib.tensor(y)).detach().numpy().copy())
        filled.append(all(p.grad is not None for p in model.parameters()))
    assert all(filled)  # every call filled every gradient
    return np.array(losses), [p.detach().numpy().copy() for p in model.parameters()], step


def _sgd(lib, params):
    return lib.optim.SGD(params, lr=1e-3)


def _adam(lib, params):
    return lib.optim.Adam(params, lr=1e-2)


def _assert_same(a, b):
    np.testing.assert_array_equal(a[0], b[0])
    for p, q in zip(a[1], b[1]):
        np.testing.assert_array_equal(p, q)


@pytest.mark.parametrize("batch", [1, 8])
def test_quickstart_step_200_steps_bit_for_bit(batch):
    xs, ys = _data((batch, 1, 28, 28), 10, STEPS, seed=batch)
    eager = _train(tt, _quickstart, _sgd, xs, ys, compiled=False)
    compiled = _train(tt, _quickstart, _sgd, xs, ys, compiled=True)
    _assert_same(compiled, eager)
    assert not np.array_equal(compiled[1][1], _train(tt, _quickstart, _sgd, xs[:1], ys[:1], False)[1][1])
    _assert_captured_once(compiled[2])


def _assert_captured_once(step):
    """One graph, captured at the first call and replayed at the others, as a forward and a backward plan."""
    (entry,) = step._tinytorch_frame.entries
    assert entry.program is not None and entry.program.step is not None
    assert entry.plans and all(p is not None for p in entry.plans.values())


def test_adam_step_200_steps_bit_for_bit():
    xs, ys = _data((4, 6), 3, STEPS, seed=3)
    compiled = _train(tt, _small, _adam, xs, ys, compiled=True)
    _assert_same(compiled, _train(tt, _small, _adam, xs, ys, compiled=False))
    _assert_captured_once(compiled[2])


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_modes_as_eager_and_pytorch(set_to_none):
    """``zero_grad(set_to_none=False)`` keeps one ``.grad`` tensor filled with zeros then the new gradient;
    ``True`` gives a new one each step; both as eager and as PyTorch's compiled step."""
    torch = pytest.importorskip("torch")
    xs, ys = _data((4, 6), 3, 5, seed=4)
    seen = {}
    for name, lib in (("tt", tt), ("torch", torch)):
        lib.manual_seed(0)
        model = _small(lib)
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        step = lib.compile(_make_step(model, opt, lib.nn.CrossEntropyLoss(), set_to_none), backend="eager")
        ids = []
        for x, y in zip(xs, ys):
            step(lib.tensor(x), lib.tensor(y))
            ids.append(id(model[0].weight.grad))
        seen[name] = len(set(ids)) == 1
    assert seen["tt"] == seen["torch"] == (not set_to_none)
    eager = _train(tt, _small, lambda lib, ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9), xs, ys, False,
                   set_to_none=set_to_none)
    compiled = _train(tt, _small, lambda lib, ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9), xs, ys, True,
                      set_to_none=set_to_none)
    _assert_same(compiled, eager)


def test_compiled_step_follows_pytorch():
    """From the same weights and data, tinytorch's compiled step gives PyTorch's compiled step's losses and
    parameters (PyTorch's floats, to its rounding)."""
    torch = pytest.importorskip("torch")
    xs, ys = _data((8, 1, 28, 28), 10, 20, seed=5)
    tt.manual_seed(0)
    weights = [p.detach().numpy().copy() for p in _quickstart(tt).parameters()]
    ours = _train(tt, _quickstart, _sgd, xs, ys, compiled=True, weights=weights)
    theirs = _train(torch, _quickstart, _sgd, xs, ys, compiled=True, weights=weights, backend="eager")
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    for p, q in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(p, q, rtol=1e-5, atol=1e-6)


def test_backward_without_step_fills_grad_every_call():
    """``loss.backward()`` inside a compiled function, without an optimizer: each call accumulates into ``.grad``
    (the gradient doubles at the second call), as eager and PyTorch do."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(6).standard_normal((4, 3), dtype=np.float32)
    grads = {}
    for name, lib in (("tt", tt), ("torch", torch)):
        lib.manual_seed(0)
        lin = lib.nn.Linear(3, 2)
        with lib.no_grad():
            lin.weight.copy_(lib.tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 7))

        def f(x):
            loss = lin(x).square().sum()
            loss.backward()
            return loss
        f = lib.compile(f, backend="eager") if name == "torch" else lib.compile(f)
        grads[name] = []
        for _ in range(3):
            f(lib.tensor(x))
            grads[name].append(lin.weight.grad.detach().numpy().copy())
    for a, b in zip(grads["tt"], grads["torch"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grads["tt"][2], 3 * grads["tt"][0], rtol=1e-5, atol=1e-5)


def test_learning_rate_changed_between_calls():
    """A learning rate changed in ``param_groups`` between calls (a scheduler's work) is used at the next call."""
    xs, ys = _data((4, 6), 3, 30, seed=7)
    results = []
    for compiled in (False, True):
        tt.manual_seed(0)
        model = _small(tt)
        opt = tt.optim.SGD(model.parameters(), lr=0.1)
        step = _make_step(model, opt, tt.nn.CrossEntropyLoss())
        step = tt.compile(step) if compiled else step
        losses = []
        for i, (x, y) in enumerate(zip(xs, ys)):
            if i % 10 == 9:
                opt.param_groups[0]["lr"] *= 0.5
            losses.append(step(tt.tensor(x), tt.tensor(y)).detach().numpy().copy())
        results.append((np.array(losses), [p.detach().numpy().copy() for p in model.parameters()]))
    _assert_same(results[1], results[0])


def test_new_batch_sizes_recompile_within_the_limit():
    """Other batch sizes fail the compiled step's guards: each recompiles (PyTorch's limit: 8 graphs per
    function), and past the limit the step runs eagerly; every step's values stay eager's."""
    torch = pytest.importorskip("torch")
    assert tt._dynamo.config.recompile_limit == torch._dynamo.config.recompile_limit
    sizes = [1, 2, 1, 3, 2, 4, 5, 6, 7, 8, 9, 10, 1, 10]
    rng = np.random.default_rng(8)
    data = [(rng.standard_normal((b, 6), dtype=np.float32), rng.integers(0, 3, (b,))) for b in sizes]
    results = []
    for compiled in (False, True):
        tt.manual_seed(0)
        model = _small(tt)
        opt = tt.optim.Adam(model.parameters(), lr=1e-2)
        step = _make_step(model, opt, tt.nn.CrossEntropyLoss())
        step = tt.compile(step, dynamic=False) if compiled else step
        losses = [step(tt.tensor(x), tt.tensor(y)).detach().numpy().copy() for x, y in data]
        results.append((np.array(losses), [p.detach().numpy().copy() for p in model.parameters()]))
    _assert_same(results[1], results[0])
    assert len(step._tinytorch_frame.entries) == tt._dynamo.config.recompile_limit


def _variant(kind):
    """A step written another way: ``model.zero_grad()``, gradients set to None by hand, gradient clipping between
    backward and step, an optimizer step with a closure."""
    def make(model, opt, loss_fn):
        def step(x, y):
            if kind == "module_zero_grad":
                model.zero_grad()
            elif kind == "grad_to_none":
                for p in model.parameters():
                    p.grad = None
            else:
                opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            if kind == "clip":
                tt.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            return loss
        return step
    return make


@pytest.mark.parametrize("kind, replayed", [("module_zero_grad", True), ("grad_to_none", False), ("clip", False)])
def test_step_variants_as_eager(kind, replayed):
    """Each variant gives eager's floats: replayed where the step's calls below the ops are ones the replay
    makes again, run eagerly (a graph break) where the program writes ``.grad`` itself or reads the gradients
    after ``backward()``."""
    xs, ys = _data((4, 6), 3, 20, seed=9)
    results = []
    for compiled in (False, True):
        tt.manual_seed(0)
        model = _small(tt)
        opt = tt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        step = _variant(kind)(model, opt, tt.nn.CrossEntropyLoss())
        step = tt.compile(step) if compiled else step
        losses = [step(tt.tensor(x), tt.tensor(y)).detach().numpy().copy() for x, y in zip(xs, ys)]
        results.append((np.array(losses), [p.detach().numpy().copy() for p in model.parameters()]))
    _assert_same(results[1], results[0])
    (entry,) = step._tinytorch_frame.entries
    assert (entry.program is not None) == replayed


_OPT = None


def _step_of_global_opt(model, x, y):
    _OPT.zero_grad()
    loss = tt.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    _OPT.step()
    return loss


def test_optimizer_bound_anew_recompiles():
    """The optimizer a step reaches through a global is guarded by identity: one bound anew to the name (a new
    optimizer, its state fresh) makes the step capture again, and its updates are the new optimizer's, as
    eagerly."""
    global _OPT
    xs, ys = _data((4, 6), 3, 12, seed=10)
    results = []
    try:
        for compiled in (False, True):
            tt.manual_seed(0)
            model = _small(tt)
            step = tt.compile(_step_of_global_opt) if compiled else _step_of_global_opt
            losses = []
            for i, (x, y) in enumerate(zip(xs, ys)):
                if i % 6 == 0:
                    _OPT = tt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
                losses.append(step(model, tt.tensor(x), tt.tensor(y)).detach().numpy().copy())
            results.append((np.array(losses), [p.detach().numpy().copy() for p in model.parameters()]))
    finally:
        _OPT = None
    _assert_same(results[1], results[0])
    assert len(step._tinytorch_frame.entries) == 2


def test_returned_loss_after_a_replayed_step():
    """The loss a replayed step returns carries its graph's node, already run backward: a second backward is
    PyTorch's error, as after eager's ``loss.backward()``."""
    tt.manual_seed(0)
    model = _small(tt)
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    step = tt.compile(_make_step(model, opt, tt.nn.CrossEntropyLoss()))
    x, y = tt.randn(4, 6), tt.tensor([0, 1, 2, 0])
    for _ in range(3):
        loss = step(x, y)
    assert loss.requires_grad
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()
