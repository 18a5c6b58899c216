"""The torch-level spellings of nn.functional's ops (``torch.selu``, ``torch.threshold(out=)``,
``torch.batch_norm`` in ATen's argument order, ``torch.kl_div`` with the reduction enum, ...) and the
nn.functional corrections, each against PyTorch: values, gradients and grad_fn names; vmap of
the declared activations and losses against a loop over the samples."""
import numpy as np
import pytest

import tinytorch
import tinytorch.nn.functional as F

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

RNG = np.random.default_rng(18)


def _pair(a, requires_grad=True):
    return (torch.tensor(a, requires_grad=requires_grad), tinytorch.tensor(a, requires_grad=requires_grad))


def _same(theirs, ours, atol=1e-6):
    if isinstance(theirs, (tuple, list)):
        for t, o in zip(theirs, ours):
            _same(t, o, atol)
        return
    assert tuple(theirs.shape) == tuple(ours.shape)
    assert str(theirs.dtype).split(".")[-1] == str(ours.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=atol, rtol=1e-6)
    if theirs.grad_fn is not None or ours.grad_fn is not None:
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


def _check(call, *arrays, grad=True):
    """call(lib, *tensors) in both libraries: outputs and the gradients of every float input."""
    pairs = [_pair(a, grad and a.dtype.kind == "f") for a in arrays]
    theirs = call(torch, *[p[0] for p in pairs])
    ours = call(tinytorch, *[p[1] for p in pairs])
    _same(theirs, ours)
    first = theirs[0] if isinstance(theirs, tuple) else theirs
    if grad and first.requires_grad:
        cot = RNG.standard_normal(tuple(first.shape))
        first.backward(torch.tensor(cot))
        (ours[0] if isinstance(ours, tuple) else ours).backward(tinytorch.tensor(cot))
        for (t, o) in pairs:
            if t.grad is None:
                assert o.grad is None
            elif t.requires_grad:
                np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), atol=1e-6, rtol=1e-6)


X = RNG.uniform(-3, 3, (3, 4))
POS = RNG.uniform(0.1, 0.9, (3, 4))
SIGN = np.where(RNG.standard_normal(3) > 0, 1.0, -1.0)


