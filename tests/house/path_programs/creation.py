"""Programs that reach ``tinytorch/_cpu/creation.py``'s kernels: arange and linspace (their multiply-adds) and
logspace (its powers), with bounds and steps of a few magnitudes drawn per case."""
import numpy as np

import tinytorch as tt


def _ranges(rng, dtype, shape):
    n = 3 + int(np.prod(shape)) * 7  # several of arange's 32-byte blocks and a tail
    start, step = float(rng.uniform(-50, 50)), float(rng.uniform(0.01, 3.0))
    x = np.zeros(1, dtype)
    yield "arange", (lambda v: tt.arange(start, start + n * step, step, dtype=v.dtype)), [x]
    yield "arange, descending", (lambda v: tt.arange(start, start - n * step, -step, dtype=v.dtype)), [x]
    yield "linspace", (lambda v: tt.linspace(start, start + n * step, n, dtype=v.dtype)), [x]
    yield "linspace, through zero", (lambda v: tt.linspace(-start, start, n + 1, dtype=v.dtype)), [x]


def _powers(rng, dtype, shape):
    n = 2 + int(np.prod(shape)) * 5
    lo, hi = float(rng.uniform(-8, 0)), float(rng.uniform(0, 8))
    x = np.zeros(1, dtype)
    yield "logspace", (lambda v: tt.logspace(lo, hi, n, dtype=v.dtype)), [x]
    yield "logspace, base 2.5", (lambda v: tt.logspace(lo, hi, n, base=2.5, dtype=v.dtype)), [x]
    yield "logspace, one step", (lambda v: tt.logspace(hi, lo, 1, dtype=v.dtype)), [x]


PROGRAMS = {"factory._fma": [_ranges], "factory._pow": [_powers]}
