"""The array backward paths of the small-op workloads: batch_norm's backward on arrays and the
elementwise activations' (tanh, sigmoid) give the same bits as their create_graph=True formula in
tinytorch ops, and PyTorch's values; a normalisation's result modified in place leaves its backward
alone, as in PyTorch; cross_entropy's one-pass training case gives the general path's bits (loss,
gradient, double backward) and PyTorch's graph and values."""
import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")


def _same_bits(fast, slow):
    for a, c in zip(fast, slow):
        assert a.dtype == c.dtype and a.shape == c.shape
        assert np.array_equal(a.detach().numpy(), c.detach().numpy())


def _batch_norm(training, affine, shape, dtype, rng):
    c = shape[1]
    w = tt.tensor(rng.standard_normal(c).astype(dtype), requires_grad=True) if affine else None
    b = tt.tensor(rng.standard_normal(c).astype(dtype), requires_grad=True) if affine else None
    rm = tt.tensor(rng.standard_normal(c).astype(dtype))
    rv = tt.tensor((rng.random(c) + 0.5).astype(dtype))

    def fn(x, *params):
        return tt.nn.functional.batch_norm(x, rm.clone(), rv.clone(), w, b, training=training)
    return fn, [p for p in (w, b) if p is not None]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(32, 10), (5, 3, 4), (2, 3, 2, 2)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_array_backward_is_the_create_graph_formula(training, affine, shape, dtype):
    rng = np.random.default_rng(sum(shape) + training + 2 * affine)
    fn, params = _batch_norm(training, affine, shape, dtype, rng)
    x = tt.tensor((rng.standard_normal(shape) * 3 + 1).astype(dtype), requires_grad=True)
    g = tt.tensor(rng.standard_normal(shape).astype(dtype))
    y = fn(x)
    assert type(y.grad_fn).__name__ == "NativeBatchNormBackward0"
    fast = tt.autograd.grad(y, [x] + params, g)
    slow = tt.autograd.grad(fn(x), [x] + params, g, create_graph=True)
    _same_bits(fast, slow)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_module_grads_match_pytorch(training):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((32, 6)) * 2 + 1).astype(np.float32)
    g = rng.standard_normal((32, 6)).astype(np.float32)
    grads = []
    for lib in (tt, torch):
        lib.manual_seed(0)
        m = lib.nn.BatchNorm1d(6)
        with lib.no_grad():
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-1, 1)
        if not training:
            m(lib.tensor(x * 0.5))
            m.eval()
        xx = lib.tensor(x, requires_grad=True)
        m(xx).backward(lib.tensor(g))
        grads.append([t.numpy() for t in (xx.grad, m.weight.grad, m.bias.grad)])
    for a, c in zip(*grads):
        np.testing.assert_allclose(a, c, rtol=2e-5, atol=2e-6)


def test_batch_norm_backward_checks_versions_and_frees():
    x = tt.randn(8, 3, requires_grad=True)
    y = tt.nn.functional.batch_norm(x * 1, None, None, training=True)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()
    h = x * 1
    y = tt.nn.functional.batch_norm(h, None, None, training=True)
    with tt.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_batch_norm_pack_hooks_see_the_saved_input():
    seen = []
    x = tt.randn(6, 4, requires_grad=True)
    w = tt.ones(4, requires_grad=True)
    with tt.autograd.graph.saved_tensors_hooks(lambda t: (seen.append("pack"), t)[1],
                                               lambda t: (seen.append("unpack"), t)[1]):
        y = tt.nn.functional.batch_norm(x, None, None, w, training=True)
    (y * y).sum().backward()
    assert seen.count("unpack") >= 1


@pytest.mark.parametrize("norm", ["batch_norm", "layer_norm"])
def test_norm_result_modified_in_place_keeps_its_backward(norm):
    rng = np.random.default_rng(2)
    xs = rng.standard_normal((8, 4)).astype(np.float32)
    c = rng.standard_normal((8, 4)).astype(np.float32)
    grads = []
    for lib in (tt, torch):
        x = lib.tensor(xs, requires_grad=True)
        if norm == "batch_norm":
            y = lib.nn.functional.batch_norm(x, None, None, training=True)
        else:
            y = lib.nn.functional.layer_norm(x, (4,))
        y.mul_(5)
        (gx,) = lib.autograd.grad((y * lib.tensor(c)).sum(), x)
        grads.append(gx.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["tanh", "sigmoid", "exp"])
