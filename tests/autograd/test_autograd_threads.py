"""Modes are per thread, as in PyTorch, and nothing is shared between instances across threads."""
import threading

import numpy as np
import pytest

import tinytorch as tt


def _in_thread(fn):
    """Run ``fn`` in a new thread; return its result or re-raise its exception."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            box["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join(timeout=60)
    assert not t.is_alive(), "thread did not finish"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def test_new_thread_starts_with_grad_enabled():
    with tt.no_grad():
        assert not tt.is_grad_enabled()
        assert _in_thread(tt.is_grad_enabled) is True
        x = tt.ones(2, requires_grad=True)
        y = _in_thread(lambda: x * 2)
        assert y.requires_grad and y.grad_fn is not None
    assert tt.is_grad_enabled()


def test_no_grad_in_one_thread_leaves_the_other_recording():
    inside, checked = threading.Event(), threading.Event()

    def worker():
        with tt.no_grad():
            inside.set()
            assert checked.wait(30)
            return tt.is_grad_enabled()

    box = {}
    t = threading.Thread(target=lambda: box.setdefault("worker", worker()))
    t.start()
    assert inside.wait(30)
    x = tt.ones(2, requires_grad=True)
    box["main_enabled"] = tt.is_grad_enabled()
    box["main_records"] = (x * 3).grad_fn is not None
    checked.set()
    t.join(30)
    assert box == {"worker": False, "main_enabled": True, "main_records": True}


def test_backward_does_not_switch_grad_mode_in_other_threads():
    in_backward, observed = threading.Event(), threading.Event()
    seen = {}

    def hook(g):
        in_backward.set()
        assert observed.wait(30)
        return g

    x = tt.ones(3, requires_grad=True)
    y = (x * 2).sum()
    y.register_hook(hook)

    def watcher():
        assert in_backward.wait(30)
        seen["enabled"] = tt.is_grad_enabled()
        seen["records"] = (x * 2).requires_grad
        observed.set()

    t = threading.Thread(target=watcher)
    t.start()
    y.backward()
    t.join(30)
    assert seen == {"enabled": True, "records": True}
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_inference_and_anomaly_modes_are_per_thread():
    with tt.inference_mode():
        assert _in_thread(tt.is_inference_mode_enabled) is False
        assert _in_thread(lambda: tt.ones(1).is_inference()) is False
    with tt.autograd.set_detect_anomaly(True):
        assert tt.is_anomaly_enabled()
        assert _in_thread(tt.is_anomaly_enabled) is False
    assert not tt.is_anomaly_enabled()


def test_saved_tensor_hooks_are_per_thread():
    packed = []

    def pack(t):
        packed.append(threading.get_ident())
        return t

    with tt.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        x = tt.ones(2, requires_grad=True)
        _in_thread(lambda: (x * x).sum())
        assert packed == []  # the other thread saved without this thread's hooks
        (x * x).sum()
    assert packed == [threading.get_ident()] * 2


def _train(seed: int, steps: int, barrier=None) -> list:
    tt.manual_seed(seed)  # the generator is process-wide: draw the model before the threads race
    model = tt.nn.Sequential(tt.nn.Linear(300, 200), tt.nn.ReLU(), tt.nn.Linear(200, 10))
    data = tt.randn(64, 300)
    target = tt.randint(0, 10, (64,))
    opt = tt.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    def run():
        if barrier is not None:
            barrier.wait(30)
        for _ in range(steps):
            opt.zero_grad()
            tt.nn.functional.cross_entropy(model(data), target).backward()
            opt.step()
        return [p.detach().numpy().copy() for p in model.parameters()]
    return run


def test_two_sgd_momentum_models_in_two_threads_match_their_single_threaded_runs():
    steps = 40
    alone = [_train(seed, steps)() for seed in (1, 2)]
    barrier = threading.Barrier(2)
    runs = [_train(seed, steps, barrier) for seed in (1, 2)]
    results = [None, None]
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, runs[i]())) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for got, want in zip(results, alone):
        assert got is not None
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_optimizers_share_no_scratch(opt_name):
    """Two optimizers over same-shaped parameters: stepping one never disturbs the other's update."""
    def make():
        p = tt.nn.Parameter(tt.ones(70000))
        opt = getattr(tt.optim, opt_name)([p], lr=0.1, **({"momentum": 0.9} if opt_name == "SGD" else {}))
        return p, opt
    (p1, o1), (p2, o2) = make(), make()
    for step in range(3):
        p1.grad = tt.full((70000,), 0.5 + step)
        p2.grad = tt.full((70000,), -1.0 - step)
        o1.step()
        o2.step()
    (q1, r1), (q2, r2) = make(), make()
    for step in range(3):
        q1.grad = tt.full((70000,), 0.5 + step)
        r1.step()
    for step in range(3):
        q2.grad = tt.full((70000,), -1.0 - step)
        r2.step()
    np.testing.assert_array_equal(p1.detach().numpy(), q1.detach().numpy())
    np.testing.assert_array_equal(p2.detach().numpy(), q2.detach().numpy())


