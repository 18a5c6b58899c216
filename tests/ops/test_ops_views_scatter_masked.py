"""Differential tests (against PyTorch) for views, scatters, float-bit ops, factories, quantiles, histograms and masked ops, for what the op_db walk
does not cover: error types and messages, dtype promotion, in-place and out= spellings, views sharing
storage, grad_fn names, and second derivatives."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _pair(shape, seed=0, dtype=np.float64, grad=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    t = torch.tensor(a, requires_grad=grad)
    u = tt.tensor(a, requires_grad=grad)
    return t, u


def _close(ours, theirs, **kw):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _close(o, t, **kw)
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-8, **kw)


def _same_error(fn_torch, fn_tt):
    with pytest.raises(Exception) as theirs:
        fn_torch()
    with pytest.raises(type(theirs.value)) as ours:
        fn_tt()
    assert str(ours.value) == str(theirs.value)


# -- refusing Python numbers -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["atan2", "hypot", "logaddexp", "logaddexp2", "fmax", "fmin", "igamma",
                                  "igammac", "maximum", "minimum", "nextafter", "ldexp", "gcd", "lcm"])
def test_tensor_only_binary_ops_refuse_numbers(name):
    x = torch.ones(3, dtype=torch.int64 if name in ("gcd", "lcm") else torch.float32)
    u = tt.ones(3, dtype=tt.int64 if name in ("gcd", "lcm") else tt.float32)
    _same_error(lambda: getattr(torch, name)(x, 2.0), lambda: getattr(tt, name)(u, 2.0))
    _same_error(lambda: getattr(torch, name)(2.0, x), lambda: getattr(tt, name)(2.0, u))


def test_heaviside_refuses_numbers_and_mixed_dtypes():
    _same_error(lambda: torch.heaviside(torch.ones(2), 0.5), lambda: tt.heaviside(tt.ones(2), 0.5))
    _same_error(lambda: torch.heaviside(torch.ones(2), torch.tensor(1)),
                lambda: tt.heaviside(tt.ones(2), tt.tensor(1)))


# -- strided views -----------------------------------------------------------------------------------
def test_unfold_is_a_view_with_double_backward():
    t, u = _pair((4, 7), grad=True)
    yt, yu = t.unfold(1, 3, 2), u.unfold(1, 3, 2)
    _close(yu, yt)
    assert type(yu.grad_fn).__name__ == type(yt.grad_fn).__name__ == "UnfoldBackward0"
    gt = torch.autograd.grad((yt ** 2).sum(), t, create_graph=True)[0]
    gu = tt.autograd.grad((yu ** 2).sum(), u, create_graph=True)[0]
    _close(gu, gt)
    _close(tt.autograd.grad(gu.sum(), u)[0], torch.autograd.grad(gt.sum(), t)[0])
    base = tt.zeros(6)
    base.unfold(0, 2, 2)[1].fill_(3.0)
    assert base.tolist() == [0, 0, 3, 3, 0, 0]
    _same_error(lambda: torch.zeros(3).unfold(0, 4, 1), lambda: tt.zeros(3).unfold(0, 4, 1))


def test_as_strided_view_gradient_and_errors():
    t, u = _pair((3, 3), grad=True)
    yt = t.as_strided((2, 2), (1, 2), 1)
    yu = u.as_strided((2, 2), (1, 2), 1)
    _close(yu, yt)
    assert type(yu.grad_fn).__name__ == "AsStridedBackward0"
    g = torch.arange(4.0, dtype=torch.float64).reshape(2, 2)
    _close(tt.autograd.grad(yu, u, tt.tensor(g.numpy()))[0], torch.autograd.grad(yt, t, g)[0])
    _same_error(lambda: torch.zeros(4).as_strided((3,), (2,)), lambda: tt.zeros(4).as_strided((3,), (2,)))
    x = tt.zeros(4)
    x.as_strided((2,), (2,)).add_(1)
    assert x.tolist() == [1, 0, 1, 0]


@pytest.mark.parametrize("name,args", [
    ("view_copy", ((6,),)), ("permute_copy", ((1, 0),)), ("t_copy", ()), ("transpose_copy", (0, 1)),
    ("unsqueeze_copy", (1,)), ("squeeze_copy", ()), ("diagonal_copy", ()), ("expand_copy", ((4, 2, 3),)),
    ("narrow_copy", (1, 1, 2)), ("unfold_copy", (1, 2, 1)), ("alias_copy", ()),
    ("as_strided_copy", ((2, 2), (1, 2))),
])
def test_copy_ops_share_nothing(name, args):
    t, u = _pair((2, 3), grad=True)
    yt, yu = getattr(torch, name)(t, *args), getattr(tt, name)(u, *args)
    _close(yu, yt)
    assert not yu._is_view()
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape))
    _close(tt.autograd.grad(yu, u, tt.tensor(g))[0], torch.autograd.grad(yt, t, torch.tensor(g))[0])
    out = tt.empty(0, dtype=tt.float64)
    getattr(tt, name)(u.detach(), *args, out=out)
    _close(out, yt)


def test_split_and_unbind_copy_out():
    t, u = _pair((4, 3))
    outs = [tt.empty(0, dtype=tt.float64) for _ in range(2)]
    tt.split_with_sizes_copy(u, [1, 3], out=outs)
    _close(outs, torch.split_with_sizes_copy(t, [1, 3]))
    _close(tt.unbind_copy(u, 1), torch.unbind_copy(t, 1))


# -- scatter ops -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,args", [
    ("slice_scatter", lambda L: (L.ones(2, 4, dtype=L.float64), 0, 1, 5, 2)),
    ("select_scatter", lambda L: (L.ones(4, dtype=L.float64), 0, 2)),
    ("diagonal_scatter", lambda L: (L.ones(3, dtype=L.float64), 1)),
])
def test_view_scatters(name, args):
    t, u = _pair((5, 4), grad=True)
    st, su = args(torch)[0], args(tt)[0]
    st.requires_grad_(True)
    su.requires_grad_(True)
    yt, yu = getattr(torch, name)(t, st, *args(torch)[1:]), getattr(tt, name)(u, su, *args(tt)[1:])
    _close(yu, yt)
    g = np.random.default_rng(2).standard_normal(tuple(yt.shape))
    _close(tt.autograd.grad(yu, (u, su), tt.tensor(g)), torch.autograd.grad(yt, (t, st), torch.tensor(g)))
    _same_error(lambda: getattr(torch, name)(t, st[..., :1] if st.dim() else st, *args(torch)[1:]),
                lambda: getattr(tt, name)(u, su[..., :1] if su.dim() else su, *args(tt)[1:]))


def test_as_strided_scatter_values_and_gradients():
    t, u = _pair((3, 3), grad=True)
    st, su = _pair((2, 2), seed=3, grad=True)
    yt = torch.as_strided_scatter(t, st, (2, 2), (1, 2), 1)
    yu = tt.as_strided_scatter(u, su, (2, 2), (1, 2), 1)
    _close(yu, yt)
    g = np.arange(9.0).reshape(3, 3)
    _close(tt.autograd.grad(yu, su, tt.tensor(g))[0], torch.autograd.grad(yt, st, torch.tensor(g))[0])
    # input's gradient as PyTorch's formula gives it (the window's elements, not their complement)
    _close(tt.autograd.grad(yu, u, tt.tensor(g))[0], torch.autograd.grad(yt, t, torch.tensor(g))[0])
    assert yu.grad_fn.name() == yt.grad_fn.name()


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_inplace_out_and_gradgrad(reduce, include_self):
    t, u = _pair((4, 3), grad=True)
    st, su = _pair((5, 3), seed=4, grad=True)
    idx = np.random.default_rng(5).integers(0, 4, (5, 3))
    it, iu = torch.tensor(idx), tt.tensor(idx)
    yt = t.scatter_reduce(0, it, st, reduce, include_self=include_self)
    yu = u.scatter_reduce(0, iu, su, reduce, include_self=include_self)
    _close(yu, yt)
    assert type(yu.grad_fn).__name__ == type(yt.grad_fn).__name__
    g = np.random.default_rng(6).standard_normal((4, 3))
    gt = torch.autograd.grad(yt, (t, st), torch.tensor(g), create_graph=True)
    gu = tt.autograd.grad(yu, (u, su), tt.tensor(g), create_graph=True)
    _close(gu, gt)
    if reduce == "prod":  # second derivatives through the formula
        _close(tt.autograd.grad(gu[1].sum(), (u, su)), torch.autograd.grad(gt[1].sum(), (t, st)))
    xt, xu = t.detach().clone(), u.detach().clone()
    xt.scatter_reduce_(0, it, st.detach(), reduce, include_self=include_self)
    xu.scatter_reduce_(0, iu, su.detach(), reduce, include_self=include_self)
    _close(xu, xt)


def test_scatter_reduce_and_index_reduce_errors():
    x, u = torch.zeros(3), tt.zeros(3)
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin"):
        u.scatter_reduce(0, tt.tensor([0]), tt.ones(1), "foo")
    _same_error(lambda: x.scatter_reduce(0, torch.tensor([5]), torch.ones(1), "sum"),
                lambda: u.scatter_reduce(0, tt.tensor([5]), tt.ones(1), "sum"))
    _same_error(lambda: x.index_reduce(0, torch.tensor([0]), torch.ones(1), "sum"),
                lambda: u.index_reduce(0, tt.tensor([0]), tt.ones(1), "sum"))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_matches(reduce):
    t, u = _pair((3, 4), grad=True)
    st, su = _pair((3, 5), seed=7, grad=True)
    idx = [0, 2, 2, 1, 0]
    yt = t.index_reduce(1, torch.tensor(idx), st, reduce, include_self=False)
    yu = u.index_reduce(1, tt.tensor(idx), su, reduce, include_self=False)
    _close(yu, yt)
    g = np.random.default_rng(8).standard_normal((3, 4))
    _close(tt.autograd.grad(yu, (u, su), tt.tensor(g)), torch.autograd.grad(yt, (t, st), torch.tensor(g)))


def test_index_put_and_put():
    t, u = _pair((4, 3), grad=True)
    vt, vu = _pair((2,), seed=9, grad=True)
    key_t, key_u = (torch.tensor([0, 0]), torch.tensor([1, 1])), (tt.tensor([0, 0]), tt.tensor([1, 1]))
    yt = torch.index_put(t, key_t, vt, accumulate=True)
    yu = tt.index_put(u, key_u, vu, accumulate=True)
    _close(yu, yt)
    g = np.ones((4, 3))
    _close(tt.autograd.grad(yu, (u, vu), tt.tensor(g)), torch.autograd.grad(yt, (t, vt), torch.tensor(g)))
    _same_error(lambda: torch.index_put(t, key_t, vt.float()), lambda: tt.index_put(u, key_u, vu.float()))
    xt, xu = torch.zeros(2, 3), tt.zeros(2, 3)
    xt.put_(torch.tensor([-1, 0, 0]), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
    xu.put_(tt.tensor([-1, 0, 0]), tt.tensor([1.0, 2.0, 3.0]), accumulate=True)
    _close(xu, xt)
    _same_error(lambda: xt.put(torch.tensor([6]), torch.tensor([1.0])), lambda: xu.put(tt.tensor([6]), tt.tensor([1.0])))


# -- pointwise ---------------------------------------------------------------------------------------
def test_float_bits_ops():
    a = np.array([-2.5, 0.0, 3.0, np.inf, -np.inf, np.nan], dtype=np.float32)
    t, u = torch.tensor(a), tt.tensor(a)
    _close(tt.frexp(u), torch.frexp(t), equal_nan=True)
    _close(tt.isposinf(u), torch.isposinf(t))
    _close(tt.isneginf(u), torch.isneginf(t))
    _close(tt.isreal(u), torch.isreal(t))
    _close(tt.heaviside(u, tt.tensor([0.5], dtype=tt.float32)), torch.heaviside(t, torch.tensor([0.5])),
           equal_nan=True)
    _close(tt.nextafter(u, tt.zeros(6)), torch.nextafter(t, torch.zeros(6)), equal_nan=True)
    _close(tt.ldexp(tt.tensor([1, 2]), tt.tensor([3, 4])), torch.ldexp(torch.tensor([1, 2]), torch.tensor([3, 4])))
    _close(tt.gcd(tt.tensor([-12, 0, 7]), tt.tensor([18, 0, 3])),
           torch.gcd(torch.tensor([-12, 0, 7]), torch.tensor([18, 0, 3])))
    _close(tt.lcm(tt.tensor([-4, 0]), tt.tensor([6, 3])), torch.lcm(torch.tensor([-4, 0]), torch.tensor([6, 3])))
    _same_error(lambda: torch.frexp(torch.tensor([1])), lambda: tt.frexp(tt.tensor([1])))
    _same_error(lambda: torch.gcd(torch.ones(1), torch.ones(1)), lambda: tt.gcd(tt.ones(1), tt.ones(1)))
    _same_error(lambda: torch.nextafter(torch.tensor([1]), torch.tensor([1])),
                lambda: tt.nextafter(tt.tensor([1]), tt.tensor([1])))
    x = tt.tensor([4, 6])
    x.gcd_(tt.tensor([6, 9]))
    assert x.tolist() == [2, 3]


def test_frexp_and_ldexp_gradients():
    t, u = _pair((5,), grad=True)
    mt, mu = torch.frexp(t).mantissa, tt.frexp(u).mantissa
    _close(tt.autograd.grad(mu.sum(), u)[0], torch.autograd.grad(mt.sum(), t)[0])
    e = np.array([1, 2, 0, 3, 1])
    yt, yu = torch.ldexp(t, torch.tensor(e)), tt.ldexp(u, tt.tensor(e))
    _close(tt.autograd.grad(yu.sum(), u)[0], torch.autograd.grad(yt.sum(), t)[0])
    # a negative integer exponent: PyTorch's gradient computes 2 ** e in integers (0); here 2 ** e
    yu = tt.ldexp(u, tt.tensor([-2] * 5))
    assert tt.autograd.grad(yu.sum(), u)[0].tolist() == [0.25] * 5


# -- factories ---------------------------------------------------------------------------------------
def test_factories():
    _close(tt.logspace(0, 2, 5, dtype=tt.int64), torch.logspace(0, 2, 5, dtype=torch.int64))
    _close(tt.logspace(-1, 3.5, 7, base=2), torch.logspace(-1, 3.5, 7, base=2))
    _close(tt.scalar_tensor(3), torch.scalar_tensor(3))
    assert tt.empty_strided((2, 3), (1, 2)).stride() == torch.empty_strided((2, 3), (1, 2)).stride()
    assert tt.empty_permuted((2, 3, 4), (2, 0, 1)).stride() == torch.empty_permuted((2, 3, 4), (2, 0, 1)).stride()
    _close(tt.signal.windows.kaiser(9, beta=4.0, sym=False, dtype=tt.float64),
           torch.signal.windows.kaiser(9, beta=4.0, sym=False, dtype=torch.float64))
    _same_error(lambda: torch.signal.windows.hann(-1), lambda: tt.signal.windows.hann(-1))
    with pytest.raises(ValueError) as theirs:
        torch.signal.windows.hann(3, dtype=torch.int64)
    with pytest.raises(ValueError) as ours:
        tt.signal.windows.hann(3, dtype=tt.int64)
    # the message prints the dtype, and tinytorch's prints as tinytorch.int64
    assert str(ours.value) == str(theirs.value).replace("torch.int64", "tinytorch.int64")


# -- composites --------------------------------------------------------------------------------------
def test_block_diag_combinations_diagflat():
    _close(tt.block_diag(tt.tensor([[1, 2]]), tt.tensor(3.0), tt.tensor([4, 5])),
           torch.block_diag(torch.tensor([[1, 2]]), torch.tensor(3.0), torch.tensor([4, 5])))
    _close(tt.combinations(tt.tensor([1, 2, 3]), 2, with_replacement=True),
           torch.combinations(torch.tensor([1, 2, 3]), 2, with_replacement=True))
    _close(tt.combinations(tt.tensor([1, 2, 3]), 4), torch.combinations(torch.tensor([1, 2, 3]), 4))
    _close(tt.diagflat(tt.tensor([[1, 2], [3, 4]]), -1), torch.diagflat(torch.tensor([[1, 2], [3, 4]]), -1))
    _same_error(lambda: torch.block_diag(torch.zeros(2, 2, 2)), lambda: tt.block_diag(tt.zeros(2, 2, 2)))
    _same_error(lambda: torch.zeros(2, 3).sum_to_size(2, 2), lambda: tt.zeros(2, 3).sum_to_size(2, 2))
    _close(tt.nonzero_static(tt.tensor([0, 1, 0, 2]), size=3), torch.nonzero_static(torch.tensor([0, 1, 0, 2]), size=3))


def test_integration_and_covariance_gradgrad():
    t, u = _pair((3, 6), grad=True)
    xt = torch.tensor([0.0, 0.5, 1.5, 2.0, 3.5, 4.0], dtype=torch.float64)
    xu = tt.tensor(xt.numpy())
    for ft, fu in [(lambda y: torch.trapezoid(y, xt), lambda y: tt.trapezoid(y, xu)),
                   (lambda y: torch.cumulative_trapezoid(y, dx=0.3), lambda y: tt.cumulative_trapezoid(y, dx=0.3)),
                   (lambda y: torch.cov(y, correction=0), lambda y: tt.cov(y, correction=0)),
                   (torch.corrcoef, tt.corrcoef),
                   (lambda y: torch.gradient(y, spacing=[xt], dim=1, edge_order=2)[0],
                    lambda y: tt.gradient(y, spacing=[xu], dim=1, edge_order=2)[0])]:
        yt, yu = ft(t), fu(u)
        _close(yu, yt)
        gt = torch.autograd.grad((yt ** 2).sum(), t, create_graph=True)[0]
        gu = tt.autograd.grad((yu ** 2).sum(), u, create_graph=True)[0]
        _close(gu, gt)
        _close(tt.autograd.grad(gu.sum(), u)[0], torch.autograd.grad(gt.sum(), t)[0])
    ft = torch.tensor([1, 2, 1]), tt.tensor([1, 2, 1])
    aw = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64), tt.tensor([0.5, 1.0, 2.0], dtype=tt.float64)
    _close(tt.cov(u[:, :3], fweights=ft[1], aweights=aw[1]), torch.cov(t[:, :3], fweights=ft[0], aweights=aw[0]))
    _same_error(lambda: torch.cov(t, fweights=aw[0]), lambda: tt.cov(u, fweights=aw[1]))


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile(interpolation):
    a = np.random.default_rng(10).standard_normal((4, 7))
    a[1, 2] = np.nan
    t, u = torch.tensor(a, requires_grad=True), tt.tensor(a, requires_grad=True)
    q = [0.0, 0.3, 0.5, 1.0]
    for name in ("quantile", "nanquantile"):
        yt = getattr(torch, name)(t, torch.tensor(q, dtype=torch.float64), 1, True, interpolation=interpolation)
        yu = getattr(tt, name)(u, tt.tensor(q, dtype=tt.float64), 1, True, interpolation=interpolation)
        _close(yu, yt, equal_nan=True)
        yt2, yu2 = torch.nan_to_num(yt), tt.nan_to_num(yu)
        _close(tt.autograd.grad(yu2.sum(), u)[0], torch.autograd.grad(yt2.sum(), t)[0])
    _same_error(lambda: torch.quantile(t, 1.5), lambda: tt.quantile(u, 1.5))
    _same_error(lambda: torch.quantile(torch.tensor([1, 2]), 0.5), lambda: tt.quantile(tt.tensor([1, 2]), 0.5))
    _same_error(lambda: torch.quantile(t, 0.5, interpolation="foo"), lambda: tt.quantile(u, 0.5, interpolation="foo"))


def test_histograms():
    a = np.random.default_rng(11).standard_normal((50, 2)).astype(np.float32)
    t, u = torch.tensor(a), tt.tensor(a)
    _close(tt.histogram(u[:, 0], 7, range=(-1.0, 1.0), density=True),
           torch.histogram(t[:, 0], 7, range=(-1.0, 1.0), density=True))
    w = np.abs(a[:, 0])
    _close(tt.histogramdd(u, [3, 4], weight=tt.tensor(w)).hist, torch.histogramdd(t, [3, 4], weight=torch.tensor(w)).hist)
    _close(tt.histc(u, 5), torch.histc(t, 5))


def test_products_and_norms():
    t, u = _pair((3, 4), grad=True)
    vt, vu = _pair((4,), seed=12, grad=True)
    bt, bu = _pair((2, 3, 5), seed=13), _pair((2, 5, 4), seed=14)
    for yt, yu in [(torch.inner(t, vt), tt.inner(u, vu)), (torch.dist(t, vt, 3), tt.dist(u, vu, 3)),
                   (torch.renorm(t, 1, 0, 2.0), tt.renorm(u, 1, 0, 2.0)),
                   (torch.addr(t, t[:, 0], vt, beta=0.5, alpha=2), tt.addr(u, u[:, 0], vu, beta=0.5, alpha=2)),
                   (torch.addbmm(t, bt[0], bu[0], alpha=0.5), tt.addbmm(u, bt[1], bu[1], alpha=0.5))]:
        _close(yu, yt)
        gt = torch.autograd.grad((yt ** 2).sum(), (t, vt), create_graph=True, allow_unused=True)
        gu = tt.autograd.grad((yu ** 2).sum(), (u, vu), create_graph=True, allow_unused=True)
        for a, b in zip(gu, gt):
            if b is not None:
                _close(a, b)
    _same_error(lambda: torch.vdot(torch.ones(3), torch.ones(2)), lambda: tt.vdot(tt.ones(3), tt.ones(2)))
    _same_error(lambda: torch.inner(torch.ones(2, 3), torch.ones(2)), lambda: tt.inner(tt.ones(2, 3), tt.ones(2)))
    _same_error(lambda: torch.addr(torch.ones(2, 2, dtype=torch.long), torch.ones(2, dtype=torch.long),
                                   torch.ones(2, dtype=torch.long), beta=0.5),
                lambda: tt.addr(tt.ones(2, 2, dtype=tt.int64), tt.ones(2, dtype=tt.int64), tt.ones(2, dtype=tt.int64),
                                beta=0.5))


def test_legacy_linalg_spellings_warn():
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    t, u = torch.tensor(a), tt.tensor(a)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _close(tt.cholesky(u, upper=True), torch.cholesky(t, upper=True))
        _close(tt.qr(u, some=False), torch.qr(t, some=False))
        _close(tt.lu(u, get_infos=True), torch.lu(t, get_infos=True))
    assert sum("is deprecated" in str(w.message) for w in caught) >= 3


# -- torch.masked ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,kwargs", [
    ("sum", {"dim": 1}), ("prod", {"dim": (0, 1)}), ("amax", {}), ("amin", {"dim": 0, "keepdim": True}),
    ("mean", {"dim": 1}), ("var", {"dim": 1, "unbiased": False}), ("std", {"correction": 2}),
    ("norm", {"ord": 3.0, "dim": 1}), ("logsumexp", {"dim": 0}), ("median", {"dim": 1}),
    ("softmax", {"dim": 1}), ("log_softmax", {"dim": 0}), ("softmin", {"dim": 1}), ("cumsum", {"dim": 1}),
    ("cumprod", {"dim": 0}),
])
def test_masked_ops(name, kwargs):
    t, u = _pair((3, 4), seed=15, grad=True)
    m = np.array([[True, False, True, True], [False, False, False, False], [True, True, False, True]])
    args = (kwargs.pop("ord"),) if "ord" in kwargs else ()
    yt = getattr(torch.masked, name)(t, *args, mask=torch.tensor(m), **kwargs)
    yu = getattr(tt.masked, name)(u, *args, mask=tt.tensor(m), **kwargs)
    _close(yu, yt, equal_nan=True)
    yt, yu = torch.nan_to_num(yt, posinf=0.0, neginf=0.0), tt.nan_to_num(yu, posinf=0.0, neginf=0.0)
    _close(tt.autograd.grad(yu.sum(), u)[0], torch.autograd.grad(yt.sum(), t)[0], equal_nan=True)


def test_masked_errors_and_broadcast_mask():
    m = np.array([True, False, True])
    _close(tt.masked.sum(tt.ones(2, 3, dtype=tt.int32), 1, mask=tt.tensor(m)),
           torch.masked.sum(torch.ones(2, 3, dtype=torch.int32), 1, mask=torch.tensor(m)))
    _same_error(lambda: torch.masked.mean(torch.ones(3, dtype=torch.int64), mask=torch.tensor(m)),
                lambda: tt.masked.mean(tt.ones(3, dtype=tt.int64), mask=tt.tensor(m)))
    _same_error(lambda: torch.masked.median(torch.ones(3, dtype=torch.int64), mask=torch.zeros(3, dtype=torch.bool)),
                lambda: tt.masked.median(tt.ones(3, dtype=tt.int64), mask=tt.zeros(3, dtype=tt.bool)))
    _same_error(lambda: torch.masked.sum(torch.ones(3), (0, 0)), lambda: tt.masked.sum(tt.ones(3), (0, 0)))
