"""batch_norm, layer_norm, group_norm and their modules, against PyTorch and finite differences."""
import numpy as np
import pytest
from _layer_compare import compare, raises_like, rand
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytorch as tt
import tinytorch.nn as nn
from tinytorch.autograd import gradcheck, gradgradcheck


def _bn(lib, x, w, b, rm, rv, training, momentum=0.1):
    return lib.nn.functional.batch_norm(x, rm, rv, w, b, training=training, momentum=momentum, eps=1e-3)


# -- functional forms: values, gradients, grad_fn names -------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 4, 5), (1, 2, 3, 1), (2, 1, 2, 2, 3)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_matches_torch(torch, dtype, shape, training):
    c = shape[1]
    x, w, b = rand(shape, 0, dtype), rand(c, 1, dtype), rand(c, 2, dtype)
    rm, rv = rand(c, 3, dtype), np.abs(rand(c, 4, dtype)) + 0.5
    stats = {}

    def fn(lib, x, w, b):
        m, v = lib.tensor(rm), lib.tensor(rv)
        out = _bn(lib, x, w, b, m, v, training)
        stats[lib.__name__] = (m.numpy(), v.numpy())
        return out

    compare(torch, fn, [x, w, b])
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for ours, theirs in zip(stats["tinytorch"], stats["torch"]):
        np.testing.assert_allclose(ours, theirs, **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,normalized", [((3, 5), (5,)), ((2, 3, 4), (3, 4)), ((4,), (4,)), ((2, 1, 3), (1, 3)),
                                              ((2, 3, 1), (1,))])
