"""interpolate, unfold/fold and their modules (Upsample, Fold, Unfold), against PyTorch and finite differences."""
import numpy as np
import pytest
from _layer_compare import compare, raises_like, rand
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytorch as tt
import tinytorch.nn as nn
import tinytorch.nn.functional as F
from tinytorch.autograd import gradcheck, gradgradcheck

# -- interpolate ----------------------------------------------------------------------------------
RESIZES = [
    ((2, 3, 5, 7), dict(scale_factor=2)), ((2, 3, 5, 7), dict(size=(3, 4))), ((2, 3, 5, 7), dict(size=(11, 13))),
    ((2, 3, 5, 7), dict(scale_factor=1.7)), ((2, 3, 5, 7), dict(scale_factor=(0.6, 2.3))),
    ((1, 2, 4, 6), dict(size=5, mode="nearest-exact")), ((1, 2, 4, 6), dict(scale_factor=2.5, mode="nearest-exact")),
    ((2, 3, 5, 7), dict(size=(8, 9), mode="bilinear")),
    ((2, 3, 5, 7), dict(size=(8, 9), mode="bilinear", align_corners=True)),
    ((2, 3, 5, 7), dict(scale_factor=1.3, mode="bilinear")), ((2, 3, 5, 7), dict(size=(3, 2), mode="bilinear")),
    ((2, 3, 5, 7), dict(scale_factor=2.5, mode="bilinear", recompute_scale_factor=True)),
    ((2, 3, 5, 7), dict(size=(1, 1), mode="bilinear", align_corners=True)),
    ((1, 1, 1, 1), dict(size=(3, 2), mode="bilinear")), ((2, 3, 5, 7), dict(size=(5, 7), mode="bilinear")),
    ((2, 3, 6), dict(scale_factor=2)), ((2, 3, 6), dict(size=4, mode="linear")),
    ((2, 3, 6), dict(size=9, mode="linear", align_corners=True)),
    ((1, 2, 2, 3, 4), dict(scale_factor=2)), ((1, 2, 2, 3, 4), dict(size=(3, 4, 2), mode="trilinear")),
    ((1, 2, 2, 3, 4), dict(scale_factor=(1.5, 2, 0.5), mode="trilinear", align_corners=True)),
    # an unchanged size: bicubic still resamples by the scale factor and copies the gradient back, linear copies
    ((1, 2, 5, 5), dict(scale_factor=1.1, mode="bicubic")), ((1, 2, 5, 5), dict(scale_factor=1.1, mode="bilinear")),
    ((1, 2, 5, 6), dict(size=(5, 10), mode="bicubic")),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,kwargs", RESIZES, ids=[f"{s}{k}" for s, k in RESIZES])
def test_interpolate_matches_torch(torch, dtype, shape, kwargs):
    compare(torch, lambda lib, x: lib.nn.functional.interpolate(x, **kwargs), [rand(shape, 0, dtype)])


# antialiased resizing: windows of 3 to 58 taps, shrinking and growing, both filters
ANTIALIASED = [((2, 3, 40, 50), (20, 25)), ((1, 2, 13, 17), (5, 31)), ((1, 1, 64, 64), (17, 9)),
               ((2, 1, 7, 9), (7, 4)), ((1, 2, 30, 20), (45, 11)), ((1, 1, 100, 3), (9, 3)), ((1, 1, 200, 5), (7, 2))]


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shape,size", ANTIALIASED, ids=[f"{s}->{o}" for s, o in ANTIALIASED])
def test_antialiased_interpolate_bits(torch, dtype, mode, align_corners, shape, size):
    """PyTorch's window walk (``_kernels/resample_aa``) and its filter weights, rounded as its FMA builds
    round them; on its DEFAULT build (no FMA) within 16 ulps of the output's magnitude (measured: 14)."""
    from _paths import assert_bits
    x = (np.random.default_rng(sum(shape)).standard_normal(shape) * 50).astype(dtype)
    kw = dict(size=size, mode=mode, antialias=True, align_corners=align_corners)
    xo, xt = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours, theirs = F.interpolate(xo, **kw), torch.nn.functional.interpolate(xt, **kw)
    assert_bits(ours.detach().numpy(), theirs.detach().numpy(), ulps=16, scale="max", what="forward")
    # the gradient: the adjoint of the same weights (PyTorch's backward kernel scatters in its own order)
    g = np.random.default_rng(1).standard_normal(theirs.shape).astype(dtype)
    ours.backward(tt.tensor(g))
    theirs.backward(torch.tensor(g))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=tol, atol=tol * float(np.abs(g).max()) * 8)


@pytest.mark.parametrize("kwargs", [dict(scale_factor=1.5), dict(size=(4, 2), mode="bilinear"),
                                    dict(scale_factor=1.7, mode="bilinear", align_corners=True),
                                    dict(size=(5, 3), mode="nearest-exact")])
