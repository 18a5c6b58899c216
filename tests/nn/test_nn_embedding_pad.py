"""embedding, pad, channel dropout and their modules, against PyTorch and finite differences."""
import warnings

import numpy as np
import pytest
from _layer_compare import compare, raises_like, rand
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytorch as tt
import tinytorch.nn as nn
import tinytorch.nn.functional as F
from tinytorch.autograd import gradcheck, gradgradcheck

IDX = np.array([[1, 4, 1], [0, 2, 4]])


# -- embedding ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 1}, {"padding_idx": -1}, {"scale_grad_by_freq": True},
                                    {"padding_idx": 4, "scale_grad_by_freq": True}])
@pytest.mark.parametrize("idx", [IDX, IDX[0], np.array(3), np.array([2], dtype=np.int32)], ids=["2d", "1d", "0d", "i32"])
def test_embedding_matches_torch(torch, dtype, kwargs, idx):
    compare(torch, lambda lib, w, i: lib.nn.functional.embedding(i, w, **kwargs), [rand((5, 3), 0, dtype), idx])


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
def test_embedding_max_norm_renormalises_rows_in_place(torch, norm_type):
    w = rand((6, 3), 1) * 3
    ours, theirs = tt.tensor(w), torch.tensor(w)
    y = F.embedding(tt.tensor(IDX), ours, max_norm=1.5, norm_type=norm_type)
    ty = torch.nn.functional.embedding(torch.tensor(IDX), theirs, max_norm=1.5, norm_type=norm_type)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-12)
    assert ours._version == theirs._version == 1
    np.testing.assert_array_equal(ours.numpy()[5], w[5])  # rows not looked up are untouched


def test_embedding_gradients_of_first_and_second_order():
    # (padding_idx and scale_grad_by_freq change the gradient on purpose: compared with PyTorch above)
    idx = tt.tensor(IDX)
    w = tt.tensor(rand((5, 3)), requires_grad=True)
    assert gradcheck(lambda w: F.embedding(idx, w) ** 2, (w,))
    assert gradgradcheck(lambda w: F.embedding(idx, w) ** 2, (w,))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.embedding(lib.tensor([5]), lib.ones(5, 2)),
    lambda lib: lib.nn.functional.embedding(lib.tensor([-1]), lib.ones(5, 2)),
    lambda lib: lib.nn.functional.embedding(lib.tensor([1.0]), lib.ones(5, 2)),
    lambda lib: lib.nn.functional.embedding(lib.tensor([1]), lib.ones(5, 2), padding_idx=5),
    lambda lib: lib.nn.functional.embedding(lib.tensor([1]), lib.ones(5, 2), padding_idx=-6),
    lambda lib: lib.nn.Embedding(3, 2, padding_idx=3),
    lambda lib: lib.nn.Embedding(3, 2, _weight=lib.ones(2, 2)),
    lambda lib: lib.nn.Embedding.from_pretrained(lib.ones(3)),
], ids=["high", "negative", "float_idx", "pad_high", "pad_low", "module_pad", "module_weight", "pretrained_1d"])
def test_embedding_errors_match_torch(torch, fn):
    raises_like(torch, fn)


def test_embedding_module_matches_torch(torch):
    pairs = [(nn.Embedding(10, 3), torch.nn.Embedding(10, 3)),
             (nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True),
              torch.nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True,
                                 sparse=True)),
             (nn.Embedding(4, 2, padding_idx=0), torch.nn.Embedding(4, 2, padding_idx=0))]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
        assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
               [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
        if ours.padding_idx is not None:
            assert not ours.weight.detach().numpy()[ours.padding_idx].any()
    # N(0, 1) initialisation: moments of a large table
    w = nn.Embedding(1000, 100).weight.detach().numpy()
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1) < 0.01 and w.dtype == np.float32
    ours, theirs = nn.Embedding(5, 3, padding_idx=1), torch.nn.Embedding(5, 3, padding_idx=1)
    ours.load_state_dict({"weight": tt.tensor(theirs.weight.detach().numpy())})
    compare(torch, lambda lib, i: (ours if lib is tt else theirs)(i), [IDX])
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy())


def test_embedding_from_pretrained(torch):
    w = rand((4, 3), 0, np.float32)
    for freeze in (True, False):
        ours = nn.Embedding.from_pretrained(tt.tensor(w), freeze=freeze, padding_idx=2)
        theirs = torch.nn.Embedding.from_pretrained(torch.tensor(w), freeze=freeze, padding_idx=2)
        assert repr(ours) == repr(theirs)
        assert ours.weight.requires_grad == theirs.weight.requires_grad == (not freeze)
        np.testing.assert_array_equal(ours(tt.tensor([2, 3])).detach().numpy(),
                                      theirs(torch.tensor([2, 3])).detach().numpy())


