"""Shape ops (views share storage and version counter with their input), indexing, joining, casting."""
from __future__ import annotations

import numpy as np

from .. import _dtype
from ..autograd.grad_mode import _State
from ..autograd.node import Node
from ..tensor import Tensor, _make, _view_of, _wrap_dim
from ._util import as_array, sum_to


def _unary_result(input: Tensor, out: np.ndarray, node_cls, is_view: bool, **attrs):
    """Wrap ``out``; views share storage bookkeeping; with grad, attach a ``node_cls`` node."""
    node = None
    if _State.enabled and input._requires_grad:
        node = node_cls((input._edge(),))
        for k, v in attrs.items():
            setattr(node, k, v)
    if is_view:
        return _view_of(input, out, node)
    return _make(out, node)


def _shape_arg(shape) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(int(s) for s in shape)


class ViewBackward0(Node):
    def backward(self, g):
        return (g.reshape(self.in_shape),)


class UnsafeViewBackward0(ViewBackward0):
    pass


class ReshapeAliasBackward0(ViewBackward0):
    pass


def _infer_shape(shape: tuple, numel: int, in_shape) -> tuple:
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = shape[:neg[0]] + (numel // known,) + shape[neg[0] + 1:]
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


def view(input: Tensor, *shape) -> Tensor:
    """Same storage, new shape; fails where strides make that impossible (use reshape)."""
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        raise NotImplementedError("view(dtype) is not supported by tinytorch")
    x = input._data
    shape = _infer_shape(_shape_arg(shape), x.size, x.shape)
    out = x.view()
    try:
        out.shape = shape
    except AttributeError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    return _unary_result(input, out, ViewBackward0, True, in_shape=x.shape)


def reshape(input: Tensor, *shape) -> Tensor:
    """New shape; a view when the strides allow, else a copy."""
    x = input._data
    shape = _infer_shape(_shape_arg(shape), x.size, x.shape)
    # PyTorch: a view of a contiguous tensor is ViewBackward0 (even when nothing changes), a view of
    # a strided one ReshapeAliasBackward0, and a copy UnsafeViewBackward0
    view_cls = ViewBackward0 if x.flags.c_contiguous else ReshapeAliasBackward0
    if shape == x.shape:
        return _unary_result(input, x.view(), view_cls, True, in_shape=x.shape)
    out = x.reshape(shape)
    shares = out.base is not None and (out.base is x or out.base is x.base)
    return _unary_result(input, out, view_cls if shares else UnsafeViewBackward0, shares, in_shape=x.shape)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims ``start_dim..end_dim`` into one."""
    x = input._data
    if x.ndim == 0:
        return reshape(input, 1)
    s, e = _wrap_dim(start_dim, x.ndim), _wrap_dim(end_dim, x.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    n = 1
    for d in x.shape[s:e + 1]:
        n *= d
    return reshape(input, x.shape[:s] + (n,) + x.shape[e + 1:])


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    return reshape(input, x.shape[:d] + tuple(sizes) + x.shape[d + 1:])


class SqueezeBackward0(Node):
    def backward(self, g):
        return (g.reshape(self.in_shape),)


class SqueezeBackward1(SqueezeBackward0):
    pass


class UnsqueezeBackward0(SqueezeBackward0):
    pass


def squeeze(input: Tensor, dim=None) -> Tensor:
    """Drop size-1 dims (only ``dim`` when given; other sizes are left alone, as PyTorch)."""
    x = input._data
    if dim is None:
        axes = tuple(i for i, s in enumerate(x.shape) if s == 1)
        cls = SqueezeBackward0
    else:
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        axes = tuple(d for d in (_wrap_dim(d, x.ndim) for d in dims) if x.ndim and x.shape[d] == 1)
        cls = SqueezeBackward1
    return _unary_result(input, x.squeeze(axes) if axes else x.view(), cls, True, in_shape=x.shape)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dim at ``dim``."""
    x = input._data
    d = _wrap_dim(dim, x.ndim + 1)
    return _unary_result(input, np.expand_dims(x, d), UnsqueezeBackward0, True, in_shape=x.shape)


class PermuteBackward0(Node):
    def backward(self, g):
        return (g.permute(self.inverse),)


def permute(input: Tensor, *dims) -> Tensor:
    """Reorder dims (a view)."""
    x = input._data
    dims = tuple(_wrap_dim(d, x.ndim) for d in _shape_arg(dims))
    if sorted(dims) != list(range(x.ndim)):
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {x.ndim} is not "
                           f"equal to len(dims) = {len(dims)}")
    inverse = tuple(int(i) for i in np.argsort(dims))
    return _unary_result(input, x.transpose(dims), PermuteBackward0, True, inverse=inverse)


