"""batch_norm and the BatchNorm modules in training against PyTorch: the training path's order and
precision (PyTorch's bits for most elements at makemore's shapes, float32, one thread), the layer's
own training path against F.batch_norm's (bit for bit) and PyTorch's, what it leaves to F.batch_norm,
parameter gradients, saved-input versions and hooks, running statistics, their versions and counter,
a normalisation's result modified in place, subclasses and errors."""
import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _run(lib, x, g, w, b, rm, rv):
    X = lib.tensor(x, requires_grad=True)
    W, B = lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)
    RM, RV = lib.tensor(rm.copy()), lib.tensor(rv.copy())
    out = lib.nn.functional.batch_norm(X, RM, RV, W, B, True, 0.1, 1e-5)
    out.backward(lib.tensor(g))
    return [t.detach().numpy() for t in (out, X.grad, W.grad, B.grad, RM, RV)]


@pytest.fixture
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # PyTorch's per-thread partial sums otherwise change its bits
    yield
    torch.set_num_threads(threads)


@pytest.mark.bitexact
def test_batch_norm_training_bits_mostly_pytorchs(one_thread):
    rng = np.random.default_rng(1)
    same = {k: [0, 0] for k in ("out", "grad_input", "grad_weight", "grad_bias", "running_mean", "running_var")}
    for shape in [(32, 100), (32, 27), (64, 100)] * 4:
        c = shape[1]
        x = (rng.standard_normal(shape) * rng.uniform(0.1, 5, c) + rng.uniform(-2, 2, c)).astype(np.float32)
        g = rng.standard_normal(shape).astype(np.float32)
        w, b = rng.uniform(0.5, 1.5, c).astype(np.float32), rng.uniform(-0.5, 0.5, c).astype(np.float32)
        rm, rv = rng.uniform(-1, 1, c).astype(np.float32), rng.uniform(0.5, 2, c).astype(np.float32)
        ours, theirs = _run(tt, x, g, w, b, rm, rv), _run(torch, x, g, w, b, rm, rv)
        for key, a, e in zip(same, ours, theirs):
            assert a.dtype == e.dtype and a.shape == e.shape
            np.testing.assert_allclose(a, e, rtol=2e-5, atol=2e-6)
            same[key][0] += int((a == e).sum())
            same[key][1] += a.size
    share = {k: s / n for k, (s, n) in same.items()}
    # (PyTorch's path decides: tinytorch's floats here are the same with its CPU paths or without them)
    if _paths.torch_path() not in _paths.FMA_PATHS:
        # PyTorch's DEFAULT build: no fused multiply-adds, its scalar sums in the order tinytorch takes
        # (measured: out 0.82, every other share 1)
        assert share["out"] > 0.75 and min(v for k, v in share.items() if k != "out") > 0.95, share
        return
    # PyTorch's AVX2 and AVX512 builds (the same shares, measured): the order of PyTorch's kernel gives
    # these shares (the numpy-order formulas before it gave 0.38, 0.29, 0.17, 1, 1 and 0.71); what is left
    # comes from PyTorch's fused multiply-adds in the variance sum, the output and the dot product of the
    # backward
    assert share["running_mean"] == 1 and share["grad_bias"] == 1
    assert share["running_var"] > 0.85
    assert share["out"] > 0.5
    assert share["grad_input"] > 0.65
    assert share["grad_weight"] > 0.3


@pytest.mark.bitexact
def test_batch_norm_parameter_grads_are_owned_arrays():
    bn = tt.nn.BatchNorm1d(5)
    bn(tt.randn(8, 5, requires_grad=True)).sum().backward()
    for p in (bn.weight, bn.bias):
        assert p.grad.shape == (5,) and p.grad.numpy().base is None


@pytest.mark.bitexact
def test_batch_norm_one_value_per_channel_running_var_as_pytorch():
    x = np.arange(3, dtype=np.float32).reshape(1, 3)
    seen = []
    for lib in (tt, torch):
        rm, rv = lib.zeros(3), lib.ones(3)
        out = lib.batch_norm(lib.tensor(x), None, None, rm, rv, True, 0.1, 1e-5, False)
        seen.append((out.numpy(), rm.numpy(), rv.numpy()))
    for a, e in zip(*seen):
        np.testing.assert_array_equal(a, e)


@pytest.mark.bitexact
@pytest.mark.parametrize("track", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_module_state_as_pytorch(affine, track):
    x = np.random.default_rng(3).standard_normal((10, 4, 3)).astype(np.float32)
    seen = []
    for lib in (tt, torch):

        class Scaled(lib.nn.BatchNorm1d):  # a subclass's own attribute reads are honoured
            @property
            def eps(self):
                return 0.5

            @eps.setter
            def eps(self, value):
                pass

        for cls in (lib.nn.BatchNorm1d, Scaled):
            m = cls(4, affine=affine, track_running_stats=track)
            outs = [m(lib.tensor(x)).detach().numpy()]
            m.eval()
            outs.append(m(lib.tensor(x)).detach().numpy())
            if track:
                outs += [m.running_mean.numpy(), m.running_var.numpy(), np.array(int(m.num_batches_tracked))]
            seen.append(outs)
    for a, e in zip(seen[:2], seen[2:]):
        for u, v in zip(a, e):
            np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)


