"""One nn module built with the same seed in PyTorch and tinytorch, compared: parameters bit for bit
(on PyTorch's FMA paths; within _paths.DRAW_ULPS elsewhere, and the forward then runs from PyTorch's),
repr, state_dict keys, forward values and input/parameter gradients (float64 unless told)."""
import numpy as np
import pytest

import tinytorch as tt

import _paths


def to_tt(v):
    torch = pytest.importorskip("torch")
    if isinstance(v, torch.Tensor):
        return tt.tensor(v.detach().numpy(), requires_grad=v.requires_grad)
    if isinstance(v, (tuple, list)):
        return type(v)(to_tt(x) for x in v)
    return v


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def check_module(torch, name, args=(), kwargs=None, inputs=(), seed=0, dtype="float64", train=True, rtol=1e-7,
                 atol=1e-9, forward_kwargs=None):
    kwargs, forward_kwargs = dict(kwargs or {}), dict(forward_kwargs or {})
    tdt, tt_dt = getattr(torch, dtype), getattr(tt, dtype)
    torch.manual_seed(seed)
    a = getattr(torch.nn, name)(*args, **kwargs).to(tdt)
    tt.manual_seed(seed)
    b = getattr(tt.nn, name)(*args, **kwargs).to(tt_dt)
    assert repr(b) == repr(a)
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sb) == list(sa)
    for k in sa:
        _paths.assert_drawn(sb[k], sa[k], what=k)
    _paths.adopt_state(b, a)  # DEFAULT path: the forward runs from PyTorch's parameters
    a.train(train)
    b.train(train)
    ti = [x.to(tdt).requires_grad_() if x.is_floating_point() else x for x in inputs]
    bi = [to_tt(x) for x in ti]
    torch.manual_seed(seed + 1)
    oa = _flat(a(*ti, **forward_kwargs))
    tt.manual_seed(seed + 1)
    ob = _flat(b(*bi, **forward_kwargs))
    assert len(oa) == len(ob)
    for x, y in zip(oa, ob):
        assert tuple(x.shape) == tuple(y.shape)
        np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy(), rtol=rtol, atol=atol)
    for k, v in a.state_dict().items():  # buffers updated by the forward (running statistics)
        np.testing.assert_allclose(b.state_dict()[k].numpy(), v.numpy(), rtol=rtol, atol=atol)
    fa = [o for o in oa if o.requires_grad]
    if not fa:
        return a, b
    fb = [o for o in ob if o.requires_grad]
    gen = torch.Generator().manual_seed(seed + 2)
    cot = [torch.randn(o.shape, generator=gen, dtype=o.dtype) for o in fa]
    wrt_a = [x for x in ti if x.requires_grad] + [p for p in a.parameters()]
    wrt_b = [x for x in bi if x.requires_grad] + [p for p in b.parameters()]
    ga = torch.autograd.grad(fa, wrt_a, cot, allow_unused=True)
    gb = tt.autograd.grad(fb, wrt_b, [tt.tensor(c.numpy()) for c in cot], allow_unused=True)
    for x, y in zip(ga, gb):
        if x is None:
            assert y is None or not y.numpy().any()
            continue
        np.testing.assert_allclose(y.numpy(), x.numpy(), rtol=rtol, atol=atol)
    return a, b
