"""Losses against PyTorch (values and input gradients) and against float64 finite differences
(first and second order), plus PyTorch's error messages for bad targets (RELIABILITY rows 45-47)."""
import math
import warnings

import numpy as np
import pytest

import tinytorch as tt
import tinytorch.nn as nn
import tinytorch.nn.functional as F
from tinytorch.autograd import gradcheck, gradgradcheck

REDUCTIONS = ["mean", "sum", "none"]


def _rng(seed=0):
    return np.random.default_rng(seed)


def _leaf(a, requires_grad=True):
    return tt.tensor(a, requires_grad=requires_grad)


def _pair(torch, a, requires_grad=True):
    """The same array as a tinytorch leaf and a torch leaf."""
    t = torch.tensor(a, requires_grad=requires_grad)
    return _leaf(a, requires_grad), t


def _opt(torch, a):
    return (None, None) if a is None else (tt.tensor(a), torch.tensor(a))


def _check_loss(torch, ours, theirs, inputs, rtol=1e-5, atol=1e-6):
    """Forward values equal; gradients of sum(loss * random weights) equal for every input that requires grad."""
    out, ref = ours(), theirs()
    assert out.shape == tuple(ref.shape)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=rtol, atol=atol)
    seed = _rng(5).standard_normal(tuple(ref.shape)).astype(ref.detach().numpy().dtype)
    (out * tt.tensor(seed)).sum().backward()
    (ref * torch.tensor(seed)).sum().backward()
    for mine, theirs_t in inputs:
        if theirs_t.requires_grad:
            np.testing.assert_allclose(mine.grad.numpy(), theirs_t.grad.numpy(), rtol=rtol, atol=atol)


# -- cross entropy / nll with class indices -------------------------------------------------------
CE_CASES = [
    # input shape, target shape
    ((4, 5), (4,)),
    ((5,), ()),
    ((2, 4, 3), (2, 3)),
    ((2, 3, 2, 2), (2, 2, 2)),
    ((1, 3, 2, 1, 2), (1, 2, 1, 2)),
]


