"""Convolution and pooling ops against PyTorch: values (float32, float64), gradients, second
derivatives, grad_fn names, indices, odd shapes and error texts; gradcheck/gradgradcheck in float64."""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytorch as tt
import tinytorch.nn.functional as F
from tinytorch.autograd import gradcheck, gradgradcheck


def _r(shape, seed, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _pair(torch, fn_tt, fn_torch, arrays, dtype, grad_seed=9, tol=None):
    """Forward, first and second derivatives of tinytorch's op against PyTorch's on the same arrays.

    The second derivative is that of <g, op(x, w)> squared-gradient sums: it runs every node's backward
    of a backward."""
    tol = tol or ({np.float32: 2e-4, np.float64: 1e-10}[dtype])
    ours = [tt.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = fn_tt(*ours), fn_torch(*theirs)
    if isinstance(ty, tuple):
        assert np.array_equal(y[1].numpy(), ty[1].numpy())
        assert y[1].dtype == tt.int64
        y, ty = y[0], ty[0]
    assert y.shape == tuple(ty.shape) and y.dtype.__repr__().split(".")[-1] == repr(ty.dtype).split(".")[-1]
    scale = max(1.0, float(np.abs(ty.detach().numpy()).max()))
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol * scale)
    assert y.grad_fn.name() == ty.grad_fn.name()
    g = _r(tuple(ty.shape), grad_seed, dtype)
    grads = tt.autograd.grad(y, ours, tt.tensor(g), create_graph=True)
    tgrads = torch.autograd.grad(ty, theirs, torch.tensor(g), create_graph=True)
    for a, b in zip(grads, tgrads):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol * scale * 10)
    s = sum((a * a).sum() for a in grads if a.requires_grad)
    ts = sum((b * b).sum() for a, b in zip(grads, tgrads) if a.requires_grad)
    if isinstance(s, tt.Tensor):
        second = tt.autograd.grad(s, ours, allow_unused=True)
        tsecond = torch.autograd.grad(ts, theirs, allow_unused=True)
        for a, b in zip(second, tsecond):
            if b is None or a is None:
                assert a is None or not np.any(a.numpy()), "PyTorch found no second derivative here"
                continue
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol * scale * 100)


