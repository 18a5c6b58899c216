"""Indexing: ``t[key]`` (basic keys give views, advanced keys copies) and ``t[key] = value``.

Both are declared as the operators ``Tensor.__getitem__`` / ``Tensor.__setitem__`` alone (PyTorch has
no ``torch.getitem``); the operator is the implementation itself, so ``x[3]`` pays no wrapper. ``narrow`` and
``aten.slice`` (one dim's slice, a view) are basic indexing too and are declared at the end."""
from __future__ import annotations

import numpy as np

from ..._meta_array import MetaArray, no_meta_kernel
from ..._dtype import FLOATING_NP, FROM_NP, NARROW_NP
from ... import _dtype_casts
from .._core import narrow_dtypes, overlap
from ...autograd.grad_mode import _State, check_inference_inplace, version_counter
from ...autograd.node import Node, elem_strides, install_saved_fields, u64
from ...tensor import Tensor, _make, _view_of, _wrap_dim
from ..shape import _batching as rules
from ..pointwise import inplace
from ..shape import views
from ..pointwise.compare import where
from ..pointwise.inplace import overlaps, writeable
from ..shape.join import _note_dim
from ..shape.shape import expand
from .._core.record import inplace_node, record
from .._core.registry import aten_only, op
from .._core.util import as_array, strided, unpack
from .._core.tensor_iterator import dim_order
from ...autograd.node import sum_to
# the adjoint of indexing, under the names the rest of the package imports from here
from ..shape._adjoint import index_zeros_put

_ARRAYS = (np.ndarray, MetaArray)  # an index array: a real one, or a meta tensor's (data-less)


def _convert_key(key):
    """Key with tensors/lists turned into numpy arrays; and whether it uses advanced indexing."""
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    advanced = False
    for k in key:
        if isinstance(k, Tensor) and k._data.ndim == 0 and k._data.dtype.kind in "iu" and k._data.dtype != np.uint8:
            k = int(k._data)  # a 0-d integer tensor indexes as its int does (a select, a view), as in PyTorch
        elif isinstance(k, Tensor):
            k = k._data
            advanced = True
            if k.dtype.kind not in "biu":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if k.dtype == np.uint8:  # a byte tensor is a mask, as PyTorch still reads it
                import warnings
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                              "instead.", UserWarning, stacklevel=3)
                k = k.astype(np.bool_)
        elif type(k) is MetaArray:  # a meta index array handed in by a formula: as a meta tensor's
            advanced = True
            if k.dtype.kind not in "biu":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        elif isinstance(k, (list, np.ndarray, range)):
            # a range, and a list that may hold tensors or ints, index like an int tensor (as PyTorch)
            k = np.asarray(k) if not isinstance(k, list) else np.asarray([_item_index(v) for v in k])
            if k.dtype in FLOATING_NP:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            advanced = True
        elif isinstance(k, slice):
            if k.step is not None and int(k.step) <= 0:
                raise ValueError("step must be greater than zero")
        elif not (k is None or k is Ellipsis or isinstance(k, (int, np.integer))):
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                "indices (got " + type(k).__name__ + ")")
        if advanced and isinstance(k, _ARRAYS) and k.dtype.kind in "iu" and k.dtype != np.intp:
            k = k.astype(np.intp)
        out.append(k)
    return tuple(out), advanced


def _item_index(v):
    return v._data if isinstance(v, Tensor) else v


def _basic_steps(key, shape: tuple):
    """PyTorch's view-making steps for the basic items of ``key``: (item, is a no-op full slice)."""
    consumed = sum(k.ndim if isinstance(k, _ARRAYS) and k.dtype == np.bool_ else 1
                   for k in key if k is not None and k is not Ellipsis)
    dim = 0
    for k in key:
        if k is Ellipsis:
            dim += len(shape) - consumed
        elif k is None:
            yield k, False
        elif isinstance(k, _ARRAYS):
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


