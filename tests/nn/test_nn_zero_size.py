"""nn ops on empty inputs against PyTorch: a batch of 0 gives the empty result of the right shape, dtype and
grad_fn, an empty input gradient and zero parameter gradients; an empty dim PyTorch refuses (channels,
spatial dims) raises its exception with its text."""
import numpy as np
import pytest

import tinytorch as tt


def _module_cases(m, keep=lambda module: module):
    """Each case builds its input with ``x(*shape)`` and hands its module to ``keep``, which notes the parameters."""
    nn, F = m.nn, m.nn.functional
    return {
        "conv1d": lambda x: keep(nn.Conv1d(3, 4, 3))(x(0, 3, 8)),
        "conv2d": lambda x: keep(nn.Conv2d(3, 4, 3))(x(0, 3, 8, 8)),
        "conv2d_groups_stride": lambda x: keep(nn.Conv2d(4, 4, 3, groups=2, padding=1, stride=2))(x(0, 4, 8, 8)),
        "conv2d_same": lambda x: keep(nn.Conv2d(3, 4, 3, padding="same"))(x(0, 3, 8, 8)),
        "conv2d_dilated": lambda x: keep(nn.Conv2d(3, 4, 3, dilation=2))(x(0, 3, 8, 8)),
        "conv3d": lambda x: keep(nn.Conv3d(3, 4, 3))(x(0, 3, 5, 5, 5)),
        "conv_transpose1d": lambda x: keep(nn.ConvTranspose1d(3, 4, 3))(x(0, 3, 8)),
        "conv_transpose2d": lambda x: keep(nn.ConvTranspose2d(3, 4, 3, stride=2))(x(0, 3, 8, 8)),
        "conv_transpose2d_groups": lambda x: keep(nn.ConvTranspose2d(4, 4, 3, groups=2, output_padding=1,
                                                                     stride=2))(x(0, 4, 8, 8)),
        "conv_transpose3d": lambda x: keep(nn.ConvTranspose3d(3, 4, 3))(x(0, 3, 4, 4, 4)),
        "max_pool1d": lambda x: F.max_pool1d(x(0, 3, 8), 2),
        "max_pool2d": lambda x: keep(nn.MaxPool2d(2))(x(0, 3, 8, 8)),
        "max_pool2d_padded": lambda x: F.max_pool2d(x(0, 3, 7, 7), 3, 2, 1, ceil_mode=True),
        "max_pool2d_indices": lambda x: F.max_pool2d(x(0, 3, 8, 8), 2, return_indices=True)[0],
        "max_pool3d": lambda x: F.max_pool3d(x(0, 3, 4, 4, 4), 2),
        "avg_pool1d": lambda x: F.avg_pool1d(x(0, 3, 8), 2),
        "avg_pool2d": lambda x: F.avg_pool2d(x(0, 3, 8, 8), 2),
        "avg_pool3d": lambda x: F.avg_pool3d(x(0, 3, 4, 4, 4), 2),
        "adaptive_avg_pool1d": lambda x: F.adaptive_avg_pool1d(x(0, 3, 8), 3),
        "adaptive_avg_pool2d": lambda x: keep(nn.AdaptiveAvgPool2d(3))(x(0, 3, 8, 8)),
        "adaptive_avg_pool3d": lambda x: F.adaptive_avg_pool3d(x(0, 3, 4, 4, 4), 3),
        "adaptive_max_pool1d": lambda x: F.adaptive_max_pool1d(x(0, 3, 8), 3),
        "adaptive_max_pool2d": lambda x: keep(nn.AdaptiveMaxPool2d(3))(x(0, 3, 8, 8)),
        "adaptive_max_pool3d": lambda x: F.adaptive_max_pool3d(x(0, 3, 4, 4, 4), 3),
        "lp_pool2d": lambda x: F.lp_pool2d(x(0, 3, 8, 8), 2, 2),
        "max_unpool2d": lambda x: F.max_unpool2d(*F.max_pool2d(x(0, 3, 4, 4), 2, return_indices=True), 2),
        "batch_norm_eval": lambda x: keep(nn.BatchNorm2d(3)).eval()(x(0, 3, 4, 4)),
        "batch_norm_train": lambda x: keep(nn.BatchNorm2d(3))(x(0, 3, 4, 4)),
        "group_norm": lambda x: keep(nn.GroupNorm(2, 4))(x(0, 4, 4, 4)),
        "layer_norm": lambda x: keep(nn.LayerNorm(4))(x(0, 4)),
        "instance_norm": lambda x: keep(nn.InstanceNorm2d(3))(x(0, 3, 4, 4)),
        "instance_norm_affine": lambda x: keep(nn.InstanceNorm2d(3, affine=True))(x(0, 3, 4, 4)),
        "linear": lambda x: keep(nn.Linear(3, 4))(x(0, 3)),
        "lstm": lambda x: keep(nn.LSTM(3, 4, batch_first=True))(x(0, 5, 3))[0],
        "lstm_proj_bidirectional": lambda x: keep(nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True,
                                                          proj_size=2))(x(0, 5, 3))[0],
        "gru": lambda x: keep(nn.GRU(3, 4, batch_first=True))(x(0, 5, 3))[0],
        "rnn": lambda x: keep(nn.RNN(3, 4, batch_first=True))(x(0, 5, 3))[0],
        "multihead_attention": lambda x: keep(nn.MultiheadAttention(4, 2, batch_first=True))(*[x(0, 3, 4)] * 3)[0],
        "transformer_encoder_layer": lambda x: keep(nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0,
                                                                               batch_first=True))(x(0, 3, 4)),
        "interpolate_bilinear": lambda x: F.interpolate(x(0, 3, 4, 4), scale_factor=2, mode="bilinear"),
        "unfold": lambda x: F.unfold(x(0, 3, 4, 4), 2),
        "pad_reflect": lambda x: F.pad(x(0, 3, 4, 4), (1, 1, 1, 1), mode="reflect"),
        "cross_entropy": lambda x: (lambda i: F.cross_entropy(i, m.zeros(len(i), dtype=m.long)))(x(0, 5)),
    }


