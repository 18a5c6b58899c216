"""The activations and losses of nn.functional against PyTorch: values,
gradients, second derivatives, grad_fn names, gradcheck in float64, reductions and errors."""
import warnings

import numpy as np
import pytest

import tinytorch
import tinytorch.nn.functional as F
from tinytorch.autograd import gradcheck, gradgradcheck

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
TF = torch.nn.functional

RNG = np.random.default_rng(0)


def _x(*shape, lo=-4.0, hi=4.0):
    a = RNG.uniform(lo, hi, shape)
    # keep clear of the kinks (0, ±0.5, ±1, ±3) so finite differences are meaningful
    for k in (0.0, 0.5, 1.0, 3.0, 6.0, 0.1):
        for s in (1, -1):
            a = np.where(np.abs(a - s * k) < 0.05, a + 0.11, a)
    return a


def _sign(*shape):
    return np.where(RNG.standard_normal(shape) > 0, 1.0, -1.0)


# (name, call: (F, *tensors) -> tensor, arrays: the inputs; which need grad)
X = _x(4, 6)
POS = RNG.uniform(0.2, 3.0, (4, 6))
CASES = [
    ("hardtanh", lambda f, x: f.hardtanh(x), [X]),
    ("hardtanh_range", lambda f, x: f.hardtanh(x, -2.0, 2.5), [X]),
    ("relu6", lambda f, x: f.relu6(x * 3), [X]),
    ("hardswish", lambda f, x: f.hardswish(x), [X]),
    ("hardsigmoid", lambda f, x: f.hardsigmoid(x), [X]),
    ("mish", lambda f, x: f.mish(x), [X]),
    ("glu", lambda f, x: f.glu(x), [X]),
    ("glu_dim0", lambda f, x: f.glu(x, 0), [X]),
    ("prelu_scalar", lambda f, x, w: f.prelu(x, w), [X, np.array([0.25])]),
    ("prelu_channels", lambda f, x, w: f.prelu(x, w), [_x(3, 4, 5), np.array([0.1, -0.2, 0.3, 0.5])]),
    ("elu", lambda f, x: f.elu(x, 1.5), [X]),
    ("celu", lambda f, x: f.celu(x, 0.7), [X]),
    ("selu", lambda f, x: f.selu(x), [X]),
    ("leaky_relu", lambda f, x: f.leaky_relu(x, 0.2), [X]),
    ("logsigmoid", lambda f, x: f.logsigmoid(x * 10), [X]),
    ("softsign", lambda f, x: f.softsign(x), [X]),
    ("tanhshrink", lambda f, x: f.tanhshrink(x), [X]),
    ("softshrink", lambda f, x: f.softshrink(x, 0.5), [X]),
    ("hardshrink", lambda f, x: f.hardshrink(x, 1.0), [X]),
    ("threshold", lambda f, x: f.threshold(x, 0.1, 20.0), [X]),
    ("rrelu_eval", lambda f, x: f.rrelu(x), [X]),
    ("normalize", lambda f, x: f.normalize(x), [X]),
    ("normalize_p1_dim0", lambda f, x: f.normalize(x, p=1, dim=0), [X]),
    ("normalize_p3", lambda f, x: f.normalize(x, p=3.0, dim=-1), [X]),
    ("kl_div_batchmean", lambda f, x, t: f.kl_div(x, t, reduction="batchmean"), [X, POS]),
    ("kl_div_none", lambda f, x, t: f.kl_div(x, t, reduction="none"), [X, POS]),
    ("kl_div_sum_log", lambda f, x, t: f.kl_div(x, t, reduction="sum", log_target=True), [X, X / 2]),
    ("poisson", lambda f, x, t: f.poisson_nll_loss(x, t), [X / 2, POS * 2]),
    ("poisson_none_full", lambda f, x, t: f.poisson_nll_loss(x, t, log_input=False, full=True,
                                                             reduction="none"), [POS, POS * 2]),
    ("gaussian", lambda f, x, t, v: f.gaussian_nll_loss(x, t, v), [X, X / 3, POS]),
    ("gaussian_full_sum", lambda f, x, t, v: f.gaussian_nll_loss(x, t, v, full=True,
                                                                 reduction="sum"),
     [X, X / 3, POS[:, :1]]),
    ("gaussian_none_batchvar", lambda f, x, t, v: f.gaussian_nll_loss(x, t, v, reduction="none"),
     [X, X / 3, POS[:, 0]]),
    ("margin_ranking", lambda f, a, b, y: f.margin_ranking_loss(a, b, y, margin=0.3),
     [_x(8), _x(8), _sign(8)]),
    ("margin_ranking_none", lambda f, a, b, y: f.margin_ranking_loss(a, b, y, reduction="none"),
     [_x(8), _x(8), _sign(8)]),
    ("hinge", lambda f, x, y: f.hinge_embedding_loss(x, y, margin=2.0), [X, _sign(4, 6)]),
    ("hinge_none", lambda f, x, y: f.hinge_embedding_loss(x, y, reduction="none"),
     [X, _sign(4, 6)]),
    ("triplet", lambda f, a, p, n: f.triplet_margin_loss(a, p, n, margin=3.0), [X, _x(4, 6), _x(4, 6)]),
    ("triplet_swap_p1", lambda f, a, p, n: f.triplet_margin_loss(a, p, n, margin=4.0, p=1,
                                                                 swap=True, reduction="none"),
     [X, _x(4, 6), _x(4, 6)]),
    ("cosine_embedding", lambda f, a, b, y: f.cosine_embedding_loss(a, b, y, margin=-0.5),
     [X, _x(4, 6), _sign(4)]),
    ("cosine_embedding_1d", lambda f, a, b, y: f.cosine_embedding_loss(a, b, y),
     [_x(6), _x(6), np.array(-1.0)]),
    ("soft_margin", lambda f, x, y: f.soft_margin_loss(x, y), [X, _sign(4, 6)]),
    ("soft_margin_none", lambda f, x, y: f.soft_margin_loss(x, y, reduction="none"),
     [X, _sign(4, 6)]),
    ("multilabel_soft_margin", lambda f, x, y: f.multilabel_soft_margin_loss(x, y),
     [X, (_sign(4, 6) > 0) * 1.0]),
    ("multilabel_soft_margin_w", lambda f, x, y, w: f.multilabel_soft_margin_loss(
        x, y, weight=w, reduction="none"), [X, (_sign(4, 6) > 0) * 1.0, POS[0]]),
]
IDS = [c[0] for c in CASES]
GRAD_INPUTS = {"kl_div_sum_log": 2, "gaussian": 3, "gaussian_full_sum": 3,
               "gaussian_none_batchvar": 3, "margin_ranking": 2, "margin_ranking_none": 2,
               "triplet": 3, "triplet_swap_p1": 3, "cosine_embedding": 2,
               "cosine_embedding_1d": 2, "prelu_scalar": 2, "prelu_channels": 2}


