"""Tensor printing compared with PyTorch's own repr, character for character.

Most tests use a stand-in object carrying only what ``tensor_repr`` reads (``_data``, ``dtype``,
``requires_grad``, ``grad_fn``, ``is_leaf``), so they do not depend on the core Tensor."""
import math
import sys
import types

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tinytorch import _dtype
from tinytorch._tensor.printing import (
    get_printoptions,
    parameter_repr,
    printoptions,
    set_printoptions,
    tensor_repr,
)

FLOAT_DTYPES = ["float16", "float32", "float64"]
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8"]
DTYPES = FLOAT_DTYPES + INT_DTYPES + ["bool"]
# the function-scoped ``torch`` fixture only hands back the module: safe to reuse across examples
def fixture_ok(max_examples):
    return settings(
        suppress_health_check=[HealthCheck.function_scoped_fixture],
        deadline=None,
        max_examples=max_examples,
    )


class _Node:
    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name


def fake(arr, requires_grad=False, grad_fn=None):
    """An object with just the attributes tensor_repr may read."""
    arr = np.asarray(arr)
    return types.SimpleNamespace(
        _data=arr,
        dtype=_dtype.FROM_NP[arr.dtype],
        requires_grad=requires_grad or grad_fn is not None,
        grad_fn=None if grad_fn is None else _Node(grad_fn),
        is_leaf=grad_fn is None,
    )


def torch_repr(torch, arr, requires_grad=False, grad_fn=False):
    t = torch.from_numpy(np.array(arr, copy=True))
    if requires_grad or grad_fn:
        t.requires_grad_()
    if grad_fn:
        t = t * 1  # a non-leaf whose grad_fn is MulBackward0
    return repr(t).replace("torch.", "tinytorch.")


def assert_same(torch, arr, **kw):
    arr = np.asarray(arr)
    expected = torch_repr(torch, arr, **kw)
    grad_fn = "MulBackward0" if kw.get("grad_fn") else None
    got = tensor_repr(fake(arr, kw.get("requires_grad", False), grad_fn))
    assert got == expected, f"\n{got}\n!=\n{expected}"


@pytest.fixture(autouse=True)
def _default_print_options():
    """Each test starts and ends with default print options and float32 as default dtype."""
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")
    _dtype.set_default_dtype(_dtype.float32)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_printoptions(profile="default")
        torch.set_default_dtype(torch.float32)


# ---------- explicit cases ----------

