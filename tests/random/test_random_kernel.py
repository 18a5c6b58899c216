"""The exact arithmetic under the random streams: the emulated fused multiply-adds against exact
rational arithmetic, and the float32 normal kernel's premise that no fused step of its log or
sincos ever sees a float64 sum that is inexact and on a float32 tie (so rounding twice is exact).
The premise is checked on every 16th input here; TINYTORCH_EXHAUSTIVE=1 checks all 2**24."""
import os
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinytorch._cpu import avx2_normal
from tinytorch._random.fpmath import fma32, fma64

pytestmark = pytest.mark.bitexact

# mantissa x 2**exponent over a range where neither products nor their error terms leave the
# normal numbers (the kernels' inputs live well inside it)
finite32 = st.builds(lambda m, e: float(np.float32(m * 2.0 ** e)), st.integers(-(2 ** 24), 2 ** 24),
                     st.integers(-50, 35))
finite64 = st.builds(lambda m, e: m * 2.0 ** e, st.integers(-(2 ** 53), 2 ** 53), st.integers(-200, 200))


def _exact_round(value: Fraction, dtype) -> float:
    """``value`` rounded once to ``dtype`` (ties to even), via the two neighbours."""
    x = dtype(float(value))  # within a few ulps; then step to the correctly rounded neighbour
    for _ in range(4):
        lo = np.nextafter(x, dtype(-np.inf))
        hi = np.nextafter(x, dtype(np.inf))
        best = min((lo, x, hi), key=lambda c: (abs(Fraction(float(c)) - value),
                                               int(np.array(c).view(np.uint64 if dtype is np.float64 else np.uint32)) & 1))
        if best == x:
            break
        x = best
    return float(x)


@given(a=finite32, b=finite32, c=finite32)
@settings(max_examples=300, deadline=None)
def test_fma32_rounds_once(a, b, c):
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    got = fma32(np.array([a], np.float32), np.float32(b), np.float32(c))[0]
    assert float(got) == _exact_round(exact, np.float32)


@given(a=finite64, b=finite64, c=finite64)
@settings(max_examples=300, deadline=None)
def test_fma64_rounds_once(a, b, c):
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    assert float(fma64(np.array([a]), b, c)[0]) == _exact_round(exact, np.float64)


def test_fma32_resolves_float64_ties():
    # a*b = 2**-24 - 2**-60: the float64 sum with 1 + 2**-23 rounds onto the float32 tie
    # 1 + 2**-23 + 2**-24, whose even neighbour is the wrong answer; the exact value lies below it
    a, b, c = np.float32(2 ** -12 * (1 + 2 ** -18)), np.float32(2 ** -12 * (1 - 2 ** -18)), np.float32(1 + 2 ** -23)
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    naive = np.float32(float(a) * float(b) + float(c))
    got = fma32(np.array([a]), b, c)[0]
    assert float(got) == _exact_round(exact, np.float32) == float(c) != float(naive)


def test_normal_kernel_steps_never_hit_an_inexact_tie(monkeypatch):
    step = 1 if os.environ.get("TINYTORCH_EXHAUSTIVE") == "1" else 16
    u = (np.arange(0, 1 << 24, step, dtype=np.int64) * 2.0 ** -24).astype(np.float32)
    u = u[: len(u) // 8 * 8]
    found = []

    def checked(a, b, c, out, bf):
        p = np.multiply(a, b, dtype=np.float64)
        cc = np.asarray(c, dtype=np.float64)
        s = p + cc
        back = s - p
        err = (p - (s - back)) + (cc - back)
        tie = (s.view(np.uint64) & np.uint64((1 << 29) - 1)) == np.uint64(1 << 28)
        found.append(int(np.count_nonzero(tie & (err != 0))))
        np.copyto(out, s, casting="unsafe")

    monkeypatch.setattr(avx2_normal, "_fma_exact", checked)
    blocks = np.stack([u.reshape(-1, 8), u.reshape(-1, 8)], axis=1)  # every u as u1 and as u2
    avx2_normal.box_muller(blocks, np.float32(0), np.float32(1))
    assert len(found) >= 19 and sum(found) == 0
