"""alpha_dropout and feature_alpha_dropout (SELU networks): dropped elements (or channels) set to
SELU's negative saturation and the result rescaled to keep mean and variance. The keep mask is
drawn as PyTorch draws it (``bernoulli_(1 - p)`` over the input, or over (N, C, 1, ...)), so a
seeded run drops the same elements."""
from __future__ import annotations

import math

import numpy as np

from ..._random import draws as _draws
from ...random import _engine
from ...tensor import Tensor, _make
from .._core.registry import op
from .activation import functional_spelling
from .dropout import refuse_complex_draw

_ALPHA = 1.7580993408473766  # -SELU's scale * alpha: the value a dropped unit takes before the affine fix


def _alpha(input: Tensor, p: float, train: bool, feature: bool, inplace: bool) -> Tensor:
    if p == 0 or not train or input.numel() == 0:
        return input
    x = input._data
    if p == 1:
        zero = _make(np.zeros((), x.dtype))
        return input.mul_(zero) if inplace else input * zero
    if feature:
        if x.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = x.shape[:2] + (1,) * (x.ndim - 2)
    else:
        shape = x.shape
    refuse_complex_draw(x)
    keep = _draws.bernoulli_scalar(_engine(None), int(np.prod(shape)), 1 - p).reshape(shape).astype(x.dtype)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    dt = x.dtype.type
    b = (keep - dt(1)) * dt(_ALPHA * a) + dt(_ALPHA * a * p)
    noise = keep * dt(a)
    if inplace:
        return input.mul_(_make(noise)).add_(_make(b))
    return input * _make(noise) + _make(b)


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


@functional_spelling("alpha_dropout")
def _alpha_dropout_functional(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout (keeps SELU's mean and variance); the identity unless training."""
    _check_p(p)
    return _alpha(input, p, training, False, inplace)


@functional_spelling("feature_alpha_dropout")
def _feature_alpha_dropout_functional(input: Tensor, p: float = 0.5, training: bool = False,
                                      inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels; the identity unless training."""
    _check_p(p)
    return _alpha(input, p, training, True, inplace)


@op(variants="function functional", functional=_alpha_dropout_functional, no_batch="randomness")
def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout (keeps SELU's mean and variance); the identity unless ``train``."""
    return _alpha(input, p, train, False, False)


@op(variants="function", no_batch="randomness")
def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place alpha dropout."""
    return _alpha(input, p, train, False, True)


@op(variants="function functional", functional=_feature_alpha_dropout_functional, no_batch="randomness")
def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout of whole channels; the identity unless ``train``."""
    return _alpha(input, p, train, True, False)


@op(variants="function", no_batch="randomness")
def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place feature alpha dropout."""
    return _alpha(input, p, train, True, True)