EXPLICIT = [
    [1.0, 2.0],
    [1.5, 2.25, -3.0],
    [0.0, -0.0],
    [-0.0],
    [float("nan"), 1.5],
    [0.0, float("-inf")],
    [float("nan"), float("inf"), float("-inf")],
    [1e-5, 1.0],
    [1e9, 1.0],
    [1.0, 1001.0],
    [1.0, 999.0],
    [123456789.0, 2.0],
    [1e-300, 1e300],
    [5e-324, 1.0],
    [1e100, -1e-100, 3.0],
    [0.1, 0.25, 1e8],
    [9.99995, 1.0],
    [[1.0, -2.5], [3.125, 4.0]],
    3.5,
    -0.0,
    float("nan"),
    1e20,
    [list(range(30))],
    np.linspace(-3.0, 3.0, 40),
    np.linspace(-3.0, 3.0, 40).reshape(2, 4, 5),
    np.linspace(-1e5, 1e-3, 24).reshape(2, 3, 2, 2),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("values", EXPLICIT, ids=range(len(EXPLICIT)))
def test_float_cases(torch, values, dtype):
    with np.errstate(over="ignore", under="ignore"):
        arr = np.asarray(values, dtype=np.float64).astype(dtype)
    assert_same(torch, arr)


@pytest.mark.parametrize("dtype", INT_DTYPES + ["bool"])
def test_integer_and_bool_cases(torch, dtype):
    info = np.iinfo(dtype) if dtype != "bool" else None
    if info is None:
        cases = [True, [True, False], [[False], [False]], np.arange(50).reshape(5, 10) % 3 == 0]
    else:
        cases = [
            7,
            [0, 1, 2],
            [info.min, info.max, 0],
            np.arange(60).reshape(3, 4, 5) * (int(info.max) // 59),
            np.arange(200) % 100,
        ]
    for values in cases:
        assert_same(torch, np.asarray(values).astype(dtype))


def test_empty(torch):
    for dtype in DTYPES:
        for shape in [(0,), (0, 3), (2, 0), (1, 0, 4), (0, 0, 0, 0)]:
            assert_same(torch, np.zeros(shape, dtype=dtype))


def test_grad_suffixes(torch):
    for arr in [np.float32(2.5), np.array([1.0, 2.0]), np.arange(6.0).reshape(2, 3)]:
        for dtype in FLOAT_DTYPES:
            a = np.asarray(arr, dtype=dtype)
            assert_same(torch, a, requires_grad=True)
            assert_same(torch, a, grad_fn=True)
    assert_same(torch, np.zeros((0, 2), np.float64), requires_grad=True)


def test_suffix_wraps_onto_a_new_line(torch):
    # last lines of every length near the 80-column limit, with one and two suffixes
    for n in range(1, 30):
        a = np.linspace(0.5, 9.5, n)
        assert_same(torch, a, requires_grad=True)
        assert_same(torch, a.astype(np.float32), grad_fn=True)
        assert_same(torch, a.reshape(1, n).astype(np.float16), grad_fn=True)


def test_summarized_2000_elements(torch):
    rng = np.random.default_rng(0)
    for shape in [(2000,), (40, 50), (10, 10, 20), (5, 4, 10, 10)]:
        assert_same(torch, rng.standard_normal(shape).astype(np.float32))
        assert_same(torch, rng.integers(-1000, 1000, shape))
        assert_same(torch, rng.integers(0, 2, shape).astype(bool))


def test_summarized_100k_elements(torch):
    rng = np.random.default_rng(1)
    for shape in [(10**5,), (100, 1000), (10, 100, 100), (10, 10, 10, 100)]:
        assert_same(torch, rng.standard_normal(shape))
    # summarization picks the style from the shown edges only: the hidden middle holds 1e10
    a = np.ones(10**5, np.float32)
    a[500] = 1e10
    assert_same(torch, a)


def test_three_dim_wrapping(torch):
    rng = np.random.default_rng(2)
    assert_same(torch, rng.standard_normal((2, 3, 25)).astype(np.float32) * 1e3)
    assert_same(torch, rng.integers(-10**12, 10**12, (3, 2, 15)))
    assert_same(torch, rng.standard_normal((2, 2, 2, 20)) * 1e-6)


def test_default_dtype_float64(torch):
    _dtype.set_default_dtype(_dtype.float64)
    torch.set_default_dtype(torch.float64)
    for dtype in ["float32", "float64"]:
        assert_same(torch, np.array([1.5, 2.0], dtype=dtype))
        assert_same(torch, np.zeros((0,), dtype=dtype))


# ---------- print options ----------

def test_printoption_defaults_and_profiles(torch):
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    for profile in ["short", "full", "default"]:
        set_printoptions(profile=profile)
        torch.set_printoptions(profile=profile)
        assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert get_printoptions()["threshold"] == 1000


def test_set_printoptions_changes_are_restored(torch):
    a = np.arange(2000, dtype=np.float64) / 7
    before = tensor_repr(fake(a))
    option_sets = [
        dict(precision=2),
        dict(threshold=5),
        dict(edgeitems=1),
        dict(edgeitems=0),
        dict(linewidth=40),
        dict(sci_mode=True),
        dict(sci_mode=False),
        dict(profile="short"),
        dict(profile="full"),
        dict(profile="short", precision=6, sci_mode=True),
    ]
    for opts in option_sets:
        with printoptions(**opts), torch._tensor_str.printoptions(**opts):
            assert_same(torch, a)
            assert_same(torch, a[:24].reshape(2, 3, 4))
            assert_same(torch, np.array([1.0, 2.0, 1e9]))
            assert_same(torch, np.array([0.0, float("nan")], np.float32))
            assert_same(torch, np.arange(12).reshape(3, 4))
        assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert tensor_repr(fake(a)) == before


def test_set_printoptions_resets_sci_mode_like_pytorch():
    set_printoptions(sci_mode=True)
    set_printoptions(precision=3)
    assert get_printoptions()["sci_mode"] is None
    assert get_printoptions()["precision"] == 3


def test_printoptions_context_restores_after_error():
    with pytest.raises(ZeroDivisionError):
        with printoptions(precision=1, linewidth=20):
            raise ZeroDivisionError
    assert get_printoptions() == dict(
        precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None
    )


# ---------- hypothesis: many arrays of every dtype ----------

_SPECIAL = [0.0, -0.0, math.nan, math.inf, -math.inf, 1e-5, 1e-4, 1e8, 1e9, 1e-38, 1e38, 65504.0]


def _float_elements(dtype):
    width = {"float16": 16, "float32": 32, "float64": 64}[dtype]
    return st.one_of(
        st.floats(width=width),
        st.integers(-2000, 2000).map(float),
        # each special value as the dtype holds it (numpy 1.x compares the Python float with the stored
        # element exactly, so hypothesis refuses 1e-5 for float16; numpy 2 compares them in the dtype)
        st.sampled_from(_SPECIAL).filter(lambda v: width > 16 or abs(v) <= 65504 or math.isnan(v)).map(
            lambda v: float(np.dtype(dtype).type(v))),
        st.floats(-10, 10, width=width),
    )


@st.composite
def arrays(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6))
    if dtype in FLOAT_DTYPES:
        elements = _float_elements(dtype)
        if draw(st.booleans()):  # whole numbers of one scale, so int mode appears often
            elements = st.integers(-50, 50).map(float)
    elif dtype == "bool":
        elements = st.booleans()
    else:
        info = np.iinfo(dtype)
        elements = st.one_of(st.integers(int(info.min), int(info.max)), st.integers(-3, 3).filter(
            lambda v: info.min <= v <= info.max))
    return draw(hnp.arrays(dtype, shape, elements=elements))


@fixture_ok(400)
@given(arr=arrays(), requires_grad=st.booleans(), grad_fn=st.booleans())
def test_matches_pytorch_on_random_arrays(torch, arr, requires_grad, grad_fn):
    if arr.dtype.kind != "f":
        requires_grad = grad_fn = False
    assert_same(torch, arr, requires_grad=requires_grad, grad_fn=grad_fn)


@fixture_ok(150)
@given(
    arr=arrays(),
    precision=st.integers(0, 8),
    threshold=st.integers(0, 200),
    edgeitems=st.integers(0, 4),
    linewidth=st.integers(10, 120),
    sci_mode=st.sampled_from([None, True, False]),
)
def test_matches_pytorch_under_random_print_options(
    torch, arr, precision, threshold, edgeitems, linewidth, sci_mode
):
    opts = dict(precision=precision, threshold=threshold, edgeitems=edgeitems,
                linewidth=linewidth, sci_mode=sci_mode)
    with printoptions(**opts), torch._tensor_str.printoptions(**opts):
        assert_same(torch, arr)


# ---------- nn.Parameter ----------

def test_parameter_repr(torch):
    a = np.array([[1.0, -2.0], [0.5, 4.0]], np.float32)
    p = torch.nn.Parameter(torch.from_numpy(a.copy()))
    expected = repr(p).replace("torch.", "tinytorch.")
    assert parameter_repr(fake(a, requires_grad=True)) == expected
    frozen = torch.nn.Parameter(torch.from_numpy(a.copy()), requires_grad=False)
    assert parameter_repr(fake(a)) == repr(frozen)


def test_non_contiguous_views(torch):
    base = np.arange(60, dtype=np.float32).reshape(3, 4, 5) / 3
    for view in [base.T, base[:, ::2], base[::-1, 1:, ::3], np.asfortranarray(base)]:
        assert_same(torch, view)


# ---------- real tinytorch tensors (once the package exports ``tensor``) ----------

def _tinytorch():
    import tinytorch

    if not hasattr(tinytorch, "tensor"):
        pytest.skip("tinytorch.tensor is not exported yet")
    return tinytorch


def _same_text(ours, theirs):
    assert repr(ours) == repr(theirs).replace("torch.", "tinytorch.")
    assert str(ours) == str(theirs).replace("torch.", "tinytorch.")


def test_real_tensors_plain(torch):
    tt = _tinytorch()
    for values in [[1.5, -2.0, 3.25], [[1.0, 2.0], [3.0, 4.0]], 3.5, [1, 2, 3], [True, False], []]:
        _same_text(tt.tensor(values), torch.tensor(values))
    _same_text(tt.tensor([1, 2], dtype=tt.int32), torch.tensor([1, 2], dtype=torch.int32))
    values = [0.1, 1e-7]
    _same_text(tt.tensor(values, dtype=tt.float64), torch.tensor(values, dtype=torch.float64))


def test_real_tensors_with_autograd(torch):
    tt = _tinytorch()
    values = [[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]]
    ours = tt.tensor(values, requires_grad=True)
    theirs = torch.tensor(values, requires_grad=True)
    _same_text(ours, theirs)  # leaf: requires_grad=True
    _same_text(ours * 2, theirs * 2)  # non-leaf: grad_fn=<MulBackward0>
    _same_text(ours + 1, theirs + 1)
    _same_text((ours * ours).sum(), (theirs * theirs).sum())
    _same_text(ours.detach(), theirs.detach())
    with tt.no_grad(), torch.no_grad():
        _same_text(ours * 2, theirs * 2)