# -- pad ------------------------------------------------------------------------------------------
PADS = [
    ("constant", (2, 3), (2, 3, 4)), ("constant", (1, 0, 2, 1), (2, 3, 4)), ("constant", (1, 1, 1, 1, 1, 1), (2, 3, 4)),
    ("constant", (-1, 2, 0, -2), (2, 3, 4)), ("constant", (1, 1, 2, 2, 0, 1, 1, 0), (1, 2, 3, 4)),
    ("reflect", (2, 1), (3, 4)), ("reflect", (2, 3), (2, 3, 4)), ("reflect", (1, 2, 2, 0), (3, 4, 5)),
    ("reflect", (1, 2, 2, 0), (2, 3, 4, 5)), ("reflect", (1, 1, 0, 2, 1, 1), (1, 2, 3, 4, 5)),
    ("reflect", (-1, 2, 1, -1), (1, 2, 4, 5)),
    ("replicate", (3, 1), (2, 4)), ("replicate", (2, 0, 3, 1), (1, 2, 3, 4)), ("replicate", (1, 1, 2, 2, 3, 3), (2, 2, 3, 4)),
    ("replicate", (-1, 2, 0, -2), (1, 2, 4, 5)),
    ("circular", (2, 1), (1, 2, 4)), ("circular", (1, 2, 3, 0), (2, 2, 3, 4)), ("circular", (1, 1, 1, 1, 1, 1), (2, 2, 2, 3)),
    ("circular", (-1, 2, 2, -1), (2, 3, 4)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode,pad,shape", PADS, ids=[f"{m}{p}{s}" for m, p, s in PADS])
def test_pad_matches_torch(torch, dtype, mode, pad, shape):
    compare(torch, lambda lib, x: lib.nn.functional.pad(x, pad, mode=mode), [rand(shape, 0, dtype)])


def test_pad_constant_value_and_integer_input(torch):
    compare(torch, lambda lib, x: lib.nn.functional.pad(x, (1, 2), value=-3.5), [rand((2, 3))])
    compare(torch, lambda lib, x: lib.nn.functional.pad(x, (1, 1), value=2.5), [np.arange(4).reshape(2, 2)])


@pytest.mark.parametrize("mode,pad", [("constant", (1, 2, -1, 1)), ("reflect", (2, 1, 1, 2)),
                                      ("replicate", (3, 0, 1, 2)), ("circular", (2, 1, 0, 1))])
def test_pad_gradcheck_and_gradgradcheck(mode, pad):
    x = tt.tensor(rand((1, 2, 3, 4)), requires_grad=True)
    assert gradcheck(lambda x: F.pad(x, pad, mode=mode), (x,))
    assert gradgradcheck(lambda x: F.pad(x, pad, mode=mode) ** 2, (x,))


def test_pad_double_backward_node_names(torch):
    x = rand((1, 1, 3, 4))
    for mode in ("reflect", "replicate", "constant", "circular"):
        names = []
        for lib in (tt, torch):
            a = lib.tensor(x, requires_grad=True)
            y = lib.nn.functional.pad(a, (1, 2, 2, 1), mode=mode)
            g = lib.ones_like(y, requires_grad=True)
            (ga,) = lib.autograd.grad(y, a, g, create_graph=True)
            names.append(ga.grad_fn.name())
        assert names[0] == names[1]


@settings(max_examples=20, deadline=None)
@given(mode=st.sampled_from(["constant", "reflect", "replicate", "circular"]), k=st.integers(1, 3),
       batched=st.booleans(), data=st.data())
def test_pad_hypothesis(mode, k, batched, data):
    torch = pytest.importorskip("torch")
    spatial = data.draw(st.lists(st.integers(2, 5), min_size=k, max_size=k))
    shape = ([2] if batched else []) + [2] + spatial
    pads = []
    for n in reversed(spatial):
        hi = n - 1 if mode == "reflect" else n
        pads += [data.draw(st.integers(0, hi)), data.draw(st.integers(0, hi))]
    compare(torch, lambda lib, x: lib.nn.functional.pad(x, tuple(pads), mode=mode), [rand(shape, len(pads))])


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 3, 3), (1,)),
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 3, 3), (1, 1) * 5),
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 3, 3), (-2, -2)),
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 3, 3), (3, 3, 0, 0), mode="reflect"),
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 3, 3), (4, 0, 0, 0), mode="circular"),
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 3, 3), (1, 0, 0, 0), mode="foo"),
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 3, 3), (1, 0, 0, 0), mode="reflect", value=1.0),
    lambda lib: lib.nn.functional.pad(lib.ones(3), (1, 1), mode="reflect"),
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 3, 3), (1, 1), mode="replicate"),
    lambda lib: lib.nn.functional.pad(lib.ones(2, 0, 3), (1, 1), mode="reflect"),
], ids=["odd", "too_long", "crop_too_far", "reflect_too_far", "circular_wrap", "mode", "value", "reflect_1d",
        "replicate_4d_len2", "empty"])
