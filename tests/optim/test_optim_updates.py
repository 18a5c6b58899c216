"""Each optimizer's update against PyTorch's, step by step, on small tensors with set gradients; SGD's
and Adam's updates bit for bit on PyTorch's FMA paths (its fused adds; the plain SGD update as BLAS
axpy calls, one thread or several, many small parameters at once), within a few ulps on its DEFAULT
build."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytorch
import tinytorch as tt
import tinytorch.optim as optim
from tinytorch._ops._core.paths import REFERENCE

import _paths
import _repo

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


# -- bits: SGD's and Adam's updates are chains of PyTorch's fused adds (``add(a, b, alpha=)`` rounds
# ``a + alpha * b`` once, its kernel's FMA on PyTorch's AVX2 and AVX512 paths): the same float32/float64
# bits step after step there; on PyTorch's DEFAULT build (no FMA: the product rounded first) within
# CHAIN_ULPS ulp of the array's largest magnitude


FUSED_DTYPES = ("float32", "float64")

# DEFAULT path, in ulps at the array's largest |value|: one add rounds the product first (half an ulp
# of it, half of each sum: 1.5 at most; 2 measured with TINYTORCH_ULP_REPORT); the optimizers' four
# steps carry theirs on (SGD: 2, Adam's exp_avg: 3 measured)
FUSED_ULPS = 2
CHAIN_ULPS = 4


def _same_fused(got, want, what="", ulps=None) -> None:
    """Bit for bit on PyTorch's FMA paths; within FUSED_ULPS ulp of the array's magnitude on DEFAULT, and under
    TINYTORCH_REFERENCE=1 (the references round each add's product first, as the DEFAULT build)."""
    _paths.assert_bits(np.ascontiguousarray(got), np.ascontiguousarray(want),
                       ulps=FUSED_ULPS if ulps is None else ulps, scale="max", what=what)


SGD_CONFIGS = [
    dict(),
    dict(momentum=0.9),
    dict(momentum=0.9, nesterov=True),
    dict(momentum=0.8, dampening=0.3),
    dict(weight_decay=0.01),
    dict(maximize=True, weight_decay=0.1),
    dict(momentum=0.9, weight_decay=1e-2, nesterov=True, maximize=True),
]


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", FUSED_DTYPES)
@pytest.mark.parametrize("foreach", (False, True))
@pytest.mark.parametrize("config", SGD_CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "plain")
def test_sgd_steps_bits(dtype, foreach, config):
    rng = np.random.default_rng(11)
    shapes = [(64, 33), (33,), (), (5, 3, 7), (40000,)]
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    ours = [tt.tensor(a, requires_grad=True) for a in init]
    theirs = [torch.tensor(a, requires_grad=True) for a in init]
    opt_ours = tt.optim.SGD(ours, lr=0.1, foreach=foreach, **config)
    opt_theirs = torch.optim.SGD(theirs, lr=0.1, foreach=foreach, **config)
    for _ in range(4):
        for x, t in zip(ours, theirs):
            g = rng.standard_normal(x.shape).astype(dtype)
            x.grad, t.grad = tt.tensor(g), torch.tensor(g)
        opt_ours.step()
        opt_theirs.step()
        for x, t in zip(ours, theirs):
            _same_fused(x.detach().numpy(), t.detach().numpy(), "parameter", CHAIN_ULPS)
    if config.get("momentum"):
        for x, t in zip(ours, theirs):
            _same_fused(opt_ours.state[x]["momentum_buffer"].numpy(), opt_theirs.state[t]["momentum_buffer"].numpy(),
                  "momentum buffer", CHAIN_ULPS)


@pytest.mark.skipif(REFERENCE, reason="TINYTORCH_REFERENCE=1 registers no CPU path")
@pytest.mark.parametrize("dtype", FUSED_DTYPES)
@pytest.mark.parametrize("config", SGD_CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "plain")
def test_sgd_path_is_the_reference_bit_for_bit(dtype, config):
    """SGD's CPU path (``tinytorch/_cpu/sgd.py``: the arrays in place, plain SGD's gathered axpy) against the
    reference it replaces (PyTorch's single-tensor update in tinytorch's ops): the same float32/float64 bits,
    momentum buffers and version counts included (the path test holds other dtypes within float rounding)."""
    from tinytorch._ops._core import paths

    (path,) = paths.PATHS["sgd._sgd"]
    rng = np.random.default_rng(13)
    shapes = [(64, 33), (33,), (), (5, 3, 7), (40000,), (1023,)]
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in range(3)]

    def run():
        params = [tt.tensor(a, requires_grad=True) for a in init]
        opt = tt.optim.SGD(params, lr=0.1, **config)
        for step in grads:
            for p, g in zip(params, step):
                p.grad = tt.tensor(g)
            opt.step()
        bufs = [opt.state[p]["momentum_buffer"] for p in params if "momentum_buffer" in opt.state[p]]
        return [t.detach().numpy().tobytes() for t in params + bufs], [t._version for t in params + bufs]

    got = run()
    with paths.off(path):
        want = run()
    assert got == want


