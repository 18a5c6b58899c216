"""The two losses PyTorch implements as kernels of their own (``SoftMarginLossBackward0``,
``MultiMarginLossBackward0``): forward in numpy, backward from tinytorch ops."""
from __future__ import annotations

import numpy as np

from ..autograd.node import Node
from ._util import as_array
from ..tensor import Tensor, _make
from .activation import record as _record


def _reduce(losses: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return losses
    return as_array(losses.mean() if reduction == "mean" else losses.sum())


def _check_reduction(reduction: str) -> None:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


class SoftMarginLossBackward0(Node):
    def backward(self, g):
        x, y = self.saved_tensors
        coef = -y * (-y * x).sigmoid()
        if self.reduction == "mean":
            g = g / x.numel()
        return (coef * g,)


def soft_margin_loss(input: Tensor, target: Tensor, reduction: str) -> Tensor:
    """log(1 + exp(-y x)), reduced."""
    _check_reduction(reduction)
    x, y = input._data, target._data
    try:
        ok = np.broadcast_shapes(x.shape, y.shape) == x.shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"The size of tensor a ({x.shape[-1]}) must match the size of tensor b "
                           f"({y.shape[-1]}) at non-singleton dimension {x.ndim - 1}")
    losses = np.log1p(np.exp(-y * x)).astype(x.dtype, copy=False)
    return _record((input,), _reduce(losses, reduction), SoftMarginLossBackward0,
                   (input, target), reduction=reduction)


class MultiMarginLossBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        x2 = x.view(self.shape2d)
        hot, mask, scale = (_make(a) for a in (self.hot, self.mask, self.scale))
        z = x2.gather(1, _make(self.target[:, None])) * -1 + x2 + self.margin
        dz = mask if self.p == 1 else z * mask * 2.0
        if self.reduction == "none":
            g = g.reshape(-1, 1)
        elif self.reduction == "mean":
            g = g / self.shape2d[0]
        grad = dz * scale * g
        grad = grad - hot * grad.sum(1, keepdim=True)
        return (grad.view(x.shape),)


def multi_margin_loss(input: Tensor, target: Tensor, p: int, margin: float,
                      weight: Tensor | None, reduction: str) -> Tensor:
    """sum over j != y of max(0, margin - x[y] + x[j])^p (times weight[y]) / C, per sample."""
    _check_reduction(reduction)
    x, t = input._data, target._data
    x2 = x.reshape(1, -1) if x.ndim <= 1 else x
    n, c = x2.shape
    tt = t.reshape(-1)
    if tt.size != n or (x.ndim == 2 and t.ndim != 1):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the "
                           "number of input samples (batch size). Expected target size "
                           f"[{n}], but got [{', '.join(map(str, t.shape))}]. Input has shape "
                           f"[{', '.join(map(str, x.shape))}].")
    if tt.size and (tt.min() < 0 or tt.max() >= c):
        raise RuntimeError("target out of range")
    rows = np.arange(n)
    z = margin - x2[rows, tt][:, None] + x2
    hot = np.zeros_like(x2)
    hot[rows, tt] = 1
    mask = ((z > 0) & (hot == 0)).astype(x.dtype)
    h = np.where(mask > 0, z if p == 1 else z * z, 0)
    scale = np.full((n, 1), 1.0 / c, dtype=x.dtype)
    if weight is not None:
        scale = (weight._data[tt] / c).astype(x.dtype)[:, None]
    losses = (h * scale).sum(1).astype(x.dtype)
    if x.ndim <= 1 and reduction == "none":
        losses = losses.reshape(t.shape)
    return _record((input,), _reduce(losses, reduction), MultiMarginLossBackward0, (input,),
                   shape2d=(n, c), target=tt, hot=hot, mask=mask, scale=scale, p=p,
                   margin=margin, reduction=reduction)
