"""Triangles and diagonals (tril, triu, diag_embed, diag, trace) and rearrangements (flip, roll,
movedim, tile, repeat_interleave, meshgrid, cartesian_prod).

``diagonal`` itself is a view op and lives with the other views in ``_ops/shape/shape.py``."""
from __future__ import annotations

import warnings

import numpy as np

from ..._quiet_fp import silent
from ..._dtype import NARROW_NP
from ..._meta_array import MetaArray
from .._core import narrow_dtypes
from .._core.util import strided

from ...autograd.node import Node, u64
from ...tensor import Tensor, _make, _wrap_dim
from . import _batching as rules
from .._core.batching import composite
from .._core.record import record
from .._core.registry import op
from .._core.util import c_order
from .._core.layout import contiguous_format, laid_out, like_strides
from .join import _cat_layout, stack
from .shape import missing_argument


def _need_matrix(x: np.ndarray, fn: str) -> None:
    if x.ndim < 2:
        raise RuntimeError(f"{fn}: input tensor must have at least 2 dimensions")


class TrilBackward0(Node):
    saved_fields = (("diagonal", lambda n: u64(n.k)),)

    def backward(self, g):
        return (g.tril(self.k),)


class TriuBackward0(Node):
    saved_fields = (("diagonal", lambda n: u64(n.k)),)

    def backward(self, g):
        return (g.triu(self.k),)


@op(variants="function method inplace out", batch=rules.last_two)
def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (elements with column - row <= ``diagonal``) of the last two dims; the rest 0."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "tril", None)
    x = input._data
    _need_matrix(x, "tril")
    return record(c_order(np.tril(x, diagonal)), TrilBackward0, (input,), k=diagonal)


@op(variants="function method inplace out", batch=rules.last_two)
def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (column - row >= ``diagonal``) of the last two dims; the rest 0."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "triu", None)
    x = input._data
    _need_matrix(x, "triu")
    return record(c_order(np.triu(x, diagonal)), TriuBackward0, (input,), k=diagonal)


def _diag_view(x: np.ndarray, offset: int, d1: int, d2: int) -> np.ndarray:
    """A writable view of the diagonal: the other dims first, the diagonal last (as PyTorch)."""
    n1, n2 = x.shape[d1], x.shape[d2]
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    start = [0] * x.ndim
    if length:
        start[d2 if offset >= 0 else d1] = abs(offset)
    base = x[tuple(slice(s, None) for s in start)] if length else x
    keep = [i for i in range(x.ndim) if i not in (d1, d2)]
    shape = tuple(x.shape[i] for i in keep) + (length,)
    strides = tuple(x.strides[i] for i in keep) + (x.strides[d1] + x.strides[d2],)
    return strided(base, shape, strides, writeable=x.flags.writeable)


def _diag_dims(ndim: int, dim1: int, dim2: int) -> tuple:
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


class DiagonalBackward0(Node):
    saved_fields = (("dim1", lambda n: u64(n.dims_arg[0])), ("dim2", lambda n: u64(n.dims_arg[1])),
                    ("offset", lambda n: u64(n.offset)), ("self_sym_sizes", lambda n: tuple(n.in_shape)))

    def backward(self, g):
        return (_embed(g, self.in_shape, self.offset, self.d1, self.d2, DiagonalBackwardBackward0),)


class _EmbedNode(Node):
    def backward(self, g):
        return (g.diagonal(self.offset, self.d1, self.d2),)


DiagonalBackwardBackward0 = type("DiagonalBackwardBackward0", (_EmbedNode,), {})
DiagEmbedBackward0 = type("DiagEmbedBackward0", (_EmbedNode,), {"saved_fields": (
    ("dim1", lambda n: u64(n.dims_arg[0])), ("dim2", lambda n: u64(n.dims_arg[1])),
    ("offset", lambda n: u64(n.offset)))})


def _embed(src: Tensor, shape: tuple, offset: int, d1: int, d2: int, node_cls) -> Tensor:
    """Zeros of ``shape`` with ``src`` on the diagonal (offset, d1, d2)."""
    out = np.zeros_like(src._data, shape=shape, order="C")  # (a meta src: a meta result)
    _diag_view(out, offset, d1, d2)[...] = src._data
    return record(out, node_cls, (src,), offset=offset, d1=d1, d2=d2)


@op(variants="function method")
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices in ``dim1``, ``dim2`` whose diagonal is ``input``'s last dim."""
    x = input._data
    n = x.ndim + 1
    d1, d2 = _diag_dims(n, dim1, dim2)
    size = (x.shape[-1] if x.ndim else 1) + abs(offset)
    shape = list(x.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, size)
    src = input if x.ndim else input.reshape(1)
    out = _embed(src, tuple(shape), offset, d1, d2, DiagEmbedBackward0)
    if out.grad_fn is not None:
        out.grad_fn.dims_arg = (dim1, dim2)
    return out


