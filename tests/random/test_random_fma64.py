"""The float64 fused multiply-add emulation (``_random/fpmath.py``'s ``fma64_into``, used by the random
kernels, arange/linspace and ``_ops/_kernels/muladd.py``'s add(alpha=)/addcmul) against an exact reference:
``Fraction`` arithmetic rounded once (Python 3.11 has no ``math.fma``). Correct rounding is claimed
where the product's error is representable (|x*y| >= 2**-960); non-finite and huge operands get
PyTorch's (FMA's) inf/nan; and the add(alpha=) results match PyTorch's CPU kernel bit for bit.

PyTorch is the oracle for FMA only on its AVX2/AVX512 builds; its DEFAULT build
(``ATEN_CPU_CAPABILITY=default``) rounds the product first. There the comparisons with PyTorch hold
within 2 ulp of the product's magnitude (1.5 at most: half an ulp of the product, half of each
sum), and where only the rounded product overflows
(inf there, inf - inf = nan) tinytorch is held to the exact FMA value instead."""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tinytorch._random.fpmath import fma64, fma64_into
from tinytorch._ops._kernels.muladd import muladd

import _paths

pytestmark = pytest.mark.bitexact

EXACT_RANGE = 2.0 ** -960


def _exact(x: float, y: float, c: float) -> float:
    """x*y + c rounded once to the nearest double (ties to even: int / int division is correctly rounded).
    A zero takes its sign from IEEE addition of the terms: an exact zero sum needs a representable
    product, so the two-rounding value is exact there."""
    exact = Fraction(x) * Fraction(y) + Fraction(c)
    if exact == 0:
        return x * y + c
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def _bits(v) -> int:
    return int(np.float64(v).view(np.int64))


def _same(got: float, want: float) -> bool:
    return _bits(got) == _bits(want) or (math.isnan(got) and math.isnan(want))


finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


def _near_one(draw, bits):
    return 1.0 + draw(st.integers(-(2 ** bits), 2 ** bits)) * 2.0 ** -52


@st.composite
def halfway_triples(draw):
    """Products of two doubles near 1 whose exact value has bits far below a double's last place,
    plus an addend that puts the sum on or just beside a rounding boundary: the double-rounding traps
    (e.g. (1 + 2**-30)(1 + 2**-23) + 2**-200, whose exact product is a tie)."""
    x = _near_one(draw, 30)
    y = _near_one(draw, 30)
    p = Fraction(x) * Fraction(y)
    scale = 2.0 ** draw(st.integers(-300, 300))
    kind = draw(st.sampled_from(["tiny", "cancel", "ulp"]))
    if kind == "tiny":
        c = draw(st.sampled_from([1.0, -1.0])) * 2.0 ** draw(st.integers(-400, -54))
    elif kind == "cancel":
        c = -float(p) + draw(st.integers(-4, 4)) * 2.0 ** -52
    else:
        c = draw(st.integers(-8, 8)) * 2.0 ** draw(st.integers(-110, -50))
    return x * scale, y, c * scale


@settings(max_examples=400, deadline=None)
@given(x=finite, y=finite, c=finite)
def test_fma64_is_correctly_rounded(x, y, c):
    # a product that underflows (to zero too: its sign is not claimed) is out of the claimed range
    if x != 0 and y != 0 and abs(x * y) < EXACT_RANGE or abs(x * y) > 1e300:
        return
    assert _same(fma64(x, y, c), _exact(x, y, c))


@settings(max_examples=400, deadline=None)
@given(halfway_triples())
def test_fma64_rounds_halfway_cases_once(triple):
    x, y, c = triple
    assert _same(fma64(x, y, c), _exact(x, y, c))


def test_the_tie_that_double_rounding_gets_wrong():
    x, y, c = 1 + 2.0 ** -30, 1 + 2.0 ** -23, 2.0 ** -200
    want = _exact(x, y, c)
    assert float(np.float64(x) * y + c) != want  # two roundings land on the other side
    assert _same(fma64(x, y, c), want)
    a = np.full(3, c)
    b = np.full(3, x)
    assert all(_same(v, want) for v in muladd(a, b, y, np.dtype(np.float64)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(finite, finite, finite), min_size=1, max_size=40), st.sampled_from(["scalar", "array"]))
