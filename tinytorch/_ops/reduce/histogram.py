"""``histogram`` and ``histogramdd``: counts (or weights summed, or a density) of the points of a
tensor in bins, which are a count per dimension (evenly spaced between the data's extremes or
``range``) or the bin edges themselves. PyTorch's rules: the edges of counted bins are ``linspace``
in the input's dtype; a point belongs to the bin whose left edge it reaches, the last bin including
its right edge; points outside the edges (and NaN) are not counted; equal extremes widen to ±0.5, and no data at all spans [0, 1]."""
from __future__ import annotations

import numpy as np

from ..creation.factory import linspace
from ...tensor import Tensor, _make
from .._core.registry import op
from .._core.return_types import _named

histogram_result = _named("histogram", ("hist", "bin_edges"))
histogramdd_result = _named("histogramdd", ("hist", "bin_edges"))


def _edges(points: np.ndarray, bins, rng, dtype, fn: str) -> list:
    """One edge array per dimension of the (N, D) points."""
    d = points.shape[1]
    if isinstance(bins, int):
        bins = [bins] * d
    if isinstance(bins, Tensor):
        bins = [bins]
    if len(bins) != d:
        raise RuntimeError(f"{fn}: expected {d} sequences of bin edges for each dimension of input of shape but "
                           f"got {len(bins)}")
    if rng is not None and len(rng) != 2 * d:
        raise RuntimeError(f"{fn}: for a {d}-dimensional histogram range should have {2 * d} elements, but got "
                           f"{len(rng)}")
    edges = []
    for k, b in enumerate(bins):
        if isinstance(b, Tensor):
            if b.dim() != 1:
                raise RuntimeError(f"{fn}: bins tensor should have one dimension, but got {b.dim()} dimensions")
            edges.append(b._data.astype(dtype))
            continue
        b = int(b)
        if b <= 0:
            raise RuntimeError(f"{fn}(): bins must be > 0, but got {b} for dimension {k}")
        if rng is not None:
            lo, hi = float(rng[2 * k]), float(rng[2 * k + 1])
        else:
            col = points[:, k]
            col = col[~np.isnan(col)]  # the input is float or double (``_check``)
            lo, hi = (float(col.min()), float(col.max())) if col.size else (0.0, 1.0)
        if lo > hi:
            raise RuntimeError(f"{fn}(): max must be larger than min")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(linspace(lo, hi, b + 1, dtype=_make(np.zeros((), dtype)).dtype)._data)
    return edges


def _count(points: np.ndarray, edges: list, weight, density: bool) -> np.ndarray:
    shape = tuple(max(len(e) - 1, 0) for e in edges)
    keep = np.ones(points.shape[0], dtype=bool)
    where = []
    for k, e in enumerate(edges):
        col = points[:, k]
        if len(e) < 2:
            keep[:] = False
            where.append(np.zeros(points.shape[0], dtype=np.int64))
            continue
        pos = np.searchsorted(e, col, side="right") - 1
        pos = np.where(col == e[-1], len(e) - 2, pos)
        keep &= (col >= e[0]) & (col <= e[-1]) & (pos >= 0) & (pos < len(e) - 1)
        where.append(pos)
    hist = np.zeros(shape, dtype=points.dtype)
    w = np.ones(points.shape[0], dtype=points.dtype) if weight is None else weight.reshape(-1).astype(points.dtype)
    if keep.any():
        np.add.at(hist, tuple(p[keep] for p in where), w[keep])
    if density:
        total = hist.sum()
        volume = np.ones(shape, dtype=points.dtype)
        for k, e in enumerate(edges):
            width = np.diff(e).astype(points.dtype)
            volume = volume * width.reshape((1,) * k + (-1,) + (1,) * (len(edges) - k - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            hist = hist / total / volume
    return hist.astype(points.dtype, copy=False)


def _check(input: Tensor, weight, fn: str) -> None:
    if input._data.dtype.kind != "f" or input._data.dtype == np.float16:
        # PyTorch's histogram kernels take float and double only (bfloat16's numpy kind is "V"); both
        # functions' refusals name the histogramdd kernel
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{input.dtype._scalar}'")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"{fn}: if weight tensor is provided it should have the same dtype as the input tensor")


@op(variants="function method out", no_batch="the bin edges depend on the data", meta="data_dependent")
def histogram(input: Tensor, bins=100, *, range=None, weight: Tensor | None = None, density: bool = False):
    """(hist, bin_edges): the histogram of all elements of ``input`` over ``bins``."""
    _check(input, weight, "histogram_cpu")
    points = input._data.reshape(-1, 1)
    edges = _edges(points, [bins] if isinstance(bins, int) else bins, range, input._data.dtype, "torch.histogram")
    hist = _count(points, edges, None if weight is None else weight._data, density)
    return histogram_result(_make(hist), _make(np.array(edges[0], copy=True)))


@op(variants="function", no_batch="the bin edges depend on the data",
    meta="data_dependent:_histogramdd_bin_edges")
def histogramdd(input: Tensor, bins=10, *, range=None, weight: Tensor | None = None, density: bool = False):
    """(hist, bin_edges): the D-dimensional histogram of the points in the last dimension of ``input``."""
    _check(input, weight, "histogramdd")
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions, but got "
                           f"{input.dim()}")
    d = input.shape[-1]
    points = input._data.reshape(-1, d)
    edges = _edges(points, bins, range, input._data.dtype, "torch.histogramdd")
    hist = _count(points, edges, None if weight is None else weight._data, density)
    return histogramdd_result(_make(hist), tuple(_make(np.array(e, copy=True)) for e in edges))