def test_pad_errors_match_torch(torch, fn):
    raises_like(torch, fn)


PAD_MODULES = [("ZeroPad1d", (1,)), ("ZeroPad2d", (1,)), ("ZeroPad2d", ((1, 2, 0, 3),)), ("ZeroPad3d", (1,)),
               ("ConstantPad1d", (2, 3.5)), ("ConstantPad2d", ((1, 2, 0, 1), 0)), ("ConstantPad3d", (1, -1.0)),
               ("ReflectionPad1d", ((1, 2),)), ("ReflectionPad2d", (2,)), ("ReflectionPad3d", (1,)),
               ("ReplicationPad1d", (3,)), ("ReplicationPad2d", ((1, 0, 2, 1),)), ("ReplicationPad3d", (1,)),
               ("CircularPad1d", (1,)), ("CircularPad2d", (1,)), ("CircularPad3d", (1,))]


@pytest.mark.parametrize("name,args", PAD_MODULES, ids=[f"{n}{a}" for n, a in PAD_MODULES])
def test_pad_modules_match_torch(torch, name, args):
    ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    k = int(name[-2])
    compare(torch, lambda lib, x, o=ours, t=theirs: (o if lib is tt else t)(x), [rand((2, 3, 4, 5, 6)[3 - k:], 0, np.float32)])


# -- channel dropout ------------------------------------------------------------------------------
@pytest.mark.parametrize("fn,shape", [(F.dropout1d, (8, 50, 6)), (F.dropout1d, (50, 6)), (F.dropout2d, (8, 50, 3, 2)),
                                      (F.dropout3d, (8, 50, 2, 2, 2)), (F.dropout3d, (50, 2, 3, 2))])
def test_channel_dropout_zeros_whole_channels(fn, shape):
    tt.manual_seed(0)
    x = tt.tensor(np.abs(rand(shape, 0)) + 1, requires_grad=True)
    y = fn(x, p=0.3)
    assert y.grad_fn.name() in ("MulBackward0", "SqueezeBackward1")
    out = y.detach().numpy()
    spatial = 1 if fn is F.dropout1d else 2 if fn is F.dropout2d else 3
    lead = len(shape) - spatial  # (N, C) or, unbatched, (C,)
    flat = out.reshape(shape[:lead] + (-1,))
    kept = np.abs(flat).sum(-1) > 0
    assert ((flat == 0).all(-1) | (flat != 0).all(-1)).all()  # a channel is dropped whole or kept whole
    np.testing.assert_allclose(flat[kept], (x.detach().numpy().reshape(flat.shape) / 0.7)[kept], rtol=1e-12)
    assert 0.15 < 1 - kept.mean() < 0.45
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy().reshape(flat.shape)[kept], 1 / 0.7)


def test_channel_dropout_eval_inplace_and_edges(torch):
    x = tt.ones(2, 3, 4, 4)
    assert F.dropout2d(x, training=False) is x
    assert not F.dropout2d(x, p=1.0).detach().numpy().any()
    y = tt.ones(2, 3, 4, 4)
    assert F.dropout2d(y, 0.5, True, True) is y and y._version == 1
    m, tm = nn.Dropout2d(0.2), torch.nn.Dropout2d(0.2)
    assert repr(m) == repr(tm) and repr(nn.Dropout1d(0.3, True)) == repr(torch.nn.Dropout1d(0.3, True))
    m.eval()
    assert m(x) is x
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        F.dropout2d(tt.ones(3, 4, 5))
        F.dropout2d(tt.ones(4, 5))
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.nn.functional.dropout2d(torch.ones(3, 4, 5))
        torch.nn.functional.dropout2d(torch.ones(4, 5))
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    raises_like(torch, lambda lib: lib.nn.functional.dropout1d(lib.ones(2, 3, 4, 5)))
    raises_like(torch, lambda lib: lib.nn.functional.dropout2d(lib.ones(2, 3, 4, 5), p=1.5))
    raises_like(torch, lambda lib: lib.nn.Dropout2d(p=-0.1))


def test_pad_and_nearest_gradients_keep_inf_local(torch):
    # the adjoint of a gather is a scatter-add, not a product with a 0/1 matrix (0 * inf would be NaN)
    x = rand((1, 1, 3, 4))
    for fn in (lambda lib, a: lib.nn.functional.pad(a, (2, 1, 1, 2), mode="reflect"),
               lambda lib, a: lib.nn.functional.pad(a, (1, 1, 0, 2), mode="replicate"),
               lambda lib, a: lib.nn.functional.interpolate(a, scale_factor=2)):
        grads = []
        for lib in (tt, torch):
            a = lib.tensor(x, requires_grad=True)
            y = fn(lib, a)
            g = np.ones(tuple(y.shape))
            g[0, 0, 0, 0] = np.inf
            y.backward(lib.tensor(g))
            grads.append(a.grad.numpy())
        np.testing.assert_array_equal(grads[0], grads[1])
