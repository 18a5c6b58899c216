"""Each optimizer's update against PyTorch's, step by step, on small tensors with set gradients."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytorch
import tinytorch.optim as optim

torch = pytest.importorskip("torch")

STEPS = 12
SHAPES = [(), (1,), (3,), (2, 3), (4, 1, 2)]


def _run_both(name, kw, shapes, seed, dtype=np.float32, steps=STEPS, skip_every=0):
    """After each step of both optimizers yield (tinytorch params, torch params, the optimizers)."""
    rng = np.random.default_rng(seed)
    inits = [rng.standard_normal(s).astype(dtype) for s in shapes]
    tt_params = [tinytorch.tensor(a.copy(), requires_grad=True) for a in inits]
    th_params = [torch.tensor(a.copy(), requires_grad=True) for a in inits]
    tt_opt = getattr(optim, name)(tt_params, **kw)
    th_opt = getattr(torch.optim, name)(th_params, **kw)
    for k in range(steps):
        for i, (a, b) in enumerate(zip(tt_params, th_params)):
            if skip_every and i == 0 and k % skip_every == 1:
                a.grad = b.grad = None  # a parameter without a gradient is left alone
                continue
            scale = rng.choice([1e-3, 1.0, 10.0])
            g = (rng.standard_normal(a.shape) * scale).astype(dtype)
            a.grad = tinytorch.tensor(g.copy())
            b.grad = torch.tensor(g.copy())
        tt_opt.step()
        th_opt.step()
        yield tt_params, th_params, tt_opt, th_opt


def _close(a, b, tol):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _check(tt_params, th_params, tt_opt, th_opt, tol):
    """Parameters and every state entry agree with PyTorch's, dtypes included."""
    for a, b in zip(tt_params, th_params):
        _close(a.detach().numpy(), b.detach().numpy(), tol)
        tt_state, th_state = tt_opt.state[a], th_opt.state[b]
        assert set(tt_state) == set(th_state)
        for key, value in th_state.items():
            _close(tt_state[key].detach().numpy(), value.detach().numpy(), tol)
            assert str(tt_state[key].dtype)[len("tinytorch."):] == str(value.dtype)[len("torch."):]


shapes_st = st.lists(st.sampled_from(SHAPES), min_size=1, max_size=3)


@settings(max_examples=40, deadline=None)
@given(shapes=shapes_st, seed=st.integers(0, 2**32 - 1), lr=st.sampled_from([1e-3, 0.01, 0.1, 0.5]),
       momentum=st.sampled_from([0.0, 0.5, 0.9]), dampening=st.sampled_from([0.0, 0.3]),
       weight_decay=st.sampled_from([0.0, 1e-4, 0.1]), nesterov=st.booleans(),
       maximize=st.booleans(), skip_every=st.sampled_from([0, 3]))
def test_sgd_matches_pytorch(shapes, seed, lr, momentum, dampening, weight_decay, nesterov,
                             maximize, skip_every):
    if nesterov and (momentum == 0 or dampening != 0):
        nesterov = False
    kw = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
              nesterov=nesterov, maximize=maximize)
    # PyTorch's add_(alpha=-lr) is one fused multiply-add per element and tinytorch's update rounds
    # twice, so float32 parameters drift apart by an ulp or so a step, compounded through momentum
    for state in _run_both("SGD", kw, shapes, seed, skip_every=skip_every):
        _check(*state, 1e-5)


@settings(max_examples=40, deadline=None)
@given(shapes=shapes_st, seed=st.integers(0, 2**32 - 1), lr=st.sampled_from([1e-3, 0.01, 0.1]),
       betas=st.sampled_from([(0.9, 0.999), (0.5, 0.9), (0.0, 0.99), (0.3, 0.5)]),
       eps=st.sampled_from([1e-8, 1e-3]), weight_decay=st.sampled_from([0.0, 1e-2, 0.3]),
       amsgrad=st.booleans(), maximize=st.booleans(), name=st.sampled_from(["Adam", "AdamW"]),
       skip_every=st.sampled_from([0, 3]))
