"""tinytorch.testing against torch.testing: assert_close's verdicts, error types and messages word for word
(dtype and class names normalised: ``tinytorch.float32`` prints as ``torch.float32``), and make_tensor's
values under the same seed."""
import math
import warnings

import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _outcome(lib, actual, expected, **kwargs):
    try:
        lib.testing.assert_close(actual, expected, **kwargs)
    except Exception as error:  # noqa: BLE001 - the type and the text are what is compared
        text = str(error).replace("tinytorch.tensor.Tensor", "torch.Tensor").replace("tinytorch.", "torch.")
        return type(error).__name__, text
    return None


NAN, INF = float("nan"), float("inf")
CASES = [
    ("one of three", lambda L: (L.tensor([1., 2., 3.]), L.tensor([1., 2.5, 3.])), {}),
    ("two of three", lambda L: (L.tensor([1., 2., 3.]), L.tensor([1., 2.5, 3.1])), {}),
    ("ints", lambda L: (L.tensor([1, 2, 3]), L.tensor([1, 5, 3])), {}),
    ("uint8", lambda L: (L.tensor([1, 2], dtype=L.uint8), L.tensor([3, 0], dtype=L.uint8)), {}),
    ("bools", lambda L: (L.tensor([True, False]), L.tensor([True, True])), {}),
    ("nan", lambda L: (L.tensor([[1., NAN]]), L.tensor([[1., NAN]])), {}),
    ("nan equal", lambda L: (L.tensor([[1., NAN]]), L.tensor([[1., NAN]])), dict(equal_nan=True)),
    ("nan vs number", lambda L: (L.tensor([1., NAN]), L.tensor([1., 2.])), {}),
    ("inf", lambda L: (L.tensor([1., INF]), L.tensor([1., INF])), {}),
    ("inf vs -inf", lambda L: (L.tensor([INF, 1.]), L.tensor([-INF, 1.])), {}),
    ("zero expected", lambda L: (L.tensor([1., 0.]), L.tensor([1., 0.1])), {}),
    ("0-d", lambda L: (L.tensor(1.), L.tensor(1.5)), {}),
    ("2-d index", lambda L: (L.arange(12.).reshape(3, 4), L.arange(12.).reshape(3, 4) * 1.001), {}),
    ("within default", lambda L: (L.tensor([1.0]), L.tensor([1.000001])), {}),
    ("float64", lambda L: (L.tensor([1., 2.], dtype=L.float64), L.tensor([1., 3.], dtype=L.float64)), {}),
    ("float16", lambda L: (L.tensor([1., 2.], dtype=L.float16), L.tensor([1., 2.01], dtype=L.float16)), {}),
    ("complex", lambda L: (L.tensor([1 + 1j, 2]), L.tensor([1 + 1j, 2.5j])), {}),
    ("dtype", lambda L: (L.tensor([1.]), L.tensor([1.], dtype=L.float64)), {}),
    ("dtype unchecked", lambda L: (L.tensor([1.]), L.tensor([1.2], dtype=L.float64)), dict(check_dtype=False)),
    ("shape", lambda L: (L.tensor([1.]), L.tensor([1., 2.])), {}),
    ("stride", lambda L: (L.ones(2, 3).t(), L.ones(3, 2)), dict(check_stride=True)),
    ("stride unchecked", lambda L: (L.ones(2, 3).t(), L.ones(3, 2)), {}),
    ("int vs float", lambda L: (1, 1.0), {}),
    ("int vs float unchecked", lambda L: (1, 1.5), dict(check_dtype=False)),
    ("floats", lambda L: (1.0, 1.1), {}),
    ("complex numbers", lambda L: (1j, 1.5j), {}),
    ("numpy numbers", lambda L: (np.float32(1.0), np.float64(1.0)), {}),
    ("booleans", lambda L: (True, False), {}),
    ("None", lambda L: (None, 1), {}),
    ("None both", lambda L: (None, None), {}),
    ("sequence", lambda L: ([L.tensor([1.]), 2.0], [L.tensor([1.]), 2.5]), {}),
    ("nested", lambda L: ((1, [L.tensor([1., 2.])]), (1, [L.tensor([1., 2.5])])), {}),
    ("mapping", lambda L: ({"a": L.tensor([1.]), "b": L.tensor([2.])}, {"a": L.tensor([1.]), "b": L.tensor([3.])}),
     {}),
    ("keys", lambda L: ({"a": 1}, {"b": 1}), {}),
    ("length", lambda L: ([1, 2], [1]), {}),
    ("tensor vs float", lambda L: (L.tensor([1.]), 1.0), {}),
    ("numpy arrays", lambda L: (np.array([1., 2.]), np.array([1., 3.])), {}),
    ("only rtol", lambda L: (L.tensor([1.]), L.tensor([1.1])), dict(rtol=0.2)),
    ("tolerances", lambda L: (L.tensor([1.]), L.tensor([1.1])), dict(rtol=0.2, atol=0.0)),
    ("exact", lambda L: (L.tensor([1.]), L.tensor([1.1])), dict(rtol=0.0, atol=0.0)),
    ("msg", lambda L: (L.tensor([1.]), L.tensor([1.1])), dict(msg="custom")),
    ("msg callable", lambda L: ([L.tensor([1.])], [L.tensor([1.1])]), dict(msg=lambda m: "Header\n\n" + m)),
    ("msg not for origination", lambda L: ([1, 2], [1]), dict(msg="custom")),
    ("bfloat16", lambda L: (L.tensor([1., 2.], dtype=L.bfloat16), L.tensor([1., 2.1], dtype=L.bfloat16)), {}),
    ("complex128", lambda L: (L.tensor([1 + 1j], dtype=L.complex128), L.tensor([1 + 1.001j], dtype=L.complex128)),
     {}),
    ("int vs bool", lambda L: (L.tensor([1, 0]), L.tensor([True, True])), dict(check_dtype=False)),
    ("subclass allowed", lambda L: (L.nn.Parameter(L.ones(2)), L.ones(2)), {}),
    ("subclass refused", lambda L: (L.nn.Parameter(L.ones(2)), L.ones(2)), dict(allow_subclasses=False)),
    ("tuple of 0-d", lambda L: ((L.tensor(1), L.tensor(2.)), (L.tensor(1), L.tensor(2.5))), {}),
    ("mapping of lists", lambda L: ({"x": [1.0, 2.0]}, {"x": [1.0, 2.0 + 1e-6]}), {}),
    ("max index tie", lambda L: (L.tensor([1., 2., 3., 4.]), L.tensor([2., 3., 4., 5.])), {}),
    ("empty", lambda L: (L.ones(0, 3), L.ones(0, 3)), {}),
]


