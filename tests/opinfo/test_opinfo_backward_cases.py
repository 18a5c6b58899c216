"""Differential tests (against PyTorch) for backward formulas (op_db samples whose
gradients differed from PyTorch's): each compares tinytorch's gradients with PyTorch's for the inputs
that showed the difference and a few more of the same kind."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _pair(shape, seed=0, dtype=np.float64, grad=True):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return torch.tensor(a, requires_grad=grad), tt.tensor(a, requires_grad=grad)


def _close(ours, theirs, rtol=1e-7, atol=1e-9):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _close(o, t, rtol, atol)
        return
    if theirs is None:
        assert ours is None or not np.any(ours.detach().numpy())
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().resolve_conj().numpy(), theirs.detach().resolve_conj().numpy(), rtol=rtol,
                               atol=atol)


def _grads(fn_t, fn_u, ins_t, ins_u, seed=7, create_graph=False):
    yt, yu = fn_t(*ins_t), fn_u(*ins_u)
    _close(yu, yt)
    g = np.random.default_rng(seed).standard_normal(tuple(yt.shape))
    if yt.dtype.is_complex:
        g = g + 1j * np.random.default_rng(seed + 1).standard_normal(tuple(yt.shape))
    gt = torch.autograd.grad(yt, ins_t, torch.tensor(g).to(yt.dtype), create_graph=create_graph, allow_unused=True)
    gu = tt.autograd.grad(yu, ins_u, tt.tensor(g).to(yu.dtype), create_graph=create_graph, allow_unused=True)
    _close(gu, gt)
    return yt, yu, gt, gu


# -- as_strided_scatter ------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, size, stride, offset", [
    ((3, 3), (2, 2), (1, 2), 0),
    ((3, 3), (2, 2), (1, 2), 1),
    ((3, 3), (2, 2), (2, 1), 0),
    ((16,), (2, 2, 2, 2), (8, 4, 2, 1), 0),
    ((16,), (2, 1, 1, 2), (1, 2, 4, 8), 0),
    ((4, 4), (3, 3), (1, 1), 2),  # overlapping window: elements read several times
    ((5,), (), (), 3),
])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_as_strided_scatter_gradients_are_pytorchs(shape, size, stride, offset, dtype):
    (xt, xu), (st, su) = _pair(shape, 0, dtype), _pair(size, 1, dtype)
    yt, yu, _, _ = _grads(lambda a, b: torch.as_strided_scatter(a, b, size, stride, offset),
                          lambda a, b: tt.as_strided_scatter(a, b, size, stride, offset), (xt, st), (xu, su))
    assert yu.grad_fn.name() == yt.grad_fn.name() == "AsStridedScatterBackward0"


def test_as_strided_scatter_of_a_view_and_second_derivative():
    bt, bu = _pair((4, 3))
    (st, su) = _pair((2, 2), 1)
    fn = lambda T: (lambda b, s: T.as_strided_scatter(b[1:] * 2, s, (2, 2), (1, 2), 1).sin())  # noqa: E731
    _, _, gt, gu = _grads(fn(torch), fn(tt), (bt, st), (bu, su), create_graph=True)
    _close(tt.autograd.grad(gu[0].sum() + gu[1].sum(), (bu, su)), torch.autograd.grad(gt[0].sum() + gt[1].sum(), (bt, st)))


def test_as_strided_scatter_only_src_requires_grad():
    xt, xu = _pair((3, 3), grad=False)
    st, su = _pair((2, 2), 1)
    _grads(lambda s: torch.as_strided_scatter(xt, s, (2, 2), (1, 2), 1),
           lambda s: tt.as_strided_scatter(xu, s, (2, 2), (1, 2), 1), (st,), (su,))


def test_as_strided_scatter_refuses_a_non_contiguous_input_that_requires_grad():
    bt, bu = _pair((3, 3))
    with pytest.raises(RuntimeError, match="as_strided_scatter is currently only supported for contiguous inputs"):
        torch.as_strided_scatter(bt.t(), torch.zeros(2), (2,), (1,), 0)
    with pytest.raises(RuntimeError, match="as_strided_scatter is currently only supported for contiguous inputs"):
        tt.as_strided_scatter(bu.t(), tt.zeros(2, dtype=tt.float64), (2,), (1,), 0)


# -- logcumsumexp ------------------------------------------------------------------------------------
def _uniform(shape, seed, low, high, dtype):
    rng = np.random.default_rng(seed)
    a = rng.uniform(low, high, shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.uniform(low, high, shape)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_logcumsumexp_gradient_is_pytorchs(dtype, dim, seed):
    """op_db's samples ([-9, 9], 5x5x5): PyTorch's log-space formula cancels in float32; the forward
    accumulates in double as PyTorch's CPU scan does."""
    a = _uniform((5, 5, 5), seed, -9, 9, dtype)
    xt, xu = torch.tensor(a, requires_grad=True), tt.tensor(a, requires_grad=True)
    yt, yu = torch.logcumsumexp(xt, dim), tt.logcumsumexp(xu, dim)
    np.testing.assert_array_equal(yu.detach().numpy(), yt.detach().numpy())
    g = _uniform((5, 5, 5), seed + 10, -1, 1, dtype)
    gt, = torch.autograd.grad(yt, xt, torch.tensor(g))
    gu, = tt.autograd.grad(yu, xu, tt.tensor(g))
    _close(gu, gt, rtol=1.3e-6, atol=1e-5)