SCALAR_ADD = {"margin_ranking_none"}
# PyTorch has no second derivative here (gradgradcheck below covers tinytorch's)
NO_TORCH_DOUBLE_BACKWARD = {"hardsigmoid"}


def _inputs(lib, arrays, n_grad, dtype):
    return [lib.tensor(a.astype(dtype), requires_grad=i < n_grad) for i, a in enumerate(arrays)]


def _name(fn):
    return None if fn is None else fn.name().replace("torch::autograd::", "")


@pytest.mark.parametrize("name, call, arrays", CASES, ids=IDS)
def test_values_grads_and_graph_match_pytorch(name, call, arrays):
    n_grad = GRAD_INPUTS.get(name, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dtype, tol in ((np.float64, 1e-10), (np.float32, 1e-5)):
            a = _inputs(tinytorch, arrays, n_grad, dtype)
            b = _inputs(torch, arrays, n_grad, dtype)
            ya, yb = call(F, *a), call(TF, *b)
            assert str(ya.dtype)[10:] == str(yb.dtype)[6:]
            np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=tol, atol=tol)
            assert _name(ya.grad_fn) == _name(yb.grad_fn)
            nexts = [[_name(f) for f, _ in y.grad_fn.next_functions] for y in (ya, yb)]
            if name in SCALAR_ADD:
                # tinytorch names tensor + number AddBackward0 (PyTorch: AddBackward1)
                nexts[1] = [n.replace("AddBackward1", "AddBackward0") for n in nexts[1]]
            assert nexts[0] == nexts[1]
            # first and second derivatives, against PyTorch's
            wa = tinytorch.tensor(np.linspace(0.5, 1.5, ya.numel()).reshape(ya.shape).astype(dtype))
            wb = torch.tensor(wa.numpy())
            ga = tinytorch.autograd.grad((ya * wa).sum(), a[:n_grad], create_graph=True)
            gb = torch.autograd.grad((yb * wb).sum(), b[:n_grad], create_graph=True)
            for u, v in zip(ga, gb):
                np.testing.assert_allclose(u.detach().numpy(), v.detach().numpy(), rtol=tol, atol=tol)
            sa = sum(((u * u).sum() for u in ga), tinytorch.tensor(0.0, dtype=ga[0].dtype))
            sb = sum(((u * u).sum() for u in gb), torch.tensor(0.0, dtype=gb[0].dtype))
            if sb.requires_grad and name not in NO_TORCH_DOUBLE_BACKWARD:
                hb = torch.autograd.grad(sb, b[:n_grad], allow_unused=True)
                ha = tinytorch.autograd.grad(sa, a[:n_grad], allow_unused=True) \
                    if sa.requires_grad else [None] * n_grad
                for u, v in zip(ha, hb):
                    # a piecewise-linear op's second derivative is 0: either side may say so
                    # with None (or PyTorch with a ZeroTensor)
                    u = np.zeros(1) if u is None else u.numpy()
                    v = np.zeros(1) if v is None else (torch.zeros(v.shape, dtype=v.dtype) + v).numpy()
                    u, v = np.broadcast_arrays(u, v)
                    np.testing.assert_allclose(u, v, rtol=tol * 10, atol=tol * 10)


