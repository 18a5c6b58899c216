"""EmbeddingBag (sum / mean / max, offsets or 2-d input, per_sample_weights, padding_idx,
include_last_offset, max_norm) and AlphaDropout / FeatureAlphaDropout (PyTorch's random stream)
against PyTorch: values, gradients, repr, parameters from the same seed, and errors."""
import numpy as np
import pytest

import tinytorch as tt
from _module_compare import check_module

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
F = torch.nn.functional

INP = [1, 2, 4, 5, 4, 3, 2, 9, 0, 2]
OFF = [0, 2, 2, 5]


@pytest.mark.parametrize("kw", [
    dict(mode="sum"), dict(mode="mean"), dict(mode="max"), dict(mode="sum", per_sample_weights=True),
    dict(mode="mean", padding_idx=2), dict(mode="max", padding_idx=-8), dict(mode="sum", padding_idx=4),
    dict(mode="mean", include_last_offset=True), dict(mode="max", include_last_offset=True),
    dict(mode="mean", two_d=True), dict(mode="sum", two_d=True, per_sample_weights=True),
])
def test_embedding_bag(kw):
    kw = dict(kw)
    g = torch.Generator().manual_seed(0)
    w = torch.randn(10, 3, generator=g, dtype=torch.float64, requires_grad=True)
    inp, off = torch.tensor(INP), torch.tensor(OFF + [len(INP)] if kw.get("include_last_offset") else OFF)
    if kw.pop("two_d", False):
        inp, off = inp.reshape(5, 2), None
    psw = (torch.rand(inp.shape, generator=g, dtype=torch.float64).requires_grad_()
           if kw.pop("per_sample_weights", False) else None)
    a = F.embedding_bag(inp, w, off, per_sample_weights=psw, **kw)
    wb = tt.tensor(w.detach().numpy(), requires_grad=True)
    pb = None if psw is None else tt.tensor(psw.detach().numpy(), requires_grad=True)
    b = tt.nn.functional.embedding_bag(tt.tensor(inp.numpy()), wb, None if off is None else tt.tensor(off.numpy()),
                                       per_sample_weights=pb, **kw)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12, atol=1e-15)
    cot = torch.randn(a.shape, generator=g, dtype=torch.float64)
    ins_t, ins_tt = [w] + ([psw] if psw is not None else []), [wb] + ([pb] if pb is not None else [])
    for x, y in zip(torch.autograd.grad(a, ins_t, cot), tt.autograd.grad(b, ins_tt, tt.tensor(cot.numpy()))):
        np.testing.assert_allclose(y.numpy(), x.numpy(), rtol=1e-12, atol=1e-15)


def test_embedding_bag_max_norm():
    w = torch.randn(10, 3, generator=torch.Generator().manual_seed(1)) * 3
    wb = tt.tensor(w.numpy())
    a = F.embedding_bag(torch.tensor(INP), w, torch.tensor(OFF), max_norm=1.5)
    b = tt.nn.functional.embedding_bag(tt.tensor(INP), wb, tt.tensor(OFF), max_norm=1.5)
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6)
    np.testing.assert_allclose(wb.numpy(), w.numpy(), rtol=1e-6)  # renormalised in place, as PyTorch


@pytest.mark.parametrize("args,kwargs", [((10, 3), {}), ((10, 3), dict(mode="max", padding_idx=2)),
                                         ((10, 4), dict(mode="sum", max_norm=2.0, norm_type=1.0))])
def test_embedding_bag_module(args, kwargs):
    check_module(torch, "EmbeddingBag", args, kwargs, [torch.tensor(INP), torch.tensor(OFF)])


def test_embedding_bag_from_pretrained():
    w = torch.randn(4, 2)
    a, b = torch.nn.EmbeddingBag.from_pretrained(w, mode="sum"), tt.nn.EmbeddingBag.from_pretrained(tt.tensor(w.numpy()),
                                                                                                     mode="sum")
    assert repr(a) == repr(b) and not b.weight.requires_grad
    np.testing.assert_allclose(b(tt.tensor([[0, 3]])).numpy(), a(torch.tensor([[0, 3]])).numpy())


@pytest.mark.parametrize("name,p,shape", [("AlphaDropout", 0.3, (4, 5, 3)), ("AlphaDropout", 0.9, (50,)),
                                          ("FeatureAlphaDropout", 0.4, (4, 5, 3, 2)),
                                          ("FeatureAlphaDropout", 0.5, (6, 7))])
def test_alpha_dropout(name, p, shape):
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(2))
    check_module(torch, name, (p,), {}, [x])                    # training: the same draws from the same seed
    check_module(torch, name, (p,), {}, [x], train=False)       # eval: the identity
    for inplace in (False, True):
        fn = "alpha_dropout" if name == "AlphaDropout" else "feature_alpha_dropout"
        xa, xb = x.clone(), tt.tensor(x.numpy())
        torch.manual_seed(3)
        a = getattr(F, fn)(xa, p, True, inplace)
        tt.manual_seed(3)
        b = getattr(tt.nn.functional, fn)(xb, p, True, inplace)
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(xb.numpy(), xa.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.embedding_bag(T.tensor([[1, 2]]), T.randn(3, 4), T.tensor([0])),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.randn(3, 4)),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.randn(3, 4), T.tensor([[0]])),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.randn(3, 4), T.tensor([0]), mode="max",
                                            per_sample_weights=T.ones(2)),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.randn(3, 4), T.tensor([0]), mode="foo"),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.randn(3, 4, 2), T.tensor([0])),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.randn(3, 4), T.tensor([0]),
                                            per_sample_weights=T.ones(3), mode="sum"),
    lambda T: T.nn.functional.alpha_dropout(T.randn(3), 1.5),
    lambda T: T.nn.functional.feature_alpha_dropout(T.randn(3), -0.1),
    lambda T: T.nn.AlphaDropout(2.0),
])
def test_errors(call):
    with pytest.raises(Exception) as a:
        call(torch)
    with pytest.raises(type(a.value)) as b:
        call(tt)
    assert str(b.value) == str(a.value).replace("torch.", "tinytorch.")


@pytest.mark.parametrize("mode", [0, 1])
def test_torch_embedding_bag(mode):
    w = torch.randn(10, 2, generator=torch.Generator().manual_seed(4))
    a = torch.embedding_bag(w, torch.tensor(INP), torch.tensor(OFF), False, mode)
    b = tt.embedding_bag(tt.tensor(w.numpy()), tt.tensor(INP), tt.tensor(OFF), False, mode)
    np.testing.assert_allclose(b[0].numpy(), a[0].numpy(), rtol=1e-6)
    for x, y in zip(a[1:], b[1:]):
        assert np.array_equal(y.numpy(), x.numpy())