@pytest.mark.bitexact
def test_sgd_noncontiguous_grad_bits():
    """A transposed gradient takes the general path: still PyTorch's values."""
    rng = np.random.default_rng(12)
    a = rng.standard_normal((30, 20)).astype("float32")
    g = rng.standard_normal((20, 30)).astype("float32")
    x, t = tt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ox, ot = tt.optim.SGD([x], lr=0.3, momentum=0.5), torch.optim.SGD([t], lr=0.3, momentum=0.5)
    for _ in range(3):
        x.grad, t.grad = tt.tensor(g).t(), torch.tensor(g).t()
        ox.step()
        ot.step()
    _same_fused(x.detach().numpy(), t.detach().numpy(), "parameter", CHAIN_ULPS)


ADAM_CONFIGS = [dict(), dict(amsgrad=True), dict(maximize=True), dict(betas=(0.3, 0.999)), dict(weight_decay=0.1)]


@pytest.mark.bitexact
@pytest.mark.parametrize("name", ("Adam", "AdamW"))
@pytest.mark.parametrize("foreach", (False, True))
@pytest.mark.parametrize("config", ADAM_CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "plain")
def test_adam_moments_bits(name, foreach, config):
    """exp_avg (lerp, both of its formulas: weight 0.1 and 0.7), with Adam's coupled weight decay (add
    with alpha) in the first step's, bit for bit; exp_avg_sq (mul then addcmul: tinytorch leaves the
    addcmul unfused, see optim/adam.py) and the parameters (PyTorch's MKL sqrt) to an ulp or so."""
    rng = np.random.default_rng(21)
    shapes = [(64, 33), (33,), (), (5000,)]
    init = [np.asarray(rng.standard_normal(s), "float32") for s in shapes]
    ours = [tt.tensor(a, requires_grad=True) for a in init]
    theirs = [torch.tensor(a, requires_grad=True) for a in init]
    opt_ours = getattr(tt.optim, name)(ours, lr=0.01, foreach=foreach, **config)
    opt_theirs = getattr(torch.optim, name)(theirs, lr=0.01, foreach=foreach, **config)
    # with Adam's coupled weight decay the gradient depends on the parameters: one step only
    steps = 1 if name == "Adam" and config.get("weight_decay") else 4
    for _ in range(steps):
        for x, t in zip(ours, theirs):
            g = np.asarray(rng.standard_normal(x.shape), "float32")
            x.grad, t.grad = tt.tensor(g), torch.tensor(g)
        opt_ours.step()
        opt_theirs.step()
    for x, t in zip(ours, theirs):
        _same_fused(opt_ours.state[x]["exp_avg"].numpy(), opt_theirs.state[t]["exp_avg"].numpy(), "exp_avg", CHAIN_ULPS)
        if _paths.running(_paths.FMA_PATHS):
            np.testing.assert_allclose(opt_ours.state[x]["exp_avg_sq"].numpy(),
                                       opt_theirs.state[t]["exp_avg_sq"].numpy(), rtol=1e-6, atol=0)
        else:  # DEFAULT: a decayed gradient g + wd * p that cancels carries the product's rounding, squared
            _same_fused(opt_ours.state[x]["exp_avg_sq"].numpy(), opt_theirs.state[t]["exp_avg_sq"].numpy(), "exp_avg_sq",
                  CHAIN_ULPS)
        np.testing.assert_allclose(x.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-7)