GRADCHECK = ["hardsigmoid", "hardswish", "mish", "glu", "prelu_channels", "selu", "celu", "logsigmoid",
             "softsign", "normalize_p3", "kl_div_batchmean", "poisson_none_full", "gaussian",
             "triplet", "cosine_embedding", "soft_margin", "multilabel_soft_margin_w"]


@pytest.mark.parametrize("name", GRADCHECK)
def test_gradcheck_float64(name):
    call, arrays = dict((c[0], c[1:]) for c in CASES)[name]
    n_grad = GRAD_INPUTS.get(name, 1)
    inputs = _inputs(tinytorch, arrays, n_grad, np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = lambda *g: call(F, *g, *inputs[n_grad:])  # noqa: E731
        assert gradcheck(fn, tuple(inputs[:n_grad]))
        if name == "hardsigmoid":  # PyTorch has no derivative for hardsigmoid_backward: its gradgradcheck raises
            with pytest.raises(RuntimeError, match="derivative for aten::hardsigmoid_backward is not implemented"):
                gradgradcheck(fn, tuple(inputs[:n_grad]))
            return
        assert gradgradcheck(fn, tuple(inputs[:n_grad]))


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin_loss(p, reduction, weighted):
    x = _x(5, 4)
    t = np.array([0, 3, 1, 1, 2])
    w = np.array([0.5, 1.0, 2.0, 0.3]) if weighted else None
    a = tinytorch.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    kw = dict(p=p, margin=1.5, reduction=reduction)
    ya = F.multi_margin_loss(a, tinytorch.tensor(t), weight=None if w is None else tinytorch.tensor(w), **kw)
    yb = TF.multi_margin_loss(b, torch.tensor(t), weight=None if w is None else torch.tensor(w), **kw)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert _name(ya.grad_fn) == _name(yb.grad_fn) == "MultiMarginLossBackward0"
    (ya.sum() * 1.7).backward()
    (yb.sum() * 1.7).backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-12)
    fn = lambda u: F.multi_margin_loss(u, tinytorch.tensor(t), **kw)  # noqa: E731
    assert gradcheck(fn, (tinytorch.tensor(x, requires_grad=True),))
    # one sample as a 1-D input
    ya = F.multi_margin_loss(tinytorch.tensor(x[0]), tinytorch.tensor(t[0]), **kw)
    yb = TF.multi_margin_loss(torch.tensor(x[0]), torch.tensor(t[0]), **kw)
    assert tuple(ya.shape) == tuple(yb.shape)
    np.testing.assert_allclose(ya.numpy(), yb.numpy(), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda f, x: f.hardtanh(x, inplace=True), lambda f, x: f.relu6(x, inplace=True),
    lambda f, x: f.elu(x, inplace=True), lambda f, x: f.celu(x, 2.0, inplace=True),
    lambda f, x: f.selu(x, inplace=True), lambda f, x: f.leaky_relu(x, 0.3, inplace=True),
    lambda f, x: f.threshold(x, 0.5, -1.0, inplace=True), lambda f, x: f.hardswish(x, inplace=True),
    lambda f, x: f.hardsigmoid(x, inplace=True), lambda f, x: f.mish(x, inplace=True),
    lambda f, x: f.rrelu(x, inplace=True), lambda f, x: f.elu_(x), lambda f, x: f.threshold_(x, 0.1, 2.0),
    lambda f, x: f.celu_(x, 0.7), lambda f, x: f.elu(x, 0.7, inplace=True),
])
def test_inplace_forms(call):
    a = tinytorch.tensor(X, requires_grad=True)
    b = torch.tensor(X, requires_grad=True)
    ya, yb = call(F, a * 1), call(TF, b * 1)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert _name(ya.grad_fn) == _name(yb.grad_fn)
    # what the node saved: the result for most in-place forms, as PyTorch's (rrelu's noise is left unset there)
    for attr in dir(yb.grad_fn):
        if attr.startswith("_saved_") and attr != "_saved_noise" and isinstance(getattr(yb.grad_fn, attr),
                                                                                torch.Tensor):
            np.testing.assert_allclose(getattr(ya.grad_fn, attr).detach().numpy(),
                                       getattr(yb.grad_fn, attr).detach().numpy(), rtol=1e-12, atol=1e-12)
    ya.sum().backward()
    yb.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_inplace_leaky_relu_with_a_negative_slope_refuses_its_backward_as_pytorch():
    """The in-place form's node saves its result, whose signs are the input's only for a slope >= 0: PyTorch's
    backward refuses a negative slope (a slope of 0 is fine)."""
    for slope in (-0.1, 0.0):
        a, b = tinytorch.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
        ya, yb = F.leaky_relu(a * 1, slope, inplace=True), TF.leaky_relu(b * 1, slope, inplace=True)
        errors = []
        for y in (yb, ya):
            try:
                y.sum().backward()
                errors.append(None)
            except RuntimeError as e:
                errors.append(str(e))
        assert errors[0] == errors[1] and (errors[0] is None) == (slope == 0.0)


