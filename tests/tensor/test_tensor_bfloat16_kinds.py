"""bfloat16 (ml_dtypes' numpy kind "V", not "f") through the ops that test a dtype for being floating:
scatter_reduce, frexp, isposinf/isneginf, max_pool3d, masked.amax/amin, histc/histogram/histogramdd,
quantile, view_as_complex, complex/polar, logspace and linspace; half, float and double beside it
where their kernels differ. Values, dtypes and errors against PyTorch."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
pytest.importorskip("ml_dtypes")

X = np.array([[1.5, -2.25, np.inf, 0.5, np.nan], [-np.inf, 3.0, 0.125, -1.0, 7.75]], np.float32)


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


def _both(fn, rtol=0.0):
    """fn(T) in both libraries: equal values (bit for bit, NaN where NaN), dtypes and shapes; or the same
    error type and message."""
    try:
        theirs = fn(torch)
    except Exception as err:  # noqa: BLE001 - the error itself is compared
        with pytest.raises(type(err)) as ours:
            fn(tt)
        assert str(ours.value) == str(err).replace("torch.", "tinytorch.")
        return
    ours = fn(tt)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    ours = ours if isinstance(ours, tuple) else (ours,)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        if isinstance(t, (tuple, list)):  # histogramdd's bin edges
            for o_edge, t_edge in zip(o, t):
                np.testing.assert_array_equal(o_edge.numpy(), t_edge.numpy())
            continue
        assert str(o.dtype).replace("tinytorch.", "") == str(t.dtype).replace("torch.", "")
        assert tuple(o.shape) == tuple(t.shape)
        wide = (lambda a: a.double()) if not t.is_complex() and t.dtype != torch.bool else (lambda a: a)
        np.testing.assert_allclose(wide(o).numpy(), wide(t).numpy(), rtol=rtol, atol=0)


LOWP = ["bfloat16", "float16"]
FLOATS = ["bfloat16", "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduce", ["amax", "amin", "mean", "prod", "sum"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(dtype, reduce, include_self):
    src = np.array([1.5, -2.25, 4.0, 0.5, 3.25, -1.0], np.float32)
    _both(lambda T: T.full((4,), 0.75, dtype=getattr(T, dtype)).scatter_reduce(
        0, T.tensor([0, 1, 0, 1, 0, 3]), T.tensor(src).to(getattr(T, dtype)), reduce, include_self=include_self))


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_bits(dtype):
    x = lambda T: T.tensor(X).to(getattr(T, dtype))  # noqa: E731
    _both(lambda T: T.frexp(x(T)))
    _both(lambda T: T.isposinf(x(T)))
    _both(lambda T: T.isneginf(x(T)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_max_pool3d(dtype):
    data = np.random.default_rng(0).standard_normal((1, 2, 4, 5, 4)).astype(np.float32)
    _both(lambda T: T.nn.functional.max_pool3d(T.tensor(data).to(getattr(T, dtype)), 2, stride=2, padding=1))
    _both(lambda T: T.nn.functional.max_pool3d(-T.ones(1, 1, 3, 3, 3, dtype=getattr(T, dtype)), 3, padding=1))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["amax", "amin"])
def test_masked_extrema(dtype, name):
    mask = [[True, False, False, True, False], [False] * 5]
    _both(lambda T: getattr(T.masked, name)(T.tensor(X).to(getattr(T, dtype)), 1, mask=T.tensor(mask)))
    _both(lambda T: getattr(T.masked, name)(T.tensor(X).to(getattr(T, dtype)), 0, mask=T.tensor(mask)))


@pytest.mark.parametrize("dtype", FLOATS + ["int64", "bool"])
def test_histograms(dtype):
    pts = np.array([[1.0, 2.0], [3.0, 2.5], [0.5, 1.0]], np.float32)
    make = lambda T: T.tensor(pts).to(getattr(T, dtype))  # noqa: E731
    _both(lambda T: T.histogram(make(T).reshape(-1), bins=4))
    _both(lambda T: T.histogramdd(make(T), bins=2))
    if dtype != "bool":  # PyTorch's histc names its linspace kernel for bool
        _both(lambda T: T.histc(make(T), bins=4))


@pytest.mark.parametrize("dtype", FLOATS + ["int64"])
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantile_dtypes(dtype, fn):
    _both(lambda T: getattr(T, fn)(T.tensor([1.0, 2.0, 3.0, 2.5]).to(getattr(T, dtype)), 0.3))


@pytest.mark.parametrize("dtype", ["bfloat16", "int64", "bool", "float32"])
def test_complex_constructors_refuse(dtype):
    data = X[:, :4].copy() if dtype.startswith(("float", "bfloat")) else np.array([[1.5, -2.0, 0, 3], [0, 1, 2, 3]])
    x = lambda T: T.tensor(data).to(getattr(T, dtype))  # noqa: E731
    _both(lambda T: T.view_as_complex(x(T).reshape(2, 2, 2)))
    _both(lambda T: T.complex(x(T), x(T)))
    _both(lambda T: T.polar(x(T), x(T)), rtol=1e-6)  # numpy's and PyTorch's float sin/cos: an ulp apart
    _both(lambda T: T.complex(x(T), x(T).flip(0)))


@pytest.mark.parametrize("dtype", FLOATS + ["complex64", "complex128", "int64", "int32"])
def test_logspace(dtype):
    # PyTorch's logspace calls glibc's pow; the reference (TINYTORCH_REFERENCE=1) runs numpy's, within the 4 ulps
    # its path states (tinytorch/_cpu/creation.py)
    rtol = 4 * float(tt.finfo(getattr(tt, dtype)).eps) if _paths.reference_mode() and "float" in dtype else 0.0
    rng = np.random.default_rng(3)
    for _ in range(12):
        a, b = (float(v) for v in rng.uniform(-3, 3, 2))
        if dtype.startswith("complex") and rng.random() < 0.5:
            a, b = complex(a, 1.5), complex(b, -0.5)
        steps = int(rng.integers(0, 40))
        base = float(rng.choice([10.0, 2.0, 3.5, 0.7]))
        _both(lambda T: T.logspace(a, b, steps, base=base, dtype=getattr(T, dtype)), rtol)


@pytest.mark.parametrize("dtype", LOWP)
def test_linspace_lowp(dtype):
    rng = np.random.default_rng(4)
    for _ in range(20):
        a, b = (float(v) for v in rng.uniform(-30, 30, 2))
        steps = int(rng.integers(0, 120))
        _both(lambda T: T.linspace(a, b, steps, dtype=getattr(T, dtype)))


def test_no_warnings_from_bf16_paths():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tt.isposinf(tt.tensor(X).to(tt.bfloat16))
        tt.logspace(0, 2.3, 7, dtype=tt.bfloat16)
