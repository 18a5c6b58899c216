"""The 3-d and transposed layers (3-d convolution and pooling, transposed 1-d/3-d convolution,
unpooling, power-average pooling) against PyTorch: the same seed gives the same parameters bit for
bit, the same repr and state_dict keys, forward values and input/parameter gradients."""
import pytest

from _module_compare import check_module

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def x(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@pytest.mark.parametrize("name,args,kwargs,shape", [
    ("Conv3d", (4, 6, 3), {}, (2, 4, 5, 6, 5)),
    ("Conv3d", (4, 6, (2, 3, 1)), dict(stride=(2, 1, 1), padding=1, groups=2, bias=False), (2, 4, 5, 6, 5)),
    ("Conv3d", (4, 6, 3), dict(padding="same", padding_mode="reflect"), (2, 4, 5, 6, 5)),
    ("Conv3d", (4, 6, 3), dict(padding=1, padding_mode="circular"), (4, 5, 6, 5)),
    ("ConvTranspose1d", (4, 6, 3), dict(stride=2, output_padding=1), (2, 4, 7)),
    ("ConvTranspose1d", (4, 6, 3), dict(groups=2, dilation=2, bias=False), (4, 7)),
    ("ConvTranspose3d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1), (2, 4, 3, 4, 3)),
    ("ConvTranspose3d", (4, 6, (2, 1, 2)), dict(groups=2), (4, 3, 4, 3)),
    ("MaxPool3d", (2,), {}, (2, 3, 4, 6, 4)),
    ("MaxPool3d", (3, 2, 1), dict(ceil_mode=True), (2, 3, 5, 6, 5)),
    ("AvgPool3d", (3, 2, 1), dict(count_include_pad=False), (2, 3, 5, 6, 5)),
    ("AvgPool3d", ((2, 1, 2),), dict(divisor_override=2), (3, 5, 6, 5)),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}, (2, 3, 5, 6, 5)),
    ("AdaptiveMaxPool3d", (2,), dict(return_indices=True), (2, 3, 5, 6, 5)),
    ("AdaptiveMaxPool1d", (3,), {}, (2, 3, 7)),
    ("LPPool1d", (2, 3), dict(stride=2), (2, 3, 7)),
    ("LPPool2d", (1.5, 2), {}, (2, 3, 6, 6)),
    ("LPPool3d", (2, 2), dict(ceil_mode=True), (2, 3, 5, 5, 5)),
    ("InstanceNorm1d", (3,), {}, (2, 3, 7)),
    ("InstanceNorm1d", (3,), dict(affine=True, track_running_stats=True), (2, 3, 7)),
    ("InstanceNorm2d", (3,), dict(affine=True, momentum=0.3), (3, 4, 5)),
    ("InstanceNorm3d", (3,), dict(track_running_stats=True, eps=1e-3), (2, 3, 4, 3, 5)),
    ("PixelShuffle", (2,), {}, (2, 8, 3, 4)),
    ("PixelShuffle", (3,), {}, (9, 2, 2)),
    ("PixelUnshuffle", (2,), {}, (2, 2, 3, 4, 6)),
    ("ChannelShuffle", (3,), {}, (2, 6, 3, 4)),
])
def test_layer(name, args, kwargs, shape):
    inp = x(*shape)
    if name.startswith("LPPool"):
        inp = inp.abs() + 0.1
    check_module(torch, name, args, kwargs, [inp])


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_unpool_layer(nd):
    pool = getattr(torch.nn, f"MaxPool{nd}d")(2, return_indices=True)
    v, i = pool(x(2, 3, *([4] * nd)))
    check_module(torch, f"MaxUnpool{nd}d", (2,), {}, [v.detach(), i])
    check_module(torch, f"MaxUnpool{nd}d", (2,), {}, [v.detach(), i], forward_kwargs=dict(output_size=[5] * nd))


def test_conv_transpose_output_size():
    check_module(torch, "ConvTranspose3d", (2, 3, 3), dict(stride=2), [x(1, 2, 3, 3, 3)],
                 forward_kwargs=dict(output_size=(8, 7, 8)))
    check_module(torch, "ConvTranspose1d", (2, 3, 3), dict(stride=3), [x(1, 2, 3)],
                 forward_kwargs=dict(output_size=[1, 3, 11]))
    import tinytorch as tt
    messages = []
    for lib in (torch, tt):
        with pytest.raises(ValueError) as e:
            lib.nn.ConvTranspose1d(2, 3, 3, stride=2)(lib.zeros(1, 2, 3), output_size=[12])
        messages.append(str(e.value))
    assert messages[1] == messages[0].replace("torch.Size", "tinytorch.Size")  # tinytorch's Size repr


@pytest.mark.parametrize("train", [True, False])
def test_instance_norm_eval(train):
    # eval with running statistics uses them; without, it uses the input's own
    for kw in (dict(track_running_stats=True), {}):
        check_module(torch, "InstanceNorm2d", (3,), dict(kw, affine=True), [x(2, 3, 4, 5)], train=train)


def _same_error(f):
    import tinytorch as tt
    with pytest.raises(Exception) as a:
        f(torch)
    with pytest.raises(type(a.value)) as b:
        f(tt)
    assert str(b.value) == str(a.value).replace("torch.Size", "tinytorch.Size")


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.pixel_shuffle(T.randn(1, 5, 2, 2), 2),
    lambda T: T.nn.functional.pixel_shuffle(T.randn(5, 2), 2),
    lambda T: T.nn.functional.pixel_unshuffle(T.randn(1, 4, 3, 2), 2),
    lambda T: T.nn.functional.pixel_unshuffle(T.randn(1, 4, 2, 3), 2),
    lambda T: T.nn.functional.channel_shuffle(T.randn(1, 5, 3, 2), 2),
    lambda T: T.nn.functional.instance_norm(T.randn(1, 5)),
    lambda T: T.nn.functional.instance_norm(T.randn(2, 3, 1)),
    lambda T: T.nn.functional.instance_norm(T.randn(2, 3, 4), running_mean=T.zeros(4), running_var=T.ones(4)),
    lambda T: T.nn.InstanceNorm1d(3, affine=True)(T.randn(2, 4, 5)),
    lambda T: T.nn.InstanceNorm2d(3)(T.randn(2, 4)),
])
def test_errors(call):
    _same_error(call)


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("channels", [1, 3, 7])
def test_cross_map_lrn2d(size, channels):
    # PyTorch's legacy kernel: its forward window keeps channel 0 and its gradient is its own formula
    a, b = check_module(torch, "CrossMapLRN2d", (size,), dict(alpha=0.5, beta=0.7, k=1.5), [x(2, channels, 3, 2)],
                        rtol=1e-12, atol=1e-14)
    import tinytorch as tt
    out = b(tt.randn(1, channels, 2, 2, requires_grad=True))
    assert out.grad_fn.name() == a(torch.randn(1, channels, 2, 2, requires_grad=True)).grad_fn.name()


def test_cross_map_lrn2d_error():
    _same_error(lambda T: T.nn.CrossMapLRN2d(3)(T.randn(2, 3, 4)))
