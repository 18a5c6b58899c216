"""Programs that reach the paths of ``tinytorch/_cpu/pool.py`` (max pooling's separable, threaded and compiled
windows, its positions and threaded gradient, adaptive average pooling's running sums): target ->
[make(rng, dtype, shape) yielding (name, fn, arrays)].

``shape`` picks the batch (its length plus one). Inputs hold ties (small integers, signed zeros), infinities,
and in some programs a NaN, where the paths hand over to the reference; one input is large enough to be cut
across threads."""
import numpy as np

import tinytorch.nn.functional as F

# (kernel, stride, padding, dilation, ceil_mode)
GEOMETRIES = [(2, 2, 0, 1, False), (2, 2, 1, 1, True), (3, 1, 1, 1, False), ((3, 2), (1, 2), (1, 0), (2, 1), False),
              (3, 2, 0, 1, True)]


def _ties(rng, dtype, shape):
    x = np.round(rng.standard_normal(shape) * 2).astype(dtype)
    x.reshape(-1)[::11] = -0.0
    x.reshape(-1)[5::97] = np.inf
    x.reshape(-1)[7::89] = -np.inf
    return x


def _max_pool(rng, dtype, shape):
    n = len(shape) + 1
    for k, s, p, d, ceil in GEOMETRIES:
        x = _ties(rng, dtype, (n, 3, 11, 10))
        pool = (lambda k, s, p, d, ceil: lambda X: F.max_pool2d(X, k, s, p, d, ceil, True))(k, s, p, d, ceil)
        yield f"max_pool2d k{k} s{s} p{p} d{d} ceil {ceil}", pool, [x]
    x = _ties(rng, dtype, (n, 3, 11, 10))
    x[0, 1, 4, 5] = np.nan
    yield "a NaN", (lambda X: F.max_pool2d(X, 3, 2, 1, 1, False, True)), [x]
    yield "1-d", (lambda X: F.max_pool1d(X[:, :, 0], 3, 2, 1)), [x]
    yield "large 2x2", (lambda X: F.max_pool2d(X, 2, return_indices=True)), [_ties(rng, dtype, (2, 16, 96, 96))]
    yield "large 3x3", (lambda X: F.max_pool2d(X, 3, 3, 1)), [_ties(rng, dtype, (2, 16, 96, 96))]


def _adaptive_avg(rng, dtype, shape):
    n = len(shape) + 1
    for out in ((3, 4), (5, 1), (7, 7), (4, None)):
        x = np.asarray(rng.standard_normal((n, 3, 13, 9)) * 3, dtype)
        yield f"adaptive_avg_pool2d {out}", (lambda out: lambda X: F.adaptive_avg_pool2d(X, out))(out), [x]
    x = np.asarray(rng.standard_normal((n, 3, 13, 9)), dtype)
    x[0, 0, 5, 5] = np.inf
    yield "an inf", (lambda X: F.adaptive_avg_pool2d(X, (3, 4))), [x]
    x = np.asarray(rng.standard_normal((n, 2, 6, 13, 9)), dtype)
    yield "adaptive_avg_pool3d", (lambda X: F.adaptive_avg_pool3d(X, (4, 3, 5))), [x]
    yield "adaptive_avg_pool1d", (lambda X: F.adaptive_avg_pool1d(X[:, :, 0, 0], 5)), [x]


PROGRAMS = {
    "pool._window_max": [_max_pool],
    "pool._positions": [_max_pool],
    "pool._scatter_unique": [_max_pool],
    "pool._window_sums": [_adaptive_avg],
}