def test_layer_norm_matches_torch(torch, dtype, shape, normalized):
    w, b = rand(normalized, 1, dtype), rand(normalized, 2, dtype)
    compare(torch, lambda lib, x, w, b: lib.nn.functional.layer_norm(x, normalized, w, b, 1e-4),
            [rand(shape, 0, dtype), w, b])
    compare(torch, lambda lib, x: lib.nn.functional.layer_norm(x, normalized), [rand(shape, 0, dtype)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layer_norm_of_a_transposed_input_matches_torch(torch, dtype):
    # its normalised input comes out in Fortran order, which the fused backward kernel does not take
    compare(torch, lambda lib, x: lib.nn.functional.layer_norm(x.t(), (4,)), [rand((4, 6), 0, dtype)])
    compare(torch, lambda lib, x, w, b: lib.nn.functional.layer_norm(x.t(), (4,), w, b),
            [rand((4, 6), 0, dtype), rand(4, 1, dtype), rand(4, 2, dtype)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,groups", [((2, 6, 5), 3), ((2, 4, 3, 3), 2), ((1, 3, 2), 3), ((3, 4), 1),
                                          ((2, 4, 1, 2, 3), 4)])
def test_group_norm_matches_torch(torch, dtype, shape, groups):
    c = shape[1]
    compare(torch, lambda lib, x, w, b: lib.nn.functional.group_norm(x, groups, w, b, 1e-4),
            [rand(shape, 0, dtype), rand(c, 1, dtype), rand(c, 2, dtype)])
    compare(torch, lambda lib, x: lib.nn.functional.group_norm(x, groups), [rand(shape, 0, dtype)])


@pytest.mark.parametrize("norm", ["layer_norm", "group_norm", "batch_norm"])
@pytest.mark.parametrize("x_dtype, p_dtype", [("float64", "float32"), ("float32", "float64"), ("float32", "float16"),
                                              ("float32", "bfloat16"), ("bfloat16", "float32")])
def test_norms_of_mixed_dtypes_as_pytorch(torch, norm, x_dtype, p_dtype):
    """A float64 input to a float32 model's norm layer is refused, in PyTorch's CPU words; a bfloat16 input
    with float32 parameters is the one mixed call taken (the output in the input's dtype)."""
    def outcome(lib):
        x, p = lib.ones(4, 2, 3, dtype=getattr(lib, x_dtype)), lib.ones(2, dtype=getattr(lib, p_dtype))
        F = lib.nn.functional
        call = {"layer_norm": lambda: F.layer_norm(x, (3,), lib.ones(3, dtype=p.dtype), lib.zeros(3, dtype=p.dtype)),
                "group_norm": lambda: F.group_norm(x, 1, p, p),
                "batch_norm": lambda: F.batch_norm(x, None, None, p, p, True)}[norm]
        try:
            return str(call().dtype).rpartition(".")[2]
        except RuntimeError as e:
            return str(e)

    assert outcome(tt) == outcome(torch)


def test_norm_next_functions_follow_torch(torch):
    x = rand((2, 3, 4))
    for fn in [lambda lib, x, w: lib.nn.functional.layer_norm(x, (4,), None, w),
               lambda lib, x, w: lib.nn.functional.group_norm(x, 1, None, w[:3]),
               lambda lib, x, w: lib.nn.functional.batch_norm(x, None, None, w[:3], None, True)]:
        y = fn(tt, tt.tensor(x), tt.tensor(rand(4), requires_grad=True))
        ty = fn(torch, torch.tensor(x), torch.tensor(rand(4), requires_grad=True))
        ours = [type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions]
        theirs = [n.name().split("::")[-1] if n is not None else None for n, _ in ty.grad_fn.next_functions]
        assert ours == theirs


# -- derivatives of first and second order (float64 finite differences) ---------------------------
@pytest.mark.parametrize("fn", [
    lambda x, w, b: tt.nn.functional.batch_norm(x, None, None, w, b, True),
    lambda x, w, b: tt.nn.functional.batch_norm(x, tt.zeros(3, dtype=tt.float64), tt.ones(3, dtype=tt.float64) * 2,
                                                w, b, False),
    lambda x, w, b: tt.nn.functional.layer_norm(x, (2,), w[:2], b[:2]),
    lambda x, w, b: tt.nn.functional.layer_norm(x, (3, 2), None, None),
    lambda x, w, b: tt.nn.functional.group_norm(x, 3, w, b),
    lambda x, w, b: tt.nn.functional.group_norm(x, 1, w, None),
], ids=["bn_train", "bn_eval", "ln_affine", "ln_plain", "gn3", "gn1"])
def test_norm_gradcheck_and_gradgradcheck(fn):
    x = tt.tensor(rand((3, 3, 2), 0), requires_grad=True)
    w = tt.tensor(rand(3, 1), requires_grad=True)
    b = tt.tensor(rand(3, 2), requires_grad=True)
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_batch_norm_second_derivative_matches_torch(torch):
    x = rand((4, 2, 3))

    def hess_vec(lib):
        a = lib.tensor(x, requires_grad=True)
        w = lib.tensor([1.5, -0.5], dtype=lib.float64, requires_grad=True)
        y = lib.nn.functional.batch_norm(a, None, None, w, None, True)
        g, gw = lib.autograd.grad((y ** 3).sum(), (a, w), create_graph=True)
        return lib.autograd.grad((g * g).sum() + gw.sum(), (a, w))

    for ours, theirs in zip(hess_vec(tt), hess_vec(torch)):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-9, atol=1e-9)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 3), c=st.integers(1, 4), rest=st.lists(st.integers(1, 4), min_size=0, max_size=2),
       seed=st.integers(0, 1000))
def test_norms_hypothesis_shapes(n, c, rest, seed):
    torch = pytest.importorskip("torch")
    shape = (n, c, *rest)
    # float64: two nearly equal values normalise to +-1 with float32 cancellation that differs by kernel
    x = rand(shape, seed)
    if n * int(np.prod(rest)) > 1:
        compare(torch, lambda lib, x, w: lib.nn.functional.batch_norm(x, None, None, w, None, True),
                [x, rand(c, seed + 1)])
        # (PyTorch's group_norm backward fails with a bias but no weight: "tensor does not have a device")
        compare(torch, lambda lib, x, w, b: lib.nn.functional.group_norm(x, c, w, b), [x, rand(c, seed), rand(c, 1)])
    compare(torch, lambda lib, x: lib.nn.functional.layer_norm(x, shape[-1:]), [x])