@pytest.mark.parametrize("name,call,arrays", [
    ("selu", lambda T, x: T.selu(x), [X]),
    ("celu", lambda T, x: T.celu(x, 0.7), [X]),
    ("threshold", lambda T, x: T.threshold(x, 0.5, -2.0), [X]),
    ("rrelu_eval", lambda T, x: T.rrelu(x, 0.1, 0.3, False), [X]),
    ("hardshrink", lambda T, x: T.hardshrink(x, 0.7), [X]),
    ("Tensor.hardshrink", lambda T, x: x.hardshrink(), [X]),
    ("prelu", lambda T, x, w: T.prelu(x, w), [X, np.array([0.25, -0.5, 0.1, 2.0])]),
    ("Tensor.prelu", lambda T, x, w: x.prelu(w), [X, np.array([0.3])]),
    ("dropout_eval", lambda T, x: T.dropout(x, 0.4, False), [X]),
    ("relu", lambda T, x: T.relu(x), [X]),
    ("batch_norm", lambda T, x, w, b, m, v: T.batch_norm(x, w, b, m.detach(), v.detach(), False, 0.1, 1e-5, False),
     [X, RNG.uniform(0.5, 2, 4), RNG.standard_normal(4), RNG.standard_normal(4), RNG.uniform(0.5, 2, 4)]),
    ("layer_norm", lambda T, x, w: T.layer_norm(x, (4,), w), [X, RNG.uniform(0.5, 2, 4)]),
    ("group_norm", lambda T, x: T.group_norm(x.reshape(3, 4, 1), 2), [X]),
    ("embedding", lambda T, w, i: T.embedding(w, i), [X, np.array([[0, 2], [1, 1]])]),
    ("embedding_padding", lambda T, w, i: T.embedding(w, i, 1), [X, np.array([[0, 2], [1, 1]])]),
    ("conv1d", lambda T, x, w: T.conv1d(x.reshape(1, 3, 4), w, stride=2), [X, RNG.standard_normal((2, 3, 2))]),
    ("conv_transpose2d", lambda T, x, w: T.conv_transpose2d(x.reshape(1, 1, 3, 4), w),
     [X, RNG.standard_normal((1, 2, 2, 2))]),
    ("max_pool1d", lambda T, x: T.max_pool1d(x.reshape(1, 3, 4), 2), [X]),
    ("max_pool1d_with_indices", lambda T, x: T.max_pool1d_with_indices(x.reshape(1, 3, 4), 2), [X]),
    ("avg_pool1d", lambda T, x: T.avg_pool1d(x.reshape(1, 3, 4), 2), [X]),
    ("adaptive_avg_pool1d", lambda T, x: T.adaptive_avg_pool1d(x.reshape(1, 3, 4), 3), [X]),
    ("constant_pad_nd", lambda T, x: T.constant_pad_nd(x, (1, 2), 0.5), [X]),
    ("binary_cross_entropy_with_logits", lambda T, x, y: T.binary_cross_entropy_with_logits(x, y, None, None, 2),
     [X, POS]),
    ("kl_div", lambda T, x, y: T.kl_div(x, y, 0), [X, POS]),
    ("kl_div_log_target", lambda T, x, y: T.kl_div(x, y, 1, log_target=True), [X, POS]),
    ("poisson_nll_loss", lambda T, x, y: T.poisson_nll_loss(x, y, True, False, 1e-8, 1), [X, POS]),
    ("margin_ranking_loss", lambda T, a, b, y: T.margin_ranking_loss(a[:, 0], b[:, 0], y, 0.2, 2),
     [X, POS, SIGN]),
    ("hinge_embedding_loss", lambda T, x, y: T.hinge_embedding_loss(x[:, 0], y, 1.0, 0), [X, SIGN]),
    ("cosine_embedding_loss", lambda T, a, b, y: T.cosine_embedding_loss(a, b, y, 0.1, 1), [X, POS, SIGN]),
    ("triplet_margin_loss", lambda T, a, p, n: T.triplet_margin_loss(a, p, n, 1.0, 2, 1e-6, True, 1),
     [X, POS, POS[::-1].copy()]),
    # the ATen operators (what a graph shows and replays): the reduction as ATen's enum
    ("aten.mse_loss", lambda T, x, y: T.ops.aten.mse_loss(x, y), [X, POS]),
    ("aten.mse_loss_sum", lambda T, x, y: T.ops.aten.mse_loss.default(x, y, 2), [X, POS]),
    ("aten.mse_loss_none", lambda T, x, y: T.ops.aten.mse_loss(x, y, 0), [X, POS]),
    ("aten.smooth_l1_loss", lambda T, x, y: T.ops.aten.smooth_l1_loss.default(x, y, 2, 0.5), [X, POS]),
    ("aten.huber_loss", lambda T, x, y: T.ops.aten.huber_loss.default(x, y, 0, 0.7), [X, POS]),
    ("aten.huber_loss_mean", lambda T, x, y: T.ops.aten.huber_loss(x, y), [X, POS]),
])
def test_torch_level_spellings(name, call, arrays):
    _check(call, *arrays)


def test_threshold_out_and_inplace_spellings():
    t, o = torch.zeros(3, 4, dtype=torch.float64), tinytorch.zeros(3, 4, dtype=tinytorch.float64)
    torch.threshold(torch.tensor(X), 0.5, 9.0, out=t)
    tinytorch.threshold(tinytorch.tensor(X), 0.5, 9.0, out=o)
    np.testing.assert_array_equal(o.numpy(), t.numpy())
    for lib in (torch, tinytorch):
        a = lib.tensor(X)
        lib.threshold_(a, 0.5, 9.0)
        lib.selu_(a)
        lib.celu_(a, 1.5)
        lib.relu_(a)
        lib.dropout_(a, 0.3, False)
        lib.nn.functional.elu_(a)
        lib.nn.functional.hardtanh_(a, -0.5, 0.5)
        lib.nn.functional.leaky_relu_(a, 0.2)
        if lib is torch:
            ref = a.numpy()
    np.testing.assert_allclose(a.numpy(), ref, rtol=1e-12)


