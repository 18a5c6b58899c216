"""nll_loss's reduced loss, its total weight and its gradient against PyTorch, bit for bit: the sums follow
PyTorch's CPU kernel (an 8-level cascade of partial sums, ``tinytorch/_cpu/nll_sums.py``) and the gradient its
``weight * -(grad / total_weight)``. LossNLL.cpp is compiled once for every ATen capability, so the bits hold on
PyTorch's DEFAULT, AVX2 and AVX512 paths alike. Each comparison states its path (``_exact_on``): where every target
counts, PyTorch's bits on the numpy path too; with ignored targets, PyTorch's bits with the compiled kernels
(``[fast]``), and on the numpy path (whose emulation there cost 1.3-2x the plain formula) numpy's sum, within
the bound; under ``TINYTORCH_REFERENCE=1`` (numpy's order of additions) every sum holds within the bound. The
log-probs are given (PyTorch's log_softmax rounds its exp otherwise: that is log_softmax's matter, not
nll_loss's)."""
import numpy as np
import pytest

import tinytorch as tt
from _paths import assert_bits, compiled

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
pytestmark = pytest.mark.bitexact

ALL_PATHS = ("DEFAULT", "AVX2", "AVX512")
# numpy's pairwise order against the kernel's cascade (TINYTORCH_REFERENCE=1), in ulps of the result: measured up
# to 68 at 70,000 targets in float64. With every 16th target ignored the kernel never hands a sum up: one running
# sum over all targets, whose rounding grows with their number (3,940 ulps at 70,000 in float64)
_ULPS = 512
SHAPES = [(1, 3), (7,), (15, 4), (16, 4), (17, 4), (33, 2), (64, 10), (257, 3), (300, 5), (4097, 2), (70000, 2),
          (2, 3, 5, 6), (3, 4, 7), (2, 3, 4, 5, 6), (1, 2, 70, 70)]


def _exact_on(ignore: str) -> tuple:
    """The paths where the sums are PyTorch's bits: all three where no target is ignored, or with the compiled
    kernels; none otherwise (numpy's sum: the bound)."""
    return ALL_PATHS if ignore == "none" or compiled("cross_entropy") else ()


def _case(rng, shape, dtype, ignore: str, weighted: bool):
    logp = np.log(rng.dirichlet(np.ones(shape[0] if len(shape) == 1 else shape[1]), size=None if len(shape) == 1
                                else [shape[0], *shape[2:]]))
    if len(shape) > 1:
        logp = np.moveaxis(logp, -1, 1)
    logp = np.ascontiguousarray(logp * rng.uniform(0.5, 3)).astype(dtype)
    c = logp.shape[0] if logp.ndim == 1 else logp.shape[1]
    t = rng.integers(0, c, () if logp.ndim == 1 else (logp.shape[0], *logp.shape[2:]))
    flat = t.reshape(-1)
    if ignore == "some":
        flat[rng.random(flat.size) < 0.25] = -100
    elif ignore == "every 16th":  # the positions where the cascade hands its sums up
        flat[::16] = -100
    elif ignore == "all":
        flat[:] = -100
    w = (rng.random(c) * 2).astype(dtype) if weighted else None
    return logp, t, w