def test_logcumsumexp_wide_span_zero_gradients_and_second_derivative():
    a = np.array([[-800.0, 0.0, 5.0, 900.0], [1.0, 2.0, -3.0, 4.0]])
    xt, xu = torch.tensor(a, requires_grad=True), tt.tensor(a, requires_grad=True)
    g = np.array([[1.0, 0.0, -2.0, 0.5], [0.0, 0.0, 0.0, 0.0]])
    gt, = torch.autograd.grad(torch.logcumsumexp(xt, 1), xt, torch.tensor(g), create_graph=True)
    gu, = tt.autograd.grad(tt.logcumsumexp(xu, 1), xu, tt.tensor(g), create_graph=True)
    _close(gu, gt)
    _close(tt.autograd.grad(gu.sin().sum(), xu)[0], torch.autograd.grad(gt.sin().sum(), xt)[0])


# -- digamma's gradient: trigamma ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trigamma_and_digamma_gradient_are_pytorchs(dtype):
    """PyTorch's trigamma (reflection, six recurrence steps, a short asymptotic series) computed in the
    input's precision: near the poles its float32 values are off by ~1e-5 relative, and so are
    PyTorch's."""
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.uniform(-9, 9, 2000), rng.integers(-9, 9, 200) + rng.uniform(-1e-3, 1e-3, 200),
                        [0.5, 1.0, 7.25, 1e4]]).astype(dtype)
    np.testing.assert_allclose(tt.polygamma(1, tt.tensor(a)).numpy(), torch.polygamma(1, torch.tensor(a)).numpy(),
                               rtol=1.3e-6 if dtype == np.float32 else 1e-12)
    xt, xu = torch.tensor(a, requires_grad=True), tt.tensor(a, requires_grad=True)
    g = rng.standard_normal(a.shape).astype(dtype)
    gt, = torch.autograd.grad(torch.digamma(xt), xt, torch.tensor(g))
    gu, = tt.autograd.grad(tt.digamma(xu), xu, tt.tensor(g))
    _close(gu, gt, rtol=1.3e-6 if dtype == np.float32 else 1e-12, atol=1e-5 if dtype == np.float32 else 1e-12)