# -- bits: the plain SGD update ``p - lr * g`` as one BLAS axpy (one call a parameter when OpenBLAS runs one
# thread, chunked calls otherwise, the tails of many small parameters gathered into shared padded calls):
# PyTorch's bits on its FMA paths, within UPDATE_ULPS ulp (counted at max(|value|, 1)) on its DEFAULT build


# DEFAULT path: the product's rounding, up to 1.5 ulp a step, over two or three steps (measured with
# TINYTORCH_ULP_REPORT)
UPDATE_ULPS = 3


def _same_update(a: np.ndarray, b: np.ndarray) -> None:
    _paths.assert_bits(a, b, ulps=UPDATE_ULPS, scale=1.0, what="SGD update")


ROOT = _repo.ROOT


_ONE_THREAD_AXPY = r"""
import json
import numpy as np
import torch
import tinytorch as tt
from tinytorch._ops._kernels import muladd as _muladd
import _paths

rng = np.random.default_rng(3)
out = {"threads": None, "same": [], "ulps": []}
for dtype in ("float32", "float64"):
    for n in (401408, 262144 + 37, 3 * 8192 + 1024 + 5, 5120, 10):
        a = rng.standard_normal(n).astype(dtype)
        b = rng.standard_normal(n).astype(dtype)
        for alpha in (-1e-3, 0.37):
            want = torch.from_numpy(a.copy()).add_(torch.from_numpy(b), alpha=alpha).numpy()
            got = tt.tensor(a.copy())
            got.add_(tt.tensor(b), alpha=alpha)
            out["same"].append(bool(np.array_equal(got.numpy().view(np.uint8), want.view(np.uint8))))
            out["ulps"].append(float(_paths.ulp_distance(got.numpy(), want, 1.0).max()))
# SGD over many small parameters: their tails share padded BLAS calls, one here
shapes = [(1000,), (1023,), (3, 7), (), (2050,), (40, 41)] * 6
init = [rng.standard_normal(sh).astype("float32") for sh in shapes]
grads = [rng.standard_normal(sh).astype("float32") for sh in shapes]
ours = [tt.tensor(a, requires_grad=True) for a in init]
theirs = [torch.tensor(a, requires_grad=True) for a in init]
o1, o2 = tt.optim.SGD(ours, lr=0.37), torch.optim.SGD(theirs, lr=0.37)
for _ in range(2):
    for x, t, g in zip(ours, theirs, grads):
        x.grad, t.grad = tt.tensor(g), torch.tensor(g)
    o1.step()
    o2.step()
for x, t in zip(ours, theirs):
    a, b = x.detach().numpy(), t.detach().numpy()
    out["same"].append(bool(np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8))))
    out["ulps"].append(float(_paths.ulp_distance(a, b, 1.0).max(initial=0)))
out["blas"] = sorted(str(k) for k in _muladd._checked_axpy())  # (the SGD path's; not used under TINYTORCH_REFERENCE=1)
out["threads"] = _muladd._threads()
print(json.dumps(out))
"""


@pytest.mark.bitexact
def test_one_thread_axpy_is_one_call_and_pytorchs_bits():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests")]))
    res = json.loads(subprocess.run([sys.executable, "-c", _ONE_THREAD_AXPY], env=env, cwd=ROOT, check=True,
                                    capture_output=True, text=True).stdout.strip().splitlines()[-1])
    # the BLAS passed its self-check and runs as one call a parameter
    assert res["threads"] == 1 and res["blas"] == ["float32", "float64"]
    # the subprocess runs PyTorch's path of this one; without CPU paths (TINYTORCH_REFERENCE=1) tinytorch rounds
    # as the DEFAULT build
    if _paths.running(_paths.FMA_PATHS) and not REFERENCE:
        assert all(res["same"])
    else:
        assert max(res["ulps"]) <= UPDATE_ULPS, f"DEFAULT path: {max(res['ulps'])} ulp beyond {UPDATE_ULPS}"


