"""ParameterList and ParameterDict against PyTorch's: registration, state_dict keys, wrapping of
tensors, indexing and the dict methods, repr, and error messages."""
import warnings
from collections import OrderedDict

import numpy as np

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

from _raises_same import raises_same as _raises_same  # noqa: E402


def _repr(lib_obj):
    return repr(lib_obj).replace("tinytorch.", "torch.")


def _build_list(lib):
    lib.manual_seed(0)
    m = lib.nn.Module()
    m.pl = lib.nn.ParameterList([lib.randn(2, 3), lib.nn.Parameter(lib.ones(2), requires_grad=False), "x"])
    m.pl.append(lib.zeros(4, dtype=lib.float64))
    m.pl.extend([lib.randn(1)])
    m.pl += [lib.ones(1, 1)]
    return m


def test_parameter_list_matches():
    a, b = _build_list(torch), _build_list(tt)
    assert list(a.state_dict()) == list(b.state_dict())
    assert [n for n, _ in a.named_parameters()] == [n for n, _ in b.named_parameters()]
    for (_, p), (_, q) in zip(a.named_parameters(), b.named_parameters()):
        assert type(q) is tt.nn.Parameter and q.requires_grad == p.requires_grad
        np.testing.assert_array_equal(q.detach().numpy(), p.detach().numpy())
    assert len(a.pl) == len(b.pl) == 6
    assert _repr(b) == repr(a)
    assert _repr(b.pl[1:4]) == repr(a.pl[1:4])
    assert _repr(b.pl[::-2]) == repr(a.pl[::-2])
    assert b.pl[2] == a.pl[2] == "x"
    assert b.pl[-1].shape == tuple(a.pl[-1].shape)
    assert [type(v).__name__ for v in b.pl] == [type(v).__name__ for v in a.pl]
    assert dir(b.pl) == [k for k in dir(b.pl) if not k.isdigit()]
    a.pl[0] = torch.zeros(3)
    b.pl[0] = tt.zeros(3)
    assert _repr(b) == repr(a)
    assert repr(tt.nn.ParameterList()) == repr(torch.nn.ParameterList()) == "ParameterList()"
    one_t, one_tt = torch.nn.ParameterList([torch.ones(2)]), tt.nn.ParameterList([tt.ones(2)])
    assert _repr(one_tt) == repr(one_t)


def test_parameter_list_errors():
    a, b = _build_list(torch), _build_list(tt)
    _raises_same(lambda: a.pl[6], lambda: b.pl[6])
    _raises_same(lambda: a.pl[-7], lambda: b.pl[-7])
    _raises_same(lambda: a.pl.extend(torch.ones(2)), lambda: b.pl.extend(tt.ones(2)))
    _raises_same(lambda: a.pl.extend(3), lambda: b.pl.extend(3))
    _raises_same(lambda: a.pl(1), lambda: b.pl(1))
    _raises_same(lambda: a.pl.__setitem__(0, 5), lambda: b.pl.__setitem__(0, 5))


def test_parameter_list_trains():
    # the wrapped parameters get gradients through the parent
    for lib in (torch, tt):
        lib.manual_seed(1)
    pa = torch.nn.ParameterList([torch.randn(3), torch.randn(3)])
    pb = tt.nn.ParameterList([tt.randn(3), tt.randn(3)])
    (pa[0] * pa[1]).sum().backward()
    (pb[0] * pb[1]).sum().backward()
    for p, q in zip(pa, pb):
        np.testing.assert_array_equal(q.grad.numpy(), p.grad.numpy())


def _build_dict(lib):
    lib.manual_seed(0)
    m = lib.nn.Module()
    m.pd = lib.nn.ParameterDict({"b": lib.randn(2), "a": lib.zeros(1, 2, dtype=lib.float64), "c": 1.5})
    m.pd.update(OrderedDict([("z", lib.ones(3)), ("y", lib.randn(2, 2))]))
    m.pd.update([("k", lib.nn.Parameter(lib.ones(1), requires_grad=False))])
    m.pd["w"] = lib.full((2,), 3.0)
    return m


