"""nn.utils against PyTorch: hooks-based weight_norm/spectral_norm (and their removal, warnings,
errors), conv/linear + batch-norm fusion, skip_init, stateless.functional_call."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

from _raises_same import raises_same as _raises_same  # noqa: E402


def _np(t):
    return t.detach().numpy()


def _load(dst, src):
    """Copy PyTorch module ``src``'s parameters and buffers into tinytorch module ``dst``."""
    dst.load_state_dict({k: tt.tensor(v.numpy()) for k, v in src.state_dict().items()})


def _warning(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("dim", [0, 1, 3, -1, None])
def test_weight_norm_hooks(dim):
    torch.manual_seed(0)
    tt.manual_seed(0)
    ca, cb = torch.nn.Conv2d(3, 4, 3), tt.nn.Conv2d(3, 4, 3)
    for k, v in ca.state_dict().items():  # same seed: bit for bit on PyTorch's FMA paths
        _paths.assert_drawn(cb.state_dict()[k], v, what=k)
    _paths.adopt_state(cb, ca)  # DEFAULT path: the rest from PyTorch's weights
    a, wa = _warning(lambda: torch.nn.utils.weight_norm(ca, dim=dim))
    b, wb = _warning(lambda: tt.nn.utils.weight_norm(cb, dim=dim))
    assert wa == wb
    assert list(a.state_dict()) == list(b.state_dict())
    for k, v in a.state_dict().items():  # same seed, same init; g is a norm (summation order differs)
        np.testing.assert_allclose(b.state_dict()[k].numpy(), v.numpy(), rtol=1e-6, atol=0)
    np.testing.assert_allclose(_np(b.weight), _np(a.weight), rtol=1e-6, atol=1e-7)
    assert type(b.weight.grad_fn).__name__ == type(a.weight.grad_fn).__name__  # the fused node for dim 0/last
    x = torch.randn(2, 3, 6, 6)
    ya, yb = a(x), b(tt.tensor(x.numpy()))
    np.testing.assert_allclose(_np(yb), _np(ya), rtol=1e-5, atol=1e-6)
    ya.square().sum().backward()
    yb.square().sum().backward()
    for n in ("weight_g", "weight_v", "bias"):
        np.testing.assert_allclose(getattr(b, n).grad.numpy(), getattr(a, n).grad.numpy(), rtol=1e-4, atol=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        _raises_same(lambda: torch.nn.utils.weight_norm(a, dim=dim), lambda: tt.nn.utils.weight_norm(b, dim=dim))
    torch.nn.utils.remove_weight_norm(a)
    tt.nn.utils.remove_weight_norm(b)
    assert list(a.state_dict()) == list(b.state_dict())
    assert type(b.weight) is tt.nn.Parameter and not b._forward_pre_hooks
    np.testing.assert_allclose(_np(b.weight), _np(a.weight), rtol=1e-6, atol=1e-7)
    _raises_same(lambda: torch.nn.utils.remove_weight_norm(a), lambda: tt.nn.utils.remove_weight_norm(b))


@pytest.mark.parametrize("make, kw", [("Linear", dict(in_features=5, out_features=3)),
                                      ("Conv2d", dict(in_channels=2, out_channels=4, kernel_size=3)),
                                      ("ConvTranspose2d", dict(in_channels=2, out_channels=4, kernel_size=3))])
def test_spectral_norm_hooks(make, kw):
    torch.manual_seed(1)
    tt.manual_seed(1)
    a, wa = _warning(lambda: torch.nn.utils.spectral_norm(getattr(torch.nn, make)(**kw), n_power_iterations=2))
    b, wb = _warning(lambda: tt.nn.utils.spectral_norm(getattr(tt.nn, make)(**kw), n_power_iterations=2))
    assert wa == wb == []
    assert list(a.state_dict()) == list(b.state_dict())
    assert dict(a.state_dict()._metadata) == dict(b.state_dict()._metadata)  # {"spectral_norm": {...: 1}}
    for k, v in a.state_dict().items():  # the random u, v drawn from the same stream
        np.testing.assert_allclose(b.state_dict()[k].numpy(), v.numpy(), rtol=1e-6, atol=1e-7)
    shape = (2, 5) if make == "Linear" else (2, 2, 5, 5)
    for step in range(3):
        if step == 2:
            a.eval()
            b.eval()
        x = torch.randn(*shape)
        ya, yb = a(x), b(tt.tensor(x.numpy()))
        np.testing.assert_allclose(_np(yb), _np(ya), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(b.weight_u.numpy(), a.weight_u.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b.weight_v.numpy(), a.weight_v.numpy(), rtol=1e-5, atol=1e-6)
    ya.square().sum().backward()
    yb.square().sum().backward()
    np.testing.assert_allclose(b.weight_orig.grad.numpy(), a.weight_orig.grad.numpy(), rtol=1e-4, atol=1e-5)
    _raises_same(lambda: torch.nn.utils.spectral_norm(a), lambda: tt.nn.utils.spectral_norm(b))
    torch.nn.utils.remove_spectral_norm(a)
    tt.nn.utils.remove_spectral_norm(b)
    assert list(a.state_dict()) == list(b.state_dict())
    assert dict(a.state_dict()._metadata) == dict(b.state_dict()._metadata)
    np.testing.assert_allclose(_np(b.weight), _np(a.weight), rtol=1e-5, atol=1e-6)
    _raises_same(lambda: torch.nn.utils.remove_spectral_norm(a), lambda: tt.nn.utils.remove_spectral_norm(b))


def test_spectral_norm_errors():
    _raises_same(lambda: torch.nn.utils.spectral_norm(torch.nn.Linear(2, 2), n_power_iterations=0),
                 lambda: tt.nn.utils.spectral_norm(tt.nn.Linear(2, 2), n_power_iterations=0))
    _raises_same(lambda: torch.nn.utils.spectral_norm(torch.nn.Linear(2, 2, bias=False), name="bias"),
                 lambda: tt.nn.utils.spectral_norm(tt.nn.Linear(2, 2, bias=False), name="bias"))


def _bn(lib, n, seed):
    lib.manual_seed(seed)
    bn = lib.nn.BatchNorm2d(n) if lib is torch else tt.nn.BatchNorm2d(n)
    with lib.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-1, 1)
    return bn.eval()


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval(transpose):
    results, made = [], []
    for lib in (torch, tt):
        lib.manual_seed(3)
        conv = (lib.nn.ConvTranspose2d(3, 4, 3) if transpose else lib.nn.Conv2d(3, 4, 3)).eval()
        bn = _bn(lib, 4, 4)
        made.append((conv, bn))
        if lib is tt:  # same seed: bit for bit on PyTorch's FMA paths; on DEFAULT, fuse PyTorch's weights
            for ours, theirs in zip(made[1], made[0]):
                for k, v in theirs.state_dict().items():
                    _paths.assert_drawn(ours.state_dict()[k], v, what=k)
                _paths.adopt_state(ours, theirs)
        fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        assert fused is not conv and type(fused.weight).__name__ == "Parameter"
        results.append((_np(fused.weight), _np(fused.bias), fused.weight.requires_grad))
    np.testing.assert_array_equal(results[1][0], results[0][0])
    np.testing.assert_array_equal(results[1][1], results[0][1])
    assert results[0][2] == results[1][2]


def test_fuse_linear_bn_and_weights():
    out, made = [], []
    for lib in (torch, tt):
        lib.manual_seed(5)
        lin = lib.nn.Linear(3, 4, bias=False).eval()
        bn = lib.nn.BatchNorm1d(4).eval()
        with lib.no_grad():
            bn.running_var.uniform_(0.5, 2)
            bn.running_mean.uniform_(-1, 1)
        made.append((lin, bn))
        if lib is tt:  # same seed: bit for bit on PyTorch's FMA paths; on DEFAULT, fuse PyTorch's weights
            for ours, theirs in zip(made[1], made[0]):
                for k, v in theirs.state_dict().items():
                    _paths.assert_drawn(ours.state_dict()[k], v, what=k)
                _paths.adopt_state(ours, theirs)
        fused = lib.nn.utils.fuse_linear_bn_eval(lin, bn)
        w, b = lib.nn.utils.fuse_conv_bn_weights(lin.weight, None, bn.running_mean, bn.running_var, 1e-3, None, None)
        out.append([_np(fused.weight), _np(fused.bias), _np(w), _np(b), b.requires_grad])
    for x, y in zip(out[0], out[1]):
        np.testing.assert_array_equal(y, x)
    _raises_same(lambda: torch.nn.utils.fuse_linear_bn_eval(torch.nn.Linear(2, 3).eval(), torch.nn.BatchNorm1d(2)),
                 lambda: tt.nn.utils.fuse_linear_bn_eval(tt.nn.Linear(2, 3).eval(), tt.nn.BatchNorm1d(2)))
    _raises_same(lambda: torch.nn.utils.fuse_linear_bn_eval(torch.nn.Linear(2, 3).eval(),
                                                            torch.nn.BatchNorm1d(2).eval()),
                 lambda: tt.nn.utils.fuse_linear_bn_eval(tt.nn.Linear(2, 3).eval(), tt.nn.BatchNorm1d(2).eval()))


def test_skip_init():
    torch.manual_seed(7)
    tt.manual_seed(7)
    a = torch.nn.utils.skip_init(torch.nn.Linear, 4, out_features=3)
    b = tt.nn.utils.skip_init(tt.nn.Linear, 4, out_features=3)
    assert repr(a) == repr(b) and list(a.state_dict()) == list(b.state_dict())
    assert type(b.weight) is tt.nn.Parameter and b.weight.shape == (3, 4)
    # nothing was drawn from the random stream
    np.testing.assert_array_equal(tt.randn(5).numpy(), torch.randn(5).numpy())
    _raises_same(lambda: torch.nn.utils.skip_init(int), lambda: tt.nn.utils.skip_init(int))
    _raises_same(lambda: torch.nn.utils.skip_init(torch.nn.ReLU), lambda: tt.nn.utils.skip_init(tt.nn.ReLU))


def test_stateless_functional_call():
    torch.manual_seed(8)
    tt.manual_seed(8)
    a, b = torch.nn.Linear(3, 2), tt.nn.Linear(3, 2)
    for k, v in a.state_dict().items():  # same seed: bit for bit on PyTorch's FMA paths
        _paths.assert_drawn(b.state_dict()[k], v, what=k)
    _paths.adopt_state(b, a)  # DEFAULT path: PyTorch's weights
    w = torch.randn(2, 3)
    x = torch.randn(4, 3)
    ya, wa = _warning(lambda: torch.nn.utils.stateless.functional_call(a, {"weight": w}, (x,)))
    yb, wb = _warning(lambda: tt.nn.utils.stateless.functional_call(b, {"weight": tt.tensor(w.numpy())},
                                                                     (tt.tensor(x.numpy()),)))
    assert wa == wb
    np.testing.assert_allclose(_np(yb), _np(ya), rtol=1e-6)
    np.testing.assert_array_equal(_np(b.weight), _np(a.weight))  # the module's own weight is back


@pytest.mark.parametrize("shape, dim", [((4, 3, 2, 2), 0), ((4, 3, 2, 2), 3), ((4, 3, 2, 2), 1),
                                        ((4, 3, 2, 2), -1), ((5,), 0), ((3, 4), 1)])
def test_weight_norm_primitive(shape, dim):
    """torch._weight_norm and torch.norm_except_dim: values, grad_fn, first and second derivatives."""
    torch.manual_seed(0)
    v = torch.randn(*shape, dtype=torch.float64)
    g = torch.norm_except_dim(v, 2, dim) * 1.3
    np.testing.assert_allclose(tt.norm_except_dim(tt.tensor(v.numpy()), 2, dim).numpy(), (g / 1.3).numpy(),
                               rtol=1e-14)
    va, ga = v.clone().requires_grad_(), g.clone().requires_grad_()
    vb, gb = tt.tensor(v.numpy(), requires_grad=True), tt.tensor(g.numpy(), requires_grad=True)
    wa, wb = torch._weight_norm(va, ga, dim), tt._weight_norm(vb, gb, dim)
    assert type(wb.grad_fn).__name__ == type(wa.grad_fn).__name__
    np.testing.assert_allclose(_np(wb), _np(wa), rtol=1e-13, atol=1e-14)
    c = torch.randn(wa.shape, dtype=torch.float64)
    ha = torch.autograd.grad((wa * c).sum(), (va, ga), create_graph=True)
    hb = tt.autograd.grad((wb * tt.tensor(c.numpy())).sum(), (vb, gb), create_graph=True)
    for x, y in zip(ha, hb):
        np.testing.assert_allclose(_np(y), _np(x), rtol=1e-12, atol=1e-13)
    sa = torch.autograd.grad(sum((h * h).sum() for h in ha), (va, ga))
    sb = tt.autograd.grad(sum((h * h).sum() for h in hb), (vb, gb))
    for x, y in zip(sa, sb):
        np.testing.assert_allclose(_np(y), _np(x), rtol=1e-11, atol=1e-12)


def test_utils_names_are_pytorchs():
    assert sorted(tt.nn.utils.__all__) == sorted(torch.nn.utils.__all__)


def test_convert_weight_memory_format():
    out = []
    for lib in (torch, tt):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.Sequential(lib.nn.ConvTranspose2d(4, 2, 2)),
                              lib.nn.Conv3d(2, 3, 2), lib.nn.Linear(2, 2))
        before = [p.detach().numpy().copy() for p in m.parameters()]
        weight = m[0].weight
        assert lib.nn.utils.convert_conv2d_weight_memory_format(m, lib.channels_last) is m
        lib.nn.utils.convert_conv3d_weight_memory_format(m, lib.channels_last_3d)
        assert m[0].weight is weight  # the same Parameter, relaid
        for b, p in zip(before, m.parameters()):
            np.testing.assert_array_equal(p.detach().numpy(), b)
        out.append([p.stride() for p in m.parameters()])
    assert [tuple(s) for s in out[1]] == [tuple(s) for s in out[0]]


def test_module_set_submodule_and_to_empty():
    built = []
    for lib in (torch, tt):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.ReLU()))
        m.set_submodule("1.0", lib.nn.Tanh())
        m.set_submodule("2", lib.nn.Identity())
        m.set_submodule("1.0", lib.nn.Sigmoid(), strict=True)
        built.append(m)
    assert repr(built[1]) == repr(built[0])
    a, b = built
    for args in [("", "ReLU"), ("1.0", None), ("1.x", "ReLU", True), ("0.weight", "ReLU"), ("5.a", "ReLU")]:
        target, cls, *strict = args
        _raises_same(lambda: a.set_submodule(target, getattr(torch.nn, cls)() if cls else 3, *strict),
                     lambda: b.set_submodule(target, getattr(tt.nn, cls)() if cls else 3, *strict))
    weight = b[0].weight
    assert b.to_empty(device="cpu") is b
    assert b[0].weight is weight and b[0].weight.shape == (2, 2) and type(b[0].weight) is tt.nn.Parameter


