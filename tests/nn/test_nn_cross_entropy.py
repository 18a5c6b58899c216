"""cross_entropy's one-pass training case (a CPU path, ``tinytorch/_cpu/softmax.py``) against the reference
it replaces (the same bits for loss, gradient and double backward: random logits of many scales, -inf, ties,
exact-zero log-probs, with and without grad; the reference taken exactly where the one-pass case does not
apply) and against PyTorch (values, graph, the sign of a zero loss, ignore_index, reduction, errors for bad
targets); log_softmax's array backward against its graph formula and PyTorch's."""
import numpy as np
import pytest

import tinytorch as tt
from tinytorch._ops._core import paths
from tinytorch._ops.nn import loss_nll

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

one_pass_registered = pytest.mark.skipif(paths.REFERENCE, reason="TINYTORCH_REFERENCE=1 registers no CPU path")


def _one_pass():
    """The one-pass path registered onto F.cross_entropy."""
    (path,) = paths.PATHS["F.cross_entropy"]
    return path


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


@one_pass_registered
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
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
    with paths.off(_one_pass()):
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


# -- cross_entropy's one-pass training case ------------------------------------------------------
def _ce_logits(shape, dtype, rng, kind):
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    if kind == "large":
        x *= dtype(3000)          # exp underflows to 0 for most classes: log-probs of -1e4 and exact 0
    elif kind == "tie":
        x[:] = 1.5                # every row uniform
    elif kind == "one_class":
        x = x[:, :1].copy()       # C = 1: every log-prob is 0, the loss +0 (not -0), as PyTorch's
    elif kind == "neg_inf":
        x[:, 0] = -np.inf         # a class never possible; the targets avoid it
    return x


def _ce_run(lib, x, t, dtype, reduction, **kw):
    """Loss, first-order gradient, the gradient of a weighted sum of it (double backward), graph."""
    xt = lib.tensor(x, requires_grad=True)
    loss = lib.nn.functional.cross_entropy(xt, lib.tensor(t), reduction=reduction, **kw)
    (gx,) = lib.autograd.grad(loss, [xt], create_graph=True)
    v = lib.tensor(np.random.default_rng(5).standard_normal(x.shape).astype(dtype))
    (ggx,) = lib.autograd.grad((gx * v).sum(), [xt])
    node = loss.grad_fn
    graph = (type(node).__name__, [type(n).__name__ for n, _ in node.next_functions],
             [[type(m).__name__ for m, _ in n.next_functions] for n, _ in node.next_functions])
    (plain,) = lib.autograd.grad(lib.nn.functional.cross_entropy(xt, lib.tensor(t), reduction=reduction, **kw),
                                 [xt])
    return [a.detach().numpy() for a in (loss, gx, ggx, plain)], graph


_CE_CASES = [((32, 27), "normal"), ((1, 1), "one_class"), ((4, 1), "one_class"), ((5, 7), "large"),
             ((6, 4), "tie"), ((300, 50), "normal"), ((8, 5), "neg_inf")]


@one_pass_registered
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,kind", _CE_CASES)
def test_cross_entropy_one_pass_is_the_general_path_bit_for_bit(shape, kind, dtype, reduction, monkeypatch):
    rng = np.random.default_rng(shape[0] * 31 + shape[1])
    x = _ce_logits(shape, dtype, rng, kind)
    c = x.shape[1]
    t = rng.integers(1 if kind == "neg_inf" else 0, c, x.shape[0])
    general_calls = []
    real_general = loss_nll._cross_entropy

    def spy(*args, **kwargs):
        general_calls.append(1)
        return real_general(*args, **kwargs)
    monkeypatch.setattr(loss_nll, "_cross_entropy", spy)
    fast, fast_graph = _ce_run(tt, x, t, dtype, reduction)
    assert not general_calls, "the one-pass path was not taken"
    with paths.off(_one_pass()):
        slow, slow_graph = _ce_run(tt, x, t, dtype, reduction)
    assert general_calls
    assert fast_graph == slow_graph == ("NllLossBackward0", ["LogSoftmaxBackward0"], [["AccumulateGrad"]])
    for a, b in zip(fast, slow):
        assert a.dtype == b.dtype == dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()  # bits, signed zeros included
    with tt.no_grad():
        assert tt.nn.functional.cross_entropy(tt.tensor(x), tt.tensor(t), reduction=reduction).numpy().tobytes() \
            == slow[0].tobytes()


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,kind", _CE_CASES)
def test_cross_entropy_one_pass_matches_pytorch(shape, kind, dtype, reduction):
    rng = np.random.default_rng(shape[0] * 7 + shape[1])
    x = _ce_logits(shape, dtype, rng, kind)
    t = rng.integers(1 if kind == "neg_inf" else 0, x.shape[1], x.shape[0])
    mine, my_graph = _ce_run(tt, x, t, dtype, reduction)
    ref, ref_graph = _ce_run(torch, x, t, dtype, reduction)
    assert my_graph == ref_graph
    tol = 2e-5 if dtype == np.float32 else 1e-12
    for a, b in zip(mine, ref):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol * 10)
    assert np.signbit(mine[0]) == np.signbit(ref[0])


@pytest.mark.parametrize("case", ["ignore_hit", "ignore_unhit", "noncontiguous", "nonfinite", "nan_row", "f16"])
def test_cross_entropy_cases_beside_the_one_pass_match_pytorch(case):
    rng = np.random.default_rng(len(case))
    x = (rng.standard_normal((6, 5)) * 2).astype(np.float32)
    t = rng.integers(0, 5, 6)
    kw = {}
    if case == "ignore_hit":
        kw["ignore_index"] = int(t[0])
    elif case == "ignore_unhit":
        kw["ignore_index"] = 7
    elif case == "noncontiguous":
        x = np.asfortranarray(x)
    elif case == "nonfinite":
        x[2, t[2]] = -np.inf
    elif case == "nan_row":
        x[1, 3] = np.nan
    elif case == "f16":  # the one-pass path, in float16
        x = x.astype(np.float16)
    for reduction in ("mean", "sum"):
        got, want = [], []
        for lib, out in ((tt, got), (torch, want)):
            xt = lib.tensor(x, requires_grad=True)
            loss = lib.nn.functional.cross_entropy(xt, lib.tensor(t), reduction=reduction, **kw)
            loss.backward()
            out += [loss.detach().numpy(), xt.grad.numpy(), type(loss.grad_fn).__name__]
        assert got[2] == want[2]
        tol = 2e-3 if case == "f16" else 1e-5
        np.testing.assert_allclose(got[0], want[0], rtol=tol)
        np.testing.assert_allclose(got[1], want[1], rtol=tol, atol=tol)


@pytest.mark.parametrize("bad", [27, -1, -100])
def test_cross_entropy_out_of_range_targets_raise_as_pytorch(bad):
    x = np.random.default_rng(0).standard_normal((4, 27)).astype(np.float32)
    t = np.array([0, 3, bad, 1])
    errs = []
    for lib in (tt, torch):
        try:
            lib.nn.functional.cross_entropy(lib.tensor(x), lib.tensor(t))
            errs.append(None)
        except Exception as e:  # noqa: BLE001 -- the type and text are what is compared
            errs.append((type(e).__name__, str(e).split("\n")[0]))
    if bad == -100:  # the default ignore_index: skipped, not an error, in both
        assert errs == [None, None]
    else:
        assert errs[0] == errs[1]


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
