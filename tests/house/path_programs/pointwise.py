"""Programs that reach the paths of ``tinytorch/_cpu/pointwise.py`` and ``engine.py`` (add, sub, mul, the
engine's sums, pow's exponents PyTorch computes by formulas, addcmul's and lerp's fused multiply-adds): target -> [make(rng, dtype, shape) yielding (name, fn, arrays)]."""
import numpy as np

import tinytorch as tt


def _arrays(rng, dtype, shape, k):
    return [np.asarray(rng.standard_normal(shape) * 3, dtype=dtype) for _ in range(k)]


def _binary(op):
    """``op`` over two tensors (the same shape, and broadcast), a tensor and a number, a number and a tensor."""
    def programs(rng, dtype, shape):
        a, b = _arrays(rng, dtype, shape, 2)
        yield "tensors", (lambda x, y: op(x, y)), [a, b]
        yield "one needs grad", (lambda x, y: op(x, y.detach())), [a, b]
        yield "broadcast", (lambda x, y: op(x, y[..., :1] if y.ndim else y)), [a, b]
        yield "number", (lambda x: op(x, 0.7)), [a]
        yield "number first", (lambda x: op(-1.3, x)), [a]
        if np.dtype(dtype) == np.float32:
            yield "float64 other", (lambda x, y: op(x, y.double())), [a, b]
    return programs


def _alpha(op):
    def programs(rng, dtype, shape):
        a, b = _arrays(rng, dtype, shape, 2)
        yield "alpha", (lambda x, y: op(x, y, alpha=0.3)), [a, b]
        yield "alpha int", (lambda x, y: op(x, y, alpha=3)), [a, b]
        yield "alpha broadcast", (lambda x, y: op(x, y[..., :1] if y.ndim else y, alpha=-2.5)), [a, b]
        yield "alpha broadcast rows", (lambda x, y: op(x, y[:1] if y.ndim else y, alpha=0.3)), [a, b]
        yield "alpha broadcast first", (lambda x, y: op(x[..., :1] if x.ndim else x, y, alpha=-2.5)), [a, b]
    return programs


def _fan_in(rng, dtype, shape):
    """A value used by several ops, so that gradients arrive at one input several times (the engine's sums)."""
    a, b = _arrays(rng, dtype, shape, 2)
    yield "fan-in", (lambda x, y: (x * y + x * 2 - y * x + (x + y) * x).tanh() * x), [a, b]
    yield "chain", (lambda x, y: ((x * y).sin() * y + x).exp().log1p() * (y - x)), [a, b]


def _powers(rng, dtype, shape):
    """A tensor to the exponents PyTorch computes by formulas (and one it does not), on positive values."""
    a = np.abs(_arrays(rng, dtype, shape, 1)[0]) + np.asarray(0.1, dtype)
    for e in (2, 3, 3.0, -1, -2, 0.5, -0.5, 2.5, 4):
        yield f"x ** {e!r}", (lambda e: lambda x: x ** e)(e), [a]


def _muladds(rng, dtype, shape):
    """addcmul (value * b rounded, then the product and the sum) and lerp's two forms either side of |weight| 0.5."""
    a, b, c = _arrays(rng, dtype, shape, 3)
    yield "addcmul", (lambda x, y, z: tt.addcmul(x, y, z, value=0.3)), [a, b, c]
    yield "addcmul broadcast", (lambda x, y, z: tt.addcmul(x, y[..., :1] if y.ndim else y, z)), [a, b, c]
    w = np.asarray(rng.uniform(-1, 2, shape), dtype=dtype)
    yield "lerp tensor weight", (lambda x, y, z: tt.lerp(x, y, z)), [a, b, w]
    yield "lerp small weight", (lambda x, y: tt.lerp(x, y, 0.3)), [a, b]
    yield "lerp large weight", (lambda x, y: tt.lerp(x, y, 0.8)), [a, b]


PROGRAMS = {
    "power._power": [_powers],
    "add": [_binary(lambda x, y: x + y)],
    "sub": [_binary(lambda x, y: x - y)],
    "mul": [_binary(lambda x, y: x * y)],
    "MulBackward0": [_binary(lambda x, y: x * y), _fan_in],
    "arith._scaled_sum": [_alpha(tt.add), _alpha(tt.sub)],
    "arith._muladd_into": [_muladds],
    "engine._sum_grads": [_fan_in],
}


