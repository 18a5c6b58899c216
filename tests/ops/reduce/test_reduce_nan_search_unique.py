"""unique and searchsorted where NaNs are in play, as PyTorch's CPU kernels: each NaN is a value of its own
(NaN equals nothing), and the binary search compares with NaN as false, so a NaN boundary or value sends the
search right."""
import numpy as np
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

NAN = float("nan")


def _same(want, got):
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
        np.testing.assert_array_equal(g.float().numpy(), w.float().numpy())


def _both(fn, *arrays, **kwargs):
    """fn run on PyTorch's and tinytorch's tensors of the same arrays (a (array, dtype name) pair for another
    dtype than the array's)."""
    def make(lib, a):
        a, dtype = a if isinstance(a, tuple) else (a, None)
        t = lib.tensor(a)
        return t.to(getattr(lib, dtype)) if dtype else t
    return fn(torch, *(make(torch, a) for a in arrays), **kwargs), fn(tinytorch, *(make(tinytorch, a) for a in arrays),
                                                                      **kwargs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("sorted_", [True, False])
def test_unique_keeps_each_nan(dtype, sorted_):
    a = np.array([NAN, 1, NAN, 1, 2, NAN, -np.inf, np.inf], np.float32)
    want, got = _both(lambda lib, x: lib.unique(x, sorted=sorted_, return_inverse=True, return_counts=True),
                      (a, dtype))
    _same(want, got)
    _same(*_both(lambda lib, x: x.unique(return_counts=True), (a, dtype)))
    _same(*_both(lambda lib, x: lib.unique(x), (a, dtype)))


def test_unique_consecutive_keeps_each_nan():
    a = np.array([NAN, NAN, 1, 1, NAN], np.float32)
    _same(*_both(lambda lib, x: lib.unique_consecutive(x, return_inverse=True, return_counts=True), a))
    m = np.array([[NAN, 1], [NAN, 1], [0, 2], [NAN, 1]], np.float32)
    _same(*_both(lambda lib, x: lib.unique_consecutive(x, dim=0, return_inverse=True, return_counts=True), m))


@pytest.mark.parametrize("rows", [
    [[NAN, 1], [NAN, 1], [0, 2], [NAN, 1]],
    [[0, 2], [NAN, 1], [NAN, 1], [NAN, 1]],
    [[NAN, 3], [1, 2], [NAN, 1], [0, 5]],  # the comparison is no strict order here: std::sort's own steps
    [[1, 2], [1, 2], [3, NAN], [0, 0], [3, NAN]],
])
def test_unique_dim_with_nan_rows(rows):
    m = np.array(rows, np.float32)
    _same(*_both(lambda lib, x: lib.unique(x, dim=0, return_inverse=True, return_counts=True), m))
    _same(*_both(lambda lib, x: lib.unique(x, dim=1, return_inverse=True, return_counts=True), m.T.copy()))


def test_unique_dim_with_nan_rows_random():
    rng = np.random.default_rng(0)
    for _ in range(50):
        m = rng.integers(0, 3, (rng.integers(1, 17), 2)).astype(np.float32)  # up to std::sort's insertion sort
        m[rng.random(m.shape) < 0.3] = NAN
        _same(*_both(lambda lib, x: lib.unique(x, dim=0, return_inverse=True, return_counts=True), m))


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.unique(x),
    lambda lib, x: lib.unique(x, dim=0),
    lambda lib, x: lib.unique_consecutive(x),
    lambda lib, x: lib.unique_consecutive(x, dim=0),
])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_unique_of_complex_is_refused(call, dtype):
    a = np.array([1 + 1j, 1 + 1j])
    x, y = torch.tensor(a).to(getattr(torch, dtype)), tinytorch.tensor(a).to(getattr(tinytorch, dtype))
    with pytest.raises(NotImplementedError) as want:
        call(torch, x)
    with pytest.raises(NotImplementedError) as got:
        call(tinytorch, y)
    assert str(got.value) == str(want.value)


SEQUENCES = [[1, 2, NAN], [1, 2, 3, NAN, NAN, NAN, NAN], [NAN, 1, 2], [1, NAN, 2, 3], [], [1, 2, 3]]
VALUES = [NAN, 0.5, 1, 1.5, 2, 3, 3.5, np.inf, -np.inf]


@pytest.mark.parametrize("seq", SEQUENCES)
@pytest.mark.parametrize("kwargs", [{}, {"right": True}, {"side": "right"}, {"side": "left"}, {"out_int32": True}])
def test_searchsorted_with_nan(seq, kwargs):
    s, v = np.array(seq, np.float32), np.array(VALUES, np.float32)
    _same(*_both(lambda lib, a, b: lib.searchsorted(a, b, **kwargs), s, v))
    _same(*_both(lambda lib, a: lib.searchsorted(a, NAN, **kwargs), s))
    if s.size:
        boundaries = lambda lib, a, b: lib.bucketize(b, a, right=kwargs.get("right", False))  # noqa: E731
        _same(*_both(boundaries, s, v))


def test_searchsorted_with_nan_sorter_and_rows():
    s, v = np.array([NAN, 2, 1], np.float32), np.array([NAN, 1.5, 5], np.float32)
    _same(*_both(lambda lib, a, b, o: lib.searchsorted(a, b, sorter=o), s, v, np.array([2, 1, 0])))
    rows = np.array([[1, NAN, NAN], [0, 1, 2]], np.float32)
    _same(*_both(lambda lib, a, b: lib.searchsorted(a, b), rows, np.array([[NAN, 1], [NAN, 3]], np.float32)))


def test_searchsorted_with_nan_random():
    rng = np.random.default_rng(0)
    for _ in range(100):
        s = rng.integers(0, 5, rng.integers(1, 12)).astype(np.float32)
        s[rng.random(s.size) < 0.3] = NAN
        v = rng.integers(-1, 6, 5).astype(np.float32)
        v[rng.random(5) < 0.3] = NAN
        for right in (False, True):
            _same(*_both(lambda lib, a, b: lib.searchsorted(a, b, right=right), np.sort(s), v))
            _same(*_both(lambda lib, a, b: lib.searchsorted(a, b, right=right), s, v))
