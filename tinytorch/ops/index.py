"""Indexing: ``t[key]`` (basic keys give views, advanced keys copies) and ``t[key] = value``."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import _State
from ..autograd.node import Node
from ..tensor import Tensor, _make, _view_of
from ._util import as_array, sum_to, unpack


def _convert_key(key):
    """Key with tensors/lists turned into numpy arrays; and whether it uses advanced indexing."""
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    advanced = False
    for k in key:
        if isinstance(k, Tensor):
            k = k._data
            advanced = True
        elif isinstance(k, (list, np.ndarray, range)):
            # a range, and a list that may hold tensors or ints, index like an int tensor (as PyTorch)
            k = np.asarray(k) if not isinstance(k, list) else np.asarray([_item_index(v) for v in k])
            if k.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            advanced = True
        elif isinstance(k, slice):
            if k.step is not None and int(k.step) <= 0:
                raise ValueError("step must be greater than zero")
        elif not (k is None or k is Ellipsis or isinstance(k, (int, np.integer))):
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                "indices (got " + type(k).__name__ + ")")
        if advanced and isinstance(k, np.ndarray) and k.dtype.kind in "iu" and k.dtype != np.intp:
            k = k.astype(np.intp)
        out.append(k)
    return tuple(out), advanced


def _item_index(v):
    return v._data if isinstance(v, Tensor) else v


def _basic_steps(key, shape: tuple):
    """PyTorch's view-making steps for the basic items of ``key``: (item, is a no-op full slice)."""
    consumed = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
                   for k in key if k is not None and k is not Ellipsis)
    dim = 0
    for k in key:
        if k is Ellipsis:
            dim += len(shape) - consumed
        elif k is None:
            yield k, False
        elif isinstance(k, np.ndarray):
            dim += k.ndim if k.dtype == np.bool_ else 1
        elif isinstance(k, slice):
            yield k, (k.start in (None, 0) and k.step in (None, 1)
                      and (k.stop is None or (dim < len(shape) and k.stop >= shape[dim])))
            dim += 1
        else:
            yield k, False
            dim += 1


def _node_name(key, advanced: bool, shape: tuple, single: bool) -> str:
    """The node of PyTorch's last indexing step; in a tuple key, full slices (``x[1, :]``) are skipped."""
    if advanced:
        return "IndexBackward0"
    name = "AliasBackward0"
    for k, full in _basic_steps(key, shape):
        if k is None:
            name = "UnsqueezeBackward0"
        elif isinstance(k, slice):
            if single or not full:
                name = "SliceBackward0"
        else:
            name = "SelectBackward0"
    return name


class _IndexNode(Node):
    def backward(self, g):
        return (index_zeros_put(self.in_shape, self.key, g, self.advanced),)

    def jvp(self, t):
        return getitem(t, self.key)


_INDEX_NODES = {name: type(name, (_IndexNode,), {}) for name in (
    "IndexBackward0", "SliceBackward0", "SelectBackward0", "UnsqueezeBackward0", "AliasBackward0")}


def _check_bounds(x: np.ndarray, key: tuple) -> None:
    """PyTorch's IndexErrors, which name the dim and size (numpy's texts differ)."""
    consumed = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
                   for k in key if k is not None and k is not Ellipsis)
    if consumed > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    dim = 0
    advanced = 0  # PyTorch counts index tensors (a k-d mask is k of them) when it names their dim
    for pos, k in enumerate(key):
        if k is None:
            continue
        if k is Ellipsis:
            dim += x.ndim - consumed
        elif isinstance(k, np.ndarray) and k.dtype == np.bool_:
            for j in range(k.ndim):
                if k.shape[j] != x.shape[dim + j]:
                    raise IndexError(f"The shape of the mask [{', '.join(map(str, k.shape))}] at index {j} does not "
                                     f"match the shape of the indexed tensor [{', '.join(map(str, x.shape))}] "
                                     f"at index {dim + j}")
            dim += k.ndim
            advanced += k.ndim
        elif isinstance(k, np.ndarray):
            size = x.shape[dim]
            bad = (k < -size) | (k >= size)
            if bad.any():
                raise IndexError(f"index {k[bad].flat[0]} is out of bounds for dimension {advanced} with size {size}")
            dim += 1
            advanced += 1
        else:
            if isinstance(k, (int, np.integer)):
                size = x.shape[dim]
                if not -size <= k < size:
                    # PyTorch names the integer's position in the key, not the dim it indexes
                    raise IndexError(f"index {k} is out of bounds for dimension {pos} with size {size}")
            dim += 1


def getitem(input: Tensor, key, _node: str | None = None) -> Tensor:
    """``input[key]``: a view for ints/slices/None/..., a copy for tensor, list or mask keys."""
    x = input._data
    single = not isinstance(key, tuple)
    key, advanced = _convert_key(key)
    _check_bounds(x, key)
    try:
        out = x[key]
    except IndexError as e:
        raise IndexError(str(e).replace("array", "tensor")) from None
    out = as_array(out)
    node = None
    if _State.enabled and input._requires_grad:
        node = _INDEX_NODES[_node or _node_name(key, advanced, x.shape, single)]((input._edge(),))
        node.in_shape, node.key, node.advanced = x.shape, key, advanced
    if advanced:
        return _make(out, node)
    return _view_of(input, out, node)