@pytest.mark.parametrize("shape,tshape", CE_CASES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_class_indices_matches_torch(torch, shape, tshape, reduction, weighted):
    rng = _rng(1)
    c = shape[1] if len(shape) > 1 else shape[0]
    x = rng.standard_normal(shape).astype(np.float32)
    t = rng.integers(0, c, tshape)
    if t.ndim:
        t.reshape(-1)[0] = -100  # one ignored target
    w = rng.uniform(0.2, 2.0, c).astype(np.float32) if weighted else None
    (a, ta), (wt, wtt) = _pair(torch, x), _opt(torch, w)
    _check_loss(torch, lambda: F.cross_entropy(a, tt.tensor(t), weight=wt, reduction=reduction),
                lambda: torch.nn.functional.cross_entropy(ta, torch.tensor(t), weight=wtt, reduction=reduction),
                [(a, ta)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_matches_torch(torch, reduction):
    rng = _rng(2)
    logp = np.log(rng.dirichlet(np.ones(6), size=5)).astype(np.float32)
    t = np.array([0, 5, -3, 2, 5])
    w = rng.uniform(0.5, 1.5, 6).astype(np.float32)
    (a, ta), (wt, wtt) = _pair(torch, logp), _opt(torch, w)
    _check_loss(torch, lambda: F.nll_loss(a, tt.tensor(t), weight=wt, ignore_index=-3, reduction=reduction),
                lambda: torch.nn.functional.nll_loss(ta, torch.tensor(t), weight=wtt, ignore_index=-3,
                                                     reduction=reduction), [(a, ta)])


def test_cross_entropy_graph_is_nll_over_log_softmax(torch):
    x = _leaf(_rng().standard_normal((3, 4)).astype(np.float32))
    loss = F.cross_entropy(x, tt.tensor([0, 1, 3]))
    ref = torch.nn.functional.cross_entropy(torch.randn(3, 4, requires_grad=True), torch.tensor([0, 1, 3]))
    assert loss.grad_fn.name() == ref.grad_fn.name() == "NllLossBackward0"
    (nxt, _), = loss.grad_fn.next_functions
    (ref_nxt, _), = ref.grad_fn.next_functions
    assert nxt.name() == ref_nxt.name() == "LogSoftmaxBackward0"
    assert nxt.next_functions[0][0].variable is x


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape,tshape", [((4, 5), (4,)), ((2, 3, 2), (2, 2))])
def test_cross_entropy_label_smoothing_matches_torch(torch, reduction, weighted, shape, tshape):
    rng = _rng(3)
    c = shape[1]
    x = rng.standard_normal(shape).astype(np.float32)
    t = rng.integers(0, c, tshape)
    t.reshape(-1)[:2] = [0, 1]  # class 1 is ignored below; class 0 is not
    w = rng.uniform(0.2, 2.0, c).astype(np.float32) if weighted else None
    (a, ta), (wt, wtt) = _pair(torch, x), _opt(torch, w)
    kw = dict(reduction=reduction, label_smoothing=0.2, ignore_index=1)
    _check_loss(torch, lambda: F.cross_entropy(a, tt.tensor(t), weight=wt, **kw),
                lambda: torch.nn.functional.cross_entropy(ta, torch.tensor(t), weight=wtt, **kw), [(a, ta)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 2), (5,)])
def test_cross_entropy_probability_targets_match_torch(torch, reduction, weighted, smoothing, shape):
    rng = _rng(4)
    c = shape[1] if len(shape) > 1 else shape[0]
    x = rng.standard_normal(shape).astype(np.float32)
    p = rng.uniform(0, 1, shape).astype(np.float32)
    w = rng.uniform(0.2, 2.0, c).astype(np.float32) if weighted else None
    (a, ta), (pt, ptt), (wt, wtt) = _pair(torch, x), _pair(torch, p), _opt(torch, w)
    kw = dict(reduction=reduction, label_smoothing=smoothing)
    _check_loss(torch, lambda: F.cross_entropy(a, pt, weight=wt, **kw),
                lambda: torch.nn.functional.cross_entropy(ta, ptt, weight=wtt, **kw), [(a, ta), (pt, ptt)])


def test_cross_entropy_module_and_state(torch):
    w = np.array([1.0, 2.0, 0.5], np.float32)
    ours, theirs = nn.CrossEntropyLoss(weight=tt.tensor(w), ignore_index=2), torch.nn.CrossEntropyLoss(
        weight=torch.tensor(w), ignore_index=2)
    assert repr(ours) == repr(theirs) == "CrossEntropyLoss()"
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    x = _rng(6).standard_normal((4, 3)).astype(np.float32)
    t = np.array([0, 2, 1, 1])
    np.testing.assert_allclose(ours(tt.tensor(x), tt.tensor(t)).item(),
                               theirs(torch.tensor(x), torch.tensor(t)).item(), rtol=1e-6)


# -- stability and NaN (row 47) -------------------------------------------------------------------
def test_cross_entropy_huge_logits_are_finite(torch):
    x = np.array([[1000.0, 0.0], [-1e4, 1e4]], np.float32)
    t = np.array([1, 0])
    (a, ta) = _pair(torch, x)
    loss = F.cross_entropy(a, tt.tensor(t))
    loss.backward()
    ref = torch.nn.functional.cross_entropy(ta, torch.tensor(t))
    ref.backward()
    assert math.isfinite(loss.item()) and np.isfinite(a.grad.numpy()).all()
    np.testing.assert_allclose(loss.item(), ref.item(), rtol=1e-6)
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), atol=1e-7)


def test_cross_entropy_nan_logits_give_nan_loss():
    loss = F.cross_entropy(tt.tensor([[float("nan"), 0.0]]), tt.tensor([0]))
    assert math.isnan(loss.item())


def test_cross_entropy_all_ignored(torch):
    x = _rng().standard_normal((3, 4)).astype(np.float32)
    t = np.full(3, -100)
    for reduction in ("mean", "sum"):
        ours = F.cross_entropy(tt.tensor(x), tt.tensor(t), reduction=reduction).item()
        ref = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(t), reduction=reduction).item()
        assert (math.isnan(ours) and math.isnan(ref)) or ours == ref


