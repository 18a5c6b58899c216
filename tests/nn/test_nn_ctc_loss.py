"""CTCLoss / F.ctc_loss against PyTorch: padded and concatenated targets, every reduction,
zero_infinity with impossible alignments, unbatched input, float32, and the gradient with respect
to log_probs (PyTorch's convention, which folds in the log_softmax)."""
import numpy as np
import pytest

import tinytorch as tt
from _compare import raises_alike

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
F = torch.nn.functional


def _case(seed, impossible=False, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    t, n, c = 12, 4, 6
    lp = torch.randn(t, n, c, generator=g, dtype=dtype).log_softmax(2).detach().requires_grad_()
    tl = torch.tensor([3, 5, 0, 2])
    il = torch.tensor([12, 10, 7, 1 if impossible else 3])
    tg = torch.randint(1, c, (n, 5), generator=g)
    tg[0, 1] = tg[0, 0]  # a repeated label needs a blank between
    return lp, tg, il, tl, g


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("concat", [False, True])
@pytest.mark.parametrize("impossible,zero_infinity", [(False, False), (True, False), (True, True)])
def test_ctc_loss(reduction, concat, impossible, zero_infinity):
    lp, tg, il, tl, g = _case(0, impossible)
    targets = torch.cat([tg[i, :tl[i]] for i in range(len(tl))]) if concat else tg
    a = F.ctc_loss(lp, targets, il, tl, reduction=reduction, zero_infinity=zero_infinity)
    lpb = tt.tensor(lp.detach().numpy(), requires_grad=True)
    b = tt.nn.functional.ctc_loss(lpb, tt.tensor(targets.numpy()), tt.tensor(il.numpy()), tuple(tl.tolist()),
                                  reduction=reduction, zero_infinity=zero_infinity)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12)
    cot = torch.rand(a.shape, generator=g, dtype=torch.float64)
    (ga,) = torch.autograd.grad(a, lp, cot)
    (gb,) = tt.autograd.grad(b, lpb, tt.tensor(cot.numpy()))
    np.testing.assert_allclose(gb.numpy(), ga.numpy(), rtol=1e-9, atol=1e-12)


def test_ctc_module_float32_unbatched():
    lp, tg, il, tl, _ = _case(1, dtype=torch.float32)
    a = torch.nn.CTCLoss(blank=0)(lp, tg, il, tl)
    b = tt.nn.CTCLoss(blank=0)(tt.tensor(lp.detach().numpy()), tt.tensor(tg.numpy()), tt.tensor(il.numpy()),
                               tt.tensor(tl.numpy()))
    assert b.dtype == tt.float32 and repr(tt.nn.CTCLoss()) == repr(torch.nn.CTCLoss())
    np.testing.assert_allclose(b.numpy(), a.detach().numpy(), rtol=1e-5)
    x = lp[:, 1].detach()
    a = F.ctc_loss(x, tg[1, :5], torch.tensor(10), torch.tensor(5), reduction="none", blank=0)
    b = tt.nn.functional.ctc_loss(tt.tensor(x.numpy()), tt.tensor(tg[1, :5].numpy()), tt.tensor(10), tt.tensor(5),
                                  reduction="none", blank=0)
    assert tuple(b.shape) == tuple(a.shape)
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5)


def test_ctc_blank_last():
    lp, tg, il, tl, _ = _case(2)
    tg = tg - 1  # labels 0..4, blank 5
    a = F.ctc_loss(lp, tg, il, tl, blank=5)
    b = tt.nn.functional.ctc_loss(tt.tensor(lp.detach().numpy()), tt.tensor(tg.numpy()), tt.tensor(il.numpy()),
                                  tt.tensor(tl.numpy()), blank=5)
    np.testing.assert_allclose(b.numpy(), a.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss(reduction):
    # targets read up to the first -1; repeated and absent classes
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64, requires_grad=True)
    y = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 1, 1, 1], [4, 4, -1, 0, 0]])
    for xs, ys in ((x, y), (x[1], y[1])):
        a = torch.nn.MultiLabelMarginLoss(reduction=reduction)(xs, ys)
        xb = tt.tensor(xs.detach().numpy(), requires_grad=True)
        b = tt.nn.MultiLabelMarginLoss(reduction=reduction)(xb, tt.tensor(ys.numpy()))
        assert tuple(b.shape) == tuple(a.shape)
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12)
        cot = torch.rand(a.shape, dtype=torch.float64)
        (ga,) = torch.autograd.grad(a, xs, cot)
        (gb,) = tt.autograd.grad(b, xb, tt.tensor(cot.numpy()))
        np.testing.assert_allclose(gb.numpy(), ga.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("input_length", [5, 6])
def test_ctc_loss_refuses_half_types(dtype, input_length):
    lp = np.random.default_rng(0).standard_normal((5, 1, 4)).astype(np.float32)
    raises_alike(lambda m: m.nn.functional.ctc_loss(m.tensor(lp).to(getattr(m, dtype)).log_softmax(2),
                                                     m.tensor([[1, 2]]), m.tensor([input_length]), m.tensor([2])))

