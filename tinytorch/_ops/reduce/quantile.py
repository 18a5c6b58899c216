"""``quantile`` and ``nanquantile``: the q-th quantiles along a dimension (or of all elements), by
sorting and interpolating between the two nearest ranks, as PyTorch does. ``quantile`` gives NaN for
a slice holding NaN; ``nanquantile`` ignores them (NaN only where a slice is all NaN). The values are
read from the sorted tensor by ``gather``, so the gradient flows to the elements used."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor, _make, _wrap_dim
from .._core.registry import op

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input: Tensor, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool, fn: str) -> Tensor:
    x = input._data
    if x.dtype.kind != "f" or x.dtype == np.float16:  # bfloat16 (numpy kind "V") is refused too
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if x.size == 0:
        raise RuntimeError(f"{fn}() input tensor must be non-empty")
    if isinstance(q, Tensor):
        if q.dim() > 1:
            raise RuntimeError(f"{fn}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{fn}() q tensor must be same dtype as the input tensor")
        qs = q._data
    else:
        qs = np.asarray(q, dtype=x.dtype)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{fn}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    bad = (qs < 0) | (qs > 1)
    if np.any(bad):
        if isinstance(q, Tensor):
            raise RuntimeError(f"{fn}() q values must be in the range [0, 1]")
        raise RuntimeError(f"{fn}() q must be in the range [0, 1] but got {float(qs)}")
    scalar_q = qs.ndim == 0
    qv = qs.reshape(-1)
    if dim is None:
        values, d = input.reshape(-1), 0
    else:
        d = _wrap_dim(dim, max(input.dim(), 1))
        values = input.reshape(1) if input.dim() == 0 else input
    moved = values.movedim(d, -1)
    srt = moved.sort(-1)[0]  # NaN sorts last
    n = srt.shape[-1]
    nan_mask = np.isnan(srt._data)
    if ignore_nan:
        count = (~nan_mask).sum(-1, keepdims=True).astype(x.dtype)
        empty = count == 0
    else:
        count = np.full(srt._data.shape[:-1] + (1,), n, dtype=x.dtype)
        empty = nan_mask[..., -1:]
    ranks = qv * (count - 1)  # (..., Q)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)  # half to even, as PyTorch's round
    ranks = np.clip(ranks, 0, n - 1)
    lo = np.floor(ranks).astype(np.int64)
    hi = np.ceil(ranks).astype(np.int64)
    below = srt.gather(-1, _make(lo))
    above = srt.gather(-1, _make(hi))
    weight = (ranks - lo).astype(x.dtype)
    if interpolation == "linear" and isinstance(q, Tensor) and q.requires_grad:
        # the weight as an op of q, so that q gets its gradient (the slope between the two ranks)
        weight = q.reshape(-1) * _make(count - 1) - _make(lo.astype(x.dtype))
    elif interpolation == "midpoint":
        weight = np.where(hi > lo, np.asarray(0.5, x.dtype), np.asarray(0, x.dtype))
    out = below.lerp(above, weight if isinstance(weight, Tensor) else _make(weight))
    if empty.any():
        out = out.masked_fill(_make(np.broadcast_to(empty, out._data.shape).copy()), float("nan"))
    out = out.movedim(-1, 0)  # (Q, ...)
    if keepdim:
        if dim is None:
            out = out.reshape((qv.size,) + (1,) * input.dim())
        elif input.dim() > 0:
            out = out.unsqueeze(d + 1)
    return out.squeeze(0) if scalar_q else out


@op(variants="function method out", autocast="fp32")
def quantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The ``q``-th quantiles of ``input`` along ``dim`` (of all elements when None)."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


@op(variants="function method out", autocast="fp32")
def nanquantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """``quantile`` ignoring NaN values."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")
