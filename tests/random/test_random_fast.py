"""The fast paths of the normal kernels keep every bit: glibc's double log rounded from an extended
logarithm (math.log only where that could be ambiguous), the float32 kernel's fused steps whose
products are exact in float32, and large normal streams of both float dtypes against PyTorch."""
import math
import re

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._cpu import avx2_normal
from tinytorch._random import fpmath

from test_random import both

pytestmark = pytest.mark.bitexact


def _log_inputs() -> np.ndarray:
    rs = np.random.default_rng(2024)
    n = 150_000
    parts = [
        1.0 - np.floor(rs.random(n) * 2 ** 53) * 2 ** -53,  # what randn(float64) takes the log of
        np.exp2(rs.uniform(-1070, 1020, n)) * (1 + rs.random(n)),  # every binade
        np.exp2(rs.integers(-60, 60, n).astype(float)) * (1 + rs.uniform(-1e-6, 1e-6, n)),  # near 2**k
        np.array([1.0, 2.0, 0.5, np.inf, 5e-324, np.nextafter(1.0, 0), np.nextafter(1.0, 2)]),
    ]
    return np.concatenate(parts)


def _math_log(x):
    return np.array([math.log(v) for v in x.tolist()])


@pytest.mark.skipif(not fpmath._X87, reason="the fast log needs x87 long doubles")
def test_log_is_glibcs_bit_for_bit(monkeypatch):
    x = _log_inputs()
    expected = _math_log(x)
    assert fpmath.libm_log(x).tobytes() == expected.tobytes()
    assert fpmath.libm_log(x[-35:].reshape(5, 7)).tobytes() == expected[-35:].tobytes()
    # these inputs do hold the hard cases: trusting every extended result would get some wrong
    monkeypatch.setattr(fpmath, "_LOG_UNSURE", -1)
    assert fpmath.libm_log(x).tobytes() != expected.tobytes()


@pytest.mark.skipif(not fpmath._X87, reason="the fast log needs x87 long doubles")
def test_log_asks_math_log_only_for_a_few(monkeypatch):
    x = _log_inputs()[:150_000]
    original, calls = fpmath._math_log, []
    monkeypatch.setattr(fpmath, "_math_log", lambda v: calls.append(v.size) or original(v))
    fpmath.libm_log(x)
    assert 0 < sum(calls) < 0.1 * x.size


def test_log_errors_as_math_log():
    # math.log's own words on the running Python ("math domain error"; 3.14 names the input)
    for values, bad in (([1.0, 0.0], 0.0), ([-2.0], -2.0)):
        with pytest.raises(ValueError) as theirs:
            math.log(bad)
        with pytest.raises(ValueError, match=re.escape(str(theirs.value))):
            fpmath.libm_log(np.array(values))


def test_float32_kernel_products_that_are_exact():
    # the octant j (0..8 even) times DP0 / DP1, and the exponent e (-25..1) times Q2, are exact in
    # float32, so those fused steps need no float64
    j = np.arange(0, 9, dtype=np.float32)
    for dp in avx2_normal._DP[:2]:
        assert np.array_equal((j * dp).astype(np.float64), j.astype(np.float64) * np.float64(dp))
    assert not np.array_equal((j * avx2_normal._DP[2]).astype(np.float64),
                              j.astype(np.float64) * np.float64(avx2_normal._DP[2]))
    e = np.arange(-25, 2, dtype=np.float32)
    q2 = avx2_normal._LOG_Q2
    assert np.array_equal((e * q2).astype(np.float64), e.astype(np.float64) * np.float64(q2))


@pytest.mark.parametrize("seed", [0, 7])
def test_large_float32_normals(torch, seed):
    both(torch, seed, lambda m: m.randn(2 ** 20 + 5))
    both(torch, seed, lambda m: m.empty(2 ** 18 + 3).normal_(0.25, 1.5), 1.75)


@pytest.mark.parametrize("seed", [0, 7])
def test_large_float64_normals(torch, seed):
    both(torch, seed, lambda m: m.randn(2 ** 19 + 3, dtype=m.float64))
    both(torch, seed, lambda m: m.empty(2 ** 17 + 1, dtype=m.float64).normal_(-0.5, 2.0), 2.5)


def test_float16_normals(torch):
    both(torch, 3, lambda m: m.randn(4099, dtype=m.float16))
    assert tt.randn(3).dtype == tt.float32


def test_float32_kernel_cosine_half_square_is_exact():
    # the kernel's -z/2 (z = x*x, x the reduced angle) enters a fused step in float64: exact in
    # float32 too as long as z stays far from float32's subnormals (every 16th input here)
    from tinytorch._random.fpmath import fma32
    u = (np.arange(0, 1 << 24, 16, dtype=np.int64) * 2.0 ** -24).astype(np.float32)
    theta = u * avx2_normal._TWO_PI
    j = (((theta * avx2_normal._FOPI).astype(np.int32) + 1) & ~1).astype(np.float32)
    x = theta
    for dp in avx2_normal._DP:
        x = fma32(j, dp, x)
    z = x * x
    assert z.dtype == np.float32
    assert np.all((z == 0) | (z > 2.0 ** -100))
    assert np.array_equal((z * np.float32(-0.5)).astype(np.float64), z.astype(np.float64) * -0.5)
