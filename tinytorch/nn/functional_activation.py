"""The activations of ``nn.functional`` beyond relu/gelu/silu: hardtanh, relu6, hardswish,
hardsigmoid, mish, glu, prelu, elu, celu, selu, leaky_relu, logsigmoid, softsign, tanhshrink,
softshrink, hardshrink, threshold, rrelu, normalize and gumbel_softmax.

Primitives where PyTorch has one (their nodes carry PyTorch's names, ``...Backward1`` when run in
place); compositions, in PyTorch's order, where PyTorch composes (softsign, tanhshrink, normalize,
gumbel_softmax)."""
from __future__ import annotations

import warnings

import numpy as np

from ..ops.reduce import softmax as _softmax
from .._random import draws as _draws
from ..random import _engine
from ..tensor import Tensor, _make
from . import _activation_ops as _act1
from . import _activation_ops2 as _act

__all__ = ["hardtanh", "hardtanh_", "relu6", "hardswish", "hardsigmoid", "mish", "glu", "prelu",
           "elu", "elu_", "celu", "celu_", "selu", "selu_", "leaky_relu", "leaky_relu_",
           "logsigmoid", "softsign", "tanhshrink", "softshrink", "hardshrink", "threshold",
           "threshold_", "rrelu", "rrelu_", "normalize", "gumbel_softmax"]


def _run(input: Tensor, inplace: bool, op, *args, **kwargs) -> Tensor:
    if inplace:
        return _act._inplace(input, op, *args, **kwargs)
    return op(input, *args, **kwargs)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """x clamped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _run(input, inplace, _act.hardtanh, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place hardtanh."""
    return hardtanh(input, min_val, max_val, True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """x clamped to [0, 6] (a hardtanh, as in PyTorch)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6."""
    return _run(input, inplace, _act.hardswish)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6."""
    return _run(input, inplace, _act.hardsigmoid)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    return _run(input, inplace, _act.mish)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit: first half times the sigmoid of the second half along ``dim``."""
    return _act.glu(input, dim)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, else weight * x (one weight, or one per channel)."""
    return _act.prelu(input, weight)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else alpha * (exp(x) - 1)."""
    if inplace:
        return _act._inplace(input, _act.elu, alpha, _node=_act.EluBackward1)
    return _act.elu(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place elu."""
    return elu(input, alpha, True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with the self-normalising constants."""
    node = _act.EluBackward1 if inplace else _act.EluBackward0
    return _run(input, inplace, _act.elu, _act._SELU_ALPHA, _act._SELU_SCALE, 1.0, _node=node)


def selu_(input: Tensor) -> Tensor:
    """In-place selu."""
    return selu(input, True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else alpha * (exp(x / alpha) - 1)."""
    node = _act.CeluBackward1 if inplace else _act.CeluBackward0
    return _run(input, inplace, _act.celu, alpha, _node=node)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place celu."""
    return celu(input, alpha, True)


class LeakyReluBackward1(_act1.LeakyReluBackward0):
    pass


def _leaky_inplace_op(x: Tensor, negative_slope: float) -> Tensor:
    out = _act1.leaky_relu(x, negative_slope)
    if out.grad_fn is not None:
        out.grad_fn.__class__ = LeakyReluBackward1
    return out


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else negative_slope * x."""
    if inplace:
        return _act._inplace(input, _leaky_inplace_op, negative_slope)
    return _act1.leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place leaky_relu."""
    return leaky_relu(input, negative_slope, True)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x))."""
    return _act.logsigmoid(input)


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - input.tanh()


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Shrink towards 0 by ``lambd``; 0 inside [-lambd, lambd]."""
    return _act.softshrink(input, lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > lambd, else 0."""
    return _act.hardshrink(input, lambd)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """x where x > threshold, else value."""
    node = _act.ThresholdBackward1 if inplace else _act.ThresholdBackward0
    return _run(input, inplace, _act.threshold, threshold, value, _node=node)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place threshold."""
    return globals()["threshold"](input, threshold, value, True)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky relu: random negative slopes in [lower, upper] while training."""
    node = _act.RreluWithNoiseBackward1 if inplace else _act.RreluWithNoiseBackward0
    return _run(input, inplace, _act.rrelu, lower, upper, training, _node=node)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    """In-place rrelu."""
    return rrelu(input, lower, upper, training, True)


def _vector_norm(input: Tensor, p: float, dim, keepdim: bool) -> Tensor:
    return _act.vector_norm(input, p, dim, keepdim)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """input / max(||input||_p, eps) along ``dim``."""
    denom = _act.clamp_min(_vector_norm(input, p, dim, True), eps).expand_as(input)
    result = input / denom
    return result if out is None else out.copy_(result)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """Samples from the Gumbel-softmax distribution; ``hard`` gives one-hot samples whose gradient
    is the soft sample's (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    x = logits._data
    # PyTorch: -empty_like(logits).exponential_().log()
    exp = _draws.exponential_values(_engine(None), x.size, 1.0).astype(x.dtype).reshape(x.shape)
    gumbels = -_make(np.asarray(exp)).log()
    gumbels = (logits + gumbels) / tau
    y_soft = _softmax(gumbels, dim)
    if not hard:
        return y_soft
    d = dim + x.ndim if dim < 0 else dim
    index = np.expand_dims(np.argmax(y_soft._data, axis=d), d)
    hot = np.zeros_like(x)
    np.put_along_axis(hot, index, 1.0, axis=d)
    return _make(hot) - y_soft.detach() + y_soft