DiagonalBackward0_copy = type("DiagonalBackward0_copy", (DiagonalBackward0,), {})


@op(variants="function method out")
def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-d tensor becomes a diagonal matrix; a matrix gives its diagonal (a copy)."""
    x = input._data
    if x.ndim == 1:
        return diag_embed(input, diagonal)
    if x.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {x.ndim}D")
    return record(_diag_view(x, diagonal, 0, 1).copy(), DiagonalBackward0_copy, (input,), in_shape=x.shape,
                  offset=diagonal, d1=0, d2=1, dims_arg=(0, 1))


class TraceBackward0(Node):
    saved_fields = (("self_sym_sizes", lambda n: tuple(n.in_shape)),)

    def backward(self, g):
        n = min(self.in_shape)
        return (_embed(g.expand(n), self.in_shape, 0, 0, 1, DiagonalBackwardBackward0),)


_trace = silent(np.trace)  # inf + -inf on the diagonal: NaN, silently as in PyTorch


@op(variants="function method", autocast="fp32")
def trace(input: Tensor) -> Tensor:
    """The sum of a matrix's diagonal (ints sum to int64)."""
    x = input._data
    if x.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x.ndim}")
    if x.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    dt = np.int64 if x.dtype.kind in "iu" else x.dtype
    return record(np.asarray(_trace(x, dtype=dt)), TraceBackward0, (input,), in_shape=x.shape)


# -- rearrangements ---------------------------------------------------------------------------------
def _dim_list(dims, ndim: int) -> tuple:
    if isinstance(dims, int):
        dims = (dims,)
    out = tuple(_wrap_dim(d, ndim) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dims has duplicates, original flip dims size={len(out)}, but unique flip dims "
                           f"size={len(set(out))}")
    return out


class FlipBackward0(Node):
    saved_fields = (("dims", lambda n: u64(n.dims_arg)),)

    def backward(self, g):
        return (g.flip(self.dims),)