def _view_steps(key, shape: tuple) -> list:
    """PyTorch's view-making steps of ``key``'s basic items, in order: (kind, dim, item, the sizes before it,
    whether it is a full slice of a tuple key, which makes no step), kind "unsqueeze" (a None), "select" (an
    int) or "slice"; tensor indices only move the dim along."""
    key = key if type(key) is tuple else (key,)
    consumed = sum(k.ndim if isinstance(k, _ARRAYS) and k.dtype == np.bool_ else 1
                   for k in key if k is not None and k is not Ellipsis)
    cur, dim, steps = list(shape), 0, []
    for k in key:
        if k is Ellipsis:
            dim += len(shape) - consumed
        elif k is None:
            steps.append(("unsqueeze", dim, None, tuple(cur), False))
            cur.insert(dim, 1)
            dim += 1
        elif isinstance(k, _ARRAYS):
            dim += k.ndim if k.dtype == np.bool_ else 1
        elif isinstance(k, slice):
            n = cur[dim] if dim < len(cur) else 0
            full = k.start in (None, 0) and k.step in (None, 1) and (k.stop is None or k.stop >= n) and len(key) > 1
            steps.append(("slice", dim, k, tuple(cur), full))
            if not full:
                cur[dim] = len(range(*k.indices(n)))
            dim += 1
        else:
            steps.append(("select", dim, k, tuple(cur), False))
            del cur[dim]
    return steps


class _IndexNode(Node):
    advanced = False  # an int or slice key's (getitem's fast path sets in_shape and key only)

    def backward(self, g):
        return (index_zeros_put(self.in_shape, self.key, g, self.advanced),)

    def jvp(self, t):
        return getitem(t, self.key)


_INT64_MAX = (1 << 63) - 1


@aten_only("select_backward", recorded=True)
def select_backward(grad_output: Tensor, input_sizes, dim: int, index: int) -> Tensor:
    """``torch.ops.aten.select_backward``: zeros of ``input_sizes`` with ``grad_output`` at ``index`` of ``dim``."""
    key = (slice(None),) * _wrap_dim(dim, len(input_sizes)) + (index,)
    return index_zeros_put(tuple(input_sizes), key, grad_output, False)


@aten_only("slice_backward", recorded=True)
def slice_backward(grad_output: Tensor, input_sizes, dim: int, start: int, end: int, step: int) -> Tensor:
    """``torch.ops.aten.slice_backward``: zeros of ``input_sizes`` with ``grad_output`` at ``start:end:step`` of
    ``dim``."""
    key = (slice(None),) * _wrap_dim(dim, len(input_sizes)) + (slice(start, end, step),)
    return index_zeros_put(tuple(input_sizes), key, grad_output, False)


def _last_step(node):
    """PyTorch's last indexing step of ``node.key`` over ``node.in_shape``: (kind, dim, item, the sizes
    before it), kind "select", "slice" or "unsqueeze"; full slices in a tuple key make no step (the last of
    them stands for a key of full slices only)."""
    steps = _view_steps(node.key, node.in_shape)
    made = [s for s in steps if not s[4]] or steps
    return made[-1][:4] if made else ("alias", 0, None, tuple(node.in_shape))


def _slice_field(which: str):
    def get(node):
        k = _last_step(node)[2]
        given = node.__dict__.get("given_bounds")  # aten.slice's start / end as given: None stays None
        if given is not None and which in ("start", "end"):
            v = given[0 if which == "start" else 1]
            return None if v is None else u64(int(v))
        if which == "start":
            return u64(0 if k.start is None else int(k.start))
        if which == "end":
            return u64(_INT64_MAX if k.stop is None else int(k.stop))
        return 1 if k.step is None else int(k.step)
    return get


def _saved_indices(node) -> tuple:
    """The index tensors PyTorch's index node keeps (None for the dims a full slice keeps)."""
    out = [None if isinstance(k, slice) else _make(k) for k in node.key if k is not Ellipsis and k is not None]
    while out and out[-1] is None:
        out.pop()
    return tuple(out)


def _step_dim(node) -> int:
    d = node.__dict__.get("dim_arg")  # select/narrow's dim as given
    return _last_step(node)[1] if d is None else u64(d)


