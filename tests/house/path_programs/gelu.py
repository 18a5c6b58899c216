"""Programs that reach the paths of ``tinytorch/_cpu/gelu.py`` (oneDNN's float32 GELU steps, forward and
backward, compiled and across threads for a large array): target -> [make(rng, dtype, shape) yielding (name, fn,
arrays)]. float64 inputs, strided ones and the tanh form take the formulas either way."""
import numpy as np

import tinytorch as tt

F = tt.nn.functional


def _gelus(rng, dtype, shape):
    x = np.asarray(rng.standard_normal(shape) * 3, dtype=dtype)
    yield "gelu", (lambda v: F.gelu(v)), [x]
    yield "gelu, tanh", (lambda v: F.gelu(v, approximate="tanh")), [x]
    yield "gelu of a product", (lambda v: F.gelu(v * 1.5) * v), [x]
    if x.ndim > 1:
        yield "gelu, strided", (lambda v: F.gelu(v.transpose(0, -1))), [x]
    big = np.asarray(rng.standard_normal((600, 500)) * 4, dtype=dtype)  # runs of elements across threads
    yield "gelu, large", (lambda v: F.gelu(v)), [big]


PROGRAMS = {"activation_smooth._gelu_arrays": [_gelus], "activation_smooth._gelu_grad_arrays": [_gelus]}