def test_activation_array_backward_is_the_create_graph_formula(op, dtype):
    rng = np.random.default_rng(11)
    for shape in [(3, 40), ()]:
        x = tt.tensor((rng.standard_normal(shape) * 2).astype(dtype), requires_grad=True)
        g = tt.tensor(rng.standard_normal(shape).astype(dtype))
        fn = getattr(tt, op)
        fast = tt.autograd.grad(fn(x), [x], g)
        slow = tt.autograd.grad(fn(x), [x], g, create_graph=True)
        _same_bits(fast, slow)
        assert isinstance(fast[0].numpy(), np.ndarray)


@pytest.mark.parametrize("op", ["tanh", "sigmoid"])
def test_activation_grads_match_pytorch(op):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((5, 7)) * 2).astype(np.float32)
    g = rng.standard_normal((5, 7)).astype(np.float32)
    grads = []
    for lib in (tt, torch):
        xx = lib.tensor(x, requires_grad=True)
        y = getattr(lib.nn, op.capitalize() if op == "tanh" else "Sigmoid")()(xx)
        assert type(y.grad_fn).__name__ == op.capitalize() + "Backward0"
        y.backward(lib.tensor(g))
        grads.append(xx.grad.numpy())
    # float32 tanh/sigmoid results differ from PyTorch's by an ulp or two; 1 - y*y magnifies that near |y| = 1
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("with_view", [False, True])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batchnorm_counter_value_version_and_views_follow_pytorch(momentum, with_view):
    x = np.random.default_rng(8).standard_normal((6, 3)).astype(np.float32)
    seen = []
    for lib in (tt, torch):
        m = lib.nn.BatchNorm1d(3, momentum=momentum)
        view = m.num_batches_tracked.view(1) if with_view else None  # a view sees every increment
        v0 = m.num_batches_tracked._version
        for _ in range(3):
            m(lib.tensor(x))
        seen.append((int(m.num_batches_tracked), m.num_batches_tracked._version - v0,
                     int(view[0]) if with_view else None,
                     m.running_mean.detach().numpy().copy()))
    assert seen[0][:3] == seen[1][:3]
    np.testing.assert_allclose(seen[0][3], seen[1][3], rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", ["mean", "sum", "none", "weight", "ignore", "spatial", "log_softmax"])
def test_cross_entropy_array_backward_is_the_create_graph_formula(case, dtype):
    rng = np.random.default_rng(len(case))
    shape = (6, 5, 3) if case == "spatial" else (6, 5)
    x = tt.tensor((rng.standard_normal(shape) * 3).astype(dtype), requires_grad=True)
    target = tt.tensor(rng.integers(0, 5, (6, 3) if case == "spatial" else 6))
    kwargs = {"reduction": case} if case in ("mean", "sum", "none") else {}
    if case == "weight":
        kwargs["weight"] = tt.tensor(rng.random(5).astype(dtype))
    if case == "ignore":
        target[2] = 1
        kwargs["ignore_index"] = 1
    if case == "log_softmax":
        def fn(x):
            return tt.log_softmax(x, 1)
    else:
        def fn(x):
            return tt.nn.functional.cross_entropy(x, target, **kwargs)
    out = fn(x)
    g = tt.tensor(rng.standard_normal(tuple(out.shape)).astype(dtype))
    fast = tt.autograd.grad(out, [x], g)
    slow = tt.autograd.grad(fn(x), [x], g, create_graph=True)
    _same_bits(fast, slow)
    px = torch.tensor(x.detach().numpy(), requires_grad=True)
    if case == "log_softmax":
        pout = torch.log_softmax(px, 1)
    else:
        pkw = dict(kwargs)
        if "weight" in pkw:
            pkw["weight"] = torch.tensor(pkw["weight"].numpy())
        pout = torch.nn.functional.cross_entropy(px, torch.tensor(target.numpy()), **pkw)
    pout.backward(torch.tensor(g.numpy()))
    np.testing.assert_allclose(fast[0].numpy(), px.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_norm_batch_mean_is_numpys_mean(dtype):
    from tinytorch._ops.nn.norm import _mean_np
    rng = np.random.default_rng(12)
    for shape, axes in [((32, 100), (0,)), ((7, 3, 5), (0, 2)), ((3, 9), (1,)), ((2, 4, 3, 3), (0, 2, 3))]:
        x = (rng.standard_normal(shape) * 10 ** rng.uniform(-3, 3)).astype(dtype)
        got = _mean_np(x, axes)
        want = x.mean(axis=axes, keepdims=True)
        assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("shape", [(), (3, 2)])
def test_scalar_first_arithmetic_matches_pytorch(dtype, shape):
    rng = np.random.default_rng(6)
    a = (rng.standard_normal(shape) * 5).astype(dtype)
    results = []
    for lib in (tt, torch):
        grad = dtype != "int64"
        x = lib.tensor(a, requires_grad=grad)
        outs = [0.5 * x, 3 * x, 1 + x, 2.5 + x, sum([x, x], 1), 7 - x, x - 2, lib.mul(2.0, x), lib.add(1, x)]
        vals = [(str(o.dtype).split(".")[-1], o.detach().numpy().copy()) for o in outs]
        if grad:
            sum(o.sum() for o in outs).backward()
            vals.append(("grad", x.grad.numpy().copy()))
        results.append(vals)
    for (dt, v), (pdt, pv) in zip(*results):
        assert dt == pdt
        np.testing.assert_array_equal(v, pv)


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


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,kind", _CE_CASES)
def test_cross_entropy_one_pass_is_the_general_path_bit_for_bit(shape, kind, dtype, reduction, monkeypatch):
    from tinytorch._ops.nn import loss_nll
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
    monkeypatch.setattr(loss_nll, "_cross_entropy_common", lambda *a: None)
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


@pytest.mark.parametrize("functional", [False, True])
def test_batch_norm_leaves_the_running_statistics_versions_as_pytorch(functional):
    torch = pytest.importorskip("torch")

    def versions(lib):
        lib.manual_seed(0)
        x = lib.randn(4, 3)
        if functional:
            rm, rv = lib.zeros(3), lib.ones(3)
            lib.nn.functional.batch_norm(x, rm, rv, training=True)
            return rm._version, rv._version
        bn = lib.nn.BatchNorm1d(3)
        bn(x)
        bn(x)
        return bn.running_mean._version, bn.running_var._version, bn.num_batches_tracked._version

    assert versions(tt) == versions(torch)


def _edge_names(t):
    return [None if f is None else type(f).__name__ for f, _ in t.grad_fn.next_functions]


@pytest.mark.parametrize("expr", ["0.5 * t", "1 + t", "1 - t", "2.0 - t * t", "3 * (t + 1)", "t * 2 + 1"])
def test_scalar_first_graphs_as_pytorch(expr):
    torch = pytest.importorskip("torch")

    def graph(lib):
        t = lib.tensor([1.0, 2.0], requires_grad=True)
        out = eval(expr, {"t": t})
        return type(out.grad_fn).__name__, _edge_names(out), out.detach().tolist()

    assert graph(tt) == graph(torch)


@pytest.mark.parametrize("scalar", [np.float64(2.5), np.complex128(1j), np.float32(2.5), np.int64(2), np.bool_(True)])
@pytest.mark.parametrize("op", ["t * s", "s * t", "ti + s", "s - t", "t / s", "ti * s", "ti - s", "tb * s"])
def test_numpy_scalars_promote_as_pytorch(scalar, op):
    torch = pytest.importorskip("torch")

    def result(lib):
        t, ti, tb = lib.ones(2), lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.bool)
        out = eval(op, {"t": t, "ti": ti, "tb": tb, "s": scalar})
        return str(out.dtype).split(".")[-1], out.tolist()

    assert result(tt) == result(torch)