# -- errors (rows 45-46 and PyTorch's other target checks) -----------------------------------------
ERROR_CASES = [
    ((3, 10), [10, 0, 1], {}, IndexError, "Target 10 is out of bounds."),
    ((3, 10), [-1, 0, 1], {}, IndexError, "Target -1 is out of bounds."),
    ((3, 10), [0, 11, -1], {}, IndexError, "Target 11 is out of bounds."),
    ((3, 10), [0, 0, 1, 1], {}, ValueError, "Expected input batch_size (3) to match target batch_size (4)."),
    ((3, 10), [[0], [0], [1]], {}, RuntimeError, "0D or 1D target tensor expected, multi-target not supported"),
    ((10,), [3, 4], {}, ValueError, "For 1D input, 1D target must have size 1, but got target size: 2"),
    ((2, 4, 3), [[0, 1], [2, 3]], {}, RuntimeError, "Expected target size [2, 3], got [2, 2]"),
    ((3, 10), [0, 0, 1], {"weight": np.ones(9, np.float32)}, RuntimeError,
     "weight tensor should be defined either for all 10 classes or no classes but got weight tensor of shape: [9]"),
    ((3, 10), [0, 0, 1], {"label_smoothing": 1.5}, RuntimeError,
     "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
    ((3, 10), [0, 0, 1], {"reduction": "avg"}, ValueError, "avg is not a valid value for reduction"),
]


@pytest.mark.parametrize("shape,target,kwargs,exc,msg", ERROR_CASES)
def test_cross_entropy_errors_match_torch(torch, shape, target, kwargs, exc, msg):
    x = np.zeros(shape, np.float32)
    t = np.array(target)
    tkw = {k: (torch.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    okw = {k: (tt.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    with pytest.raises(exc) as ref:
        torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(t), **tkw)
    assert str(ref.value) == msg  # the expectation is PyTorch's own text
    with pytest.raises(exc) as err:
        F.cross_entropy(tt.tensor(x), tt.tensor(t), **okw)
    assert str(err.value) == msg


def test_cross_entropy_target_dtype_errors(torch):
    x = np.zeros((3, 4), np.float32)
    for bad, msg in [(np.array([0, 1, 2], np.int32), "expected target dtype to be Long or Byte, but got Int"),
                     (np.zeros((3, 4), np.int64),
                      "Expected floating point type for target with class probabilities, got Long")]:
        with pytest.raises(RuntimeError, match="^" + msg + "$"):
            torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(bad))
        with pytest.raises(RuntimeError, match="^" + msg + "$"):
            F.cross_entropy(tt.tensor(x), tt.tensor(bad))
    # -100 is ignored, not out of bounds, and uint8 targets are accepted
    F.cross_entropy(tt.tensor(x), tt.tensor([-100, 0, 1]))
    F.cross_entropy(tt.tensor(x), tt.tensor(np.array([3, 0, 1], np.uint8)))


def test_weight_requiring_grad_is_refused(torch):
    x, t, w = tt.randn(3, 4, requires_grad=True), tt.tensor([0, 1, 2]), tt.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        F.nll_loss(x, t, weight=w)


# -- regression and binary losses -----------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_losses_match_torch(torch, reduction, name):
    rng = _rng(7)
    x = rng.standard_normal((3, 4)).astype(np.float32) * 2
    y = rng.standard_normal((3, 4)).astype(np.float32)
    (a, ta), (b, tb) = _pair(torch, x), _pair(torch, y)
    _check_loss(torch, lambda: getattr(F, name)(a, b, reduction=reduction),
                lambda: getattr(torch.nn.functional, name)(ta, tb, reduction=reduction), [(a, ta), (b, tb)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_weighted_regression_losses_match_torch(torch, name, reduction):
    rng = _rng(8)
    x, y, w = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(3))
    (a, ta), (b, tb) = _pair(torch, x), _pair(torch, y)
    _check_loss(torch, lambda: getattr(F, name)(a, b, reduction=reduction, weight=tt.tensor(w)),
                lambda: getattr(torch.nn.functional, name)(ta, tb, reduction=reduction, weight=torch.tensor(w)),
                [(a, ta), (b, tb)])


def test_mse_broadcast_warns_like_torch(torch):
    x, y = np.ones((3, 1), np.float32), np.arange(3, dtype=np.float32)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        F.mse_loss(tt.tensor(x), tt.tensor(y))
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.nn.functional.mse_loss(torch.tensor(x), torch.tensor(y))
    assert [str(w.message) for w in ours] == [str(w.message).replace("torch.", "tinytorch.") for w in theirs]
    with pytest.raises(RuntimeError, match="must match the size of tensor b"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F.mse_loss(tt.ones(3, 2), tt.ones(4))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("pos_weighted", [False, True])
def test_bce_with_logits_matches_torch(torch, reduction, weighted, pos_weighted):
    rng = _rng(9)
    x = (rng.standard_normal((4, 3)) * 3).astype(np.float32)
    y = rng.uniform(0, 1, (4, 3)).astype(np.float32)
    w = rng.uniform(0.5, 2, (4, 3)).astype(np.float32) if weighted else None
    pw = rng.uniform(0.5, 3, 3).astype(np.float32) if pos_weighted else None
    (a, ta), (b, tb), (wt, wtt), (pt, ptt) = _pair(torch, x), _pair(torch, y), _opt(torch, w), _opt(torch, pw)
    _check_loss(torch, lambda: F.binary_cross_entropy_with_logits(a, b, wt, reduction=reduction, pos_weight=pt),
                lambda: torch.nn.functional.binary_cross_entropy_with_logits(ta, tb, wtt, reduction=reduction,
                                                                             pos_weight=ptt), [(a, ta), (b, tb)])


def test_bce_with_logits_extreme_logits(torch):
    x = np.array([-200.0, -30.0, 0.0, 30.0, 200.0], np.float32)
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0], np.float32)
    (a, ta) = _pair(torch, x)
    _check_loss(torch, lambda: F.binary_cross_entropy_with_logits(a, tt.tensor(y), reduction="none"),
                lambda: torch.nn.functional.binary_cross_entropy_with_logits(ta, torch.tensor(y), reduction="none"),
                [(a, ta)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_bce_matches_torch(torch, reduction, weighted):
    rng = _rng(10)
    x = rng.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
    y = rng.uniform(0, 1, (4, 3)).astype(np.float32)
    w = rng.uniform(0.5, 2, (4, 3)).astype(np.float32) if weighted else None
    (a, ta), (b, tb), (wt, wtt) = _pair(torch, x), _pair(torch, y), _opt(torch, w)
    _check_loss(torch, lambda: F.binary_cross_entropy(a, b, wt, reduction=reduction),
                lambda: torch.nn.functional.binary_cross_entropy(ta, tb, wtt, reduction=reduction),
                [(a, ta), (b, tb)])


def test_bce_clamps_log_and_checks_range(torch):
    x, y = np.array([0.0, 1.0], np.float32), np.array([1.0, 0.0], np.float32)
    assert F.binary_cross_entropy(tt.tensor(x), tt.tensor(y)).item() == pytest.approx(
        torch.nn.functional.binary_cross_entropy(torch.tensor(x), torch.tensor(y)).item())
    for bad in (1.5, float("nan")):
        with pytest.raises(RuntimeError, match="^all elements of input should be between 0 and 1$"):
            F.binary_cross_entropy(tt.tensor([bad]), tt.tensor([1.0]))
    with pytest.raises(ValueError, match=r"Using a target size \(tinytorch.Size\(\[3\]\)\) that is different"):
        F.binary_cross_entropy(tt.rand(3, 1), tt.rand(3))
    with pytest.raises(ValueError, match=r"^Target size \(tinytorch.Size\(\[3\]\)\) must be the same as input"):
        F.binary_cross_entropy_with_logits(tt.rand(3, 1), tt.rand(3))


BCE_DTYPE_CASES = [  # (input dtype, target dtype, extra keyword): PyTorch's refusals and result dtypes
    ("float32", "int64", {}), ("float32", "int32", {"reduction": "none"}), ("float32", "uint8", {}),
    ("float64", "int64", {"pos_weight": "float32"}), ("float32", "int64", {"weight": "float32"}),
    ("float32", "bool", {}), ("int64", "float32", {}), ("bool", "bool", {}), ("float64", "float32", {}),
    ("float32", "float64", {"reduction": "none"}), ("float32", "float16", {"reduction": "sum"}),
    ("float32", "float32", {"pos_weight": "int64"}),
]


@pytest.mark.parametrize("xd,td,kw", BCE_DTYPE_CASES)
@pytest.mark.parametrize("module", [False, True])
def test_bce_with_logits_target_dtypes_as_pytorch(torch, xd, td, kw, module):
    # PyTorch writes (1 - target) * input into target's dtype: an integer or bool target is refused, a
    # floating one gives the loss its dtype; binary_cross_entropy refuses a target of another dtype
    def run(L):
        x = L.tensor([0.5, -1.0, 2.0, 0.0]).to(getattr(L, xd))
        y = L.tensor([0, 1, 0, 1]).to(getattr(L, td))
        extra = {k: (L.ones(4).to(getattr(L, v)) if k != "reduction" else v) for k, v in kw.items()}
        if module:
            return L.nn.BCEWithLogitsLoss(**extra)(x, y)
        return L.nn.functional.binary_cross_entropy_with_logits(x, y, **extra)
    outcome = []
    for L in (tt, torch):
        try:
            r = run(L)
            outcome.append((str(r.dtype).split(".")[-1], r.double().numpy()))
        except Exception as e:  # noqa: BLE001  the error is compared
            outcome.append((type(e).__name__, str(e)))
    (k0, a), (k1, b) = outcome
    assert k0 == k1, outcome
    if isinstance(a, str):
        assert a == b
    else:
        np.testing.assert_allclose(a, b, rtol=2e-3 if "float16" in (xd, td) else 1e-6)


@pytest.mark.parametrize("td", ["int64", "bool", "float64"])
def test_bce_target_dtypes_as_pytorch(torch, td):
    outcome = []
    for L in (tt, torch):
        try:
            r = L.nn.functional.binary_cross_entropy(L.tensor([0.5, 0.25]), L.tensor([0, 1]).to(getattr(L, td)))
            outcome.append(("ok", str(r.dtype).split(".")[-1]))
        except Exception as e:  # noqa: BLE001  the error is compared
            outcome.append((type(e).__name__, str(e)))
    assert outcome[0] == outcome[1]


def test_loss_modules_pass_their_settings(torch):
    rng = _rng(11)
    x = rng.uniform(0.1, 0.9, (3, 2)).astype(np.float32)
    y = rng.uniform(0, 1, (3, 2)).astype(np.float32)
    pairs = [(nn.MSELoss(reduction="sum"), torch.nn.MSELoss(reduction="sum")),
             (nn.L1Loss(reduction="none"), torch.nn.L1Loss(reduction="none")),
             (nn.BCELoss(), torch.nn.BCELoss()),
             (nn.BCEWithLogitsLoss(pos_weight=tt.tensor([2.0, 0.5])),
              torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 0.5]))),
             (nn.SmoothL1Loss(beta=0.5), torch.nn.SmoothL1Loss(beta=0.5)),
             (nn.HuberLoss(delta=0.3), torch.nn.HuberLoss(delta=0.3))]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
        np.testing.assert_allclose(ours(tt.tensor(x), tt.tensor(y)).numpy(),
                                   theirs(torch.tensor(x), torch.tensor(y)).numpy(), rtol=1e-6)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, please use "
                                         "reduction='sum' instead."):
        assert nn.NLLLoss(size_average=False).reduction == "sum"


# -- second order against finite differences (float64) --------------------------------------------
def _f64(shape, seed, low=None, high=None):
    rng = _rng(seed)
    a = rng.uniform(low, high, shape) if low is not None else rng.standard_normal(shape)
    return tt.tensor(a, dtype=tt.float64, requires_grad=True)


GRAD_CASES = [
    ("ce", lambda x: F.cross_entropy(x, tt.tensor([0, 2, -100]), weight=tt.tensor([1.0, 2.0, 0.5, 1.5],
                                                                                   dtype=tt.float64))),
    ("ce_none", lambda x: F.cross_entropy(x, tt.tensor([0, 2, 3]), reduction="none")),
    ("ce_smooth", lambda x: F.cross_entropy(x, tt.tensor([0, 2, 1]), label_smoothing=0.1)),
    ("ce_probs", lambda x: F.cross_entropy(x, tt.tensor(np.full((3, 4), 0.25)))),
    ("nll_sum", lambda x: F.nll_loss(x, tt.tensor([1, 1, 3]), reduction="sum")),
    ("mse", lambda x: F.mse_loss(x, tt.tensor(np.ones((3, 4))))),
    ("bce_logits", lambda x: F.binary_cross_entropy_with_logits(
        x, tt.tensor(np.full((3, 4), 0.3)), pos_weight=tt.tensor([1.0, 2.0, 3.0, 0.5], dtype=tt.float64))),
    ("bce", lambda x: F.binary_cross_entropy(x.sigmoid(), tt.tensor(np.full((3, 4), 0.7)))),
]


@pytest.mark.parametrize("name,fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_losses_first_and_second_derivatives(name, fn):
    x = _f64((3, 4), 12)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_loss_target_derivatives():
    x = _f64((2, 3), 13)
    t = _f64((2, 3), 14, 0.1, 0.9)
    assert gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b), (x, t))
    assert gradcheck(lambda a, b: F.binary_cross_entropy(a.sigmoid(), b), (x, t))
    assert gradcheck(lambda a, b: F.mse_loss(a, b, reduction="sum"), (x, t))
    assert gradgradcheck(lambda a, b: F.cross_entropy(a, b.softmax(1)), (x, t))


@pytest.mark.parametrize("shape,tshape", [((2, 3, 4), (2, 4)), ((2, 3, 2, 2), (2, 2, 2))])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_spatial_cross_entropy_records_torch_node_names(torch, shape, tshape, reduction):
    def chain(fn, depth=3):
        names = []
        while fn is not None and len(names) < depth:
            names.append(fn.name())
            fn = fn.next_functions[0][0] if fn.next_functions else None
        return names

    x = np.zeros(shape, np.float32)
    t = np.zeros(tshape, np.int64)
    ours = F.cross_entropy(_leaf(x), tt.tensor(t), reduction=reduction)
    ref = torch.nn.functional.cross_entropy(torch.tensor(x, requires_grad=True), torch.tensor(t),
                                            reduction=reduction)
    assert chain(ours.grad_fn) == chain(ref.grad_fn)
