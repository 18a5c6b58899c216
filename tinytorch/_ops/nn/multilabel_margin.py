"""multilabel_margin_loss: for each sample, the hinge max(0, 1 - (x[y_j] - x[i])) summed over its
target classes y_j (read up to the first -1) and its non-target classes i, divided by the number of
classes. The target pattern is a numpy mask; the loss a tinytorch expression of the input."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor, _make
from .._core.registry import op
from .activation import functional_spelling, relu
from ._reduction import resolve as _resolve_reduction
from .loss import check_reduction


def _targets(y: np.ndarray):
    """(valid (N, C) bool: y[n, j] is a target read before the first -1, member (N, C) bool: i is a target)."""
    stop = np.cumsum(y < 0, axis=1) > 0
    valid = ~stop
    member = np.zeros(y.shape, bool)
    rows = np.nonzero(valid)
    member[rows[0], y[valid]] = True
    return valid, member


@functional_spelling("multilabel_margin_loss")
def _multilabel_margin_functional(input: Tensor, target: Tensor, size_average=None, reduce=None,
                                  reduction: str = "mean") -> Tensor:
    """Multi-class multi-label hinge loss of scores (N, C) or (C,) against padded target classes."""
    reduction = _resolve_reduction(size_average, reduce, reduction)
    check_reduction(reduction)
    return multilabel_margin_loss(input, target, {"none": 0, "mean": 1, "sum": 2}[reduction])


@op(variants="functional", functional=_multilabel_margin_functional, autocast="fp32")
def multilabel_margin_loss(input: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    """Multi-class multi-label hinge loss (ATen's spelling: reduction 0 none, 1 mean, 2 sum)."""
    if input.ndim > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    one = input.ndim < 2
    x = input.reshape(1, -1) if one else input
    y = target._data.reshape(x.shape).astype(np.int64)
    n, c = x.shape
    if c == 0:
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size")
    if y.size and ((y >= c) | (y < -1)).any():
        raise RuntimeError("multilabel_margin_loss: target index out of range")
    valid, member = _targets(y)
    xy = x.gather(1, _make(np.where(valid, y, 0)))                      # (N, J) the target scores
    hinge = relu(1 - xy.unsqueeze(2) + x.unsqueeze(1))                 # (N, J, C)
    mask = _make((valid[:, :, None] & ~member[:, None, :]).astype(x._data.dtype))
    per = (hinge * mask).sum((1, 2)) / c
    if reduction == 0:
        return per.reshape(()) if one else per
    return per.mean() if reduction == 1 else per.sum()