# -- errors ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.batch_norm(lib.ones(1, 3), lib.zeros(3), lib.ones(3), training=True),
    lambda lib: lib.nn.functional.batch_norm(lib.ones(1, 3, 1), None, None, training=True),
    lambda lib: lib.nn.functional.batch_norm(lib.ones(4, 3, 5), None, None, training=False),
    lambda lib: lib.nn.functional.batch_norm(lib.ones(4, 3, 5), lib.zeros(4), lib.ones(4)),
    lambda lib: lib.nn.functional.batch_norm(lib.ones(4, 3, 5), lib.zeros(3), lib.ones(3), weight=lib.ones(4)),
    lambda lib: lib.nn.functional.layer_norm(lib.ones(4, 3, 5), (4,)),
    lambda lib: lib.nn.functional.layer_norm(lib.ones(4, 3, 5), (3, 5), weight=lib.ones(5)),
    lambda lib: lib.nn.functional.group_norm(lib.ones(4, 3, 5), 2),
    lambda lib: lib.nn.functional.group_norm(lib.ones(4, 3, 5), 3, weight=lib.ones(4)),
    lambda lib: lib.nn.functional.group_norm(lib.ones(3), 3),
    lambda lib: lib.nn.functional.group_norm(lib.ones(1, 2), 2),
    lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 3), None, None, training=True, eps=0.0),
    lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(1, 3)),
    lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(3)),
    lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 3, 3)),
    lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 4, 3, 3)),
    lambda lib: lib.nn.GroupNorm(2, 3),
    lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3, dtype=lib.long), (3,)),
    lambda lib: lib.nn.functional.group_norm(lib.ones(2, 3, 2, dtype=lib.long), 3),
    lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 3, dtype=lib.long), None, None, training=True),
], ids=["bn_one_value", "bn_one_value_3d", "bn_eval_no_stats", "bn_stats_size", "bn_weight_size", "ln_shape",
        "ln_weight", "gn_groups", "gn_weight", "gn_1d", "gn_one_value", "bn_eps", "BN1d_one_value", "BN1d_dims", "BN2d_dims", "BN2d_channels",
        "GN_ctor", "ln_long", "gn_long", "bn_long"])
def test_norm_errors_match_torch(torch, fn):
    raises_like(torch, fn)


# -- modules --------------------------------------------------------------------------------------
def _pair(torch, name, *args, **kwargs):
    return getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"momentum": None}, {"momentum": 0.3, "affine": False},
                                    {"track_running_stats": False}, {"bias": False, "eps": 1e-3}])
@pytest.mark.parametrize("name,shape", [("BatchNorm1d", (5, 3)), ("BatchNorm1d", (4, 3, 2)),
                                        ("BatchNorm2d", (2, 3, 4, 5)), ("BatchNorm3d", (2, 3, 2, 1, 2))])
def test_batchnorm_modules_over_steps_match_torch(torch, name, shape, kwargs):
    ours, theirs = _pair(torch, name, 3, **kwargs)
    assert repr(ours) == repr(theirs)
    for step in range(3):
        x = rand(shape, step, np.float32) * (step + 1) + step
        compare(torch, lambda lib, x, o=ours, t=theirs: (o if lib is tt else t)(x), [x])
    ours_sd, theirs_sd = ours.state_dict(), theirs.state_dict()
    assert list(ours_sd) == list(theirs_sd)
    for k in theirs_sd:
        assert str(ours_sd[k].dtype).replace("tinytorch", "torch") == str(theirs_sd[k].dtype)
        np.testing.assert_allclose(ours_sd[k].numpy(), theirs_sd[k].numpy(), rtol=1e-5, atol=1e-6)
    ours.eval()
    theirs.eval()
    x = rand((1,) + shape[1:], 9, np.float32)  # batch of one is fine in eval mode
    if kwargs.get("track_running_stats", True):
        compare(torch, lambda lib, x, o=ours, t=theirs: (o if lib is tt else t)(x), [x])
    else:
        compare(torch, lambda lib, x, o=ours, t=theirs: (o if lib is tt else t)(x), [rand(shape, 9, np.float32)])