@pytest.mark.parametrize("make, kwargs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_assert_close_matches_pytorch(make, kwargs):
    assert _outcome(tt, *make(tt), **kwargs) == _outcome(torch, *make(torch), **kwargs)


def test_assert_close_random_mismatches():
    rng = np.random.default_rng(0)
    for trial in range(30):
        shape = tuple(rng.integers(1, 5, size=rng.integers(1, 4)))
        a = rng.standard_normal(shape).astype(np.float32)
        e = a.copy()
        mask = rng.random(shape) < 0.3
        e[mask] += rng.standard_normal(int(mask.sum())).astype(np.float32) * 10.0 ** rng.integers(-7, 1)
        for kwargs in ({}, dict(rtol=1e-3, atol=1e-4), dict(equal_nan=True)):
            got = _outcome(tt, tt.tensor(a), tt.tensor(e), **kwargs)
            assert got == _outcome(torch, torch.tensor(a), torch.tensor(e), **kwargs), (trial, kwargs)


def test_default_tolerances():
    from tinytorch.testing._comparison import default_tolerances
    torch_default = pytest.importorskip("torch.testing._comparison").default_tolerances
    for name in ("float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int64", "bool"):
        assert default_tolerances(getattr(tt, name)) == torch_default(getattr(torch, name))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64",
                                   "complex128", "float16", "bfloat16"])
def test_make_tensor_same_values_as_pytorch(dtype):
    for kwargs in ({}, dict(low=-2, high=3), dict(noncontiguous=True), dict(exclude_zero=True), dict(low=0.5)):
        torch.manual_seed(3)
        tt.manual_seed(3)
        want = torch.testing.make_tensor((3, 4), dtype=getattr(torch, dtype), device="cpu", **kwargs)
        got = tt.testing.make_tensor((3, 4), dtype=getattr(tt, dtype), device="cpu", **kwargs)
        assert got.dtype == getattr(tt, dtype) and got.stride() == want.stride()
        ours = got.numpy()
        theirs = want.float().numpy().astype(ours.dtype) if dtype == "bfloat16" else want.numpy()
        # uniform draws in [low, high): bit for bit on PyTorch's FMA paths (_paths.assert_drawn)
        _paths.assert_drawn(ours, theirs, scale=max(abs(kwargs.get("low", -9)), abs(kwargs.get("high", 9))),
                            what=str(kwargs))


def test_make_tensor_errors_and_grad():
    for kwargs in (dict(low=2, high=1), dict(low=math.nan), dict(low=300, high=400), dict(requires_grad=True)):
        with pytest.raises(ValueError) as want:
            torch.testing.make_tensor(2, dtype=torch.uint8, device="cpu", **kwargs)
        with pytest.raises(ValueError) as got:
            tt.testing.make_tensor(2, dtype=tt.uint8, device="cpu", **kwargs)
        assert str(got.value).replace("tinytorch.", "torch.") == str(want.value)
    assert tt.testing.make_tensor(2, 3, dtype=tt.float32, device="cpu", requires_grad=True).requires_grad
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tt.testing.make_tensor(2, dtype=tt.float32, device="cpu", low=1, high=1)
    assert [w.category for w in caught] == [FutureWarning]


def test_assert_allclose_deprecated():
    for lib in (tt, torch):
        with pytest.warns(FutureWarning, match="assert_allclose"):
            lib.testing.assert_allclose(lib.tensor([1.0, 2.0]), [1.0, 2.00001])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _outcome_allclose(tt, tt.tensor([1.0, float("nan")]), [1.01, float("nan")])
        want = _outcome_allclose(torch, torch.tensor([1.0, float("nan")]), [1.01, float("nan")])
    assert got == want and got is not None


def _outcome_allclose(lib, actual, expected):
    try:
        lib.testing.assert_allclose(actual, expected)
    except AssertionError as error:
        return str(error)
    return None
