"""Programs that reach ``tinytorch/_cpu/random.py``'s kernels: the normal kernels' steps called on uniforms as
``_random/normal.py`` calls them, and whole draws (randn, normal) for the Box-Muller and scaling steps; cauchy_'s
and log_normal_'s steps (``_ops/random/sampling.py``) the same way."""
import numpy as np

import tinytorch as tt
from tinytorch._ops.random import sampling
from tinytorch._random import normal


def _step(name, lo, hi, module=normal):
    """The step ``<module>.<name>`` on float64 values in [lo, hi) (read through the module, as its op calls it)."""
    def programs(rng, dtype, shape):
        u = np.asarray(rng.uniform(lo, hi, shape or (1,)), dtype=np.float64)
        yield name, (lambda x: tt.tensor(getattr(module, name)(x.detach().numpy()))), [u]
    return programs


def _draws(rng, dtype, shape):
    n = int(np.prod(shape)) if shape else 1
    seed = int(rng.integers(1 << 30))

    def draw(kind):
        def fn(x):
            tt.manual_seed(seed)
            if kind == "randn":
                return tt.randn(16 * n + 5, dtype=x.dtype)
            return tt.normal(0.5, 2.0, (3 * n + 17,), dtype=x.dtype)
        return fn
    x = np.zeros(1, dtype)
    yield "randn", draw("randn"), [x]
    yield "normal", draw("normal"), [x]


def _fills(rng, dtype, shape):
    """cauchy_ and log_normal_ on tensors of ``dtype`` (their draws are float64, cast at the end)."""
    seed = int(rng.integers(1 << 30))

    def fill(method, *args):
        def fn(x):
            tt.manual_seed(seed)
            return getattr(tt.empty(shape, dtype=x.dtype), method)(*args)
        return fn
    x = np.zeros(1, dtype)
    yield "cauchy_", fill("cauchy_", 0.75, 2.5), [x]
    yield "log_normal_", fill("log_normal_", 0.5, 1.25), [x]


PROGRAMS = {
    "normal._log": [_step("_log", 1e-6, 1.0)],
    "normal._log1p": [_step("_log1p", -0.999, 0.0)],
    "normal._cos": [_step("_cos", 0.0, 2 * np.pi)],
    "normal._sin": [_step("_sin", 0.0, 2 * np.pi)],
    "normal._scaled": [_draws],
    "normal._box_muller_f32": [_draws],
    "sampling._tan": [_step("_tan", -1.5, 1.5, sampling)],
    "sampling._exp": [_step("_exp", -20.0, 20.0, sampling)],
    "sampling._scaled": [_fills],
}
