"""gather, scatter and scatter_add (PyTorch's ScatterGatherKernel), and ``zeros_scatter``, gather's
adjoint that the index-returning reductions (max(dim), sort, cummax, ...) use for their backward.
0-d tensors are read as 1-d, as PyTorch does; indices are int64 or int32 and never negative."""
from __future__ import annotations

import numpy as np

from ..._dtype import NARROW_NP
from ..._meta_array import MetaArray
from .._core import narrow_dtypes
from ...autograd.node import Node, raw_dim, u64
from ...tensor import Tensor, _make, _wrap_dim
from ..shape import _batching as rules
from .._core.record import NotImplementedBackward, record, wants_grad
from .._core.registry import op
from .._core.util import as_array, c_order
from ..shape._adjoint import index_zeros_put


# -- gather and its adjoint -----------------------------------------------------------------------
_DIM = ("dim", lambda n: u64(raw_dim(n)))


def _given(index: Tensor, idx: np.ndarray) -> Tensor:
    return index if idx is index._data else _make(idx)


class GatherBackward0(Node):
    saved_fields = (_DIM, ("index", 0), ("self", 1), ("sparse_grad", lambda n: False))

    # saves self as PyTorch's node does (its formula reads only self's shape): modifying the input in
    # place afterwards makes backward raise, as in PyTorch
    def backward(self, g):
        idx, _ = self._unpacked_saved
        return (zeros_scatter(self.in_shape, self.dim, idx, g), None)

    def jvp(self, t, *_):
        idx, _ = self._unpacked_saved
        return gather(t, self.dim, idx)


class ScatterAddBackward0(Node):
    """scatter_add: self's gradient passes, src's is gathered back at index (0 where src is larger
    than index). Also the adjoint of gather (``zeros_scatter``), whose only input is src."""

    saved_fields = (_DIM, ("index", 0))

    with_self = False

    def backward(self, g):
        (idx,) = self._unpacked_saved
        if idx is None:  # src needs no gradient (PyTorch then keeps no index)
            return (g, None)
        g_src = gather(g, self.dim, idx)
        if g_src._data.shape != self.src_shape:
            if g_src._data.size == int(np.prod(self.src_shape)):  # a 0-d src read as 1-d
                g_src = g_src.reshape(self.src_shape)
            else:
                g_src = index_zeros_put(self.src_shape, tuple(slice(0, s) for s in idx._data.shape), g_src, False)
        return (g, g_src) if self.with_self else (g_src,)


def _full_index(idx: np.ndarray, dim: int) -> tuple:
    """``idx`` along ``dim`` and each other dim's positions (np.indices' sparse grids, the one along ``dim``,
    which ``idx`` replaces, never made: it would be as long as that dim; a meta ``idx``'s data-less too)."""
    meta = type(idx) is MetaArray

    def grid(k: int, n: int):
        shape = [n if j == k else 1 for j in range(idx.ndim)]
        return MetaArray(shape, np.intp) if meta else np.arange(n).reshape(shape)
    return tuple(idx if k == dim else grid(k, n) for k, n in enumerate(idx.shape))


def _at_least_1d(a: np.ndarray) -> np.ndarray:
    return a.reshape(1) if a.ndim == 0 else a


def _index_array(index: Tensor, fn: str) -> np.ndarray:
    """gather's and scatter's index: int64 or int32 (an empty one of any dtype), 0-d read as 1-d."""
    idx = index._data
    if idx.dtype != np.int64 and idx.dtype != np.int32 and idx.size:
        raise RuntimeError(f"{fn}(): Expected dtype int32/int64 for index")
    return _at_least_1d(idx)


def _check_index(idx: np.ndarray, x: np.ndarray, d: int) -> None:
    if idx.size:
        bad = (idx < 0) | (idx >= x.shape[d])
        if bad.any():
            raise RuntimeError(f"index {idx[bad].flat[0]} is out of bounds for dimension {d} with size {x.shape[d]}")