@pytest.mark.bitexact
def test_batch_norm_training_without_a_channel_dim_raises_as_pytorch():
    errors = []
    for lib in (tt, torch):
        with pytest.raises(Exception) as info:
            lib.batch_norm(lib.randn(7), None, None, None, None, True, 0.1, 1e-5, False)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", ("float32", "float64"))
@pytest.mark.parametrize("shape", [(32, 100), (8, 6, 5), (4, 3, 2, 5)])
def test_batchnorm_layer_training_fast_path(dtype, shape, monkeypatch):
    """A BatchNorm layer in training takes batch_norm_training (skipping F.batch_norm's layers): the
    bits of F.batch_norm's path (output, running statistics, gradients), PyTorch's values, grad_fn
    and counter."""
    rng = np.random.default_rng(len(shape))
    cls = {2: "BatchNorm1d", 3: "BatchNorm1d", 4: "BatchNorm2d"}[len(shape)]
    c = shape[1]
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    ours = getattr(tt.nn, cls)(c, dtype=getattr(tt, dtype))
    theirs = getattr(torch.nn, cls)(c, dtype=getattr(torch, dtype))
    with tt.no_grad():
        ours.weight.uniform_(0.5, 1.5)
        ours.bias.uniform_(-0.5, 0.5)
    with torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(ours.weight.detach().numpy()))
        theirs.bias.copy_(torch.from_numpy(ours.bias.detach().numpy()))
    rm, rv = tt.zeros(c, dtype=getattr(tt, dtype)), tt.ones(c, dtype=getattr(tt, dtype))
    import tinytorch.nn.modules.batchnorm as bn_module
    taken = []
    fast = bn_module.batch_norm_training
    monkeypatch.setattr(bn_module, "batch_norm_training", lambda *a: taken.append(1) or fast(*a))
    w, b = ours.weight.detach().clone().requires_grad_(), ours.bias.detach().clone().requires_grad_()
    for _ in range(2):
        X, Xf, T = tt.tensor(x, requires_grad=True), tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        out = ours(X)
        ref = tt.nn.functional.batch_norm(Xf, rm, rv, w, b, True, 0.1, 1e-5)  # the general path
        want = theirs(T)
        assert type(out.grad_fn).__name__ == type(want.grad_fn).__name__ == "NativeBatchNormBackward0"
        out.backward(tt.tensor(g))
        ref.backward(tt.tensor(g))
        want.backward(torch.tensor(g))
        pairs = [(out, ref, want), (X.grad, Xf.grad, T.grad), (ours.running_mean, rm, theirs.running_mean),
                 (ours.running_var, rv, theirs.running_var)]
        for a, r, e in pairs:
            np.testing.assert_array_equal(a.detach().numpy(), r.detach().numpy())
            np.testing.assert_allclose(a.detach().numpy(), e.detach().numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(ours.weight.grad.numpy(), w.grad.numpy())
        np.testing.assert_array_equal(ours.bias.grad.numpy(), b.grad.numpy())
    assert int(ours.num_batches_tracked) == int(theirs.num_batches_tracked) == 2
    assert taken == [1, 1]


@pytest.mark.bitexact
def test_batchnorm_layer_training_falls_back_as_pytorch():
    """What the fast path does not take still behaves as PyTorch: one value per channel, running
    statistics that require grad, a replaced F.batch_norm, momentum None (cumulative average)."""
    for lib in (tt, torch):
        with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
            lib.nn.BatchNorm1d(3)(lib.ones(1, 3))
    msgs = []
    for lib in (tt, torch):
        bn = lib.nn.BatchNorm1d(3)
        bn.running_mean.requires_grad_()
        with pytest.raises(RuntimeError) as info:
            bn(lib.ones(4, 3))
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
    calls = []
    original = tt.nn.functional.batch_norm
    try:
        tt.nn.functional.batch_norm = lambda *a, **k: calls.append(1) or original(*a, **k)
        tt.nn.BatchNorm1d(3)(tt.ones(4, 3))
    finally:
        tt.nn.functional.batch_norm = original
    assert calls == [1]
    x = np.random.default_rng(0).standard_normal((6, 4)).astype("float32")
    ours, theirs = tt.nn.BatchNorm1d(4, momentum=None), torch.nn.BatchNorm1d(4, momentum=None)
    for _ in range(3):
        ours(tt.tensor(x))
        theirs(torch.tensor(x))
    np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy(), rtol=1e-6)


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
