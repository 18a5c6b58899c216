"""The ``*_like`` factories lay their result out as PyTorch's do, on CPU and on meta tensors: under
``preserve_format`` (the default) as ``clone`` does (a non-overlapping dense input's strides kept, else dense
strides in the order of its own), ``contiguous_format`` in C order, ``channels_last`` with the channels innermost.
The random ones (``rand_like``, ...) share that rule and then draw in place: in memory order, PyTorch's values for
the same seed (bit for bit on PyTorch's FMA paths, within the draws' stated bound on its DEFAULT one: ``assert_drawn``)."""
import random

import numpy as np
import pytest

import tinytorch

from _paths import assert_drawn
from test_clone_layout import _prod, _seen, _views

FACTORIES = {
    "empty_like": lambda L, x, kw: L.empty_like(x, **kw),
    "zeros_like": lambda L, x, kw: L.zeros_like(x, **kw),
    "ones_like": lambda L, x, kw: L.ones_like(x, **kw),
    "full_like": lambda L, x, kw: L.full_like(x, 2.5, **kw),
    "rand_like": lambda L, x, kw: _seeded(L).rand_like(x, **kw),
    "randn_like": lambda L, x, kw: _seeded(L).randn_like(x, **kw),
    "randint_like": lambda L, x, kw: _seeded(L).randint_like(x, 3, 9, **kw),
}


def _seeded(L):
    L.manual_seed(4)
    return L


def _made(L, name, x, fmt):
    """(the result's layout, its values in memory order or None): an error's text in place of the layout."""
    kw = {} if fmt is None else {"memory_format": getattr(L, fmt)}
    try:
        got = FACTORIES[name](L, x, kw)
    except RuntimeError as e:
        return ("raised", str(e)), None
    # empty_like's values are undefined in PyTorch: only its layout is compared
    values = name != "empty_like" and got.device.type == "cpu"
    return _seen(got, False), (got.tolist() if values else None)


def _assert_same(name, ours, theirs, what):
    assert ours[0] == theirs[0], what
    if ours[1] is None or theirs[1] is None:
        assert ours[1] is theirs[1], what
    elif name in ("rand_like", "randn_like"):  # float draws: PyTorch's DEFAULT path rounds them its own way
        assert_drawn(np.asarray(ours[1], np.float32), np.asarray(theirs[1], np.float32), what=str(what))
    else:
        assert ours[1] == theirs[1], what


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_like_keeps_pytorchs_layout(torch, device, name):
    theirs, ours = _views(torch, device), _views(tinytorch, device)
    if device == "cpu":
        theirs["channels_last"] = torch.arange(120.0).reshape(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
        ours["channels_last"] = tinytorch.arange(120.0).reshape(2, 3, 4, 5).contiguous(
            memory_format=tinytorch.channels_last)
    for view in theirs:
        assert tuple(ours[view].stride()) == tuple(theirs[view].stride()), view  # the same view to begin with
        for fmt in (None, "preserve_format", "contiguous_format", "channels_last"):
            _assert_same(name, _made(tinytorch, name, ours[view], fmt), _made(torch, name, theirs[view], fmt), (view, fmt))


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_like_layout_of_random_views(torch, device):
    """Random slices, permutations, expands and channels-last inputs, through each factory."""
    rng = random.Random(78)
    for _ in range(150):
        shape = [rng.choice([1, 1, 2, 3]) for _ in range(4)]
        index = tuple(slice(None, None, rng.choice([1, 2])) if n > 1 else slice(None) for n in shape)
        perm = list(range(4))
        rng.shuffle(perm)
        grow = [rng.choice([n, 2]) if n == 1 else n for n in shape]
        last = rng.random() < 0.3
        name = rng.choice(sorted(FACTORIES))
        seen = []
        for L in (torch, tinytorch):
            x = L.empty(shape, device="meta") if device == "meta" else L.arange(float(_prod(shape))).reshape(shape)
            if last:
                x = x.contiguous(memory_format=L.channels_last)
            v = x.expand(*grow)[index].permute(*perm)
            seen.append((tuple(v.stride()), _made(L, name, v, None)))
        what = (shape, index, perm, grow, last, name)
        assert seen[0][0] == seen[1][0], what
        _assert_same(name, seen[1][1], seen[0][1], what)


def test_like_requires_grad_and_dtype(torch):
    """A kept layout goes with the other arguments: dtype and requires_grad."""
    seen = []
    for L in (torch, tinytorch):
        x = L.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
        y = L.zeros_like(x, dtype=L.float64, requires_grad=True)
        z = L.full_like(x, 7, dtype=L.int32)
        seen.append((y.stride(), str(y.dtype).split(".")[-1], y.requires_grad, z.stride(), z.tolist()))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_casts_keep_layout(torch, device):
    """A dtype cast (``to``, ``double()``, ``chalf()``, float8) is a copy under preserve_format: the same layout."""
    theirs, ours = _views(torch, device), _views(tinytorch, device)
    for view in theirs:
        for dtype in ("float64", "float16", "complex32", "float8_e4m3fn"):
            got = ours[view].to(getattr(tinytorch, dtype))
            want = theirs[view].to(getattr(torch, dtype))
            assert (tuple(got.shape), got.stride()) == (tuple(want.shape), want.stride()), (view, dtype)
            if device == "cpu" and dtype != "complex32":
                assert got.float().tolist() == want.float().tolist(), (view, dtype)