def test_adam_and_adamw_match_pytorch(shapes, seed, lr, betas, eps, weight_decay, amsgrad,
                                      maximize, name, skip_every):
    kw = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
              maximize=maximize)
    for state in _run_both(name, kw, shapes, seed, skip_every=skip_every):
        _check(*state, 2e-6)


@pytest.mark.parametrize("name, kw", [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.5, dampening=0.5, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01, betas=(0.3, 0.5), maximize=True)),
])
def test_float64_parameters_match_pytorch_tightly(name, kw):
    for state in _run_both(name, kw, [(3,), (2, 2)], seed=5, dtype=np.float64, steps=30):
        assert all(p.dtype is tinytorch.float64 for p in state[0])
        _check(*state, 1e-12)


@pytest.mark.parametrize("name, kw", [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1)),
    ("Adam", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True)),
])
def test_version_counters_advance_as_in_pytorch(name, kw):
    for tt_p, th_p, tt_opt, th_opt in _run_both(name, kw, [(3,)], seed=1, steps=3):
        assert tt_p[0]._version == th_p[0]._version
        for key, value in th_opt.state[th_p[0]].items():
            assert tt_opt.state[tt_p[0]][key]._version == value._version, key


def test_step_records_no_graph_and_keeps_parameters_leaves():
    w = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    (w * w).sum().backward()
    opt.step()
    assert w.is_leaf and w.grad_fn is None and w.requires_grad
    buf = opt.state[w]["momentum_buffer"]
    assert not buf.requires_grad and buf.grad_fn is None
    assert tinytorch.is_grad_enabled()


def test_first_momentum_buffer_is_a_copy_of_the_gradient():
    w = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    w.grad = tinytorch.tensor([3.0, 4.0])
    opt.step()
    buf = opt.state[w]["momentum_buffer"]
    np.testing.assert_array_equal(buf.numpy(), [3.0, 4.0])
    assert not np.shares_memory(buf.numpy(), w.grad.numpy())
    w.grad.numpy()[:] = 100.0
    np.testing.assert_array_equal(buf.numpy(), [3.0, 4.0])


def test_gradients_are_never_written():
    for name, kw in [("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1, maximize=True)),
                     ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5)),
                     ("Adam", dict(weight_decay=0.1, maximize=True, amsgrad=True))]:
        w = tinytorch.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = getattr(optim, name)([w], **kw)
        for _ in range(3):
            w.grad = tinytorch.tensor([0.5, 0.25, -1.0])
            opt.step()
            np.testing.assert_array_equal(w.grad.numpy(), [0.5, 0.25, -1.0])


def test_transposed_gradient_is_handled():
    tt_w = tinytorch.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), requires_grad=True)
    th_w = torch.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), requires_grad=True)
    g = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)
    tt_opt = optim.SGD([tt_w], lr=0.1, momentum=0.9)
    th_opt = torch.optim.SGD([th_w], lr=0.1, momentum=0.9)
    for _ in range(3):
        tt_w.grad = tinytorch.tensor(g).t()  # a non-contiguous gradient, as the engine may store
        th_w.grad = torch.tensor(g).t()
        tt_opt.step()
        th_opt.step()
    _close(tt_w.detach().numpy(), th_w.detach().numpy(), 1e-6)


def test_closure_runs_with_grad_enabled_and_its_loss_is_returned():
    w = tinytorch.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.Adam([w], lr=0.1)
    seen = []

    def closure():
        opt.zero_grad()
        seen.append(tinytorch.is_grad_enabled())
        loss = (w * w).sum()
        loss.backward()
        return loss

    with tinytorch.no_grad():
        loss = opt.step(closure)
        assert not tinytorch.is_grad_enabled()
    assert seen == [True]
    assert loss.item() == pytest.approx(5.0)
    assert tinytorch.is_grad_enabled()
