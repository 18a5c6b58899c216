"""local_response_norm (and CrossMapLRN2d's legacy kernel): each element divided by (k + alpha * mean of
the squares of its ``size`` neighbouring channels)^beta, computed as PyTorch does (average pooling of the
zero-padded squares)."""
from __future__ import annotations

import numpy as np

from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.record import record
from .._core.registry import op
from .pad import pad
from .pool import avg_pool2d
from .pool3d import avg_pool3d


@op(variants="functional")
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """Normalise across channels (dim 1) of (N, C, *)."""
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = tuple(input.shape)
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).reshape(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# -- CrossMapLRN2d: PyTorch's legacy kernel, windows and gradient as it computes them ----------------
class CrossMapLRN2dBackward(Node):
    """PyTorch's hand-written gradient: scale^-beta * g - 2*alpha*beta/size * x * (sum over a window of
    g*out/scale); it is not the exact derivative of the forward's window (which keeps channel 0), and
    it has no derivative of its own."""

    def backward(self, g):
        x, out, scale = self.x, self.result, self.scale
        size, alpha, beta = self.size, self.alpha, self.beta
        gd = g._data
        ratio = gd * out / scale
        c = x.shape[1]
        shift = int(size - (size - 1) / 2)
        acc = np.zeros_like(x)
        for ch in range(c):
            lo, hi = max(ch - shift, 0), min(ch + size - 1 - shift, c - 1)
            if lo <= hi:
                acc[:, ch] = ratio[:, lo:hi + 1].sum(1)
        grad = scale ** -beta * gd - (2 * alpha * beta / size) * x * acc
        return (_make(grad.astype(x.dtype)),)


def _cross_map_window(c: int, size: int) -> np.ndarray:
    """m[ch, j] = 1 where the legacy forward sums channel j into channel ch's scale: the running window
    [ch - pre + 1, ch + pre - 1] except that channel 0, once added, is never taken out again."""
    pre = int((size - 1) / 2 + 1)
    m = np.zeros((c, c))
    for ch in range(c):
        m[ch, max(ch - pre + 1, 0):min(ch + pre - 1, c - 1) + 1] = 1
        m[ch, 0] = 1 if ch + pre - 1 >= 0 else 0
    return m


def cross_map_lrn2d(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> Tensor:
    """CrossMapLRN2d's forward on (N, C, H, W)."""
    if input.ndim != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D instead.")
    x = input._data
    m = _cross_map_window(x.shape[1], size).astype(x.dtype)
    scale = np.einsum("cj,njhw->nchw", m, x * x) * x.dtype.type(alpha / size) + x.dtype.type(k)
    out = (scale ** x.dtype.type(-beta) * x).astype(x.dtype)
    return record(out, CrossMapLRN2dBackward, (input,), x=x, result=out, scale=scale, size=size, alpha=alpha,
                  beta=beta)
