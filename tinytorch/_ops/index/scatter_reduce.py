"""``scatter_reduce`` and ``index_reduce``: the elements of ``src`` combined (sum, prod, mean, amax,
amin) into ``input`` at ``index`` along ``dim``, with or without ``input``'s own value
(``include_self``). ``index_reduce`` is ``scatter_reduce`` with its 1-d index spread over the source.

The gradients are PyTorch's formulas (``scatter_reduce_backward``), written in tinytorch ops: sum and
mean pass the gradient (divided by the count) back through ``gather``; amax/amin share it evenly among
the elements equal to the result; prod multiplies by the product of the others, with zeros handled
by recomputing the product without the single zero."""
from __future__ import annotations

import numpy as np

from ..._quiet_fp import silent
from ..._dtype import FLOATING_NP
from ...autograd.node import Node, raw_dim, u64
from ...tensor import Tensor, _make, _wrap_dim
from .._core.record import OUT, record
from .._core.registry import op
from ..shape._adjoint import index_zeros_put
from .scatter_gather import _at_least_1d, _check_index, _full_index, _index_array, gather, scatter, scatter_add

# scatter_reduce's reduce= values (PyTorch's strings, not ops) -> the ufunc that combines into the output
_UFUNC = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.fmax, "amin": np.fmin}


def _identity(reduce: str, dtype: np.dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype in FLOATING_NP:
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


@silent  # maximum/minimum of a NaN, inf - inf in a sum: PyTorch's values, without numpy's warnings
def _reduce_array(x: np.ndarray, d: int, idx: np.ndarray, src: np.ndarray, reduce: str,
                  include_self: bool) -> np.ndarray:
    out = x.copy()
    out1 = _at_least_1d(out)
    if not idx.size:
        return out
    where = _full_index(idx, d)
    vals = _at_least_1d(src)[tuple(slice(0, s) for s in idx.shape)]
    if not include_self:
        out1[where] = _identity(reduce, x.dtype)
    if reduce in ("amax", "amin"):
        # NaN wins, as in PyTorch: fmax/fmin skip it, so put it back afterwards
        ufunc = np.maximum if reduce == "amax" else np.minimum
        ufunc.at(out1, where, vals)
    elif x.dtype == np.bool_:
        (np.logical_or if reduce in ("sum", "mean") else np.logical_and).at(out1, where, vals)
    else:
        _UFUNC[reduce].at(out1, where, vals)
    if reduce == "mean":
        count = np.zeros_like(out1, dtype=np.int64, order="C")  # (a meta out: meta)
        np.add.at(count, where, 1)
        if include_self:
            count += 1
        count = np.maximum(count, 1)
        if out.dtype in FLOATING_NP:
            out1[...] = out1 / count
        elif out.dtype.kind != "b":
            out1[...] = np.floor_divide(out1, count)
    return out


class ScatterReduceBackward0(Node):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("include_self", "include_self"), ("index", 2),
                    ("reduce", "reduce"), ("result", 3), ("self", 0), ("src", 1))

    def backward(self, g):
        x, src, idx, result = self._unpacked_saved
        d, reduce, include_self = self.dim, self.reduce, self.include_self
        idx_shape = tuple(idx.shape)
        src_v = src if tuple(src.shape) == idx_shape else src[tuple(slice(0, s) for s in idx_shape)]
        if reduce == "sum":
            g_self, g_src = g, gather(g, d, idx)
        elif reduce == "mean":
            ones = _make(np.ones_like(g._data, shape=idx_shape or (1,), order="C"))  # (a meta g: meta)
            count = scatter_add(_make(np.full_like(g._data, 1.0 if include_self else 0.0, order="C")),
                                d, idx, ones)
            count = count.clamp(min=1)
            g_self, g_src = g / count, gather(g / count, d, idx)
        elif reduce in ("amax", "amin"):
            self_is = (x == result).to(g.dtype)
            src_is = (src_v == gather(result, d, idx)).to(g.dtype)
            if not include_self:
                self_is = scatter(self_is, d, idx, 0.0)
            share = g / scatter_add(self_is, d, idx, src_is)
            g_self, g_src = share * self_is, gather(share, d, idx) * src_is
        else:
            g_self, g_src = self._prod(g, x, src_v, idx, result)
        if not include_self:
            g_self = scatter(g_self, d, idx, 0.0)
        if g_src is not None and tuple(src.shape) != idx_shape:
            g_src = index_zeros_put(tuple(src.shape), tuple(slice(0, s) for s in idx_shape), g_src, False)
        return g_self, None, g_src

    def _prod(self, g, x, src, idx, result):
        d, include_self = self.dim, self.include_self
        # written in differentiable ops (the products are scatter_reduce itself), for double backward
        masked_self = x.masked_fill(x == 0, 1)
        masked_self_result = scatter_reduce(masked_self, d, idx, src, "prod", include_self=include_self)
        src_zero = src == 0
        zeros = scatter_add(x.detach().new_zeros(tuple(x.shape)), d, idx, src_zero.to(x.dtype))
        src_single_zero = src_zero & (gather(zeros, d, idx) == 1)
        masked_src = src.masked_fill(src_single_zero, 1)
        masked_src_result = scatter_reduce(x, d, idx, masked_src, "prod", include_self=include_self)
        g_self = g * masked_self_result / masked_self
        g_src = ((g * masked_src_result).gather(d, idx)).where(
            src_single_zero, (g * result).gather(d, idx) / src.masked_fill(src_zero, 1))
        return g_self, g_src


