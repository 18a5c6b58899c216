"""cross_entropy's one-pass case and log_softmax's array backward: the same bits as the general paths
(random logits of many scales, -inf, ties, exact-zero log-probs; with and without grad), the general
path taken exactly where the one-pass case does not apply, PyTorch's errors for bad targets, and
log_softmax gradients against PyTorch."""
import numpy as np
import pytest

import tinytorch as tt
from tinytorch._ops.nn import loss_nll

torch = pytest.importorskip("torch")


def _logits(rng, shape, dtype, kind):
    x = rng.standard_normal(shape) * [1.0, 10.0, 1e3, 1e-30, 3e4][kind % 5]
    x = np.clip(x, -3e4, 3e4).astype(dtype)  # differences within float16's range
    if kind % 3 == 1:
        x[rng.random(shape) < 0.3] = -np.inf   # impossible classes (targets may hit them: loss inf)
    if kind % 4 == 2:
        x[:, 0] = dtype(1e4)                   # one certain class: log-probs of exactly 0 at target 0
    return x


def _run(x, t, reduction, grad):
    xt = tt.tensor(x, requires_grad=grad)
    loss = tt.nn.functional.cross_entropy(xt, tt.tensor(t), reduction=reduction)
    if not grad:
        return [loss.numpy().tobytes(), str(loss.dtype)]
    loss.backward()
    names = (type(loss.grad_fn).__name__, type(loss.grad_fn.next_functions[0][0]).__name__)
    return [loss.detach().numpy().tobytes(), str(loss.dtype), names, xt.grad.numpy().tobytes()]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_one_pass_gives_the_general_paths_bits_on_random_logits(dtype, monkeypatch):
    rng = np.random.default_rng(np.dtype(dtype).itemsize)
    shapes = [(1, 10), (32, 27), (3, 5), (1, 1), (7, 2), (40, 65), (2, 300)]
    cases = []
    for k in range(150):
        shape = shapes[k % len(shapes)]
        x = _logits(rng, shape, dtype, k)
        t = rng.integers(0, shape[1], shape[0])
        if k % 4 == 2:
            t[: max(1, shape[0] // 2)] = 0     # some or all targets on the certain class
        cases.append((x, t, "sum" if k % 3 == 0 else "mean", k % 2 == 0))
    calls = []
    real = loss_nll._cross_entropy
    monkeypatch.setattr(loss_nll, "_cross_entropy", lambda *a, **k: calls.append(1) or real(*a, **k))
    fast = [_run(*case) for case in cases]
    taken = len(cases) - len(calls)
    monkeypatch.setattr(loss_nll, "_cross_entropy_common", lambda *a: None)
    slow = [_run(*case) for case in cases]
    assert fast == slow
    assert taken > len(cases) // 2  # only rows whose max is not finite (all -inf) fall back


def test_a_zero_loss_keeps_its_sign_as_pytorch():
    # every target certain: every picked log-prob is exactly 0; the sum of their negatives is +0
    x = np.array([[1e4, 0.0, -3.0], [0.0, 2e4, 1.0]], np.float32)
    t = np.array([0, 1])
    for reduction in ("mean", "sum"):
        for grad in (False, True):
            ours = tt.nn.functional.cross_entropy(tt.tensor(x, requires_grad=grad), tt.tensor(t), reduction=reduction)
            ref = torch.nn.functional.cross_entropy(torch.tensor(x, requires_grad=grad), torch.tensor(t),
                                                    reduction=reduction)
            assert ours.item() == ref.item() == 0.0
            assert np.signbit(ours.item()) == np.signbit(ref.item())


def _error(lib, x, t, **kw):
    try:
        lib.nn.functional.cross_entropy(lib.tensor(x), lib.tensor(t), **kw)
    except Exception as e:  # noqa: BLE001 -- the type and text are what is compared
        return type(e).__name__, str(e).split("\n")[0]
    return None


@pytest.mark.parametrize("t", [[1], [0, 1, 2], [3, 0, 1, 2, 1], [0, 1, 5, 2], [0, -2, 1, 1], [2**40, 0, 0, 0]])
def test_bad_targets_raise_as_pytorch(t):
    # a length-1 target would broadcast against the rows in the flat indexing: refused first
    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    t = np.array(t, np.int64)
    assert _error(tt, x, t) == _error(torch, x, t) is not None


@pytest.mark.parametrize("kw", [{"ignore_index": 2}, {"ignore_index": 9}, {"reduction": "none"}])
def test_ignore_index_and_none_reduction_match_pytorch(kw):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    t = np.array([2, 0, 4, 2, 1, 3])
    got, want = [], []
    for lib, out in ((tt, got), (torch, want)):
        xt = lib.tensor(x, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(xt, lib.tensor(t), **kw)
        loss.sum().backward()
        out += [loss.detach().numpy(), xt.grad.numpy()]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", [((32, 27), 1), ((5, 4), 0), ((3, 4, 5), -1), ((3, 4, 5), 1), ((7,), 0),
                                       ((), 0), ((2, 0), 1)])
def test_log_softmax_array_backward_is_the_graph_formula_and_pytorchs(shape, dim, dtype):
    rng = np.random.default_rng(len(shape) + dim)
    a = (rng.standard_normal(shape) * 4).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    x = tt.tensor(a, requires_grad=True)
    out = tt.log_softmax(x, dim)
    (fast,) = tt.autograd.grad(out, [x], tt.tensor(g))
    (slow,) = tt.autograd.grad(tt.log_softmax(x, dim), [x], tt.tensor(g), create_graph=True)
    assert fast.dtype == slow.dtype and fast.shape == slow.shape
    assert fast.numpy().tobytes() == slow.detach().numpy().tobytes()
    px = torch.tensor(a, requires_grad=True)
    torch.log_softmax(px, dim).backward(torch.tensor(g))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(fast.numpy(), px.grad.numpy(), rtol=tol, atol=tol)
    assert type(out.grad_fn).__name__ == type(torch.log_softmax(px, dim).grad_fn).__name__


def test_log_softmax_array_backward_of_a_strided_gradient():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((6, 5)).astype(np.float32)
    g = rng.standard_normal((5, 6)).astype(np.float32).T   # a transposed (non-contiguous) gradient
    x = tt.tensor(a, requires_grad=True)
    (fast,) = tt.autograd.grad(tt.log_softmax(x, 1), [x], tt.tensor(g))
    px = torch.tensor(a, requires_grad=True)
    torch.log_softmax(px, 1).backward(torch.tensor(g))
    np.testing.assert_allclose(fast.numpy(), px.grad.numpy(), rtol=1e-5, atol=1e-6)