def test_gumbel_softmax():
    tinytorch.manual_seed(0)
    logits = tinytorch.tensor(_x(5, 7), requires_grad=True)
    soft = F.gumbel_softmax(logits, tau=0.5)
    assert soft.grad_fn.name() == "SoftmaxBackward0"
    np.testing.assert_allclose(soft.detach().numpy().sum(-1), 1.0, rtol=1e-12)
    hard = F.gumbel_softmax(logits, hard=True, dim=0)
    assert hard.grad_fn.name() == "AddBackward0"
    h = hard.detach().numpy()
    assert set(np.unique(h)) <= {0.0, 1.0} and (h.sum(0) == 1).all()
    hard.sum().backward()  # straight-through: the soft sample's gradient (a softmax sums to 1)
    np.testing.assert_allclose(logits.grad.numpy(), 0.0, atol=1e-12)
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(logits, eps=1e-5)


def test_kl_div_mean_warns_like_pytorch():
    with pytest.warns(UserWarning) as got:
        F.kl_div(tinytorch.tensor(X), tinytorch.tensor(POS))
    with pytest.warns(UserWarning) as expected:
        TF.kl_div(torch.tensor(X), torch.tensor(POS))
    assert str(got[0].message) == str(expected[0].message)


X34 = _x(3, 4)
ERRORS = [
    lambda f, m: f.multi_margin_loss(m.tensor(X34), m.tensor([0, 1])),
    lambda f, m: f.multi_margin_loss(m.tensor(X34), m.tensor([0, 1, 7])),
    lambda f, m: f.multi_margin_loss(m.tensor(X34), m.tensor([0, 1, 2]), p=3),
    lambda f, m: f.multi_margin_loss(m.tensor(X34), m.tensor([0, 1, 2]), weight=m.ones(2, 2)),
    lambda f, m: f.multi_margin_loss(m.tensor(X34), m.tensor([0, 1, 2]), reduction="avg"),
    lambda f, m: f.soft_margin_loss(m.tensor(X34), m.ones(3, 4), reduction="x"),
    lambda f, m: f.cosine_embedding_loss(m.tensor(X34), m.tensor(X34), m.ones(3, 1)),
    lambda f, m: f.cosine_embedding_loss(m.tensor(X34), m.tensor(X34), m.ones(())),
    lambda f, m: f.cosine_embedding_loss(m.tensor(X34[0]), m.tensor(X34[0]), m.ones(3)),
    lambda f, m: f.triplet_margin_loss(m.tensor(X34), m.tensor(X34), m.tensor(X34[0])),
    lambda f, m: f.triplet_margin_loss(m.tensor(X34), m.tensor(X34), m.tensor(X34), margin=0),
    lambda f, m: f.margin_ranking_loss(m.tensor(X34), m.tensor(X34), m.ones(3)),
    lambda f, m: f.hinge_embedding_loss(m.tensor(X34), m.ones(3, 4), reduction="x"),
    lambda f, m: f.kl_div(m.tensor(X34), m.tensor(X34), reduction="x"),
    lambda f, m: f.poisson_nll_loss(m.tensor(X34), m.tensor(X34), reduction="x"),
    lambda f, m: f.gaussian_nll_loss(m.tensor(X34), m.tensor(X34), m.ones(3, 5)),
    lambda f, m: f.gaussian_nll_loss(m.tensor(X34), m.tensor(X34), -m.ones(3, 4)),
    lambda f, m: f.gaussian_nll_loss(m.tensor(X34), m.tensor(X34), m.ones(3, 4), reduction="x"),
    lambda f, m: f.multilabel_soft_margin_loss(m.tensor(X34), m.tensor(X34), reduction="x"),
    lambda f, m: f.glu(m.tensor(X34), 0),
    lambda f, m: f.glu(m.tensor(1.0)),
    lambda f, m: f.softshrink(m.tensor(X34), -1.0),
    lambda f, m: f.softshrink(m.tensor(X34).float(), -0.5),
    lambda f, m: f.prelu(m.tensor(X34), m.ones(3)),
    lambda f, m: f.prelu(m.tensor(X34).float(), m.ones(3)),
    lambda f, m: f.prelu(m.tensor(X34).float(), m.ones(2, 2)),
    lambda f, m: f.celu(m.tensor(X34), 0.0),
    lambda f, m: f.hardswish(m.tensor([1, 2])),
    lambda f, m: f.logsigmoid(m.tensor([1, 2])),
    lambda f, m: f.mish(m.tensor([1, 2])),
    lambda f, m: f.normalize(m.tensor([1, 2])),
    lambda f, m: f.hardtanh(m.tensor(X34), 2.0, 1.0),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_pytorch(i):
    with pytest.raises(Exception) as expected:
        ERRORS[i](TF, torch)
    with pytest.raises(type(expected.value)) as got:
        ERRORS[i](F, tinytorch)
    assert str(got.value) == str(expected.value).replace("torch.", "tinytorch.")


def test_integer_inputs_where_pytorch_allows_them():
    for call in (lambda f, m: f.threshold(m.tensor([1, 2]), 1, 5),
                 lambda f, m: f.hardtanh(m.tensor([1, -2])),
                 lambda f, m: f.relu6(m.tensor([9, -2, 3]))):
        a, b = call(F, tinytorch), call(TF, torch)
        assert a.tolist() == b.tolist() and str(a.dtype)[10:] == str(b.dtype)[6:]


# -- the modules ----------------------------------------------------------------------------------
MODULES = [
    ("PReLU", (), {}), ("PReLU", (3, 0.1), {}), ("Hardtanh", (), {}),
    ("Hardtanh", (-2, 3.5, True), {}), ("Hardswish", (), {}), ("Hardswish", (True,), {}),
    ("Hardsigmoid", (True,), {}), ("Mish", (), {}), ("Mish", (True,), {}), ("GLU", (), {}),
    ("GLU", (0,), {}), ("CELU", (), {}), ("CELU", (2.0, True), {}), ("SELU", (), {}),
    ("SELU", (True,), {}), ("LogSigmoid", (), {}), ("Softsign", (), {}), ("Tanhshrink", (), {}),
    ("Softshrink", (), {}), ("Softshrink", (1,), {}), ("Hardshrink", (), {}),
    ("Threshold", (0.1, 20), {}), ("Threshold", (0.1, 20, True), {}), ("RReLU", (), {}),
    ("RReLU", (0.1, 0.3, True), {}),
    ("KLDivLoss", (), {}), ("KLDivLoss", (), dict(reduction="batchmean", log_target=True)),
    ("PoissonNLLLoss", (), dict(log_input=False, full=True)), ("MarginRankingLoss", (0.5,), {}),
    ("HingeEmbeddingLoss", (), {}), ("TripletMarginLoss", (), dict(p=1.0, swap=True)),
    ("CosineEmbeddingLoss", (), {}), ("SoftMarginLoss", (), dict(reduction="sum")),
    ("MultiLabelSoftMarginLoss", (), {}), ("MultiMarginLoss", (), dict(p=2, margin=0.5)),
    ("GaussianNLLLoss", (), dict(full=True, eps=1e-3)),
]


@pytest.mark.parametrize("name, args, kw", MODULES)
def test_module_repr_state_and_attributes(name, args, kw):
    a = getattr(tinytorch.nn, name)(*args, **kw)
    b = getattr(torch.nn, name)(*args, **kw)
    assert repr(a) == repr(b)
    assert list(a.state_dict()) == list(b.state_dict())
    for key, value in vars(b).items():
        if not key.startswith("_"):
            assert getattr(a, key) == value, key
    for key, value in b.state_dict().items():
        np.testing.assert_array_equal(a.state_dict()[key].numpy(), value.numpy())


def test_modules_forward_like_pytorch():
    x = _x(4, 6)
    for name, args, call in [
        ("PReLU", (6, 0.2), lambda m, t, u: m.double()(t)),
        ("RReLU", (), lambda m, t, u: m.eval()(t)),
        ("MultiMarginLoss", (), lambda m, t, u: m(t, u)),
        ("MultiLabelSoftMarginLoss", (), lambda m, t, u: m(t, (t > 0).double())),
        ("GaussianNLLLoss", (), lambda m, t, u: m(t, t * 0.5, 0.7)),
        ("TripletMarginLoss", (), lambda m, t, u: m(t, t * 0.5, t * -1.0)),
    ]:
        ta, tb = tinytorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ua, ub = tinytorch.tensor([0, 5, 2, 2]), torch.tensor([0, 5, 2, 2])
        ya = call(getattr(tinytorch.nn, name)(*args), ta, ua)
        yb = call(getattr(torch.nn, name)(*args), tb, ub)
        np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-12)
        ya.sum().backward()
        yb.sum().backward()
        np.testing.assert_allclose(ta.grad.numpy(), tb.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_prelu_weight_learns_like_pytorch():
    a, b = tinytorch.nn.PReLU(4), torch.nn.PReLU(4)
    x = _x(3, 4, 5).astype(np.float32)
    a(tinytorch.tensor(x)).pow(2).sum().backward()
    b(torch.tensor(x)).pow(2).sum().backward()
    assert a.weight.grad.shape == (4,)
    np.testing.assert_allclose(a.weight.grad.numpy(), b.weight.grad.numpy(), rtol=1e-6)


def test_module_errors():
    for build in (lambda nn: nn.TripletMarginLoss(margin=0),
                  lambda nn, m=None: nn.MultiMarginLoss(p=3)):
        with pytest.raises(ValueError) as expected:
            build(torch.nn)
        with pytest.raises(ValueError) as got:
            build(tinytorch.nn)
        assert str(got.value) == str(expected.value)
    with pytest.raises(ValueError) as expected:
        torch.nn.MultiMarginLoss(weight=torch.ones(2, 2))
    with pytest.raises(ValueError) as got:
        tinytorch.nn.MultiMarginLoss(weight=tinytorch.ones(2, 2))
    assert str(got.value) == str(expected.value)
    with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
        assert tinytorch.nn.Hardtanh(min_value=-3.0).min_val == -3.0


# -- generated inputs: shapes (scalar, size-1, empty), dtypes, values across the kinks ------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ELEMENTWISE = {
    "hardtanh": lambda f, x: f.hardtanh(x, -0.7, 1.3), "relu6": lambda f, x: f.relu6(x),
    "hardswish": lambda f, x: f.hardswish(x), "hardsigmoid": lambda f, x: f.hardsigmoid(x),
    "mish": lambda f, x: f.mish(x), "celu": lambda f, x: f.celu(x, 1.3),
    "selu": lambda f, x: f.selu(x), "elu": lambda f, x: f.elu(x, 0.5),
    "logsigmoid": lambda f, x: f.logsigmoid(x), "softsign": lambda f, x: f.softsign(x),
    "tanhshrink": lambda f, x: f.tanhshrink(x), "softshrink": lambda f, x: f.softshrink(x, 0.3),
    "hardshrink": lambda f, x: f.hardshrink(x, 0.3), "threshold": lambda f, x: f.threshold(x, 0.2, -3.0),
    "rrelu": lambda f, x: f.rrelu(x, 0.1, 0.2), "leaky_relu": lambda f, x: f.leaky_relu(x, 0.05),
}


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(ELEMENTWISE)),
       shape=st.sampled_from([(), (1,), (0,), (3,), (2, 1, 3)]),
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**31 - 1),
       scale=st.sampled_from([0.5, 3.0, 30.0]))