def test_interpolate_gradcheck_and_gradgradcheck(kwargs):
    x = tt.tensor(rand((1, 2, 3, 4)), requires_grad=True)
    assert gradcheck(lambda x: F.interpolate(x, **kwargs), (x,))
    assert gradgradcheck(lambda x: F.interpolate(x, **kwargs) ** 2, (x,))


@settings(max_examples=20, deadline=None)
@given(h=st.integers(1, 6), w=st.integers(1, 6), oh=st.integers(1, 9), ow=st.integers(1, 9),
       mode=st.sampled_from(["nearest", "nearest-exact", "bilinear", "bilinear-ac"]), by_scale=st.booleans())
def test_interpolate_hypothesis(h, w, oh, ow, mode, by_scale):
    torch = pytest.importorskip("torch")
    kwargs = dict(mode="bilinear", align_corners=True) if mode == "bilinear-ac" else dict(mode=mode)
    if by_scale:
        kwargs["scale_factor"] = (oh / 3, ow / 4)
        if int(h * oh / 3) < 1 or int(w * ow / 4) < 1:
            return
    else:
        kwargs["size"] = (oh, ow)
    compare(torch, lambda lib, x: lib.nn.functional.interpolate(x, **kwargs), [rand((2, 2, h, w), oh * ow)])


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 3, 4)),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 3, 4), size=2, scale_factor=2),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 3, 4), size=(2, 3, 4)),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 3, 4), scale_factor=(2, 3, 4)),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 3, 4), scale_factor=2, align_corners=True),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 3, 4), scale_factor=2, mode="linear"),
    lambda lib: lib.nn.functional.interpolate(lib.ones(2, 3, 4), scale_factor=2, mode="bilinear"),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 3, 4), scale_factor=2, mode="foo"),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 3, 4), scale_factor=0.1),
    lambda lib: lib.nn.functional.interpolate(lib.ones(3, 4), scale_factor=2),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 2, 2), size=3, recompute_scale_factor=True),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 3, 4, dtype=lib.long), scale_factor=2),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 3, 4, dtype=lib.long), scale_factor=2, mode="bilinear"),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 3, dtype=lib.long), scale_factor=2, mode="linear"),
], ids=["none", "both", "size_len", "scale_len", "align_nearest", "linear_4d", "bilinear_3d", "mode", "zero_out",
        "2d", "recompute_with_size", "long_nearest", "long_bilinear", "long_linear"])
def test_interpolate_errors_match_torch(torch, fn):
    raises_like(torch, fn)


UPSAMPLES = [("Upsample", dict(scale_factor=2)), ("Upsample", dict(size=3, mode="bilinear")),
             ("Upsample", dict(size=(3, 4), mode="bilinear", align_corners=True)),
             ("Upsample", dict(scale_factor=(2, 3))), ("Upsample", dict(scale_factor=1.5, mode="nearest-exact")),
             ("UpsamplingNearest2d", dict(scale_factor=2)), ("UpsamplingBilinear2d", dict(size=(5, 3)))]


@pytest.mark.parametrize("name,kwargs", UPSAMPLES, ids=[f"{n}{k}" for n, k in UPSAMPLES])
def test_upsample_modules_match_torch(torch, name, kwargs):
    ours, theirs = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(ours) == repr(theirs)
    compare(torch, lambda lib, x, o=ours, t=theirs: (o if lib is tt else t)(x), [rand((2, 3, 4, 5), 0, np.float32)])


# -- unfold / fold --------------------------------------------------------------------------------
FOLDS = [dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), dict(kernel_size=1),
         dict(kernel_size=3, padding=1), dict(kernel_size=2, stride=3), dict(kernel_size=(5, 1), padding=(0, 2)),
         dict(kernel_size=2, dilation=2, stride=2)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kwargs", FOLDS, ids=[str(k) for k in FOLDS])
@pytest.mark.parametrize("batched", [True, False])
def test_unfold_and_fold_match_torch(torch, dtype, kwargs, batched):
    shape = (2, 3, 5, 6) if batched else (3, 5, 6)
    y, ty = compare(torch, lambda lib, x: lib.nn.functional.unfold(x, **kwargs), [rand(shape, 0, dtype)])
    cols = rand(tuple(ty.shape), 1, dtype)
    compare(torch, lambda lib, c: lib.nn.functional.fold(c, (5, 6), **kwargs), [cols])