CASES = sorted(_module_cases(tt))


def _run(m, name, batch=0):
    """The case's output under library ``m`` with its inputs' leaves and its parameters (a fixed seed)."""
    m.manual_seed(0)
    leaves = []

    def x(*shape):
        shape = (batch,) + shape[1:] if batch else shape
        t = m.randn(*shape, requires_grad=True)
        leaves.append(t)
        return t

    params = []

    def keep(module):
        params.extend(module.parameters())
        return module

    return _module_cases(m, keep)[name](x), leaves, params


@pytest.mark.parametrize("name", CASES)
def test_empty_batch_as_torch(torch, name):
    try:
        tout, tleaves, tparams = _run(torch, name)
    except Exception as e:  # noqa: BLE001 - then tinytorch raises the same
        with pytest.raises(type(e)) as ours:
            _run(tt, name)
        assert str(ours.value) == str(e)
        return
    out, leaves, params = _run(tt, name)
    assert tuple(out.shape) == tuple(tout.shape)
    assert str(out.dtype).split(".")[-1] == str(tout.dtype).split(".")[-1]
    # the node PyTorch records, wherever tinytorch records PyTorch's node on a batch of 2
    full, tfull = _run(tt, name, 2)[0], _run(torch, name, 2)[0]
    if type(full.grad_fn).__name__ == type(tfull.grad_fn).__name__:
        assert type(out.grad_fn).__name__ == type(tout.grad_fn).__name__
    out.sum().backward()
    tout.sum().backward()
    for ours, theirs in zip(leaves + params, tleaves + tparams, strict=True):
        assert (ours.grad is None) == (theirs.grad is None)
        if theirs.grad is not None:
            assert tuple(ours.grad.shape) == tuple(theirs.grad.shape)
            np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())  # zeros, or empty