def test_inplace_activation_records_pytorchs_node():
    for name, call in (("threshold", lambda T, a: T.threshold_(a, 0.0, 1.0)),
                       ("selu", lambda T, a: T.selu_(a)),
                       ("celu", lambda T, a: T.celu_(a)),
                       ("leaky_relu", lambda T, a: T.nn.functional.leaky_relu(a, 0.1, True)),
                       ("relu", lambda T, a: T.relu_(a))):
        names = []
        for lib in (torch, tinytorch):
            a = lib.tensor(X, requires_grad=True) * 1
            names.append(type(call(lib, a).grad_fn).__name__)
        assert names[0] == names[1], name


def test_functional_and_torch_spellings_are_one_op():
    # the method is the implementation itself: its own code object (a copy of the function named Tensor.relu, as
    # Python's argument errors name PyTorch's method, wrapping it)
    impl = tinytorch.relu.__wrapped__
    method = tinytorch.Tensor.relu
    assert method.__code__ is impl.__code__ and getattr(method, "__wrapped__", impl) is impl
    assert tinytorch.selu._decl is tinytorch._ops.nn.activation_smooth.selu._decl
    assert F.linear is tinytorch._ops.nn.linear.linear  # nn.Linear's import is the declared op


# -- corrections found against PyTorch -------------------------------------------------------------------
def test_gelu_on_a_0d_tensor():
    for approximate in ("none", "tanh"):
        _check(lambda T, x: T.nn.functional.gelu(x, approximate=approximate), np.array(0.7))
        _check(lambda T, x: T.nn.GELU(approximate)(x), np.array(-1.3))


def test_prelu_on_a_0d_tensor_keeps_its_shape():
    _check(lambda T, x, w: T.nn.functional.prelu(x, w), np.array(-2.0), np.array([0.25]))


def test_normalize_p0_counts_the_nonzeros():
    a = np.array([[0.0, 2.0, -3.0], [1.0, 0.0, 0.0]])
    _check(lambda T, x: T.nn.functional.normalize(x, p=0, dim=1), a)


def test_integer_avg_pool_truncates_as_pytorch():
    a = RNG.integers(-9, 9, (2, 3, 7))
    for kwargs in ({}, {"padding": 1}, {"count_include_pad": False, "padding": 1}):
        _check(lambda T, x: T.nn.functional.avg_pool1d(x, 3, 2, **kwargs), a, grad=False)
    b = RNG.integers(-9, 9, (1, 2, 5, 5))
    for div in (None, 3, -2):
        _check(lambda T, x: T.nn.functional.avg_pool2d(x, 2, 1, divisor_override=div), b, grad=False)


@pytest.mark.parametrize("kwargs", [dict(stride=2, output_padding=(1, 2), dilation=(2, 3)),
                                    dict(stride=(1, 2), output_padding=1, dilation=2, padding=1)])
def test_conv_transpose2d_backward_with_output_padding_not_below_stride(kwargs):
    _check(lambda T, x, w: T.nn.functional.conv_transpose2d(x, w, **kwargs), RNG.standard_normal((2, 2, 4, 4)),
           RNG.standard_normal((2, 3, 3, 3)))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (0, 3, 4)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_of_an_empty_batch(shape, training):
    c = shape[1] if len(shape) > 1 else 0
    # ATen's empty path scales by weight[0] and bias[0]: no weight for no channels
    _check(lambda T, x, m, v, w, b: T.nn.functional.batch_norm(x, m.detach(), v.detach(), w if c else None,
                                                             b if c else None, training=training),
           np.zeros(shape), np.zeros(c), np.ones(c), RNG.uniform(1, 2, c), RNG.standard_normal(c))


def test_batch_norm_one_value_per_channel_is_refused_by_the_functional_only():
    for lib in (torch, tinytorch):
        with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
            lib.nn.functional.batch_norm(lib.ones(1, 3), None, None, training=True)