class TransposeBackward0(Node):
    def backward(self, g):
        return (g.transpose(self.d0, self.d1),)


class TBackward0(Node):
    def backward(self, g):
        return (g.t(),)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dims (a view)."""
    x = input._data
    n = x.ndim
    if n == 0:
        _wrap_dim(dim0, 0), _wrap_dim(dim1, 0)
        return _unary_result(input, x.view(), TransposeBackward0, True, d0=0, d1=0)
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    return _unary_result(input, x.swapaxes(d0, d1), TransposeBackward0, True, d0=d0, d1=d1)


def t(input: Tensor) -> Tensor:
    """Transpose a matrix (0-d and 1-d tensors come back as they are)."""
    x = input._data
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return _unary_result(input, x.T, TBackward0, True)


def T(input: Tensor) -> Tensor:
    # PyTorch records ``.T`` as a permute at every rank, matrices included
    return permute(input, tuple(range(input._data.ndim - 1, -1, -1)))


def mT(input: Tensor) -> Tensor:
    if input._data.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{input._data.ndim}-D tensor.")
    return transpose(input, -2, -1)


class ExpandBackward0(Node):
    def backward(self, g):
        return (sum_to(g, self.in_shape),)


def expand(input: Tensor, *sizes) -> Tensor:
    """Broadcast to ``sizes`` without copying (-1 keeps a dim)."""
    x = input._data
    sizes = _shape_arg(sizes)
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise RuntimeError(f"expand(tinytorch.{input.dtype._legacy}{{[{', '.join(map(str, x.shape))}]}}, "
                           f"size=[{', '.join(map(str, sizes))}]): "
                           f"the number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({x.ndim})")
    target = tuple(x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(sizes))
    if target == x.shape:
        return _unary_result(input, x.view(), ExpandBackward0, True, in_shape=x.shape)
    for i in range(len(sizes) - 1, -1, -1):  # PyTorch reports the rightmost bad dim
        if i < lead:
            if sizes[i] < 0:
                raise RuntimeError(f"The expanded size of the tensor ({sizes[i]}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
        elif x.shape[i - lead] != 1 and x.shape[i - lead] != target[i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the existing size "
                               f"({x.shape[i - lead]}) at non-singleton dimension {i}.  Target sizes: "
                               f"[{', '.join(map(str, sizes))}].  Tensor sizes: [{', '.join(map(str, x.shape))}]")
    out = np.broadcast_to(x, target)
    return _unary_result(input, out, ExpandBackward0, True, in_shape=x.shape)


class RepeatBackward0(Node):
    def backward(self, g):
        # each repeated dim splits into (copies, size); summing the copies undoes the tiling
        split = tuple(v for n, s in zip(self.sizes, self.lifted) for v in (n, s))
        copies = tuple(range(0, len(split), 2))
        return (g.reshape(split).sum(copies).reshape(self.in_shape),)


def repeat(input: Tensor, *sizes) -> Tensor:
    """Tile the tensor ``sizes[i]`` times along each dim (new leading dims when there are more sizes)."""
    x = input._data
    sizes = _shape_arg(sizes)
    if len(sizes) < x.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    lifted = (1,) * (len(sizes) - x.ndim) + x.shape
    return _unary_result(input, np.tile(x.reshape(lifted), sizes), RepeatBackward0, False, sizes=sizes,
                         lifted=lifted, in_shape=x.shape)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other._data.shape)


def broadcast_to(input: Tensor, shape) -> Tensor:
    return expand(input, tuple(shape))


class CloneBackward0(Node):
    def backward(self, g):
        return (g,)


def clone(input: Tensor, *, memory_format=None) -> Tensor:
    """A copy with its own storage; gradients flow through."""
    return _unary_result(input, input._data.copy(), CloneBackward0, False)


def contiguous(input: Tensor, memory_format=None) -> Tensor:
    """Self when already C-contiguous, else a contiguous copy."""
    if input._data.flags.c_contiguous:
        return input
    return _unary_result(input, np.ascontiguousarray(input._data), CloneBackward0, False)


class ToCopyBackward0(Node):
    def backward(self, g):
        return (g.to(self.in_dtype),)


def to_dtype(input: Tensor, dt, copy: bool = False) -> Tensor:
    npd = _dtype.to_np(dt)
    x = input._data
    if npd == x.dtype and not copy:
        return input
    out = x.astype(npd)
    if npd.kind != "f" and input._requires_grad:
        return _make(out)  # integer results never require grad
    return _unary_result(input, out, ToCopyBackward0, False, in_dtype=x.dtype)


# -- joining and splitting ------------------------------------------------------------------------
class CatBackward0(Node):
    def backward(self, g):
        out = []
        start = 0
        for size, dt in self.pieces:
            sl = (slice(None),) * self.dim + (slice(start, start + size),)
            out.append(g[sl].to(dt) if dt != g._data.dtype else g[sl])
            start += size
        return tuple(out)


def _as_tensors(tensors, fn: str):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    if not tensors:
        if fn == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"tinytorch.{fn}(): expected a non-empty list of Tensors")
    return tensors


def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dim (dtypes promoted)."""
    tensors = _as_tensors(tensors, "cat")
    ref = next((t for t in tensors if t._data.ndim > 0), tensors[0])
    if ref._data.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, ref._data.ndim)
    dt = tensors[0]._data.dtype
    for t_ in tensors[1:]:
        dt = _dtype.PROMOTE[dt, t_._data.dtype]
    # PyTorch skips legacy empty 1-d tensors of shape (0,)
    arrays = [t_._data for t_ in tensors if not (t_._data.ndim == 1 and t_._data.shape[0] == 0)] or [ref._data]
    for i, a in enumerate(arrays):
        if a.ndim != ref._data.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref._data.ndim} and {a.ndim}")
        for k in range(a.ndim):
            if k != d and a.shape[k] != ref._data.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref._data.shape[k]} but got size {a.shape[k]} for tensor number {i} in the list.")
    out = np.concatenate(arrays, axis=d).astype(dt, copy=False)
    if _State.enabled and any(t_._requires_grad for t_ in tensors):
        node = CatBackward0(tuple(t_._edge() for t_ in tensors))
        node.dim = d
        node.pieces = [(t_._data.shape[d] if t_._data.ndim else 0, t_._data.dtype) for t_ in tensors]
        return _make(out, node)
    return _make(out)