@op(variants="function method inplace out", overlap="any")
def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """A copy of ``input`` where ``src[i][j]`` is combined into ``out[i][index[i][j]]`` (along ``dim``)
    by ``reduce``: "sum", "prod", "mean", "amax" or "amin"."""
    if reduce not in _UFUNC:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    x = input._data
    d = _wrap_dim(dim, max(x.ndim, 1))
    idx = _index_array(index, "scatter_reduce")
    if idx.ndim != _at_least_1d(x).ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    _check_index(idx, _at_least_1d(x), d)
    if src._data.dtype != x.dtype:
        raise RuntimeError("scatter_reduce(): Expected self.dtype to be equal to src.dtype")
    out = _reduce_array(x, d, idx, src._data, reduce, include_self)
    return record(out, ScatterReduceBackward0, (input, None, src), (input, src, index, OUT), dim=d, dim_arg=dim,
                  reduce=reduce, include_self=include_self)


@op(variants="function method inplace out", overlap="any")
def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """A copy of ``input`` where slice ``source[..., j, ...]`` (along ``dim``) is combined into slice
    ``index[j]`` by ``reduce``: "prod", "mean", "amax" or "amin"."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    x = input._data
    nd = max(x.ndim, 1)
    d = _wrap_dim(dim, nd)
    idx = _at_least_1d(index._data)
    if index._data.ndim > 1:
        raise RuntimeError("index_reduce_(): Index is supposed to be a vector")
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index but got: " + str(index.dtype))
    if x.dtype != source._data.dtype:
        raise RuntimeError("index_reduce_(): self and source expected to have the same dtype but got (self) "
                           f"{input.dtype} and (source) {source.dtype}")
    src_shape = _at_least_1d(source._data).shape
    if idx.size != src_shape[d]:
        raise RuntimeError("index_reduce_(): Expected number of elements in index to equal source.size(dim)")
    spread = np.broadcast_to(idx.reshape((1,) * d + (-1,) + (1,) * (len(src_shape) - d - 1)), src_shape)
    spread = _make(np.ascontiguousarray(spread).astype(np.int64).reshape(source._data.shape))
    return scatter_reduce(input, dim, spread, source, reduce, include_self=include_self)