@op(variants="function method", batch=rules.flip)
def flip(input: Tensor, *args, dims=None) -> Tensor:
    """Reverse the order along ``dims`` (a copy); ``x.flip(0, 1)``, ``flip(x, (0, 1))``, ``flip(x, dims=0)``."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "flip_cpu", "flip_cpu")
    if dims is None:
        if not args:
            raise missing_argument("flip", "dims")
        dims = args
    elif args:
        raise TypeError("flip() got multiple values for argument 'dims'")
    else:
        dims = (dims,)
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    x = input._data
    ds = _dim_list(dims, x.ndim) if x.ndim else tuple(_wrap_dim(d, 0) for d in dims) and ()
    # laid out as empty_like(input), as ATen's flip allocates: a dense input's strides kept (a transposed input
    # gives a transposed result, so what .view() accepts afterwards agrees), any other's (a gapped slice, an
    # expanded dim) dense strides in its order
    return record(laid_out(np.flip(x, ds) if ds else x, like_strides(x)), FlipBackward0, (input,), dims=ds, dims_arg=tuple(dims))


@op(variants="function method", batch=composite)
def fliplr(input: Tensor) -> Tensor:
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@op(variants="function method", batch=composite)
def flipud(input: Tensor) -> Tensor:
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


class RollBackward0(Node):
    saved_fields = (("dims", lambda n: u64(n.dims_arg)), ("shifts", lambda n: u64(n.shifts)))

    def backward(self, g):
        return (g.roll(tuple(-s for s in self.shifts), self.dims),)


@op(variants="function method")
def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """Shift elements cyclically along ``dims`` (over the flattened tensor when None)."""
    x = input._data
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        out = np.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
        return record(out, RollBackward0, (input,), shifts=shifts, dims=None, dims_arg=())
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    ds = tuple(_wrap_dim(d, x.ndim) for d in dims)
    if not x.size:  # PyTorch's roll of an empty tensor: a clone (preserve_format)
        out = laid_out(x, like_strides(x))
    elif x.ndim in (4, 5) and type(x) is not MetaArray:
        out = x
        for shift, d in zip(shifts, ds):
            out = _rolled_as_cat(out, shift, d)
    else:  # PyTorch's roll is contiguous here whatever the input's layout (numpy's keeps it)
        out = c_order(np.roll(x, shifts, ds)) if x.ndim else x.copy()
    return record(out, RollBackward0, (input,), shifts=shifts, dims=ds, dims_arg=dims)


def _rolled_as_cat(x: np.ndarray, shift: int, d: int) -> np.ndarray:
    """``x`` rolled by ``shift`` along ``d`` as ATen's CPU roll does it, one dim at a time: the tail piece joined
    to the head piece by cat, so the result takes cat's layout (``join._cat_layout``): channels-last where both
    pieces suggest it (a 4-d or 5-d channels-last input, unless ``shift`` is a multiple of the size and one
    piece is empty), else C order. (Its meta decomposition gives C order always.)"""
    n = x.shape[d]
    start = (n - shift) % n
    head, tail = x[(slice(None),) * d + (slice(start, None),)], x[(slice(None),) * d + (slice(0, start),)]
    return _cat_layout(np.concatenate((head, tail), axis=d), [head, tail])


@op(variants="function method", aliases=("moveaxis",), batch=composite)
def movedim(input: Tensor, source, destination) -> Tensor:
    """Move dims ``source`` to positions ``destination`` (a permute: a view)."""
    n = input.dim()
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
                           f"contain the same number of dims as destination ({list(dst)} dims)")
    src = tuple(_wrap_dim(d, n) for d in src)
    dst = tuple(_wrap_dim(d, n) for d in dst)
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    if n == 0:  # a 0-d tensor: dims 0 and -1 wrap to 0; PyTorch returns an alias
        return input[()]
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [next(rest) if o is None else o for o in order]
    return input.permute(order)


@op(variants="function method", batch=composite)
def tile(input: Tensor, *dims) -> Tensor:
    """Repeat the whole tensor ``dims`` times (missing leading counts are 1)."""
    if len(dims) == 1 and not isinstance(dims[0], int):
        dims = dims[0]
    dims = tuple(int(d) for d in dims)
    n = input.dim()
    if len(dims) < n:
        dims = (1,) * (n - len(dims)) + dims
    return input.repeat(dims)


def _given_length(output_size) -> int:
    """The result's length along the repeated dim where the counts are a meta tensor's: only ``output_size`` says."""
    if output_size is None:
        raise RuntimeError("cannot repeat_interleave a meta tensor without output_size")
    return output_size


@op(variants="function method")
def repeat_interleave(input: Tensor, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Repeat each element (or slice along ``dim``) ``repeats`` times in place."""
    if repeats is None:  # torch.repeat_interleave(counts): indices repeated by counts
        c = input._data
        if type(c) is MetaArray:
            return _make(MetaArray((_given_length(output_size),), np.int64))
        if (c < 0).any():
            raise RuntimeError("repeats can not be negative")
        return _make(np.repeat(np.arange(c.shape[0], dtype=np.int64), c))
    x = input._data
    if dim is None:
        input = input.reshape(-1)
        x = input._data
        d = 0
    else:
        d = _wrap_dim(dim, x.ndim)
    if isinstance(repeats, Tensor) and repeats._data.ndim > 0:
        r = repeats._data
        if type(r) is MetaArray:
            if r.shape[0] != (x.shape[d] if x.ndim else 1):
                raise RuntimeError("repeats must have the same size as input along dim")
            n = _given_length(output_size)
            return _make(MetaArray(x.shape[:d] + (n,) + x.shape[d + 1:], x.dtype))
        if (r < 0).any():
            raise RuntimeError("repeats can not be negative")
        if r.shape[0] != (x.shape[d] if x.ndim else 1):
            raise RuntimeError("repeats must have the same size as input along dim")
        idx = np.repeat(np.arange(r.shape[0], dtype=np.int64), r)
        return input.index_select(d, _make(idx))
    r = int(repeats)
    if r < 0:
        raise RuntimeError("Repeats must be non-negative")
    if x.ndim == 0:
        input, x = input.reshape(1), x.reshape(1)
    shape = x.shape[:d + 1] + (r,) + x.shape[d + 1:]
    out_shape = x.shape[:d] + (x.shape[d] * r,) + x.shape[d + 1:]
    # (ATen's expand, contiguous clone and view: the result is C-ordered whatever the input's layout)
    return input.unsqueeze(d + 1).expand(shape).clone(memory_format=contiguous_format).reshape(out_shape)


@op(variants="function", batch=composite)
def meshgrid(*tensors, indexing: str | None = None):
    """Coordinate grids from 1-d tensors ('ij': matrix indexing, 'xy': Cartesian)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list")
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    sizes = tuple(t.numel() for t in ts)
    out = []
    for i, t in enumerate(ts):
        shape = tuple(-1 if j == i else 1 for j in range(len(ts)))
        out.append(t.view(shape).expand(sizes))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


@op(variants="function", batch=composite)
def cartesian_prod(*tensors) -> Tensor:
    """All combinations of the 1-d tensors' elements, one per row."""
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)