def test_normal_draws_in_two_threads_match_sequential_draws():
    def draw(seed, barrier=None):
        g = tt.Generator().manual_seed(seed)
        if barrier is not None:
            barrier.wait(30)
        return [tt.randn(50000, generator=g).numpy().copy() for _ in range(20)]
    want = [draw(3), draw(4)]
    barrier = threading.Barrier(2)
    got = [None, None]
    threads = [threading.Thread(target=lambda i=i: got.__setitem__(i, draw(3 + i, barrier))) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            np.testing.assert_array_equal(a, b)


def _module_attributes() -> dict:
    import sys
    return {name: {k: id(v) for k, v in vars(mod).items()}
            for name, mod in list(sys.modules.items())
            if mod is not None and (name == "tinytorch" or name.startswith("tinytorch."))}


def _same_modules(before: dict, during: dict) -> None:
    for name, attrs in before.items():
        assert during[name] == attrs, f"{name} changed while the transform was active"


def test_dual_level_changes_no_module_attribute():
    import tinytorch.autograd.forward_ad as fwAD
    x0 = tt.ones(3)
    before = _module_attributes()
    with fwAD.dual_level():
        x = fwAD.make_dual(x0, tt.ones(3))
        y = (x.exp() * 2).sin()
        during = _module_attributes()
        tangent = fwAD.unpack_dual(y).tangent
    _same_modules(before, during)
    np.testing.assert_allclose(tangent.numpy(), (np.cos(2 * np.e) * 2 * np.e) * np.ones(3), rtol=1e-6)


def test_dual_levels_in_two_threads_at_once():
    import tinytorch.autograd.forward_ad as fwAD
    barrier = threading.Barrier(2)

    def run(scale):
        with fwAD.dual_level():
            barrier.wait(30)
            x = fwAD.make_dual(tt.tensor([1.0, 2.0]), tt.tensor([scale, scale]))
            y = x * x
            barrier.wait(30)
            return fwAD.unpack_dual(y).tangent.tolist()

    got = [None, None]
    threads = [threading.Thread(target=lambda i=i: got.__setitem__(i, run(float(i + 1)))) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert got == [[2.0, 4.0], [4.0, 8.0]]


def test_dual_level_in_one_thread_leaves_the_other_alone():
    import tinytorch.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        assert _in_thread(lambda: fwAD.unpack_dual(tt.ones(2)).tangent) is None
        y = _in_thread(lambda: tt.ones(2, requires_grad=True) * 2)
        assert "_fw_outs" not in y.grad_fn.__dict__


def test_vmap_changes_no_module_attribute():
    import tinytorch.nn.functional as F
    before = _module_attributes()
    seen = {}

    def per_sample(x):
        y = F.relu(tt.exp(x) - 2).sum() + tt.sum(x * x)
        seen["during"] = _module_attributes()
        return y

    out = tt.vmap(per_sample)(tt.arange(6.0).reshape(3, 2))
    _same_modules(before, seen["during"])
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(out.numpy(), (np.maximum(np.exp(x) - 2, 0) + x * x).sum(1), rtol=1e-6)


def test_two_threads_in_vmap_at_once():
    # each thread's levels are its own: both run their batched ops while the other is inside vmap
    barrier = threading.Barrier(2)

    def run(scale):
        def per_sample(x):
            barrier.wait(30)
            y = tt.exp(x * scale).sum() + x.max()
            barrier.wait(30)
            return y
        return tt.vmap(per_sample)(tt.arange(6.0).reshape(3, 2)).tolist()

    got = [None, None]
    threads = [threading.Thread(target=lambda i=i: got.__setitem__(i, run(float(i + 1)))) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    x = np.arange(6.0).reshape(3, 2)
    for i in range(2):
        np.testing.assert_allclose(got[i], np.exp(x * (i + 1)).sum(1) + x.max(1), rtol=1e-6)
    # and a plain call in another thread while this one is inside vmap sees no batch
    inside = tt.vmap(lambda x: x * _in_thread(lambda: tt.ones(2).sum()))(tt.ones(3, 2))
    assert inside.tolist() == [[2.0, 2.0]] * 3