def test_elementwise_activations_generated(name, shape, dtype, seed, scale):
    x = (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)
    a, b = tinytorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya, yb = ELEMENTWISE[name](F, a), ELEMENTWISE[name](TF, b)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=tol, atol=tol)
    assert ya.shape == tuple(yb.shape) and str(ya.dtype)[10:] == str(yb.dtype)[6:]
    assert ya.grad_fn.name() == yb.grad_fn.name()
    ya.sum().backward()
    yb.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name, kw", [("CosineSimilarity", {}), ("CosineSimilarity", dict(dim=0, eps=1e-6)),
                                      ("PairwiseDistance", {}), ("PairwiseDistance", dict(p=1.0, keepdim=True))])
def test_distance_modules(name, kw):
    a, b = getattr(tinytorch.nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(a) == repr(b)
    assert {k: getattr(a, k) for k in vars(b) if not k.startswith("_")} == \
        {k: v for k, v in vars(b).items() if not k.startswith("_")}
    fn = {"CosineSimilarity": "cosine_similarity", "PairwiseDistance": "pairwise_distance"}[name]
    if not hasattr(F, fn):
        pytest.skip(f"F.{fn} (the function these modules call) is not in this tree")
    x, y = _x(4, 6), _x(4, 6)
    np.testing.assert_allclose(a(tinytorch.tensor(x), tinytorch.tensor(y)).numpy(),
                               b(torch.tensor(x), torch.tensor(y)).numpy(), rtol=1e-10)