def test_parameter_dict_matches():
    a, b = _build_dict(torch), _build_dict(tt)
    assert list(a.state_dict()) == list(b.state_dict())
    assert list(a.pd.keys()) == list(b.pd.keys()) == list(a.pd) == list(b.pd)
    assert list(reversed(a.pd)) == list(reversed(b.pd))
    for p, q in zip(a.parameters(), b.parameters()):
        assert type(q) is tt.nn.Parameter and q.requires_grad == p.requires_grad
        np.testing.assert_array_equal(q.detach().numpy(), p.detach().numpy())
    assert _repr(b) == repr(a)
    assert "a" in b.pd and "q" not in b.pd and len(b.pd) == len(a.pd)
    assert b.pd.get("q", 7) == a.pd.get("q", 7) == 7
    assert b.pd["c"] == 1.5
    assert b.pd.pop("c") == a.pd.pop("c")
    ka, va = a.pd.popitem()
    kb, vb = b.pd.popitem()
    assert ka == kb and np.array_equal(va.detach().numpy(), vb.detach().numpy())
    a.pd.setdefault("n", torch.ones(1))
    b.pd.setdefault("n", tt.ones(1))
    assert list(a.state_dict()) == list(b.state_dict())
    del a.pd["a"]
    del b.pd["a"]
    assert _repr(b) == repr(a)
    assert _repr(b.pd.copy()) == repr(a.pd.copy())
    assert _repr(b.pd | {"e": tt.ones(1)}) == repr(a.pd | {"e": torch.ones(1)})
    assert _repr(b.pd.fromkeys(["p", "q"])) == repr(a.pd.fromkeys(["p", "q"]))
    b.pd |= tt.nn.ParameterDict({"f": tt.ones(2)})
    a.pd |= torch.nn.ParameterDict({"f": torch.ones(2)})
    assert list(a.state_dict()) == list(b.state_dict())
    a.pd.clear()
    b.pd.clear()
    assert len(b.pd) == 0 and list(b.state_dict()) == list(a.state_dict()) == []


def test_parameter_dict_errors():
    a, b = torch.nn.ParameterDict(), tt.nn.ParameterDict()
    _raises_same(lambda: a[3], lambda: b[3])
    _raises_same(lambda: a.update(3), lambda: b.update(3))
    _raises_same(lambda: a.update([("a", torch.ones(1)), 3]), lambda: b.update([("a", tt.ones(1)), 3]))
    _raises_same(lambda: a.update([("a", torch.ones(1), 1)]), lambda: b.update([("a", tt.ones(1), 1)]))
    _raises_same(lambda: a["missing"], lambda: b["missing"])
    _raises_same(lambda: torch.nn.ParameterDict().popitem(), lambda: tt.nn.ParameterDict().popitem())
    _raises_same(lambda: a(1), lambda: b(1))
    assert list(a) == list(b) == ["a"]  # the update above applied its first element before failing


def test_state_dict_round_trip():
    a, b = _build_dict(torch), _build_dict(tt)
    sd = {k: tt.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v for k, v in a.state_dict().items()}
    for k in sd:
        sd[k] = sd[k] + 1
    b.load_state_dict(sd)
    np.testing.assert_array_equal(b.pd["y"].detach().numpy(), a.pd["y"].detach().numpy() + 1)


def test_deprecated_container_and_nllloss2d():
    for name, args, kwargs in [("Container", (), dict(a=None)), ("NLLLoss2d", (), dict(ignore_index=2))]:
        with warnings.catch_warnings(record=True) as wa:
            warnings.simplefilter("always")
            a = getattr(torch.nn, name)(*args, **kwargs)
        with warnings.catch_warnings(record=True) as wb:
            warnings.simplefilter("always")
            b = getattr(tt.nn, name)(*args, **kwargs)
        assert [(w.category, str(w.message)) for w in wb] == [(w.category, str(w.message)) for w in wa]
        assert repr(b) == repr(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ca, cb = torch.nn.Container(lin=torch.nn.Linear(2, 3)), tt.nn.Container(lin=tt.nn.Linear(2, 3))
        assert list(cb.state_dict()) == list(ca.state_dict()) and repr(cb) == repr(ca)
        x = torch.randn(2, 3, 4, 4).log_softmax(1)
        t = torch.randint(0, 3, (2, 4, 4))
        la = torch.nn.NLLLoss2d()(x, t)
        lb = tt.nn.NLLLoss2d()(tt.tensor(x.numpy()), tt.tensor(t.numpy()))
        np.testing.assert_allclose(lb.item(), la.item(), rtol=1e-6)
