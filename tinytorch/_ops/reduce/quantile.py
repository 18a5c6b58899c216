"""``quantile`` and ``nanquantile``: the q-th quantiles along a dimension (or of all elements), by
sorting and interpolating between the two nearest ranks (linear, midpoint; the other modes read one), as
PyTorch does. ``quantile`` gives NaN for a slice holding NaN; ``nanquantile`` ignores them (NaN only where a
slice is all NaN). The values, NaN included, are read from the sorted tensor by ``gather``, so the gradient
flows to the elements used."""
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
    # PyTorch's ranks: a slice holding NaN reads its last (NaN) element for quantile; nanquantile counts the
    # others and reads the first (NaN) element of an all-NaN slice (rank -q, raised to 0). The NaN comes out of
    # the read values, which also take the slice's gradient, as PyTorch's
    if ignore_nan:
        count = (~nan_mask).sum(-1, keepdims=True).astype(x.dtype)
        raw = qv * (count - 1)  # (..., Q)
        filled, fill = raw < 0, 0
    else:
        count = np.full(srt._data.shape[:-1] + (1,), n, dtype=x.dtype)
        raw = qv * (count - 1)
        filled, fill = np.broadcast_to(nan_mask[..., -1:], raw.shape), n - 1
    ranks = np.where(filled, np.asarray(fill, x.dtype), raw)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)  # half to even, as PyTorch's round
    ranks = np.clip(ranks, 0, n - 1)
    lo = np.floor(ranks).astype(np.int64)
    out = srt.gather(-1, _make(lo))
    if interpolation in ("linear", "midpoint"):  # the others read one rank, without lerp (inf + 0 * NaN)
        above = srt.gather(-1, _make(np.ceil(ranks).astype(np.int64)))
        if interpolation == "midpoint":
            weight = _make(np.full(ranks.shape, 0.5, x.dtype))
        elif isinstance(q, Tensor) and q.requires_grad:
            # the weight as an op of q, so that q gets its gradient (the slope between the two ranks; none
            # where the rank was filled in)
            rank = (q.reshape(-1) * _make(count - 1)).masked_fill(_make(np.ascontiguousarray(filled)), float(fill))
            weight = rank - _make(lo.astype(x.dtype))
        else:
            weight = _make((ranks - lo).astype(x.dtype))
        out = out.lerp(above, weight)
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
