"""Programs that reach ``tinytorch/_cpu/random.py``'s kernels: the normal kernels' steps called on uniforms as
``_random/normal.py`` calls them, and whole draws (randn, normal) for the Box-Muller and scaling steps."""
import numpy as np

import tinytorch as tt
from tinytorch._random import normal


def _step(name, lo, hi):
    """The step ``normal.<name>`` on float64 values in [lo, hi) (read through the module, as normal.py calls it)."""
    def programs(rng, dtype, shape):
        u = np.asarray(rng.uniform(lo, hi, shape or (1,)), dtype=np.float64)
        yield name, (lambda x: tt.tensor(getattr(normal, name)(x.detach().numpy()))), [u]
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


PROGRAMS = {
    "normal._log": [_step("_log", 1e-6, 1.0)],
    "normal._log1p": [_step("_log1p", -0.999, 0.0)],
    "normal._cos": [_step("_cos", 0.0, 2 * np.pi)],
    "normal._sin": [_step("_sin", 0.0, 2 * np.pi)],
    "normal._scaled": [_draws],
    "normal._box_muller_f32": [_draws],
}