def test_state_dict_pre_hooks():
    logs = []
    for lib in (torch, tt):
        log = []
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(2, 2))
        m[0].register_state_dict_pre_hook(lambda mod, prefix, keep: log.append(("pre", type(mod).__name__, prefix,
                                                                                keep)))
        handle = m[0].register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, md, strict, mk, uk, em: log.append(("load", type(mod).__name__, prefix,
                                                                        sorted(sd), strict, sorted(md))))
        m[0]._register_load_state_dict_pre_hook(
            lambda sd, prefix, md, strict, mk, uk, em: sd.__setitem__(prefix + "bias", sd[prefix + "bias"] + 1))
        sd = m.state_dict(keep_vars=True)
        m.load_state_dict({k: v.detach().clone() for k, v in sd.items()})
        handle.remove()
        m.load_state_dict({k: v.detach().clone() for k, v in m.state_dict().items()}, strict=False)
        log.append(m[0].bias.detach().numpy().round(6).tolist())
        logs.append(log)
    assert logs[1] == logs[0]


def test_spectral_norm_loads_version_0_state_dicts():
    # PyTorch < 1.1 saved <name> and no <name>_v; both libraries solve for v (a tall weight: W^T W invertible)
    from collections import OrderedDict
    torch.manual_seed(0)
    a = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 5).double())
    a(torch.randn(2, 3, dtype=torch.float64))
    old = OrderedDict((k, v) for k, v in a.state_dict().items() if k != "weight_v")
    old["weight"] = a.weight.detach().clone()
    old._metadata = OrderedDict({"": {"version": 1}})
    b = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 5).double())
    b.load_state_dict(old)
    c = tt.nn.utils.spectral_norm(tt.nn.Linear(3, 5).double())
    converted = OrderedDict((k, tt.tensor(v.numpy())) for k, v in old.items())
    converted._metadata = old._metadata
    c.load_state_dict(converted)
    np.testing.assert_allclose(c.weight_v.numpy(), b.weight_v.numpy(), rtol=1e-10, atol=1e-12)
    # a current state_dict that lost its metadata loads as it is
    current = OrderedDict((k, tt.tensor(v.numpy())) for k, v in a.state_dict().items())
    c.load_state_dict(current)
    np.testing.assert_array_equal(c.weight_v.numpy(), a.weight_v.numpy())
    tt.nn.utils.remove_spectral_norm(c)
    assert not c._load_state_dict_pre_hooks and not c._state_dict_hooks