class IndexPutBackward0(Node):
    def backward(self, g):
        return (g[self.key],)


def index_zeros_put(shape: tuple, key: tuple, src: Tensor, accumulate: bool) -> Tensor:
    """Zeros of ``shape`` with ``src`` added at ``key`` (the adjoint of indexing)."""
    out = np.zeros(shape, dtype=src._data.dtype)
    if accumulate:
        np.add.at(out, key, src._data)
    else:
        out[key] = src._data
    if _State.enabled and src._requires_grad:
        node = IndexPutBackward0((src._edge(),))
        node.key = key
        return _make(out, node)
    return _make(out)


class CopySlices(Node):
    """``t[key] = value`` on a tensor in the graph: the old values' gradient is cut at ``key``."""

    def backward(self, g):
        from .arith import where
        keep = np.ones(self.shape, dtype=bool)
        keep[self.key] = False
        g_self = where(_make(keep), g, 0.0)  # overwritten elements get exactly 0, as PyTorch's zero_()
        g_value = None
        if self.value_shape is not None:
            g_value = g[self.key]
            extra = len(self.value_shape) - g_value._data.ndim
            if extra > 0:  # the value had leading ones that assignment dropped
                g_value = g_value.reshape((1,) * extra + g_value._data.shape)
            if g_value._data.shape != self.value_shape:
                g_value = sum_to(g_value, self.value_shape)
            if g_value._data.dtype != self.value_dtype:
                g_value = g_value.to(self.value_dtype)
        return g_self, g_value


# PyTorch writes through a view only when the basic part of the key makes one (CopySlices); else it
# calls index_put_, fill_ or copy_ on the tensor itself, and records their nodes instead
_IndexPutSlices = type("IndexPutBackward0", (CopySlices,), {})
_FillSlices = type("FillBackward3", (CopySlices,), {})
_CopySlicesAll = type("CopyBackwards", (CopySlices,), {})


def _setitem_node(key, advanced: bool, shape: tuple, value_t):
    if any(not full for _, full in _basic_steps(key, shape)):
        return CopySlices
    if advanced:
        return _IndexPutSlices
    return _FillSlices if value_t is None or value_t._data.ndim == 0 else _CopySlicesAll


def _legacy(dt: np.dtype) -> str:
    from .._dtype import FROM_NP
    return FROM_NP[dt]._legacy[:-len("Tensor")]


def _raise_shape_mismatch(x: np.ndarray, key: tuple, advanced: bool, v: np.ndarray) -> None:
    """PyTorch's error for a value that does not fit ``x[key]`` (numpy's texts differ)."""
    target = x[key].shape
    if advanced:
        raise RuntimeError(f"shape mismatch: value tensor of shape [{', '.join(map(str, v.shape))}] cannot be "
                           f"broadcast to indexing result of shape [{', '.join(map(str, target))}]")
    from .shape import expand
    shape = v.shape
    while shape and shape[0] == 1:  # PyTorch drops leading ones from the value first
        shape = shape[1:]
    expand(_make(np.broadcast_to(np.zeros((), v.dtype), shape)), target)  # raises expand's text


def setitem(input: Tensor, key, value) -> None:
    """``input[key] = value`` in place; records a CopySlices node when autograd is involved."""
    from .inplace import check_inplace, unsupported_view_inplace

    if not isinstance(value, (Tensor, bool, int, float, np.ndarray, np.generic)):
        raise TypeError(f"can't assign a {type(value).__name__} to a tinytorch.{input.dtype._legacy}")
    tv, vd = unpack(value)
    grad_needed = _State.enabled and (input._requires_grad or (tv is not None and tv._requires_grad))
    check_inplace(input)
    key, advanced = _convert_key(key)
    _check_bounds(input._data, key)
    x = input._data
    if grad_needed and input._base is not None:
        unsupported_view_inplace()
    if advanced and tv is not None and tv._data.dtype != x.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_legacy(x.dtype)} for the destination and {_legacy(tv._data.dtype)} for the source.")
    try:
        x[key] = vd
    except ValueError:
        _raise_shape_mismatch(x, key, advanced, np.asarray(vd))
        raise
    if grad_needed:
        node_cls = _setitem_node(key, advanced, x.shape, tv)
        node = node_cls((input._edge(), (None, 0) if tv is None else tv._edge()))
        node.shape, node.key = x.shape, key
        node.value_shape = tv._data.shape if tv is not None and tv._requires_grad else None
        node.value_dtype = tv._data.dtype if tv is not None else None
        input.grad_fn = node
        input._output_nr = 0
        input._requires_grad = True
    input._vc[0] += 1