@op(variants="function method out", batch=rules.gather, overlap="any", meta="cpu_args")
def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """out[i][j] = input[i][index[i][j]] along ``dim`` (0-d tensors read as 1-d)."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "gather_expanded_index", "scatter_gather_tensor_cpu")
    x = _at_least_1d(input._data)
    d = _wrap_dim(dim, x.ndim)
    idx = _index_array(index, "gather")
    if idx.ndim != x.ndim and idx.size:  # an empty index is not checked, as in PyTorch
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    _check_index(idx, x, d)
    # C order whatever the input's and the index's layouts, as ATen's gather allocates (numpy's indexing follows
    # the index's)
    out = c_order(as_array(x[_full_index(idx, d)]).reshape(index._data.shape)) if idx.size else \
        np.empty(index._data.shape, x.dtype)
    return record(out, GatherBackward0, (input, None), (index, input), dim=d, dim_arg=dim, in_shape=input._data.shape)


def zeros_scatter(shape: tuple, dim: int, index: Tensor, src: Tensor, distinct: bool = False) -> Tensor:
    """A zero tensor of ``shape`` with ``src`` added at ``index`` along ``dim``: gather's adjoint (PyTorch's
    ``new_zeros`` then ``scatter_add``); with ``distinct`` indices (values picked by max, sort, topk: PyTorch's
    value_selecting_reduction_backward) written instead, ``scatter``, so a -0.0 stays -0.0."""
    return _zeros_scatter(shape, dim, index, src, distinct)


def _zeros_scatter(shape: tuple, dim: int, index: Tensor, src: Tensor, distinct: bool) -> Tensor:
    """``zeros_scatter``'s step, by its module-level name: a graph capture shows PyTorch's ops there
    (``fx/experimental/_graph_steps.py``)."""
    out = np.zeros_like(src._data, shape=shape)  # (a meta src: a meta result)
    idx = _at_least_1d(index._data)
    if idx.size and distinct:
        np.put_along_axis(_at_least_1d(out), idx, src._data.reshape(idx.shape), dim)
    elif idx.size:
        np.add.at(_at_least_1d(out), _full_index(idx, dim), src._data.reshape(idx.shape))
    return record(out, ScatterAddBackward0, (src,), (index,), dim=dim, src_shape=src._data.shape)


class ScatterBackward0(Node):
    """scatter with a src tensor: src's gradient is gathered back, the overwritten places get none."""

    saved_fields = (_DIM, ("index", 0))

    def backward(self, g):
        (idx,) = self._unpacked_saved
        keep = np.ones_like(g._data, order="C")  # (a meta g: a meta keep, written nowhere)
        _at_least_1d(keep)[_full_index(idx._data, self.dim)] = 0
        g_src = None
        if self.need_src:
            g_src = gather(g, self.dim, idx)
            if g_src._data.ndim > len(self.src_shape):  # a 0-d src was read as 1-d
                g_src = g_src.reshape(self.src_shape)
            if g_src._data.shape != self.src_shape:  # src may be larger than index: the rest gets 0
                g_src = index_zeros_put(self.src_shape, tuple(slice(0, s) for s in idx._data.shape), g_src, False)
        return g * _make(keep), None, g_src


class ScatterBackward1(ScatterBackward0):
    def backward(self, g):
        return super().backward(g)[:1]


_REDUCE = {"add": np.add, "multiply": np.multiply}


@op(variants="function method inplace out", batch=rules.scatter, overlap="any", meta="cpu_args")
def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce: str | None = None) -> Tensor:
    """A copy of ``input`` with ``src`` (or ``value``) written at ``index`` along ``dim``; with
    ``reduce="add"``/``"multiply"`` combined with what is there instead (repeated indices all count)."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "scatter_gather_tensor_cpu", "scatter_gather_tensor_cpu")
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src  # scatter(dim, index, 1.5): a number in src's place is a value
    if (src is None) == (value is None):
        raise TypeError("scatter() expected exactly one of 'src' or 'value'")
    x = input._data
    x1 = _at_least_1d(x)
    d = _wrap_dim(dim, x1.ndim)
    idx = _index_array(index, "scatter")
    if idx.ndim != x1.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and max(src._data.ndim, 1) != idx.ndim:  # a 0-d src counts as 1-d, as in PyTorch
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    _check_index(idx, x1, d)
    if src is not None and src._data.dtype != x.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    where = _full_index(idx, d)
    out = x.copy()
    vals = value if src is None else _at_least_1d(src._data)[tuple(slice(0, s) for s in idx.shape)]
    if reduce is None:
        _at_least_1d(out)[where] = vals
    else:
        if reduce not in _REDUCE:
            raise RuntimeError("reduce argument must be either add or multiply.")
        if src is not None:
            import warnings
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                          "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                          UserWarning, stacklevel=3)
        ufunc = np.logical_or if reduce == "add" and x.dtype == np.bool_ else _REDUCE[reduce]
        ufunc.at(_at_least_1d(out), where, np.broadcast_to(np.asarray(vals, dtype=x.dtype), idx.shape))
    if reduce is not None:
        return record(out, NotImplementedBackward, (input,) if src is None else (input, src), op="aten::scatter")
    inputs = (input,) if src is None else (input, None, src)
    if not wants_grad(inputs):
        return _make(out)
    return record(out, ScatterBackward1 if src is None else ScatterBackward0, inputs, (_given(index, idx),), dim=d,
                  dim_arg=dim, need_src=src is not None and src._requires_grad,
                  src_shape=None if src is None else src._data.shape)


@op(variants="function method inplace out", batch=rules.scatter, overlap="any", meta="cpu_args")
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src``'s elements added at ``index`` along ``dim`` (repeats add up)."""
    x = input._data
    x1 = _at_least_1d(x)
    d = _wrap_dim(dim, x1.ndim)
    idx = _index_array(index, "scatter")
    if idx.ndim != x1.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    _check_index(idx, x1, d)
    if src._data.dtype != x.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    out = x.copy()
    if idx.size:
        vals = _at_least_1d(src._data)[tuple(slice(0, s) for s in idx.shape)]
        (np.logical_or if x.dtype == np.bool_ else np.add).at(_at_least_1d(out), _full_index(idx, d), vals)
    if not wants_grad((input, src)):
        return _make(out)
    # PyTorch keeps the index for src's gradient only
    return record(out, ScatterAddBackward0, (input, src), (_given(index, idx) if src._requires_grad else None,),
                  with_self=True, dim=d, dim_arg=dim, src_shape=src._data.shape)
