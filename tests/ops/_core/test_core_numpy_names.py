"""numpy's spellings of PyTorch's parameter names (``axis`` for ``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/
``x1`` for ``input``, ``x2`` for ``other``), which PyTorch's argument parser takes in every ``torch.X`` function,
against PyTorch: the same values, and PyTorch's TypeError when both spellings are given."""
import numpy as np
import pytest

import tinytorch

# (function, positional arguments after the input, numpy-spelled keywords); the input is a 2x3 float tensor
CALLS = [
    ("argmax", (), {"axis": 1}), ("argmin", (), {"axis": 0, "keepdims": True}), ("sum", (), {"axis": 1}),
    ("sum", (), {"axis": 0, "keepdims": True}), ("mean", (), {"axis": 1, "keepdims": True}), ("max", (), {"axis": 1}),
    ("min", (), {"axis": 0, "keepdims": True}), ("std", (), {"axis": 1}), ("var", (), {"axis": 0}),
    ("prod", (), {"axis": 1}), ("amax", (), {"axis": 1}), ("amin", (), {"axis": 0}), ("logsumexp", (), {"axis": 1}),
    ("softmax", (), {"axis": 1}), ("log_softmax", (), {"axis": 0}), ("cumsum", (), {"axis": 1}),
    ("cumprod", (), {"axis": 0}), ("cummax", (), {"axis": 1}), ("all", (), {"axis": 1}), ("any", (), {"axis": 0}),
    ("median", (), {"axis": 1}), ("nansum", (), {"axis": 1}), ("nanmean", (), {"axis": 0}),
    ("count_nonzero", (), {"axis": 0}), ("sort", (), {"axis": 0}), ("argsort", (), {"axis": 1}),
    ("topk", (1,), {"axis": 1}), ("kthvalue", (1,), {"axis": 1}), ("mode", (), {"axis": 0}),
    ("squeeze", (), {"axis": 0}), ("unsqueeze", (), {"axis": 0}), ("flatten", (), {"start_dim": 0}),
    ("unbind", (), {"axis": 1}), ("chunk", (2,), {"axis": 1}), ("tensor_split", (2,), {"axis": 1}),
    ("diff", (), {"axis": 1}), ("narrow", (), {"axis": 1, "start": 0, "length": 2}),
    ("select", (), {"axis": 0, "index": 1}), ("roll", (1,), {"dims": 0}), ("var_mean", (), {"axis": 0}),
    ("std_mean", (), {"axis": 1, "keepdims": True}), ("aminmax", (), {"axis": 0}),
    ("repeat_interleave", (2,), {"axis": 0}), ("renorm", (2,), {"axis": 0, "maxnorm": 1.0}),
    ("quantile", (0.5,), {"axis": 0, "keepdims": True}), ("nanmedian", (), {"axis": 1}),
]


def _input(lib):
    return lib.tensor([[0.5, -1.0, 2.0], [3.0, 0.25, -2.0]])


def _plain(r):
    if isinstance(r, (tuple, list)):
        return [_plain(t) for t in r]
    return r.tolist(), str(r.dtype).rpartition(".")[2]


def _outcome(lib, fn, args, kwargs, first=None):
    try:
        if first is None:
            return _plain(getattr(lib, fn)(_input(lib), *args, **kwargs))
        return _plain(getattr(lib, fn)(**{first: _input(lib)}, **kwargs))
    except TypeError as e:
        return "TypeError", str(e)


def _same(ours, theirs):
    """Equal structure and dtypes, values to float32's last bits (softmax and std round as PyTorch's CPU paths do,
    whichever spelling named the dim)."""
    assert type(ours) is type(theirs)
    if isinstance(theirs, list):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
    elif isinstance(theirs, tuple) and theirs[0] == "TypeError":
        assert ours == theirs
    else:
        assert ours[1] == theirs[1]
        np.testing.assert_allclose(np.array(ours[0], dtype=float), np.array(theirs[0], dtype=float), rtol=1e-6)


@pytest.mark.parametrize("fn, args, kwargs", CALLS, ids=[f"{c[0]}-{'-'.join(c[2])}" for c in CALLS])
def test_numpy_spelling_of_dim_and_keepdim(fn, args, kwargs):
    torch = pytest.importorskip("torch")
    _same(_outcome(tinytorch, fn, args, kwargs), _outcome(torch, fn, args, kwargs))


def test_cat_and_stack_take_axis():
    torch = pytest.importorskip("torch")
    for fn in ("cat", "stack"):
        got = [_plain(getattr(lib, fn)([_input(lib), _input(lib)], axis=1)) for lib in (tinytorch, torch)]
        _same(*got)


@pytest.mark.parametrize("first", ["x", "a", "x1"])
def test_numpy_spellings_of_input(first):
    torch = pytest.importorskip("torch")
    _same(_outcome(tinytorch, "sum", (), {"axis": 0}, first), _outcome(torch, "sum", (), {"axis": 0}, first))


def test_numpy_spelling_of_other():
    torch = pytest.importorskip("torch")
    _same(*[_plain(lib.add(x1=_input(lib), x2=_input(lib))) for lib in (tinytorch, torch)])


@pytest.mark.parametrize("fn, args, kwargs", [
    ("sum", (), {"dim": 1, "axis": 1}), ("sum", (1,), {"axis": 1}), ("argmax", (1,), {"axis": 1}),
    ("softmax", (1,), {"axis": 1}), ("mean", (), {"dim": 0, "keepdim": True, "keepdims": True}),
    ("sum", (), {"axis": 1, "foo": 1}),
])
def test_both_spellings_raise_pytorchs_type_error(fn, args, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = _outcome(tinytorch, fn, args, kwargs), _outcome(torch, fn, args, kwargs)
    assert ours[0] == theirs[0] == "TypeError"
    if "foo" not in kwargs:  # (an unknown keyword: PyTorch lists its signatures, a text of its own)
        assert ours == theirs