def test_batchnorm_cumulative_average_and_num_batches(torch):
    bn = nn.BatchNorm1d(2, momentum=None)
    xs = [rand((4, 2), i, np.float32) for i in range(4)]
    for x in xs:
        bn(tt.tensor(x))
    assert bn.num_batches_tracked.item() == 4 and bn.num_batches_tracked.dtype == tt.int64
    # with momentum None the running mean is the plain average of the batch means
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean([x.mean(0) for x in xs], axis=0), rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(), np.mean([x.var(0, ddof=1) for x in xs], axis=0), rtol=1e-5)


def test_batchnorm_loads_torch_state_dict(torch):
    torch.manual_seed(0)  # the draw below must not decide the outcome
    theirs = torch.nn.Sequential(torch.nn.BatchNorm2d(3), torch.nn.LayerNorm(4), torch.nn.GroupNorm(1, 3))
    with torch.no_grad():
        for p in theirs.parameters():
            p.normal_()
    theirs(torch.randn(2, 3, 4, 4))
    theirs.eval()
    ours = nn.Sequential(nn.BatchNorm2d(3), nn.LayerNorm(4), nn.GroupNorm(1, 3)).eval()
    ours.load_state_dict({k: tt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert ours.state_dict()["0.num_batches_tracked"].item() == 1
    x = rand((2, 3, 4, 4), 5, np.float32)
    # three float32 normalisations in a row: rounding, not formulas, separates the two at 1e-5
    np.testing.assert_allclose(ours(tt.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-4,
                               atol=1e-4)
    # state_dicts from before num_batches_tracked existed still load
    old = {k: v for k, v in ours.state_dict().items() if "num_batches" not in k}
    ours.load_state_dict(old)


def test_norm_module_reprs_and_defaults(torch):
    pairs = [_pair(torch, "LayerNorm", 5), _pair(torch, "LayerNorm", (3, 4), elementwise_affine=False),
             _pair(torch, "LayerNorm", [2, 3], bias=False, eps=1e-3), _pair(torch, "GroupNorm", 2, 4),
             _pair(torch, "GroupNorm", 2, 4, affine=False), _pair(torch, "BatchNorm2d", 4, momentum=None),
             _pair(torch, "BatchNorm1d", 4, affine=False, track_running_stats=False)]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
        assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
               [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
        for k, v in theirs.state_dict().items():
            np.testing.assert_array_equal(ours.state_dict()[k].numpy(), v.numpy())
    model = nn.Sequential(nn.BatchNorm2d(3), nn.LayerNorm(4), nn.GroupNorm(1, 3))
    tmodel = torch.nn.Sequential(torch.nn.BatchNorm2d(3), torch.nn.LayerNorm(4), torch.nn.GroupNorm(1, 3))
    assert repr(model) == repr(tmodel)


def test_layer_and_group_norm_modules_match_torch(torch):
    for (ours, theirs), x in [(_pair(torch, "LayerNorm", (3, 4)), rand((2, 3, 4), 0, np.float32)),
                              (_pair(torch, "GroupNorm", 2, 4), rand((2, 4, 3), 0, np.float32))]:
        for m in (ours, theirs):
            m.weight.data.mul_(1.5).add_(0.25)
        compare(torch, lambda lib, x, o=ours, t=theirs: (o if lib is tt else t)(x), [x])
        assert np.allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-5, atol=1e-5)
        assert np.allclose(ours.bias.grad.numpy(), theirs.bias.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_training_steps_with_norm_layers_match_torch(torch):
    # Embedding -> LayerNorm -> Linear -> BatchNorm1d (cumulative average) -> Linear, SGD, same initial weights
    def build(lib):
        return lib.nn.Sequential(lib.nn.Embedding(7, 6, padding_idx=0), lib.nn.LayerNorm(6), lib.nn.Flatten(),
                                 lib.nn.Linear(18, 5), lib.nn.BatchNorm1d(5, momentum=None), lib.nn.ReLU(),
                                 lib.nn.Linear(5, 3))

    ours, theirs = build(tt), build(torch)
    ours.load_state_dict({k: tt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    opt = tt.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    topt = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(0)
    for _ in range(5):
        idx, target = rng.integers(0, 7, (8, 3)), rng.integers(0, 3, 8)
        losses = []
        for lib, model, o in ((tt, ours, opt), (torch, theirs, topt)):
            o.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(lib.tensor(idx)), lib.tensor(target))
            loss.backward()
            o.step()
            losses.append(loss.item())
        assert abs(losses[0] - losses[1]) < 1e-5
    for k, v in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[k].numpy(), v.numpy(), rtol=1e-4, atol=1e-5)


# -- float32 layer_norm: PyTorch's kernel, bit for bit with [fast] ----------------------------------
# ulps of each result's largest magnitude off PyTorch's FMA builds: its DEFAULT build rounds the kernel's
# multiply-adds twice (measured: 3 ulp at N=5000); without the compiled kernels (the numpy path) and under
# TINYTORCH_REFERENCE=1 tinytorch's statistics are numpy's pairwise sums, not the kernel's Welford steps
# (measured: 5 ulp at N=20 and N=5000)
LAYER_NORM_ULPS = 4
LAYER_NORM_REFERENCE_ULPS = 8


@pytest.mark.bitexact
@pytest.mark.parametrize("size", [1, 7, 8, 20, 32, 64, 100, 128, 136, 300, 1000, 4096, 5000])
def test_layer_norm_float32_is_pytorchs_kernel(torch, size):
    """Mean, rstd and output of native_layer_norm follow PyTorch's RowwiseMoments (8-lane Welford, chunks of
    16 vectors in a cascade, the leftover elements, then the lanes) and its fused scale and shift
    (``tinytorch/_cpu/norm.py``'s float32 path, the compiled kernels of ``[fast]``): bit for bit on PyTorch's
    AVX2 and AVX-512 builds (the AVX-512 one runs the AVX2 LayerNorm kernel), with and without weight and
    bias, rows of one dim or several; within ``LAYER_NORM_ULPS`` on its DEFAULT build,
    ``LAYER_NORM_REFERENCE_ULPS`` on the numpy path (no numba) and under TINYTORCH_REFERENCE=1."""
    import _paths

    kernel = _paths.compiled("layer_norm") and not _paths.reference_mode()
    bound = LAYER_NORM_ULPS if kernel else LAYER_NORM_REFERENCE_ULPS
    exact_on = _paths.FMA_PATHS if kernel else ()
    rng = np.random.default_rng(size)
    x = (rng.standard_normal((24, size)) * rng.uniform(0.1, 4) + rng.uniform(-3, 3)).astype(np.float32)
    w = (rng.standard_normal(size) * 0.2 + 1).astype(np.float32)
    b = (rng.standard_normal(size) * 0.2).astype(np.float32)
    for params in ((w, b), (None, None), (w, None), (None, b)):
        ours, theirs = (lib.native_layer_norm(lib.from_numpy(x), [size],
                                              *(None if p is None else lib.from_numpy(p) for p in params), 1e-5)
                        for lib in (tt, torch))
        for a, e, what in zip(ours, theirs, ("out", "mean", "rstd")):
            _paths.assert_bits(a, e, ulps=bound, scale="max", exact_on=exact_on,
                               what=f"layer_norm {what} N={size} {[p is None for p in params]}")
    if size % 4 == 0:  # the statistics over several trailing dims: rows of their product
        x3 = x.reshape(6, 4, 4, size // 4)
        ours, theirs = (lib.nn.functional.layer_norm(lib.from_numpy(x3), (4, size // 4),
                                                     lib.from_numpy(w.reshape(4, -1))) for lib in (tt, torch))
        _paths.assert_bits(ours, theirs, ulps=bound, scale="max", exact_on=exact_on,
                           what=f"layer_norm 2 dims N={size}")
