"""Convolution and pooling ops against PyTorch: values (float32, float64), gradients, second
derivatives, grad_fn names, indices, odd shapes and error texts; gradcheck/gradgradcheck in float64."""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytorch as tt
import tinytorch.nn.functional as F
from tinytorch._ops._core.paths import REFERENCE
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
    # strides too: a batch of one's size-1 dim has PyTorch's stride (the rest's size), not one numpy left
    assert y.stride() == ty.stride()
    g = _r(tuple(ty.shape), grad_seed, dtype)
    grads = tt.autograd.grad(y, ours, tt.tensor(g), create_graph=True)
    tgrads = torch.autograd.grad(ty, theirs, torch.tensor(g), create_graph=True)
    for a, b in zip(grads, tgrads):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol * scale * 10)
        assert a.stride() == b.stride()
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


def test_pooled_gradient_rows_of_another_geometry_do_not_leak(torch):
    # The backward lays the output gradient out as rows of the padded width, zero after each row's Wo
    # entries, in arrays pooled between calls. A 1x1 convolution fills whole rows; a 4x4 one of the same
    # output height and padded width fills two columns of five. The second once took the first one's array
    # (the same shape) and read its leftovers as gradient (found by a random sweep: ~1 call in 5,000).
    for k, h in ((1, 6), (4, 9)):
        arrays = [_r((2, 1, h, 5), k), _r((3, 1, k, k), k + 1)]
        ours = [tt.tensor(a, requires_grad=True) for a in arrays]
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        g = _r((2, 3, 6, 6 - k), 9)
        F.conv2d(*ours).backward(tt.tensor(g))
        torch.nn.functional.conv2d(*theirs).backward(torch.tensor(g))
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-10)


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


# -- bit for bit on exact inputs: small integers with signed zeros make every product and partial sum
# exact, and a sum of exact terms is -0.0 only when all of them are, in any order, so the results (signs
# of zeros included) cannot depend on the summation order and must be PyTorch's exactly; im2col's chunks
# of one or a few samples (a short last chunk included) run too


def _ints(rng, shape, dtype):
    v = rng.integers(-2, 3, shape).astype(dtype)
    return np.where(rng.random(shape) < 0.5, -v, v)  # -0.0 wherever a zero drew the minus sign


EXACT_CASES = [dict(stride=1, padding=0), dict(stride=1, padding=1), dict(stride=1, padding=(2, 0), dilation=(1, 2)),
         dict(stride=2, padding=1), dict(stride=(1, 2), padding=(0, 1)), dict(stride=1, padding=1, groups=2)]