# -- cdist's matrix-product path ---------------------------------------------------------------------
@pytest.mark.parametrize("sa, sb, mode", [
    ((30, 3), (4, 3), None),                         # more than 25 rows: the mm path by default
    ((5, 5, 2), (5, 6, 2), "use_mm_for_euclid_dist"),  # op_db's sample: batched, mm asked for
    ((2, 1, 30, 3), (3, 5, 3), None),                # broadcast batch dims: expand, contiguous, view
    ((1, 30, 3), (40, 3), None),
    ((30, 3), (30, 3), "donot_use_mm_for_euclid_dist"),
    ((5, 3), (4, 3), None),                          # few rows: the direct kernel (CdistBackward0)
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cdist_mm_path_values_gradients_and_grad_fn(sa, sb, mode, dtype):
    (at, au), (bt, bu) = _pair(sa, 0, dtype), _pair(sb, 1, dtype)
    kw = {} if mode is None else {"compute_mode": mode}
    yt, yu = torch.cdist(at, bt, **kw), tt.cdist(au, bu, **kw)
    assert yu.grad_fn.name() == yt.grad_fn.name()
    tol = dict(rtol=1.3e-6, atol=1e-5) if dtype == np.float32 else {}
    _close(yu, yt, **tol)
    g = np.random.default_rng(2).standard_normal(tuple(yt.shape)).astype(dtype)
    _close(tt.autograd.grad(yu, (au, bu), tt.tensor(g)), torch.autograd.grad(yt, (at, bt), torch.tensor(g)), **tol)


def test_cdist_mm_path_coincident_points_and_bad_mode():
    # small integers: the matrix product is exact, so coincident points give exactly 0 in both
    # libraries, where the gradient is the subgradient 0
    a = np.random.default_rng(0).integers(-4, 5, (30, 3)).astype(np.float64)
    b = a[:4].copy()
    (at, au), (bt, bu) = (torch.tensor(a, requires_grad=True), tt.tensor(a, requires_grad=True)), \
        (torch.tensor(b, requires_grad=True), tt.tensor(b, requires_grad=True))
    _grads(torch.cdist, tt.cdist, (at, bt), (au, bu))
    with pytest.raises(ValueError, match="bad is not a valid value for compute_mode"):
        torch.cdist(at, bt, compute_mode="bad")
    with pytest.raises(ValueError, match="bad is not a valid value for compute_mode"):
        tt.cdist(au, bu, compute_mode="bad")


# -- linalg.multi_dot: PyTorch's multiplication order ------------------------------------------------
def _graph(fn, out):
    if fn is None:
        return out
    out.append(fn.name().split("::")[-1])
    for f, _ in fn.next_functions:
        _graph(f, out)
    return out


@pytest.mark.parametrize("shapes", [
    [(2, 4), (4, 3), (3, 5), (5, 3), (3, 2)],   # op_db's sample: the cheapest order is not left to right
    [(6, 2), (2, 7), (7, 3), (3, 9), (9,)],
    [(10, 1), (1, 10), (10, 1)], [(1, 10), (10, 1), (1, 10)],  # the two orders of three
    [(4,), (4, 3), (3, 5)], [(2, 4), (4,)], [(3,), (3,)],
])
def test_multi_dot_order_graph_and_gradients(shapes):
    rng = np.random.default_rng(0)
    arrs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ts = [torch.tensor(a, requires_grad=True) for a in arrs]
    us = [tt.tensor(a, requires_grad=True) for a in arrs]
    yt, yu = torch.linalg.multi_dot(ts), tt.linalg.multi_dot(us)
    assert _graph(yu.grad_fn, []) == _graph(yt.grad_fn, [])
    # the same products in the same order: float32 values agree to a few ulp
    _close(yu, yt, rtol=1e-6, atol=1e-6)
    g = rng.standard_normal(tuple(yt.shape)).astype(np.float32)
    _close(tt.autograd.grad(yu, us, tt.tensor(g)), torch.autograd.grad(yt, ts, torch.tensor(g)), rtol=1e-5, atol=1e-5)


# -- a view made under no_grad (op_db's istft windows): no gradient reaches it -------------------------
def test_istft_window_view_made_under_no_grad_gets_no_gradient():
    """op_db's istft samples pass ``window[:8]`` sliced under no_grad from a window that requires grad:
    such a view requires grad and is a leaf, but PyTorch sends it no gradient; tinytorch agrees (the
    OpInfo walk now converts such a view as a view)."""
    rng = np.random.default_rng(0)
    spec = (rng.standard_normal((10, 5, 6)) + 1j * rng.standard_normal((10, 5, 6))).astype(np.complex64)
    win = rng.uniform(0.5, 2.0, 10).astype(np.float32)
    out = []
    for lib in (torch, tt):
        w = lib.tensor(win, requires_grad=True)
        with lib.no_grad():
            w8 = w[:8]
        assert w8.requires_grad and w8.is_leaf
        x = lib.tensor(spec, requires_grad=True)
        y = lib.istft(x, n_fft=8, window=w8, center=True)
        out.append((y, lib.autograd.grad(y.sum(), (x, w8, w), allow_unused=True)))
    (yt, gt), (yu, gu) = out
    _close(yu, yt, rtol=1e-5, atol=1e-5)
    assert gt[1] is None and gt[2] is None and gu[1] is None and gu[2] is None
    _close(gu[0], gt[0], rtol=1e-5, atol=1e-5)


# -- ctc_loss: PyTorch's float32 arithmetic, step for step ---------------------------------------------
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_loss_float32_as_pytorch_computes_it(reduction):
    """exp/log rounded as the C library's expf/logf round them (numpy's float32 exp is an ulp off in
    ~40% of cases) and the alpha * beta sums collected for s downwards, as PyTorch's CPU kernel: the
    loss comes out bit for bit and the gradient to an ulp (the C library's expf differs from exp rounded
    from double in ~0.1% of cases); op_db's samples were 3.5e-5 apart."""
    rng = np.random.default_rng(0)
    T, N, C, S = 50, 6, 20, 30
    x = rng.uniform(-9, 9, (T, N, C)).astype(np.float32)
    lp = torch.tensor(x).log_softmax(2).numpy()
    targets = rng.integers(1, C, (N, S))
    in_len, tg_len = [T] * N, list(rng.integers(10, S, N))
    xt, xu = torch.tensor(lp, requires_grad=True), tt.tensor(lp, requires_grad=True)
    yt = torch.nn.functional.ctc_loss(xt, torch.tensor(targets), in_len, tg_len, reduction=reduction)
    yu = tt.nn.functional.ctc_loss(xu, tt.tensor(targets), in_len, tg_len, reduction=reduction)
    if reduction == "none":
        np.testing.assert_array_equal(yu.detach().numpy(), yt.detach().numpy())
    else:  # the reduction's own summation order may differ by an ulp
        np.testing.assert_allclose(yu.detach().numpy(), yt.detach().numpy(), rtol=3e-7)
    g = rng.standard_normal(tuple(yt.shape)).astype(np.float32)
    gt, = torch.autograd.grad(yt, xt, torch.tensor(g))
    gu, = tt.autograd.grad(yu, xu, tt.tensor(g))
    np.testing.assert_allclose(gu.numpy(), gt.numpy(), rtol=3e-7, atol=1e-7)