@pytest.mark.bitexact
def test_sgd_large_weights_bits_in_this_process():
    """Whatever OpenBLAS's thread count here (several: the chunked calls), a quickstart-sized update is
    PyTorch's bit for bit."""
    rng = np.random.default_rng(4)
    shapes = [(512, 784), (512,), (10, 512), (10,)]
    init = [rng.standard_normal(s).astype("float32") for s in shapes]
    ours = [tt.tensor(a, requires_grad=True) for a in init]
    theirs = [torch.tensor(a, requires_grad=True) for a in init]
    o1, o2 = tt.optim.SGD(ours, lr=1e-3), torch.optim.SGD(theirs, lr=1e-3)
    for _ in range(2):
        for x, t in zip(ours, theirs):
            g = rng.standard_normal(x.shape).astype("float32")
            x.grad, t.grad = tt.tensor(g), torch.tensor(g)
        o1.step()
        o2.step()
    for x, t in zip(ours, theirs):
        _same_update(x.detach().numpy(), t.detach().numpy())


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", ("float32", "float64"))
def test_sgd_many_small_parameters_bits(dtype):
    """Plain SGD updates every parameter at once, the small ones and the sub-block tails of the large ones
    (a 130x150 weight's last 44 elements) gathered into shared padded BLAS calls (here more than one call's
    worth): PyTorch's bits, PyTorch's version counts; a gradient that is a parameter's memory, a
    non-contiguous gradient and a float16 parameter take the one-by-one path."""
    rng = np.random.default_rng(6)
    shapes = [(1000,), (1023,), (3, 7), (), (2050,), (40, 41), (5, 3)] * 5 + [(130, 150), (16384,)]
    dtypes = [dtype] * len(shapes) + ["float16"]
    shapes = shapes + [(9,)]
    init = [rng.standard_normal(s).astype(d) for s, d in zip(shapes, dtypes)]
    ours = [tt.tensor(a, requires_grad=True) for a in init]
    theirs = [torch.tensor(a, requires_grad=True) for a in init]
    o1, o2 = tt.optim.SGD(ours, lr=0.05), torch.optim.SGD(theirs, lr=0.05)
    for step in range(3):
        for j, (x, t) in enumerate(zip(ours, theirs)):
            g = rng.standard_normal(x.shape).astype(dtypes[j])
            if j == 5:  # a transposed (non-contiguous) gradient
                x.grad, t.grad = tt.tensor(g.T.copy()).t(), torch.tensor(g.T.copy()).t()
            else:
                x.grad, t.grad = tt.tensor(g), torch.tensor(g)
        o1.step()
        o2.step()
        for x, t in zip(ours, theirs):
            _same_update(x.detach().numpy(), t.detach().numpy())
            assert x._version == t._version
    # a gradient living in another parameter's memory: the updates run in order, as PyTorch's loop
    p1, p2 = tt.tensor(init[0].copy(), requires_grad=True), tt.tensor(init[1][:1000].copy(), requires_grad=True)
    q1, q2 = torch.tensor(init[0].copy(), requires_grad=True), torch.tensor(init[1][:1000].copy(), requires_grad=True)
    p1.grad, q1.grad = tt.tensor(init[2].reshape(-1).repeat(48)[:1000]), torch.tensor(init[2].reshape(-1).repeat(48)[:1000])
    p2.grad, q2.grad = p1.detach(), q1.detach()
    tt.optim.SGD([p1, p2], lr=0.5).step()
    torch.optim.SGD([q1, q2], lr=0.5).step()
    _same_update(p2.detach().numpy(), q2.detach().numpy())
