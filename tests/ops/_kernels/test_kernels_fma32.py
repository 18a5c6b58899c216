"""``muladd.fma32_into``, the float32 multiply-add of the LayerNorm kernel's numpy steps, against
``muladd.addcmul_into`` (the same floats) bit for bit: random float32 values of every exponent (subnormals,
signed zeros, infinities, NaN, short significands that land sums on halfway points), with and without
``exact_ties`` where it applies (a power-of-two factor, or a zero addend)."""
import numpy as np
import pytest

from tinytorch._ops._kernels.muladd import addcmul_into, fma32_into


def _values(rng, n, lo=-149, hi=128):
    """float32 values: random bits (NaNs and infinities among them) and numbers of random exponent in
    [2**lo, 2**hi) with significands of 24 bits or of 5 (sums of those often land on halfway points)."""
    x = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    m = rng.random(n) + 1
    short = rng.random(n) < 0.5
    m[short] = np.round(m[short] * 16) / 16
    with np.errstate(over="ignore"):
        y = (np.where(rng.random(n) < 0.5, -1.0, 1.0) * m * 2.0 ** rng.integers(lo, hi, n)).astype(np.float32)
    pick = rng.random(n) < 0.8
    x[pick] = y[pick]
    x[rng.random(n) < 0.02] = 0
    x[rng.random(n) < 0.02] = -0.0
    return x


def _want(a, b, c):
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    out = np.empty(shape, np.float32)
    with np.errstate(all="ignore"):
        addcmul_into(out, *(np.ascontiguousarray(np.broadcast_to(v, shape)) for v in (c, a, b)), 1.0)
    return out


def _got(a, b, c, exact_ties=False):
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    out = np.empty(shape, np.float32)
    with np.errstate(all="ignore"):
        fma32_into(out, a, b, c, np.empty(shape), np.empty(shape, np.int64), exact_ties)
    return out


def _same(x, y):
    """The same bits, NaN for NaN: which operand's NaN a NaN-by-NaN product passes on (its sign and payload)
    depends on numpy's loops for the dtypes (it differs under numpy 1.24), and neither function promises it."""
    nan = np.isnan(x)
    return np.array_equal(nan, np.isnan(y)) and np.array_equal(x[~nan].view(np.uint32), y[~nan].view(np.uint32))


@pytest.mark.parametrize("seed", range(3))
def test_general_operands_and_broadcasting(seed):
    rng = np.random.default_rng(seed)
    a, b, c = _values(rng, 1 << 16, -60, 60).reshape(64, 1024), _values(rng, 1024, -60, 60), _values(rng, 1024)
    assert _same(_got(a, b, c), _want(a, b, c))
    # a float32 scalar factor, a float64 factor holding float32 values, the output as the addend
    s, c2 = np.float32(1) / np.float32(3), _values(rng, 1 << 16).reshape(64, 1024)
    want = _want(s, a, c2)
    with np.errstate(invalid="ignore"):
        a64 = a.astype(np.float64)
    assert _same(_got(s, a64, c2), want)
    out = c2.copy()
    with np.errstate(all="ignore"):
        fma32_into(out, s, a, out, np.empty(out.shape), np.empty(out.shape, np.int64))
    assert _same(out, want)


def test_double_rounding_case():
    # -1 + 2.5 * -1e30: the float64 sum lands on a float32 halfway point that the exact sum is not on
    a, b, c = (np.array([v], np.float32) for v in (2.5, -1e30, -1))
    assert _same(_got(a, b, c), _want(a, b, c))


@pytest.mark.parametrize("seed", range(3))
def test_exact_ties_with_a_power_of_two_factor(seed):
    rng = np.random.default_rng(10 + seed)
    n = 1 << 17
    a = (2.0 ** rng.integers(-40, 40, n) * np.where(rng.random(n) < 0.5, -1, 1)).astype(np.float32)
    a[rng.random(n) < 0.01] = 0
    b, c = _values(rng, n), _values(rng, n)
    want = _want(a, b, c)
    assert _same(_got(a, b, c, exact_ties=True), want)
    assert _same(_got(a, b, c), want)


@pytest.mark.parametrize("seed", range(3))
def test_exact_ties_with_a_zero_addend(seed):
    rng = np.random.default_rng(20 + seed)
    a, b = _values(rng, 1 << 17, -90, 60), _values(rng, 1 << 17, -90, 60)
    assert _same(_got(a, b, np.float32(0), exact_ties=True), _want(a, b, np.zeros_like(a)))
