"""Lazy modules against PyTorch: repr before the first call, the class they become, parameters
drawn in PyTorch's order (the same seed gives the same values bit for bit), forward values,
state_dict loading into a lazy module, and UninitializedParameter's behaviour."""
import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

CASES = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyLinear", (3,), dict(bias=False), (4, 2, 5)),
    ("LazyConv1d", (4, 3), {}, (2, 3, 7)),
    ("LazyConv2d", (4, 3), dict(groups=2, padding=1), (2, 4, 7, 6)),
    ("LazyConv3d", (4, 2), dict(bias=False), (3, 5, 6, 5)),
    ("LazyConvTranspose1d", (4, 3), dict(stride=2), (2, 3, 7)),
    ("LazyConvTranspose2d", (4, 3), dict(groups=2), (2, 4, 5, 6)),
    ("LazyConvTranspose3d", (4, 2), {}, (2, 3, 4, 5, 4)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), dict(affine=False), (4, 3, 2, 2)),
    ("LazyBatchNorm3d", (), dict(track_running_stats=False), (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), dict(affine=False, track_running_stats=False), (2, 3, 4, 5)),
    ("LazyInstanceNorm3d", (), {}, (2, 3, 4, 5, 3)),
]


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
@pytest.mark.parametrize("name,args,kwargs,shape", CASES, ids=[c[0] + str(i) for i, c in enumerate(CASES)])
def test_lazy(name, args, kwargs, shape):
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(3))
    torch.manual_seed(0)
    a = getattr(torch.nn, name)(*args, **kwargs)
    tt.manual_seed(0)
    b = getattr(tt.nn, name)(*args, **kwargs)
    assert repr(b) == repr(a)
    assert b.has_uninitialized_params() == a.has_uninitialized_params()
    assert isinstance(b.weight, tt.nn.UninitializedParameter) == isinstance(a.weight, torch.nn.UninitializedParameter)
    ya, yb = a(x), b(tt.tensor(x.numpy()))
    assert type(b).__name__ == type(a).__name__ and type(b).__module__ == type(a).__module__.replace("torch", "tinytorch")
    assert repr(b) == repr(a)
    assert not b.has_uninitialized_params() if hasattr(b, "has_uninitialized_params") else True
    np.testing.assert_allclose(yb.detach().numpy(), ya.detach().numpy(), rtol=1e-5, atol=1e-5)
    # parameters (drawn before the forward) bit for bit; buffers after a float32 forward to rounding
    for k, v in a.named_parameters():
        assert type(dict(b.named_parameters())[k]) is tt.nn.Parameter
        _paths.assert_drawn(dict(b.named_parameters())[k], v, what=k)
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sb) == list(sa)
    for k in sa:
        np.testing.assert_allclose(sb[k].numpy(), sa[k].numpy(), rtol=1e-6, atol=1e-7)
    # an initialised state_dict loads into a fresh lazy module, which takes its shapes
    if name.startswith("LazyInstanceNorm") and "affine" not in kwargs:
        return  # num_features stays 0 after loading: PyTorch's affine InstanceNorm then refuses the input too
    c = getattr(tt.nn, name)(*args, **kwargs)
    c.load_state_dict({k: tt.tensor(v.numpy()) for k, v in sa.items()})
    c.eval()
    a.eval()
    yc, ya = c(tt.tensor(x.numpy())), a(x)
    np.testing.assert_allclose(yc.detach().numpy(), ya.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_uninitialized_parameter():
    for lib in (torch, tt):
        p = lib.nn.UninitializedParameter()
        assert repr(p) == "<UninitializedParameter>"
        assert p.requires_grad and p.dtype == lib.float32
        p.materialize((2, 3), dtype=lib.float64)
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == lib.float64
    for lib in (torch, tt):
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            lib.nn.UninitializedParameter().shape  # noqa: B018


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
def test_lazy_errors():
    for lib in (torch, tt):
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            lib.nn.LazyConv2d(4, 3, groups=2)(lib.zeros(1, 3, 5, 5))
    msgs = []
    for lib in (torch, tt):
        with pytest.raises(RuntimeError) as e:
            lib.nn.LazyConv2d(4, 3)(lib.zeros(5, 5))
        msgs.append(str(e.value))
    assert msgs[1] == msgs[0].replace("torch.Size", "tinytorch.Size")