def _error_cases(m):
    F = m.nn.functional

    def idx(x):
        return m.zeros(tuple(x.shape), dtype=m.long)

    return {
        "max_pool1d": (lambda x: F.max_pool1d(x, 2), 3),
        "max_pool1d_indices": (lambda x: F.max_pool1d(x, 2, return_indices=True)[0], 3),
        "max_pool2d": (lambda x: F.max_pool2d(x, 2), 4),
        "max_pool3d": (lambda x: F.max_pool3d(x, 2), 5),
        "avg_pool1d": (lambda x: F.avg_pool1d(x, 2), 3),
        "avg_pool2d": (lambda x: F.avg_pool2d(x, 2), 4),
        "avg_pool3d": (lambda x: F.avg_pool3d(x, 2), 5),
        "adaptive_avg_pool1d": (lambda x: F.adaptive_avg_pool1d(x, 2), 3),
        "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, 2), 4),
        "adaptive_avg_pool3d": (lambda x: F.adaptive_avg_pool3d(x, 2), 5),
        "adaptive_max_pool1d": (lambda x: F.adaptive_max_pool1d(x, 2), 3),
        "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, 2), 4),
        "adaptive_max_pool3d": (lambda x: F.adaptive_max_pool3d(x, 2), 5),
        "lp_pool2d": (lambda x: F.lp_pool2d(x, 2, 2), 4),
        "max_unpool1d": (lambda x: F.max_unpool1d(x, idx(x), 2), 3),
        "max_unpool2d": (lambda x: F.max_unpool2d(x, idx(x), 2), 4),
        "max_unpool3d": (lambda x: F.max_unpool3d(x, idx(x), 2), 5),
        "fractional_max_pool2d": (lambda x: F.fractional_max_pool2d(x, 2, output_size=2), 4),
        "conv1d": (lambda x: F.conv1d(x, m.ones(2, 3, 1)), 3),
        "conv1d_padded": (lambda x: F.conv1d(x, m.ones(2, 3, 1), padding=1), 3),
        "conv2d": (lambda x: F.conv2d(x, m.ones(2, 3, 1, 1)), 4),
        "conv2d_padded": (lambda x: F.conv2d(x, m.ones(2, 3, 3, 3), padding=2), 4),
        "conv3d": (lambda x: F.conv3d(x, m.ones(2, 3, 1, 1, 1)), 5),
        "conv_transpose1d": (lambda x: F.conv_transpose1d(x, m.ones(3, 2, 1)), 3),
        "conv_transpose2d": (lambda x: F.conv_transpose2d(x, m.ones(3, 2, 1, 1)), 4),
        "conv_transpose3d": (lambda x: F.conv_transpose3d(x, m.ones(3, 2, 1, 1, 1)), 5),
        "interpolate_nearest": (lambda x: F.interpolate(x, scale_factor=2), 4),
        "interpolate_linear": (lambda x: F.interpolate(x, size=5, mode="linear"), 3),
        "interpolate_bilinear": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), 4),
        "interpolate_bicubic_aa": (lambda x: F.interpolate(x, size=(5, 5), mode="bicubic", antialias=True), 4),
        "interpolate_area": (lambda x: F.interpolate(x, scale_factor=2, mode="area"), 4),
        "interpolate_trilinear": (lambda x: F.interpolate(x, scale_factor=2, mode="trilinear"), 5),
        "pad_reflect": (lambda x: F.pad(x, (1, 1, 1, 1), mode="reflect"), 4),
        "unfold": (lambda x: F.unfold(x, 1), 4),
    }


def _empty_shapes(nd: int):
    """Every input with one empty dim: batched (the batch among them) and unbatched; plus wrong ranks."""
    full = [2, 3] + [4] * (nd - 2)
    shapes = []
    for d in range(nd):
        s = list(full)
        s[d] = 0
        shapes.append(tuple(s))
    for d in range(nd - 1):
        s = full[1:]
        s[d] = 0
        shapes.append(tuple(s))
    return shapes + [(4,), (4, 4), (2, 2, 4, 4, 4, 4)]


ERRORS = [(name, shape) for name in sorted(_error_cases(tt)) for shape in _empty_shapes(_error_cases(tt)[name][1])]


def _outcome(m, name, shape):
    fn = _error_cases(m)[name][0]
    try:
        out = fn(m.randn(*shape))
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e).__name__, str(e).replace("tinytorch", "torch")
    return "ok", tuple(out.shape)


@pytest.mark.parametrize("name,shape", ERRORS, ids=[f"{n}-{'x'.join(map(str, s))}" for n, s in ERRORS])
def test_empty_dims_as_torch(torch, name, shape):
    assert _outcome(tt, name, shape) == _outcome(torch, name, shape)


def test_conv_weight_checks_as_torch(torch):
    def outcome(m, w_shape, groups, transposed=False):
        f = m.nn.functional.conv_transpose2d if transposed else m.nn.functional.conv2d
        try:
            return tuple(f(m.randn(2, 4, 5, 5), m.ones(*w_shape), groups=groups).shape)
        except RuntimeError as e:
            return str(e)

    for args in [((3, 2, 3, 3), 2), ((4, 2, 3, 3), 3, True), ((0, 4, 1, 1), 1), ((1, 4, 1, 1), 2)]:
        assert outcome(tt, *args) == outcome(torch, *args)


def test_ctc_loss_of_an_empty_batch_refuses_as_torch(torch):
    def outcome(m, blank=0):
        lp = m.randn(5, 0, 4).log_softmax(2)
        z = m.zeros(0, dtype=m.long)
        try:
            return m.nn.functional.ctc_loss(lp, m.ones(0, 2, dtype=m.long), z, z + 2, blank=blank)
        except RuntimeError as e:
            return str(e)

    assert outcome(tt) == outcome(torch) == "log_probs tensor must not be empty"
    assert outcome(tt, blank=9) == outcome(torch, blank=9)


def test_select_out_of_range_says_as_torch(torch):
    for shape, dim, index in [((0,), 0, 0), ((3, 2), 1, -3), ((3, 2), 0, 3), ((), 0, 0)]:
        with pytest.raises(IndexError) as theirs:
            torch.ones(shape).select(dim, index)
        with pytest.raises(IndexError, match=None) as ours:
            tt.ones(shape).select(dim, index)
        assert str(ours.value) == str(theirs.value)
