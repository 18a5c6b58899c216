"""Programs that reach the paths of ``tinytorch/_cpu/relu.py`` (relu's forward through the clip ufunc and across
threads, its backward's select as bits, in Python on 0-d arrays, compiled and across threads on large ones):
target -> [make(rng, dtype, shape) yielding (name, fn, arrays)]. The inputs hold the values a select or a
maximum can get wrong: -0.0, 0.0, infinities and NaNs (with payloads)."""
import numpy as np

import tinytorch as tt

F = tt.nn.functional
_EDGES = (0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan)


def _with_edges(x, rng):
    flat = x.reshape(-1)
    if flat.size:
        at = rng.choice(flat.size, min(flat.size, len(_EDGES)), replace=False)
        flat[at] = np.array(_EDGES[:at.size], x.dtype)
    if flat.size > 6:  # a NaN with a payload of its own
        ints = np.int32 if x.dtype == np.float32 else np.int64
        flat[6:7].view(ints)[0] |= 5 if x.dtype == np.float32 else 0x7FF0000000000005
    return x


def _relus(rng, dtype, shape):
    x = _with_edges(np.asarray(rng.standard_normal(shape) * 3, dtype=dtype), rng)
    yield "relu", (lambda v: tt.relu(v)), [x]
    yield "F.relu of a product", (lambda v: F.relu(v * 1.5) * v), [x]
    yield "relu_ of a copy", (lambda v: (v * 1.0).relu_()), [x]
    yield "relu, then relu", (lambda v: v.relu().relu()), [x]  # backward: y == 0 masks
    if x.ndim > 1:
        yield "relu, strided", (lambda v: tt.relu(v.transpose(0, -1))), [x]
    big = _with_edges(np.asarray(rng.standard_normal((600, 500)), dtype=dtype), rng)  # across threads
    yield "relu, large", (lambda v: F.relu(v)), [big]
    yield "relu, large, strided", (lambda v: F.relu(v.t()) * 2.0), [big]


PROGRAMS = {"activation._relu": [_relus], "activation._threshold_backward_array": [_relus]}
