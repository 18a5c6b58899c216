"""Programs that reach the path of ``tinytorch/_cpu/dropout.py`` (a large keep mask scaled across threads):
target -> [make(rng, dtype, shape) yielding (name, fn, arrays)]. Each program seeds the generator first, so
that both runs draw the same mask."""
import numpy as np

import tinytorch as tt

F = tt.nn.functional


def _seeded(p, **kw):
    def run(x):
        tt.manual_seed(7)
        return F.dropout(x, p, **kw) * 1.5
    return run


def _dropouts(rng, dtype, shape):
    x = np.asarray(rng.standard_normal(shape) * 3, dtype=dtype)
    yield "dropout", _seeded(0.3), [x]
    big = np.asarray(rng.standard_normal((400, 700)), dtype=dtype)  # past parallel.SPLIT_FROM: across threads
    yield "dropout, large", _seeded(0.4), [big]
    yield "dropout, large, strided", (lambda v: _seeded(0.25)(v.t())), [big]


PROGRAMS = {"dropout._keep_scaled": [_dropouts]}