_STEP_FIELDS = {
    "IndexBackward0": (("indices", _saved_indices), ("self_sym_sizes", "in_shape")),
    "SliceBackward0": (("dim", _step_dim), ("end", _slice_field("end")),
                       ("self_sym_sizes", lambda n: _last_step(n)[3]), ("start", _slice_field("start")),
                       ("step", _slice_field("step"))),
    "SelectBackward0": (("dim", _step_dim), ("index", lambda n: u64(int(_last_step(n)[2]))),
                        ("self_sym_sizes", lambda n: _last_step(n)[3])),
    "UnsqueezeBackward0": (("dim", lambda n: _last_step(n)[1]),),
    "AliasBackward0": (),
}
_INDEX_NODES = {name: type(name, (_IndexNode,), {"saved_fields": fields}) for name, fields in _STEP_FIELDS.items()}
_SELECT, _SLICE = _INDEX_NODES["SelectBackward0"], _INDEX_NODES["SliceBackward0"]


def _check_bounds(x: np.ndarray, key: tuple) -> None:
    """PyTorch's IndexErrors, which name the dim and size (numpy's texts differ)."""
    consumed = sum(k.ndim if isinstance(k, _ARRAYS) and k.dtype == np.bool_ else 1
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
        elif isinstance(k, _ARRAYS) and k.dtype == np.bool_:
            for j in range(k.ndim):
                if k.shape[j] != x.shape[dim + j]:
                    raise IndexError(f"The shape of the mask [{', '.join(map(str, k.shape))}] at index {j} does not "
                                     f"match the shape of the indexed tensor [{', '.join(map(str, x.shape))}] "
                                     f"at index {dim + j}")
            dim += k.ndim
            advanced += k.ndim
        elif isinstance(k, _ARRAYS):
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


def _index_layout(out: np.ndarray, x: np.ndarray, key: tuple) -> np.ndarray:
    """``out`` (numpy's ``x[key]`` for an advanced ``key`` of index arrays, masks and full slices) laid out as
    PyTorch's index kernel lays out its fresh result: its TensorIterator orders the dims by the strides of the
    input (the indexed dims replaced by the index's, of stride 0), then of the index tensors, and allocates the
    output dense in that order: contiguous for a contiguous input. numpy puts the indexed dims first in memory."""
    dense = x.flags.c_contiguous
    if dense:
        for k in key:
            if type(k) is np.ndarray and not k.flags.c_contiguous:
                dense = False
                break
    if dense:
        return out if out.flags.c_contiguous and 1 not in out.shape else out.copy(order="C")
    items = []  # per dim of x: its index array (a mask's nonzero columns), or None for a full slice
    for k in key:
        if k is Ellipsis:
            items.extend([None] * (x.ndim - sum(a.ndim if a.dtype == np.bool_ else 1 for a in key
                                                 if isinstance(a, _ARRAYS))))
        elif isinstance(k, _ARRAYS):
            items.extend(np.nonzero(k) if k.dtype == np.bool_ else (k,))
        else:
            items.append(None)
    items.extend([None] * (x.ndim - len(items)))
    slow = _iterator_order(out.shape, x, items, [a for a in items if a is not None])[::-1]
    fresh = np.empty(tuple(out.shape[d] for d in slow), out.dtype).transpose([slow.index(d) for d in range(out.ndim)])
    if fresh.strides == out.strides:
        return out
    fresh[...] = out
    return fresh


def _iterator_order(shape: tuple, x: np.ndarray, items: list, arrays: list) -> list:
    """PyTorch's TensorIterator dim order (fastest first) for indexing ``x`` by ``items``: the operands are the
    input restrided (the indexed dims, moved to the front where they are not adjacent, replaced by the index's
    of stride 0) and the index arrays broadcast over the result's dims, ordered as ``tensor_iterator.dim_order``."""
    pos = [d for d, a in enumerate(items) if a is not None]
    src = list(elem_strides(x.shape, x.strides, x.itemsize))
    if pos != list(range(pos[0], pos[-1] + 1)):  # PyTorch's transposeToFront
        order = pos + [d for d in range(x.ndim) if d not in pos]
        src, pos = [src[d] for d in order], list(range(len(pos)))
    before, after = pos[0], x.ndim - pos[-1] - 1
    b = np.broadcast_shapes(*(a.shape for a in arrays))
    operands = [src[:before] + [0] * len(b) + src[len(src) - after:]]
    for a in arrays:
        spread = np.broadcast_to(a, b)
        operands.append([0] * before + [st // a.itemsize for st in spread.strides] + [0] * after)
    return dim_order(shape, operands)


def _new_dims_strided(x, key, out):
    """``out`` (numpy's ``x[key]``) with PyTorch's strides for the dims that None (or a bool) adds: numpy gives
    them 0, PyTorch's unsqueeze the extent (size * stride) of the dim of ``x`` the key reaches next, 1 past the
    last (the dims before it are sliced already, the later ones not yet)."""
    src = elem_strides(x.shape, x.strides, x.itemsize, type(x) is not MetaArray)
    if x.size == 0 and type(x) is not MetaArray and not any(x.strides):  # a fresh empty array: PyTorch's strides
        x = strided(x, x.shape, tuple(s * x.itemsize for s in src), writeable=x.flags.writeable)
        out = x[key]
    taken = sum(1 for k in key if not (k is None or k is Ellipsis or type(k) is bool))
    strides = list(out.strides)
    d = j = 0  # the next dim of x, of out
    for k in key:
        if k is None or type(k) is bool:
            strides[j] = (x.shape[d] * src[d] if d < x.ndim else 1) * x.itemsize
            j += 1
        elif k is Ellipsis:
            d, j = d + x.ndim - taken, j + x.ndim - taken
        else:
            d, j = d + 1, j + (type(k) is slice)
    return strided(out, out.shape, tuple(strides), writeable=out.flags.writeable)


@op(variants="", dunders=("__getitem__",), batch=rules.getitem, meta="cpu_args")
def getitem(input: Tensor, key, _node: str | None = None) -> Tensor:
    """``input[key]``: a view for ints/slices/None/..., a copy for tensor, list or mask keys."""
    x = input._data
    # the common ``x[3]`` and ``x[1:3]`` first: a view of the first dim, the checks below reduced to
    # the one that can fail (the general path gives the same view and node)
    kind = type(key)
    if (kind is int or (kind is slice and key.step is None)) and x.ndim:
        if kind is int:
            try:  # numpy checks the bound (-n <= key < n); its error is reworded as PyTorch's
                out = x[key] if x.ndim != 1 else x[key, ...]  # a 1-d array's x[key] is a scalar
            except (IndexError, OverflowError):
                if not -2**63 <= key < 2**63:
                    raise ValueError("Overflow when unpacking long long") from None
                raise IndexError(f"index {key} is out of bounds for dimension 0 with size {x.shape[0]}") from None
        else:
            out = x[key]
        if input._requires_grad and _State.enabled:
            return record(out, _SELECT if kind is int else _SLICE, (input,), view_of=input, in_shape=x.shape,
                          key=(key,))
        return _view_of(input, out)
    single = not isinstance(key, tuple)
    given = key  # (a graph capture's backward reads the index tensors themselves)
    key, advanced = _convert_key(key)
    _check_bounds(x, key)
    if advanced:
        basic, adv = _split_key(key, x.shape)
        if basic is not None:
            # PyTorch first makes the view the ints, slices and None ask for, then indexes it (which
            # also places the indexed dims as PyTorch does, not as numpy's mixed indexing would)
            return getitem(getitem(input, basic), adv)
    try:
        out = x[key]
        if type(out) is not np.ndarray and type(out) is not MetaArray and not advanced:
            out = x[key + (Ellipsis,)]  # an all-int key: a 0-d view, not a numpy scalar copy
    except IndexError as e:
        raise IndexError(str(e).replace("array", "tensor")) from None
    out = as_array(out)
    if not advanced and any(k is None or type(k) is bool for k in key):  # a new dim
        out = _new_dims_strided(x, key, out)
    # one index array (x[i], x[mask]): numpy lays the result out as PyTorch does (the indexed dims outermost),
    # so the common case pays nothing; a multi-dim index array may not be contiguous (x[i.t()])
    if advanced and out.ndim and out.size and (len(key) > 1 or (key[0].ndim > 1 and key[0].dtype != np.bool_)):
        out = _index_layout(out, x, key)
    if _State.enabled and input._requires_grad:  # an advanced key's result is a copy, the others' a view
        return record(out, _INDEX_NODES[_node or _node_name(key, advanced, x.shape, single)], (input,),
                      view_of=None if advanced else input, in_shape=x.shape, key=key, advanced=advanced,
                      given=given)
    return _make(out) if advanced else _view_of(input, out)


class _IndexPut(Node):
    """``index_put_`` of ``value`` at ``key`` (PyTorch's IndexPutBackward0): the old values' gradient
    is cut at ``key``, the value's is what arrives there."""

    def backward(self, g):
        keep = np.ones_like(g._data, shape=self.shape, dtype=bool, order="C")  # (a meta gradient: meta)
        keep[self.key] = False
        g_self = where(_make(keep), g, 0.0)  # overwritten elements get exactly 0, as PyTorch's zero_()
        g_value = None
        if self.value_shape is not None:
            if any(type(k) is MetaArray and k.dtype == np.bool_ for k in _key_parts(self.key)):
                # PyTorch's formula indexes the gradient by the mask: nonzero, which has no meta kernel
                raise NotImplementedError(no_meta_kernel("nonzero"))
            g_value = g[self.key]
            extra = len(self.value_shape) - g_value._data.ndim
            if extra > 0:  # the value had leading ones that assignment dropped
                g_value = g_value.reshape((1,) * extra + g_value._data.shape)
            if g_value._data.shape != self.value_shape:
                g_value = sum_to(g_value, self.value_shape)
            if g_value._data.dtype != self.value_dtype:
                g_value = g_value.to(self.value_dtype)
        return g_self, g_value


def _key_parts(key) -> tuple:
    return key if isinstance(key, tuple) else (key,)


_IndexPut.__name__ = _IndexPut.__qualname__ = "IndexPutBackward0"
install_saved_fields(_IndexPut, (("accumulate", lambda n: False), ("indices", _saved_indices)))


def _legacy(dt: np.dtype) -> str:
    return FROM_NP[dt]._scalar


def _raise_shape_mismatch(x: np.ndarray, key: tuple, advanced: bool, v: np.ndarray) -> None:
    """PyTorch's error for a value that does not fit ``x[key]`` (numpy's texts differ)."""
    target = x[key].shape
    if advanced:
        raise RuntimeError(f"shape mismatch: value tensor of shape [{', '.join(map(str, v.shape))}] cannot be "
                           f"broadcast to indexing result of shape [{', '.join(map(str, target))}]")
    shape = v.shape
    while shape and shape[0] == 1:  # PyTorch drops leading ones from the value first
        shape = shape[1:]
    expand(_make(np.broadcast_to(np.zeros((), v.dtype), shape)), target)  # raises expand's text


def _split_key(key: tuple, shape: tuple):
    """PyTorch's two steps for ``t[key] = value``: the basic items (ints, slices, None) make a view,
    then the index tensors address that view's dims. Returns (basic key, or None when it would make no
    view: full slices are skipped; advanced key over the view's dims, or None)."""
    consumed = sum(k.ndim if isinstance(k, _ARRAYS) and k.dtype == np.bool_ else 1
                   for k in key if k is not None and k is not Ellipsis)
    basic, adv = [], []
    makes_view = has_adv = False
    dim = 0
    for k in key:
        if k is Ellipsis:
            n = len(shape) - consumed
            basic.extend([slice(None)] * n)
            adv.extend([slice(None)] * n)
            dim += n
        elif k is None:
            basic.append(None)
            adv.append(slice(None))
            makes_view = True
        elif isinstance(k, _ARRAYS) and k.ndim == 0 and k.dtype == np.bool_:
            # a 0-d mask: PyTorch adds a dim (a view), then masks it
            basic.append(None)
            adv.append(k.reshape(1))
            makes_view = has_adv = True
        elif isinstance(k, _ARRAYS):
            n = k.ndim if k.dtype == np.bool_ else 1
            basic.extend([slice(None)] * n)
            adv.append(k)
            has_adv = True
            dim += n
        elif isinstance(k, slice):
            basic.append(k)
            adv.append(slice(None))
            full = (k.start in (None, 0) and k.step in (None, 1)
                    and (k.stop is None or (dim < len(shape) and k.stop >= shape[dim])))
            makes_view = makes_view or not full
            dim += 1
        else:
            basic.append(k)
            makes_view = True
            dim += 1
    if not makes_view:
        return None, (key if has_adv else None)
    return tuple(basic), (tuple(adv) if has_adv else None)


def _writeable_for_put(dst: np.ndarray, adv, key: tuple, value) -> np.ndarray:
    """Where a setitem writes. PyTorch's index_put_ and masked_fill_ still write into an expanded
    tensor, with a deprecation warning; other writes into one are refused."""
    if adv is None or not overlaps(dst):
        return writeable(dst)
    import warnings
    warnings.warn("Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before performing "
                  "this operation. This also applies to advanced indexing e.g. tensor[indices] = tensor",
                  UserWarning, stacklevel=4)
    if len(key) == 1 and key[0].dtype == np.bool_ and np.ndim(value) == 0:
        warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                      "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar",
                      UserWarning, stacklevel=4)
    return writeable(dst, allow_overlap=True)


def _masked_fill_like(key: tuple, tv: Tensor) -> bool:
    """Whether PyTorch's index_put_ hands this write to masked_fill_ (``canDispatchToMaskedFill``: one
    boolean mask as the only advanced index, one value), which casts the value to the destination's dtype."""
    arrays = [k for k in key if isinstance(k, _ARRAYS)]
    return tv._data.size == 1 and len(arrays) == 1 and arrays[0].dtype == np.bool_


def _check_overlap(dst: np.ndarray, key: tuple, advanced: bool, tv: Tensor) -> None:
    """``dst[...] = tv`` as PyTorch runs it: index_put_ refuses any overlap of the value with ``dst``, unless it
    hands the write to masked_fill_ (which reads the value as a number); copy_ a partial one (with the value
    expanded to ``dst``'s shape); a 0-d value is a fill, unchecked."""
    if advanced:
        if not _masked_fill_like(key, tv):
            overlap.refuse(dst, tv._data, True)
    elif tv._data.ndim:
        src = tv._data
        while src.ndim > dst.ndim and src.shape[0] == 1:  # (PyTorch views the value without leading ones)
            src = src[0]
        if src.shape != dst.shape:
            try:
                src = np.broadcast_to(src, dst.shape)
            except ValueError:
                return  # the write itself raises PyTorch's shape error
        overlap.refuse(dst, src, False)


@op(variants="", dunders=("__setitem__",), no_batch="it writes into its argument in place", meta="cpu_args")
def setitem(input: Tensor, key, value) -> None:
    """``input[key] = value`` in place. As PyTorch: the basic part of the key makes a view, then the
    value is copied (or filled, or index-put) into it, so autograd records CopySlices on the base."""
    if not isinstance(value, (Tensor, bool, int, float, np.ndarray, np.generic)):
        raise TypeError(f"can't assign a {type(value).__name__} to a tinytorch.{input.dtype._legacy}")
    check_inference_inplace(input)
    tv, vd = unpack(value)
    if np.ndim(vd) == 0 and any(isinstance(k, Tensor) and k._data.dtype == np.uint8
                                for k in (key if isinstance(key, tuple) else (key,))):
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    key, advanced = _convert_key(key)
    _check_bounds(input._data, key)
    basic, adv = _split_key(key, input._data.shape)
    x = input._data
    if advanced and tv is not None and tv._data.dtype != x.dtype and not _masked_fill_like(key, tv):
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_legacy(x.dtype)} for the destination and {_legacy(tv._data.dtype)} for the source.")
    grad_needed = _State.enabled and (input._requires_grad or (tv is not None and tv._requires_grad))
    if tv is not None and tv._vc is input._vc:  # a value that aliases the written-to tensor: PyTorch's checks
        _check_overlap(x if basic is None else x[basic + (Ellipsis,)], key, adv is not None, tv)
    if not grad_needed:
        if x.dtype in NARROW_NP:
            if advanced and x.dtype == narrow_dtypes.E8M0:
                narrow_dtypes.refuse("index_put", x.dtype)
            if np.asarray(vd).dtype != x.dtype:  # rounded as PyTorch's casts round
                vd = _dtype_casts.convert(np.asarray(vd), x.dtype)
        if type(value) is float and value != value and (x.dtype == np.float16 or x.dtype == _dtype_casts.C32):
            # a Python NaN reaches half through PyTorch's scalar code
            vd = _dtype_casts.canonical_half_nans(np.array(vd, x.dtype))
        dst = x if basic is None else x[basic + (Ellipsis,)]
        dst = _writeable_for_put(dst, adv, key, vd)
        try:
            if adv is None:
                dst[...] = vd
            else:
                dst[adv] = vd
        except ValueError:
            _raise_shape_mismatch(dst, adv if adv is not None else (Ellipsis,), adv is not None, np.asarray(vd))
            raise
        version_counter(input)[0] += 1
        if len(input._vc) > 1:
            views.refresh(input._vc)
        return
    dst = input if basic is None else getitem(input, basic)
    d = dst._data
    if adv is None:
        if tv is None:
            inplace.fill_value(dst, vd)
            return
        if tv._data.shape == d.shape:
            inplace.copy_(dst, tv)
            return
        if tv._data.ndim == 0:
            inplace.fill_(dst, tv)
            return
        src_shape = tv._data.shape
        while src_shape and src_shape[0] == 1:  # PyTorch views the value without leading ones, then expands
            src_shape = src_shape[1:]
        try:
            np.broadcast_shapes(src_shape, d.shape)
            ok = np.broadcast_shapes(src_shape, d.shape) == d.shape
        except ValueError:
            ok = False
        if not ok:
            _raise_shape_mismatch(d, (Ellipsis,), False, tv._data)
        src = tv if src_shape == tv._data.shape else tv.view(src_shape)
        if src_shape != d.shape:
            src = src.expand(d.shape)
        inplace.copy_(dst, src)
        return
    views.check_inplace(dst, True)
    # the node first (dst's history once written, as apply_inplace's): a forbidden view as the value
    # raises PyTorch's error from its edge before anything is written
    fn = inplace_node(_IndexPut, (dst, tv), shape=d.shape, key=adv,
                      value_shape=tv._data.shape if tv is not None and tv._requires_grad else None,
                      value_dtype=tv._data.dtype if tv is not None else None)
    d = _writeable_for_put(d, adv, key, vd)
    if d.dtype in NARROW_NP and np.asarray(vd).dtype != d.dtype:
        vd = _dtype_casts.convert(np.asarray(vd), d.dtype)
    try:
        d[adv] = vd
    except ValueError:
        _raise_shape_mismatch(d, adv, True, np.asarray(vd))
        raise
    version_counter(dst)[0] += 1
    views.set_history(dst, fn)


# -- slices of one dim: views through getitem's basic indexing ----------------------------------------
@op(variants="function method", batch=rules.narrow)
def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``length`` elements of ``dim`` from ``start`` (which may count from the end): a view."""
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    start = int(start)  # a 0-d tensor counts as its int
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    # always a SliceBackward0 in PyTorch, even when the slice spans the whole dim
    return _note_dim(getitem(input, (slice(None),) * d + (slice(start, start + length),), _node="SliceBackward0"), dim)


def _slice_inverse(call, base, value, src, *args):
    """A write into ``aten.slice(base, dim, start, end, step)``: ``slice_scatter`` puts it into the base."""
    return call("slice_scatter.default", base, src, *args)


@aten_only("slice", view_inverse=_slice_inverse)
def aten_slice(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    """``torch.ops.aten.slice``: elements ``start:end:step`` of ``dim``, a view (PyTorch's slice.Tensor: the
    bounds count from the end when negative and are clamped to the dim; the step must be positive)."""
    x = input._data
    if x.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, x.ndim)
    if int(step) <= 0:
        raise RuntimeError("slice step must be positive")
    start = None if start is None else int(start)
    end = None if end is None else int(end)
    # Python's slice of a positive step clamps as PyTorch does; always a SliceBackward0, whole dim or not
    out = getitem(input, (slice(None),) * d + (slice(start, end, int(step)),), _node="SliceBackward0")
    if out.grad_fn is not None and (start is None or end is None):
        out.grad_fn.given_bounds = (start, end)  # PyTorch's node keeps a bound not given as None
    return _note_dim(out, dim)
