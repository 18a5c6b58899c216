"""nn.LinearCrossEntropyLoss / F.linear_cross_entropy / nn.LinearCrossEntropyOptions against PyTorch:
initialisation, values and gradients (class indices, probabilities, K-dimensional, weights, ignore
index, smoothing, with and without chunking options), warnings, repr and errors."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

from _raises_same import raises_same as _raises_same  # noqa: E402


def _run(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


CASES = [dict(), dict(reduction="sum", ignore_index=1), dict(reduction="none", label_smoothing=0.2),
         dict(weight=True, reduction="mean"), dict(bias=True, out_features=(2, 3)),
         dict(bias=True, options=True), dict(options=True, label_smoothing=0.1),
         dict(options=True, reduction="none", weight=True, ignore_index=0)]


@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
@pytest.mark.parametrize("batched", [True, False])
def test_module_matches(case, batched):
    case = dict(case)
    if not batched and case.get("out_features"):
        pytest.skip("a K-dimensional loss needs a batch")
    libs = []
    for lib in (torch, tt):
        kw = dict(case)
        if kw.pop("weight", False):
            kw["weight"] = lib.tensor([0.5, 2.0, 1.0, 1.5], dtype=lib.float64)
        if kw.pop("options", False):
            kw["options"] = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
        lib.manual_seed(0)
        libs.append(lib.nn.LinearCrossEntropyLoss(5, 4, dtype=lib.float64, **kw))
    a, b = libs
    assert repr(b).replace("tinytorch", "torch") == repr(a)
    assert list(b.state_dict()) == list(a.state_dict())
    for k, v in a.state_dict().items():
        _paths.assert_drawn(b.state_dict()[k], v, what=k)
    torch.manual_seed(1)
    shape = (6, 5) if batched else (5,)
    x = torch.randn(*shape, dtype=torch.float64)
    tshape = (6, *case.get("out_features", ())) if batched else ()
    target = torch.randint(0, 4, tshape)
    xa, xb = x.clone().requires_grad_(), tt.tensor(x.numpy(), requires_grad=True)
    ya, wa = _run(lambda: a(xa, target))
    yb, wb = _run(lambda: b(xb, tt.tensor(target.numpy())))
    assert wb == wa
    np.testing.assert_allclose(yb.detach().numpy(), ya.detach().numpy(), rtol=1e-12, atol=1e-14)
    ya.sum().backward()
    yb.sum().backward()
    np.testing.assert_allclose(xb.grad.numpy(), xa.grad.numpy(), rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(b.linear.weight.grad.numpy(), a.linear.weight.grad.numpy(), rtol=1e-11, atol=1e-13)


def test_probability_targets():
    torch.manual_seed(2)
    x, w = torch.randn(3, 4, dtype=torch.float64), torch.randn(5, 4, dtype=torch.float64)
    p = torch.softmax(torch.randn(3, 5, dtype=torch.float64), 1)
    a = torch.nn.functional.linear_cross_entropy(x, w, p, label_smoothing=0.1)
    b = tt.nn.functional.linear_cross_entropy(*(tt.tensor(t.numpy()) for t in (x, w, p)), label_smoothing=0.1)
    np.testing.assert_allclose(b.item(), a.item(), rtol=1e-12)
    _raises_same(lambda: torch.nn.functional.linear_cross_entropy(x, w, p, ignore_index=1),
                 lambda: tt.nn.functional.linear_cross_entropy(*(tt.tensor(t.numpy()) for t in (x, w, p)),
                                                               ignore_index=1))


def test_errors():
    Fa, Fb = torch.nn.functional.linear_cross_entropy, tt.nn.functional.linear_cross_entropy
    t = torch.zeros(3, dtype=torch.long)
    cases = [((3, 4, 2), (5, 4), None), ((3, 4), (5,), None), ((3, 4), (5, 3), None), ((3, 4), (5, 4), (4,)),
             ((4,), (5, 2, 4), None)]
    for xs, ws, bs in cases:
        x, w = torch.ones(xs), torch.ones(ws)
        bias = torch.ones(bs) if bs else None
        _raises_same(lambda: Fa(x, w, t, linear_bias=bias),
                     lambda: Fb(tt.ones(xs), tt.ones(ws), tt.zeros(3, dtype=tt.long),
                                linear_bias=tt.ones(bs) if bs else None))
    _raises_same(lambda: torch.nn.LinearCrossEntropyLoss(3, 4, weight=torch.ones(3)),
                 lambda: tt.nn.LinearCrossEntropyLoss(3, 4, weight=tt.ones(3)))
    _raises_same(lambda: torch.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5),
                 lambda: tt.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5))
    for kw in (dict(acc_policy="fast"), dict(chunking_method="rows"), dict(chunking_method="aspect_ratio:0"),
               dict(batch_chunk_size=0), dict(acc_dtype="float")):
        _raises_same(lambda: torch.nn.LinearCrossEntropyOptions(**kw), lambda: tt.nn.LinearCrossEntropyOptions(**kw))
    opts = tt.nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:2", acc_dtype=tt.float32)
    assert repr(opts).replace("tinytorch", "torch") == repr(
        torch.nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:2", acc_dtype=torch.float32))