def _both(fn, logp, t, w, **kw):
    a = fn(torch, torch.from_numpy(logp), torch.from_numpy(t), None if w is None else torch.from_numpy(w), **kw)
    b = fn(tt, tt.from_numpy(logp), tt.from_numpy(t), None if w is None else tt.from_numpy(w), **kw)
    return a, b


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("ignore", ["none", "some", "every 16th", "all"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_reduced_loss_and_total_weight_are_pytorchs(dtype, shape, ignore, weighted):
    rng = np.random.default_rng([len(shape), *shape, ["none", "some", "every 16th", "all"].index(ignore), weighted])
    logp, t, w = _case(rng, shape, dtype, ignore, weighted)
    ulps = max(_ULPS, t.size // 8) if ignore == "every 16th" else _ULPS
    for reduction in ("sum", "mean"):
        a, b = _both(lambda m, x, t, w: m.nn.functional.nll_loss(x, t, weight=w, reduction=reduction), logp, t, w)
        assert_bits(b.numpy(), a.numpy(), ulps=ulps, scale="max", exact_on=_exact_on(ignore), what=f"{reduction} loss")
    if logp.ndim <= 2:
        for reduction in (1, 2):
            a, b = _both(lambda m, x, t, w: m.ops.aten.nll_loss_forward(x, t, w, reduction, -100), logp, t, w)
            for i, what in enumerate(("output", "total_weight")):
                assert_bits(b[i].numpy(), a[i].numpy(), ulps=ulps, scale="max", exact_on=_exact_on(ignore), what=what)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(1, 3), (5,), (64, 10), (300, 5), (2, 3, 5, 6), (3, 4, 7)], ids=str)
@pytest.mark.parametrize("ignore", ["none", "some", "all"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("scale", [1.0, 0.25, 1 / 3, 7.0])
def test_gradient_divides_first_as_pytorch(dtype, shape, ignore, weighted, scale):
    """The mean's gradient is ``weight * -(grad / total_weight)``; a loss scaled before backward (gradient
    accumulation's ``loss / steps``) gives PyTorch's bits too, and a zero total weight (every target ignored)
    leaves zeros."""
    rng = np.random.default_rng([len(shape), *shape, ["none", "some", "all"].index(ignore), weighted, int(scale * 12)])
    logp, t, w = _case(rng, shape, dtype, ignore, weighted)
    grads, saved = [], []
    for m in (torch, tt):
        x = m.from_numpy(logp.copy()).requires_grad_()
        loss = m.nn.functional.nll_loss(x, m.from_numpy(t), weight=None if w is None else m.from_numpy(w))
        if logp.ndim <= 2:
            saved.append(loss.grad_fn._saved_total_weight.numpy())
        (loss * scale).backward()
        grads.append(x.grad.numpy())
    # (the gradient's only sum is the total weight: a count, PyTorch's bits on every path, unless classes are weighted)
    exact = _exact_on(ignore if weighted else "none")
    assert_bits(grads[1], grads[0], ulps=_ULPS, scale="max", exact_on=exact, what="gradient")
    if saved:
        assert_bits(saved[1], saved[0], ulps=_ULPS, scale="max", exact_on=exact, what="_saved_total_weight")


def test_ignored_targets_take_the_compiled_kernel(monkeypatch):
    """With the compiled kernels (``[fast]``) nll_loss's sums over ignored targets run ``cascade_kept`` (PyTorch's
    walk of its cascade); where every target counts the numpy path's cascade runs, and the kernel does not."""
    from tinytorch._ops._core.paths import REFERENCE
    from tinytorch._ops._kernels import compiled as kernels

    if REFERENCE or not compiled("cross_entropy"):
        pytest.skip("no compiled kernels here (or TINYTORCH_REFERENCE=1: no CPU path of PyTorch's)")
    fast = kernels.family("cross_entropy")
    seen = []
    real = fast.cascade_kept
    monkeypatch.setattr(fast, "cascade_kept", lambda *a: (seen.append(a[3]), real(*a))[1])
    logp = tt.log_softmax(tt.randn(40, 5), 1)
    t = tt.randint(0, 5, (40,))
    w = tt.rand(5)
    tt.nn.functional.nll_loss(logp, t, weight=w)
    assert seen == []
    t[::3] = -100
    tt.nn.functional.nll_loss(logp, t)
    assert seen == [True]  # the loss (the total weight: a count)
    seen.clear()
    tt.nn.functional.nll_loss(logp, t, weight=w)
    assert sorted(seen) == [False, True]  # the loss and the total weight