@pytest.mark.bitexact
@pytest.mark.parametrize("chunk_bytes", [None, 3000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", EXACT_CASES)
def test_conv2d_and_its_gradients_match_torch_bitwise(kw, dtype, chunk_bytes, monkeypatch):
    torch = pytest.importorskip("torch")
    if chunk_bytes:
        if REFERENCE:
            pytest.skip("the reference makes one product of all samples: no chunks")
        from tinytorch._cpu import conv as _cpu_conv

        monkeypatch.setattr(_cpu_conv, "_CHUNK_BYTES", chunk_bytes)
    rng = np.random.default_rng(11)
    for n, k in ((5, 3), (3, (2, 3)), (7, 1)):
        g = kw.get("groups", 1)
        x = _ints(rng, (n, 2 * g, 9, 8), dtype)
        w = _ints(rng, (3 * g, 2, *((k, k) if isinstance(k, int) else k)), dtype)
        b = _ints(rng, (3 * g,), dtype)
        ours = [tt.tensor(a, requires_grad=True) for a in (x, w, b)]
        theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
        y, ty = F.conv2d(*ours, **kw), torch.nn.functional.conv2d(*theirs, **kw)
        # PyTorch's float64 strided/dilated forward starts its sums from +0.0: zeros' signs differ there
        np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
        gy = _ints(rng, tuple(ty.shape), dtype)
        for a, t in zip(tt.autograd.grad(y, ours, tt.tensor(gy)), torch.autograd.grad(ty, theirs, torch.tensor(gy))):
            assert a.numpy().tobytes() == t.numpy().tobytes()


# -- max_pool's argmax on tie-heavy inputs: small integers, signed zeros and infinities make most windows
# hold several maxima, so the first-in-row-major-order rule (the row picked first, then the column inside
# it) decides the indices and where the gradient goes


GEOMETRIES = [(2, 2, 0, 1), (3, 3, 0, 1), (3, 2, 1, 1), ((2, 3), (1, 2), 0, 1), (3, 1, 1, 2), ((3, 2), 1, (1, 0), (2, 1)),
              (2, 1, 0, 1), (4, 4, 2, 1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k,s,p,d", GEOMETRIES)
def test_max_pool2d_ties_match_torch(k, s, p, d, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for trial in range(6):
        shape = (2, 3, int(rng.integers(5, 11)), int(rng.integers(5, 11)))
        if trial % 3 == 0:
            x = rng.integers(-1, 2, shape).astype(dtype)
        elif trial % 3 == 1:
            x = rng.choice(np.array([0.0, -0.0, 1.0, np.inf], dtype), shape)
        else:
            x = np.round(rng.standard_normal(shape), 0).astype(dtype)
        kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, return_indices=True)
        xt, xo = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        (y, i), (ty, ti) = F.max_pool2d(xt, **kw), torch.nn.functional.max_pool2d(xo, **kw)
        assert y.detach().numpy().tobytes() == ty.detach().numpy().tobytes()
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        gy = rng.standard_normal(tuple(ty.shape)).astype(dtype)
        y.backward(tt.tensor(gy))
        ty.backward(torch.tensor(gy))
        # overlapping windows sum several gradients into one input: their order may round differently
        np.testing.assert_allclose(xt.grad.numpy(), xo.grad.numpy(), rtol=1e-6, atol=1e-6 * np.abs(gy).max())


@pytest.mark.parametrize("k,d", [((2, 3), (1, 2)), ((1, 3), (1, 15000)), ((2, 1), (1, 1))])
def test_max_pool2d_indices_of_very_wide_inputs_match_torch(k, d):
    """Offsets past 2**15 (the window's reach, or a row's length times the dilation) need wider integers."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal((1, 1, 2, 40000)).astype(np.float32)
    y, i = F.max_pool2d(tt.tensor(x), k, stride=1, dilation=d, return_indices=True)
    ty, ti = torch.nn.functional.max_pool2d(torch.tensor(x), k, stride=1, dilation=d, return_indices=True)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


@pytest.mark.parametrize("k,s,p,d,ceil", [(2, 1, 1, 1, False), (3, 2, 1, 1, True), (3, 1, (1, 0), (2, 1), False),
                                          ((2, 3), (1, 2), (1, 1), 1, True), (5, 2, 2, 1, False)])
def test_max_pool2d_all_lowest_windows_point_inside(k, s, p, d, ceil):
    """A padded window whose values are all -inf: PyTorch's argmax stays on the window's first tap inside
    the input (it starts there), so indices and gradients never point at the padding."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    for trial in range(5):
        x = rng.standard_normal((2, 2, int(rng.integers(4, 9)), int(rng.integers(4, 9)))).astype(np.float32)
        x[rng.random(x.shape) < 0.8] = -np.inf
        kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=ceil, return_indices=True)
        xt, xo = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        (y, i), (ty, ti) = F.max_pool2d(xt, **kw), torch.nn.functional.max_pool2d(xo, **kw)
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        assert y.detach().numpy().tobytes() == ty.detach().numpy().tobytes()
        g = rng.standard_normal(tuple(ty.shape)).astype(np.float32)
        (y * tt.tensor(g)).sum().backward()
        (ty * torch.tensor(g)).sum().backward()
        # where windows overlap, a cell's gradients are summed in another order than PyTorch's (1-ulp noise)
        np.testing.assert_allclose(xt.grad.numpy(), xo.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("k,s,p,d", [(3, 2, 1, 1), (2, 1, 1, 1), ((3, 2, 3), (1, 2, 1), (1, 1, 0), (1, 1, 2))])
def test_max_pool3d_all_lowest_windows_point_inside(k, s, p, d):
    """max_pool3d's padded windows of all -inf point at their first tap inside the input, as PyTorch's."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    for trial in range(4):
        x = rng.standard_normal((1, 2, 5, 4, 6)).astype(np.float32)
        x[rng.random(x.shape) < 0.85] = -np.inf
        kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, return_indices=True)
        xt, xo = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        (y, i), (ty, ti) = F.max_pool3d(xt, **kw), torch.nn.functional.max_pool3d(xo, **kw)
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        assert y.detach().numpy().tobytes() == ty.detach().numpy().tobytes()
        g = rng.standard_normal(tuple(ty.shape)).astype(np.float32)
        (y * tt.tensor(g)).sum().backward()
        (ty * torch.tensor(g)).sum().backward()
        np.testing.assert_allclose(xt.grad.numpy(), xo.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_conv_input_gradients_after_another_geometry_of_the_same_planes(torch):
    """The input gradient's pooled column buffers are per output size: a convolution whose padded planes,
    channels and kernel match the previous one's but whose output is smaller (another dilation or stride) once
    read the previous one's columns past its own (a hypothesis example found it, 4.4 off PyTorch)."""
    x = _r((1, 2, 9, 9), 0)
    w = _r((4, 1, 3, 3), 1)
    for kw in (dict(groups=2), dict(groups=2, dilation=2), dict(groups=2, stride=2), dict(groups=2, dilation=2),
               dict(groups=2), dict(groups=2, stride=3)):
        got = []
        for lib in (tt, torch):
            xt = lib.tensor(x, requires_grad=True)
            y = lib.nn.functional.conv2d(xt, lib.tensor(w), **kw)
            g = _r(tuple(y.shape), 9)
            got.append(lib.autograd.grad(y, xt, lib.tensor(g))[0].detach().numpy())
        np.testing.assert_allclose(got[0], got[1], rtol=1e-10, atol=1e-10, err_msg=str(kw))


# (conv, input shape, weight shape, groups): batches of one and more, kernels up to and past 3x3, images past
# 20480 elements in their first four dims, groups: what decides whether PyTorch's float32 convolution runs
# oneDNN, whose dtype errors are worded otherwise than its native kernel's
_DTYPE_CASES = [
    ("conv2d", (1, 1, 5, 5), (2, 1, 3, 3), 1), ("conv2d", (1, 1, 6, 6), (2, 1, 5, 5), 1),
    ("conv2d", (4, 1, 5, 5), (2, 1, 3, 3), 1), ("conv2d", (1, 3, 100, 100), (2, 3, 3, 3), 1),
    ("conv2d", (1, 2, 5, 5), (2, 1, 3, 3), 2), ("conv1d", (1, 1, 9), (2, 1, 5), 1), ("conv1d", (3, 1, 9), (2, 1, 3), 1),
    ("conv3d", (2, 1, 4, 4, 4), (2, 1, 2, 2, 2), 1), ("conv_transpose2d", (1, 1, 4, 4), (1, 2, 3, 3), 1),
    ("conv_transpose2d", (3, 1, 4, 4), (1, 2, 3, 3), 1),
]


@pytest.mark.parametrize("conv, x_shape, w_shape, groups", _DTYPE_CASES)
@pytest.mark.parametrize("x_dtype, w_dtype, b_dtype", [
    ("float64", "float32", "float32"), ("float64", "float32", None), ("float32", "float64", None),
    ("float32", "float64", "float32"), ("float32", "float64", "float64"), ("float64", "float32", "float64"),
    ("float32", "float32", "float64")])
def test_mixed_dtypes_raise_pytorchs_error(torch, conv, x_shape, w_shape, groups, x_dtype, w_dtype, b_dtype):
    """A float64 batch (numpy's default) into a float32 model's convolution: PyTorch checks the bias first, then
    the weight, in its native kernel's words or oneDNN's by the path it takes."""
    def error(lib):
        out_c = w_shape[1] * groups if conv.startswith("conv_transpose") else w_shape[0]
        bias = None if b_dtype is None else lib.ones(out_c, dtype=getattr(lib, b_dtype))
        try:
            getattr(lib.nn.functional, conv)(lib.ones(x_shape, dtype=getattr(lib, x_dtype)),
                                             lib.ones(w_shape, dtype=getattr(lib, w_dtype)), bias, groups=groups)
        except RuntimeError as e:
            return str(e).replace("tinytorch.", "torch.")
        return "taken"

    theirs = error(torch)
    if theirs == "taken":  # PyTorch's native transposed kernel adds a bias of another dtype: refused here
        assert conv.startswith("conv_transpose") and x_dtype == w_dtype
        assert "bias type" in error(tt)
    else:
        assert error(tt) == theirs