# -- vmap through the declarations' rules --------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda x: F.relu6(x), lambda x: F.leaky_relu(x, 0.2), lambda x: F.gelu(x), lambda x: F.hardtanh(x, -1, 2),
    lambda x: F.threshold(x, 0.1, 5.0), lambda x: tinytorch.selu(x), lambda x: F.softmin(x, 0),
    lambda x: F.hardswish(x), lambda x: F.softsign(x), lambda x: F.glu(x, 0),
    lambda x: F.mse_loss(x, x * 0.5), lambda x: F.binary_cross_entropy_with_logits(x, x.sigmoid()),
    lambda x: F.huber_loss(x, x * 0, reduction="sum"), lambda x: F.dropout(x, 0.5, training=False),
    lambda x: F.linear(x, tinytorch.ones(3, 4, dtype=tinytorch.float64), tinytorch.ones(3, dtype=tinytorch.float64)), lambda x: F.normalize(x, dim=0),
])
def test_vmap_matches_a_loop(fn):
    xs = tinytorch.tensor(RNG.standard_normal((5, 4)))
    batched = tinytorch.vmap(fn)(xs)
    looped = tinytorch.stack([fn(xs[i]) for i in range(5)])
    np.testing.assert_allclose(batched.numpy(), looped.numpy(), rtol=1e-12, atol=1e-12)


def test_vmap_refuses_random_and_inplace_activations():
    xs = tinytorch.tensor(RNG.standard_normal((5, 4)))
    for fn in (lambda x: F.dropout(x, 0.5), lambda x: F.relu(x, inplace=True), lambda x: F.rrelu(x, training=True),
               lambda x: F.elu(x, inplace=True)):
        with pytest.raises(RuntimeError, match="vmap"):
            tinytorch.vmap(fn)(xs)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_family_with_dtype_gives_gradients_in_the_inputs_dtype(name):
    x0 = RNG.standard_normal((3, 4)).astype(np.float32)
    results = []
    for lib in (torch, tinytorch):
        x = lib.tensor(x0, requires_grad=True)
        y = getattr(lib.nn.functional, name)(x * 2, 1, dtype=lib.float64)
        (g,) = lib.autograd.grad(y[0].sum() + y[1, 2], x)
        results.append((str(g.dtype).split(".")[-1], g.numpy(), type(y.grad_fn.next_functions[0][0]).__name__))
        if name == "softmax":  # torch.softmax(dtype=) too: the engine casts each input's gradient
            (g2,) = lib.autograd.grad(lib.softmax(x, 1, dtype=lib.float64)[0, 0], x)
            assert str(g2.dtype).endswith("float32")
    assert results[0][0] == results[1][0] == "float32"
    assert results[0][2] == results[1][2] == "ToCopyBackward0"
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("shape,kwargs", [
    ((2, 3, 5, 7), dict(size=(8, 4), mode="bicubic")),
    ((1, 2, 4, 4), dict(scale_factor=1.7, mode="bicubic", align_corners=True)),
    ((1, 2, 4, 6), dict(scale_factor=(0.6, 2.3), mode="bicubic")),
    ((2, 3, 7), dict(size=3, mode="area")),
    ((2, 3, 5, 7), dict(size=(2, 3), mode="area")),
    ((1, 2, 5, 6, 7), dict(size=(3, 4, 2), mode="area")),
])
def test_interpolate_bicubic_and_area(shape, kwargs):
    _check(lambda T, x: T.nn.functional.interpolate(x, **kwargs), RNG.standard_normal(shape))


@pytest.mark.parametrize("name,kwargs", [("upsample_nearest", dict(scale_factor=2)),
                                         ("upsample_bilinear", dict(size=(5, 3)))])
def test_deprecated_upsample_spellings(name, kwargs):
    for lib in (torch, tinytorch):
        with pytest.warns(UserWarning, match=f"nn.functional.{name}` is deprecated"):
            getattr(lib.nn.functional, name)(lib.ones(1, 1, 2, 2), **kwargs)
    with pytest.warns(UserWarning):
        _check(lambda T, x: getattr(T.nn.functional, name)(x, **kwargs), RNG.standard_normal((1, 2, 3, 4)))