concat = concatenate = cat


class StackBackward0(Node):
    def backward(self, g):
        return tuple(g.select(self.dim, i) for i in range(self.n))


def stack(tensors, dim: int = 0) -> Tensor:
    """Join same-shaped tensors along a new dim."""
    tensors = _as_tensors(tensors, "stack")
    shape = tensors[0]._data.shape
    for i, t_ in enumerate(tensors):
        if t_._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got [{', '.join(map(str, shape))}] "
                               f"at entry 0 and [{', '.join(map(str, t_._data.shape))}] at entry {i}")
    d = _wrap_dim(dim, len(shape) + 1)
    dt = tensors[0]._data.dtype
    for t_ in tensors[1:]:
        dt = _dtype.PROMOTE[dt, t_._data.dtype]
    out = np.stack([t_._data for t_ in tensors], axis=d).astype(dt, copy=False)
    if _State.enabled and any(t_._requires_grad for t_ in tensors):
        node = StackBackward0(tuple(t_._edge() for t_ in tensors))
        node.dim, node.n = d, len(tensors)
        return _make(out, node)
    return _make(out)


class _MultiOutput(Node):
    """A node with several outputs: missing gradients are zeros of that output's shape."""

    def _filled(self, grads):
        from ..factory import zeros
        return [g if g is not None else zeros(s, dtype=_dtype.FROM_NP[self.out_dtype])
                for g, s in zip(grads, self.out_shapes)]


