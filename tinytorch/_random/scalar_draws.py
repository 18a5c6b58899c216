"""Scalar samplers run as PyTorch's CPU kernels run them: element by element in memory order, each
element drawing 53-bit uniforms (and cached Box-Muller normals) from the generator, with the kernels'
rejection loops (``math`` is the C library's libm, as in the kernels). Shared by ``tinytorch.poisson``
and the distributions."""
from __future__ import annotations

import math

import numpy as np

from .engine import _engine


class _Stream:
    """The generator's 64-bit words read one by one from a pre-drawn block (scalar draws through
    numpy cost microseconds each). ``close`` rewinds the generator and advances it by exactly the
    words used, and hands back the cached normal, so the generator ends where PyTorch's would."""

    _BLOCK = 4096

    def __init__(self, eng):
        self.eng = eng
        self.start, self.fresh = eng.bitgen.state, eng.fresh
        self.words, self.pos, self.used = [], 0, 0
        self.cached, self.cached_valid = eng.normal_y, eng.normal_valid

    def uniform(self) -> float:
        """``uniform_real_distribution<double>(0, 1)``: the low 53 bits of a word times 2**-53."""
        if self.pos == len(self.words):
            block = self.eng.u64(self._BLOCK) & np.uint64((1 << 53) - 1)
            self.words, self.pos = (block.astype(np.float64) * 2.0 ** -53).tolist(), 0
        self.pos += 1
        self.used += 1
        return self.words[self.pos - 1]

    def normal(self) -> float:
        """``normal_distribution<double>``: Box-Muller on two uniforms, the sine half cached."""
        if self.cached_valid:
            self.cached_valid = False
            return self.cached
        u1, u2 = self.uniform(), self.uniform()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self.cached, self.cached_valid = r * math.sin(theta), True
        return r * math.cos(theta)

    def close(self) -> None:
        eng = self.eng
        eng.bitgen.state = self.start
        eng.fresh = self.fresh
        if self.used:
            eng.u64(self.used)
        eng.normal_y, eng.normal_valid = (self.cached, True) if self.cached_valid else (0.0, False)


def _each(draw, values, *extra, generator=None) -> np.ndarray:
    """``draw(stream, value, *extra)`` for each value in order, from one stream of the generator."""
    st = _Stream(_engine(generator))
    try:
        return np.array([draw(st, v, *extra) for v in values], np.float64)
    finally:
        st.close()


def _poisson_one(st, lam: float) -> int:
    if lam >= 10:
        # transformed rejection (Hoermann, 1993)
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = st.uniform() - 0.5
            v = st.uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b) <= \
                    -lam + k * loglam - math.lgamma(k + 1.0):
                return k
    if lam == 0:
        return 0
    x, prod, enlam = 0, 1.0, math.exp(-lam)
    while True:
        prod *= st.uniform()
        if prod > enlam:
            x += 1
        else:
            return x