def test_fma64_into_on_blocks_matches_element_by_element(rows, y_kind):
    x, y, c = (np.array(col, np.float64) for col in zip(*rows))
    if y_kind == "scalar":
        y = np.full(x.size, y[0])
    ok = (x == 0) | (y == 0) | ((np.abs(x * y) >= EXACT_RANGE) & (np.abs(x * y) <= 1e300))  # the claimed range
    x, y, c = x[ok], y[ok], c[ok]
    if not x.size:
        return
    yy = y if y_kind == "array" else float(y[0])
    out = np.empty_like(x)
    # scratch slices of larger buffers, as _ops/_kernels/muladd.py passes them
    with np.errstate(all="ignore"):  # as its callers run it: overflowing splits are expected
        fma64_into(out, x, yy, c, [np.empty(x.size + 7)[:x.size] for _ in range(5)])
    ys = y if y_kind == "array" else np.full(x.size, yy)
    for got, xi, yi, ci in zip(out, x, ys, c):
        assert _same(got, _exact(float(xi), float(yi), float(ci)))


SPECIAL = [math.inf, -math.inf, math.nan, 0.0, -0.0, 1.0, -2.5, 1e308, -1e308, 2.0 ** 1000, 5e-324]


@pytest.mark.parametrize("x", SPECIAL)
@pytest.mark.parametrize("y", SPECIAL)
@pytest.mark.parametrize("c", SPECIAL)
def test_fma64_special_values_match_pytorch(x, y, c):
    torch = pytest.importorskip("torch")
    # torch.addcmul(c, x, y) in float64 is one FMA (value=1: the product is not rounded first)
    want = torch.addcmul(torch.tensor([c], dtype=torch.float64), torch.tensor([x], dtype=torch.float64),
                         torch.tensor([y], dtype=torch.float64)).item()
    got = fma64(x, y, c)
    if abs(x * y) < EXACT_RANGE and x * y != 0 and not math.isnan(x * y):
        return  # products whose error underflows: not claimed
    if not _paths.running(_paths.FMA_PATHS):  # DEFAULT: PyTorch's addcmul rounds x * y first
        if math.isinf(x * y) and math.isfinite(x) and math.isfinite(y):  # overflows there only
            assert _same(got, c if not math.isfinite(c) else _exact(x, y, c)), (got, "the exact FMA")
            return
        # half an ulp of the product, half of each sum: 1.5 ulp at most
        _paths.assert_bits(np.float64(got), np.float64(want), ulps=2, scale=abs(x * y), what=f"fma({x}, {y}, {c})")
        return
    assert _same(got, want), (got, want)


def test_signed_zeros_are_kept():
    assert _bits(fma64(-0.0, 1.0, -0.0)) == _bits(-0.0)
    assert _bits(fma64(0.0, -1.0, -0.0)) == _bits(-0.0)
    assert _bits(fma64(1.0, 1.0, -1.0)) == _bits(0.0)


def test_add_alpha_float64_matches_pytorch_bits():
    torch = pytest.importorskip("torch")
    import tinytorch as tt
    rng = np.random.default_rng(7)
    a = rng.standard_normal(5000) * 2.0 ** rng.integers(-60, 60, 5000)
    b = rng.standard_normal(5000) * 2.0 ** rng.integers(-60, 60, 5000)
    for alpha in (-0.37, 3.0 ** 0.5, 1e-20):
        want = torch.add(torch.from_numpy(a), torch.from_numpy(b), alpha=alpha).numpy()
        got = tt.add(tt.from_numpy(a), tt.from_numpy(b), alpha=alpha).numpy()
        # DEFAULT: the product alpha * b rounded first (1.5 ulp at the larger of it and the sum at most)
        _paths.assert_bits(got, want, ulps=2, scale=np.abs(alpha * b), what=f"add alpha={alpha}")


@pytest.mark.parametrize("shapes", [((3, 4), (), ()), ((), (3, 4), ()), ((), (), (3, 4)), ((3, 1), (4,), (3, 4)),
                                    ((), (), ())])
def test_fma64_broadcasts_like_numpy(shapes):
    rng = np.random.default_rng(len(str(shapes)))
    x, y, c = (rng.standard_normal(s) * 1e3 if s else float(rng.standard_normal()) for s in shapes)
    got = fma64(x, y, c)
    want_shape = np.broadcast_shapes(*shapes)
    assert np.shape(got) == want_shape
    xb, yb, cb = (np.broadcast_to(v, want_shape).reshape(-1) for v in (x, y, c))
    for g, xi, yi, ci in zip(np.reshape(got, -1), xb, yb, cb):
        assert _same(g, _exact(float(xi), float(yi), float(ci)))


def test_zero_dim_arrays_through_muladd():
    # addcmul/lerp on 0-dim float64 tensors reach the kernel with 0-d arrays
    a, b = np.array(2.0 ** -200), np.array(1 + 2.0 ** -30)
    got = muladd(a, b, 1 + 2.0 ** -23, np.dtype(np.float64))
    assert got.shape == () and _same(float(got), _exact(1 + 2.0 ** -30, 1 + 2.0 ** -23, 2.0 ** -200))