# -- convolution ----------------------------------------------------------------------------------
CONV2D_ROWS = [  # (N, C, H, W, O, kh, kw, stride, padding, dilation, groups, bias)
    (2, 3, 8, 9, 4, 3, 3, 1, 0, 1, 1, True),         # the plain case, non-square input
    (1, 4, 7, 7, 6, 3, 3, 2, 1, 2, 2, False),        # batch 1, stride, dilation, groups
    (2, 3, 5, 6, 5, 1, 1, 1, 0, 1, 1, True),         # 1x1 kernel
    (2, 2, 9, 8, 3, 2, 2, 3, 0, 1, 1, True),         # stride > kernel
    (2, 4, 6, 7, 4, 3, 3, 1, 1, 1, 4, True),         # padding = kernel // 2, groups = channels (depthwise)
    (1, 2, 6, 5, 2, 3, 2, (2, 1), (1, 0), (1, 2), 1, True),  # non-square kernel, per-dim arguments
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("row", CONV2D_ROWS)
def test_conv2d_matches_torch(torch, row, dtype):
    n, c, h, w, o, kh, kw, s, p, d, g, bias = row
    arrays = [_r((n, c, h, w), 0, dtype), _r((o, c // g, kh, kw), 1, dtype)] + ([_r(o, 2, dtype)] if bias else [])
    _pair(torch, lambda *a: F.conv2d(*a, stride=s, padding=p, dilation=d, groups=g),
          lambda *a: torch.nn.functional.conv2d(*a, stride=s, padding=p, dilation=d, groups=g), arrays, dtype)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 3), c=st.integers(1, 4), o=st.integers(1, 4), h=st.integers(1, 9), w=st.integers(1, 9),
       k=st.integers(1, 4), s=st.integers(1, 3), p=st.integers(0, 2), d=st.integers(1, 2), groups=st.sampled_from([1, 2]),
       bias=st.booleans())
def test_conv2d_random_shapes_match_torch(n, c, o, h, w, k, s, p, d, groups, bias):
    torch = pytest.importorskip("torch")
    c, o = c * groups, o * groups
    if h + 2 * p < d * (k - 1) + 1 or w + 2 * p < d * (k - 1) + 1:
        return
    arrays = [_r((n, c, h, w), 0), _r((o, c // groups, k, k), 1)] + ([_r(o, 2)] if bias else [])
    _pair(torch, lambda *a: F.conv2d(*a, stride=s, padding=p, dilation=d, groups=groups),
          lambda *a: torch.nn.functional.conv2d(*a, stride=s, padding=p, dilation=d, groups=groups), arrays,
          np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("row", [(2, 3, 9, 4, 3, 1, 0, 1, 1), (1, 4, 10, 4, 3, 2, 1, 2, 2), (2, 2, 5, 3, 1, 3, 0, 1, 1)])
def test_conv1d_matches_torch(torch, row, dtype):
    n, c, length, o, k, s, p, d, g = row
    arrays = [_r((n, c, length), 0, dtype), _r((o, c // g, k), 1, dtype), _r(o, 2, dtype)]
    _pair(torch, lambda *a: F.conv1d(*a, stride=s, padding=p, dilation=d, groups=g),
          lambda *a: torch.nn.functional.conv1d(*a, stride=s, padding=p, dilation=d, groups=g), arrays, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("row", [  # (N, C_in, H, W, C_out, k, stride, padding, output_padding, groups, dilation)
    (2, 3, 4, 5, 2, 3, 1, 0, 0, 1, 1), (1, 4, 3, 4, 6, 3, 2, 1, 1, 2, 1), (2, 2, 4, 3, 3, 2, 3, 0, 2, 1, 1),
    (1, 2, 3, 3, 2, 3, 2, 1, 1, 1, 2)])
def test_conv_transpose2d_matches_torch(torch, row, dtype):
    n, ci, h, w, co, k, s, p, op, g, d = row
    arrays = [_r((n, ci, h, w), 0, dtype), _r((ci, co // g, k, k), 1, dtype), _r(co, 2, dtype)]
    _pair(torch, lambda *a: F.conv_transpose2d(*a, stride=s, padding=p, output_padding=op, groups=g, dilation=d),
          lambda *a: torch.nn.functional.conv_transpose2d(*a, stride=s, padding=p, output_padding=op, groups=g,
                                                          dilation=d), arrays, dtype)


@pytest.mark.parametrize("padding,k,d", [("same", 3, 1), ("same", 4, 1), ("same", 2, 3), ("valid", 3, 1)])
def test_conv2d_string_padding(torch, padding, k, d):
    arrays = [_r((2, 3, 7, 6), 0), _r((4, 3, k, k), 1)]
    with pytest.warns(UserWarning) if padding == "same" and k % 2 == 0 else _no_warning():
        _pair(torch, lambda *a: F.conv2d(*a, padding=padding, dilation=d),
              lambda *a: torch.nn.functional.conv2d(*a, padding=padding, dilation=d), arrays, np.float64)


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_unbatched_conv_and_graph(torch):
    x, w, b = _r((3, 6, 5), 0), _r((4, 3, 3, 3), 1), _r(4, 2)
    _pair(torch, lambda *a: F.conv2d(*a, padding=1), lambda *a: torch.nn.functional.conv2d(*a, padding=1),
          [x, w, b], np.float64)
    xs = [tt.tensor(a, requires_grad=True) for a in (_r((2, 3, 6, 5), 0), _r((4, 3, 3, 3), 1))]
    y = F.conv2d(*xs)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["AccumulateGrad", "AccumulateGrad",
                                                                      "NoneType"]
    with tt.no_grad():
        assert F.conv2d(*xs).grad_fn is None


def test_conv_gradcheck_and_gradgradcheck():
    x = tt.tensor(_r((1, 2, 5, 4), 0), requires_grad=True)
    w = tt.tensor(_r((4, 1, 2, 3), 1), requires_grad=True)
    b = tt.tensor(_r(4, 2), requires_grad=True)
    fn = lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2)  # noqa: E731
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))
    wt = tt.tensor(_r((2, 3, 3, 3), 3), requires_grad=True)
    fnt = lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)  # noqa: E731
    assert gradcheck(fnt, (x, wt))
    assert gradgradcheck(fnt, (x, wt))


# -- pooling --------------------------------------------------------------------------------------
POOL2D = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=(2, 3), stride=(3, 1)),
          dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), dict(kernel_size=1), dict(kernel_size=2, stride=3)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", POOL2D + [dict(kernel_size=3, padding=1, dilation=2)])
def test_max_pool2d_matches_torch(torch, kw, dtype):
    for shape in ((2, 3, 7, 8), (3, 6, 5)):
        _pair(torch, lambda x: F.max_pool2d(x, return_indices=True, **kw),
              lambda x: torch.nn.functional.max_pool2d(x, return_indices=True, **kw), [_r(shape, 0, dtype)], dtype)


def test_max_pool2d_ties_and_nan_pick_what_torch_picks(torch):
    x = np.zeros((1, 2, 4, 4))
    x[0, 1, 1, 1] = x[0, 1, 2, 3] = np.nan
    x[0, 0, :2, :2] = 3.0
    y, i = F.max_pool2d(tt.tensor(x), 2, return_indices=True)
    ty, ti = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=1, padding=1, dilation=2, ceil_mode=True)])
def test_max_pool1d_matches_torch(torch, kw):
    _pair(torch, lambda x: F.max_pool1d(x, return_indices=True, **kw),
          lambda x: torch.nn.functional.max_pool1d(x, return_indices=True, **kw), [_r((2, 3, 9), 0)], np.float64)
    _pair(torch, lambda x: F.max_pool1d(x, **kw), lambda x: torch.nn.functional.max_pool1d(x, **kw),
          [_r((3, 9), 0)], np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("kw", POOL2D + [dict(kernel_size=3, padding=1, divisor_override=2)])
def test_avg_pool2d_matches_torch(torch, kw, count_include_pad, dtype):
    _pair(torch, lambda x: F.avg_pool2d(x, count_include_pad=count_include_pad, **kw),
          lambda x: torch.nn.functional.avg_pool2d(x, count_include_pad=count_include_pad, **kw),
          [_r((2, 3, 7, 8), 0, dtype)], dtype)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                                          count_include_pad=False)])
def test_avg_pool1d_matches_torch(torch, kw):
    _pair(torch, lambda x: F.avg_pool1d(x, **kw), lambda x: torch.nn.functional.avg_pool1d(x, **kw),
          [_r((2, 3, 9), 0)], np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [(3, 3), (2, 5), 1, (None, 3), (7, 8), 4])
def test_adaptive_pool2d_matches_torch(torch, size, dtype):
    x = [_r((2, 3, 7, 8), 0, dtype)]
    _pair(torch, lambda x: F.adaptive_avg_pool2d(x, size),
          lambda x: torch.nn.functional.adaptive_avg_pool2d(x, size), x, dtype)
    _pair(torch, lambda x: F.adaptive_max_pool2d(x, size, return_indices=True),
          lambda x: torch.nn.functional.adaptive_max_pool2d(x, size, return_indices=True), x, dtype)
    _pair(torch, lambda x: F.adaptive_avg_pool1d(x, 3), lambda x: torch.nn.functional.adaptive_avg_pool1d(x, 3),
          [_r((2, 3, 8), 1, dtype)], dtype)


@settings(max_examples=20, deadline=None)
@given(h=st.integers(1, 9), w=st.integers(1, 9), k=st.integers(1, 3), s=st.integers(1, 3), p=st.integers(0, 1),
       ceil=st.booleans())
def test_pool2d_random_shapes_match_torch(h, w, k, s, p, ceil):
    torch = pytest.importorskip("torch")
    if p > k // 2 or h + 2 * p < k or w + 2 * p < k:
        return
    x = [_r((2, 2, h, w), 0)]
    kw = dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil)
    _pair(torch, lambda x: F.max_pool2d(x, return_indices=True, **kw),
          lambda x: torch.nn.functional.max_pool2d(x, return_indices=True, **kw), x, np.float64)
    _pair(torch, lambda x: F.avg_pool2d(x, **kw), lambda x: torch.nn.functional.avg_pool2d(x, **kw), x, np.float64)


def test_pooling_gradcheck_and_gradgradcheck():
    x = tt.tensor(_r((1, 2, 6, 5), 0), requires_grad=True)
    for fn in (lambda x: F.max_pool2d(x, 3, 2, 1), lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
               lambda x: F.adaptive_avg_pool2d(x, (4, 3)), lambda x: F.adaptive_max_pool2d(x, (4, 3)),
               lambda x: F.max_pool2d(x, 2, 1)):  # overlapping windows
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


# -- errors ---------------------------------------------------------------------------------------
ERRORS = [
    ("conv2d", lambda m, x: m.nn.functional.conv2d(x((2, 3, 8, 8)), x((5, 4, 3, 3)))),
    ("kernel too big", lambda m, x: m.nn.functional.conv2d(x((2, 3, 8, 8)), x((5, 3, 9, 9)))),
    ("3-d", lambda m, x: m.nn.functional.conv2d(x((3, 8)), x((5, 3, 3, 3)))),
    ("5-d", lambda m, x: m.nn.functional.conv2d(x((1, 2, 3, 8, 8)), x((5, 3, 3, 3)))),
    ("conv1d 4-d", lambda m, x: m.nn.functional.conv1d(x((2, 3, 8, 8)), x((5, 3, 3)))),
    ("stride 0", lambda m, x: m.nn.functional.conv2d(x((2, 3, 8, 8)), x((4, 3, 3, 3)), stride=0)),
    ("padding -1", lambda m, x: m.nn.functional.conv2d(x((2, 3, 8, 8)), x((4, 3, 3, 3)), padding=-1)),
    ("dilation 0", lambda m, x: m.nn.functional.conv2d(x((2, 3, 8, 8)), x((4, 3, 3, 3)), dilation=0)),
    ("dtypes", lambda m, x: m.nn.functional.conv2d(x((2, 3, 8, 8)), x((4, 3, 3, 3)).double())),
    ("bias", lambda m, x: m.nn.functional.conv2d(x((2, 3, 8, 8)), x((4, 3, 3, 3)), x((5,)))),
    ("same strided", lambda m, x: m.nn.functional.conv2d(x((2, 3, 8, 8)), x((4, 3, 3, 3)), padding="same", stride=2)),
    ("padding list", lambda m, x: m.nn.functional.conv2d(x((2, 3, 8, 8)), x((4, 3, 3, 3)), padding=(1, 2, 3))),
    ("transposed channels", lambda m, x: m.nn.functional.conv_transpose2d(x((2, 3, 8, 8)), x((4, 3, 3, 3)))),
    ("output padding", lambda m, x: m.nn.functional.conv_transpose2d(x((2, 3, 8, 8)), x((3, 3, 3, 3)),
                                                                     output_padding=2)),
    ("pool too small", lambda m, x: m.nn.functional.max_pool2d(x((2, 3, 8, 8)), 9)),
    ("pool pad", lambda m, x: m.nn.functional.max_pool2d(x((2, 3, 8, 8)), 3, padding=2)),
    ("pool stride 0", lambda m, x: m.nn.functional.max_pool2d(x((2, 3, 8, 8)), 2, stride=0)),
    ("pool 2-d", lambda m, x: m.nn.functional.max_pool2d(x((8, 8)), 2)),
    ("avg too small", lambda m, x: m.nn.functional.avg_pool2d(x((2, 3, 8, 8)), 9)),
    ("avg pad", lambda m, x: m.nn.functional.avg_pool2d(x((2, 3, 8, 8)), 3, padding=2)),
    ("avg divisor 0", lambda m, x: m.nn.functional.avg_pool2d(x((2, 3, 8, 8)), 2, divisor_override=0)),
    ("adaptive avg 1-d", lambda m, x: m.nn.functional.adaptive_avg_pool2d(x((8,)), 2)),
    ("adaptive max 1-d", lambda m, x: m.nn.functional.adaptive_max_pool2d(x((8,)), 2)),
    ("max_pool1d 1-d", lambda m, x: m.nn.functional.max_pool1d(x((8,)), 2)),
    ("max_pool1d too small", lambda m, x: m.nn.functional.max_pool1d(x((1, 2, 8)), 9)),
    ("avg_pool1d too small", lambda m, x: m.nn.functional.avg_pool1d(x((1, 2, 8)), 9)),
    ("Conv2d channels", lambda m, x: m.nn.Conv2d(4, 5, 3)(x((2, 3, 8, 8)))),
    ("Conv2d groups in", lambda m, x: m.nn.Conv2d(3, 6, 3, groups=2)),
    ("Conv2d groups out", lambda m, x: m.nn.Conv2d(4, 6, 3, groups=4)),
    ("Conv2d groups 0", lambda m, x: m.nn.Conv2d(4, 6, 3, groups=0)),
    ("Conv2d same strided", lambda m, x: m.nn.Conv2d(4, 6, 3, padding="same", stride=2)),
    ("Conv2d bad padding", lambda m, x: m.nn.Conv2d(4, 6, 3, padding="foo")),
    ("Conv2d bad mode", lambda m, x: m.nn.Conv2d(4, 6, 3, padding_mode="foo")),
    ("ConvTranspose2d mode", lambda m, x: m.nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect")),
]


@pytest.mark.parametrize("name,make", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(torch, name, make):
    def run(mod):
        try:
            make(mod, lambda shape: mod.zeros(shape))
        except Exception as e:  # noqa: BLE001  (the type is what is compared)
            return type(e), str(e)
        return None, None

    def canonical(text):
        # PyTorch prints Python sets here: their order follows the process's string hashes
        return re.sub(r"\{[^}]*\}", lambda m: str(sorted(m.group(0)[1:-1].split(", "))), text)

    ours, theirs = run(tt), run(torch)
    assert theirs[0] is not None
    assert ours[0] is theirs[0] and canonical(ours[1].replace("tinytorch.", "torch.")) == canonical(theirs[1])


def test_pooling_outputs_never_alias_their_input():
    x = tt.tensor(np.arange(16.0).reshape(1, 1, 4, 4))
    for y in (F.max_pool2d(x, 1), F.avg_pool2d(x, 1), F.adaptive_avg_pool2d(x, 4), F.adaptive_max_pool2d(x, 4)):
        y.add_(100.0)
        np.testing.assert_array_equal(x.numpy(), np.arange(16.0).reshape(1, 1, 4, 4))


def test_pooled_padded_buffers_keep_their_zeros_across_geometries():
    """Two inputs whose padded copies have one shape but their interiors at other places, in turn
    (hypothesis found the second reading the first's rows where its zeros should be)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    tall, short = rng.standard_normal((1, 2, 3, 9)), rng.standard_normal((1, 2, 1, 7))
    w = rng.standard_normal((2, 1, 1, 1))
    for x, p in [(tall, 0), (short, 1), (tall, 0), (short, 1)]:
        got = F.conv2d(tt.tensor(x), tt.tensor(w), padding=p, groups=2)
        want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=p, groups=2)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