class SplitBackward0(_MultiOutput):
    def backward(self, *grads):
        return (cat(self._filled(grads), self.dim),)


class SplitWithSizesBackward0(SplitBackward0):
    pass


class UnbindBackward0(_MultiOutput):
    def backward(self, *grads):
        return (stack(self._filled(grads), self.dim),)


def _multi_output(input: Tensor, arrays, node_cls, dim):
    if not (_State.enabled and input._requires_grad):
        return tuple(_view_of(input, a) for a in arrays)
    node = node_cls((input._edge(),))
    node._n_outputs = len(arrays)
    node.dim = dim
    node.out_shapes = [a.shape for a in arrays]
    node.out_dtype = input._data.dtype
    outs = []
    for i, a in enumerate(arrays):
        o = _view_of(input, a, node)
        o._output_nr = i
        outs.append(o)
    return tuple(outs)


def split(input: Tensor, split_size_or_sections, dim: int = 0):
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the listed sizes."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size <= 0 and not (size == 0 and n == 0):
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        bounds = list(range(size, n, size)) if size else []
        node_cls = SplitBackward0
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {d}), but got split_sizes=[{', '.join(map(str, sizes))}]")
        bounds = list(np.cumsum(sizes)[:-1])
        node_cls = SplitWithSizesBackward0
    return _multi_output(input, np.split(x, bounds, axis=d), node_cls, d)


def chunk(input: Tensor, chunks: int, dim: int = 0):
    """Split into ``chunks`` pieces of equal size (the last may be smaller)."""
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    n = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    size = max(1, -(-n // chunks))
    return split(input, size, dim)


def unbind(input: Tensor, dim: int = 0):
    """All slices along ``dim``, each without that dim."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    # the trailing Ellipsis keeps 1-d inputs giving 0-d views, never numpy scalars
    arrays = [x[(slice(None),) * d + (i, Ellipsis)] for i in range(x.shape[d])]
    return _multi_output(input, arrays, UnbindBackward0, d)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    return input[(slice(None),) * d + (index,)]


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``length`` elements of ``dim`` from ``start`` (which may count from the end): a view."""
    from .index import getitem
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    # always a SliceBackward0 in PyTorch, even when the slice spans the whole dim
    return getitem(input, (slice(None),) * d + (slice(start, start + length),), _node="SliceBackward0")


# -- gather and its adjoint -----------------------------------------------------------------------
class GatherBackward0(Node):
    def backward(self, g):
        (idx,) = self.saved_tensors
        return (zeros_scatter(self.in_shape, self.dim, idx, g), None)


class ScatterAddBackward0(Node):
    def backward(self, g):
        (idx,) = self.saved_tensors
        return (gather(g, self.dim, idx),)


def _full_index(idx: np.ndarray, dim: int) -> tuple:
    grids = np.indices(idx.shape, sparse=True)
    return tuple(idx if k == dim else grids[k] for k in range(idx.ndim))


def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """out[i][j] = input[i][index[i][j]] along ``dim``."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    idx = index._data
    if idx.dtype != np.int64 and idx.dtype != np.int32:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    out = as_array(x[_full_index(idx, d)])
    if _State.enabled and input._requires_grad:
        node = GatherBackward0((input._edge(), (None, 0)))
        node.dim, node.in_shape = d, x.shape
        node.save_for_backward(index)
        return _make(out, node)
    return _make(out)


def zeros_scatter(shape: tuple, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A zero tensor of ``shape`` with ``src`` added at ``index`` along ``dim`` (gather's adjoint)."""
    out = np.zeros(shape, dtype=src._data.dtype)
    np.add.at(out, _full_index(index._data, dim), src._data)
    if _State.enabled and src._requires_grad:
        node = ScatterAddBackward0((src._edge(),))
        node.dim = dim
        node.save_for_backward(index)
        return _make(out, node)
    return _make(out)