def test_unfold_fold_gradcheck_and_gradgradcheck(torch):
    x = tt.tensor(rand((2, 2, 4, 5)), requires_grad=True)
    assert gradcheck(lambda x: F.unfold(x, 2, padding=1, stride=2), (x,))
    assert gradgradcheck(lambda x: F.unfold(x, 2, padding=1, stride=2) ** 2, (x,))
    c = tt.tensor(rand((2, 8, 9)), requires_grad=True)
    assert gradcheck(lambda c: F.fold(c, (4, 5), 2, padding=1, stride=2), (c,))
    assert gradgradcheck(lambda c: F.fold(c, (4, 5), 2, padding=1, stride=2) ** 2, (c,))
    # the double-backward nodes are each other's: unfold's gradient is a fold, and back
    for lib in (tt, torch):
        a = lib.tensor(rand((1, 2, 4, 5)), requires_grad=True)
        y = lib.nn.functional.unfold(a, 2)
        (g,) = lib.autograd.grad(y, a, lib.ones_like(y, requires_grad=True), create_graph=True)
        assert g.grad_fn.name() == "Col2ImBackward0"


@settings(max_examples=20, deadline=None)
@given(h=st.integers(1, 7), w=st.integers(1, 7), k=st.tuples(st.integers(1, 3), st.integers(1, 3)),
       d=st.integers(1, 2), p=st.integers(0, 2), s=st.tuples(st.integers(1, 3), st.integers(1, 3)))
def test_unfold_fold_hypothesis(h, w, k, d, p, s):
    torch = pytest.importorskip("torch")
    if any((n + 2 * p - d * (kk - 1) - 1) < 0 for n, kk in ((h, k[0]), (w, k[1]))):
        return
    kwargs = dict(kernel_size=k, dilation=d, padding=p, stride=s)
    _, ty = compare(torch, lambda lib, x: lib.nn.functional.unfold(x, **kwargs), [rand((2, 2, h, w), h * w)])
    compare(torch, lambda lib, c: lib.nn.functional.fold(c, (h, w), **kwargs), [rand(tuple(ty.shape), 3)])


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.unfold(lib.ones(3, 4), 2),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6), 7),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6), 0),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6), 2, stride=0),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6), 2, padding=-1),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6), 2, dilation=0),
    lambda lib: lib.nn.functional.fold(lib.ones(2, 12, 20), (6, 6), 2),
    lambda lib: lib.nn.functional.fold(lib.ones(2, 13, 20), (5, 6), 2),
    lambda lib: lib.nn.functional.fold(lib.ones(20), (5, 6), 2),
    lambda lib: lib.nn.functional.fold(lib.ones(2, 12, 20), (5, 6), (2, 2, 2)),
    lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 5, 6, dtype=lib.long), 2),
    lambda lib: lib.nn.functional.fold(lib.ones(2, 12, 20, dtype=lib.long), (5, 6), 2),
], ids=["unfold_2d", "kernel_too_big", "kernel_0", "stride_0", "pad_neg", "dilation_0", "fold_blocks", "fold_div",
        "fold_1d", "fold_kernel_len", "unfold_long", "fold_long"])
def test_unfold_fold_errors_match_torch(torch, fn):
    raises_like(torch, fn)


def test_fold_unfold_modules_match_torch(torch):
    for (ours, theirs), shape in [((nn.Unfold(2, padding=1), torch.nn.Unfold(2, padding=1)), (2, 3, 4, 5)),
                                  ((nn.Unfold((2, 3), stride=2), torch.nn.Unfold((2, 3), stride=2)), (1, 2, 5, 7)),
                                  ((nn.Fold((4, 5), 2, padding=1), torch.nn.Fold((4, 5), 2, padding=1)), (2, 12, 30))]:
        assert repr(ours) == repr(theirs)
        compare(torch, lambda lib, x, o=ours, t=theirs: (o if lib is tt else t)(x), [rand(shape, 0, np.float32)])


@pytest.mark.parametrize("kwargs", [dict(scale_factor=2), dict(scale_factor=2, mode="bilinear"),
                                    dict(size=5, mode="nearest-exact"), dict(size=7, mode="linear")])
def test_interpolate_double_backward_node_names(torch, kwargs):
    names = []
    for lib in (tt, torch):
        a = lib.ones(1, 2, 3, 4, requires_grad=True) if kwargs.get("mode") != "linear" else \
            lib.ones(1, 2, 3, requires_grad=True)
        y = lib.nn.functional.interpolate(a, **kwargs)
        (g,) = lib.autograd.grad(y, a, lib.ones_like(y, requires_grad=True), create_graph=True)
        names.append(g.grad_fn.name())
    assert names[0] == names[1]


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialiased_interpolate_to_the_same_size_is_a_new_tensor(torch, mode):
    """No axis to resample: the result is a copy in PyTorch, so writing into it leaves the input alone."""
    for lib in (torch, tt):
        x = lib.zeros(1, 1, 4, 4)
        lib.nn.functional.interpolate(x, size=(4, 4), mode=mode, antialias=True).add_(1)
        assert float(x.sum()) == 0.0, lib.__name__
