"""Padding: ``pad`` in its constant, reflect, replicate and circular modes, and the per-axis linear maps
that reflect/replicate padding and ``interpolate`` share.

Reflect and replicate padding, nearest and (bi/tri)linear resizing are all separable linear maps: along
each spatial axis, every output position is an index into the input (a gather) or a weighted sum of a
few inputs (``Taps``: a dense matrix product on finite data, tap by tap on inf and NaN). ``axis_map``
applies such per-axis maps in numpy; its node's backward
applies the transposed maps with the same machinery, whose backward applies the maps again, so
derivatives of every order are exact."""
from __future__ import annotations

import numpy as np

from ..._meta_array import MetaArray
from ..._quiet_fp import silent
from ...autograd.node import Node, u64
from ...tensor import Tensor
from ...autograd.node import elem_strides
from .._core.layout import format_strides, laid_out, suggested_format
from .._core.overlap import dense
from .._core.layout import laid_in_format, suggested_of
from .._core.record import record
from .._core.util import c_order
from .._core.registry import op


# -- separable per-axis linear maps ---------------------------------------------------------------
def _sum_into(x: np.ndarray, m: np.ndarray, n_in: int, axis: int) -> np.ndarray:
    """The adjoint of ``np.take(., m, axis)`` added term by term: one ``np.add.reduceat`` over runs of equal
    (sorted) indices, so an inf or NaN reaches only the positions it is added into."""
    order = np.argsort(m, kind="stable")
    sorted_m = m[order]
    starts = np.flatnonzero(np.r_[True, sorted_m[1:] != sorted_m[:-1]])
    sums = np.add.reduceat(np.take(x, order, axis=axis), starts, axis=axis)
    shape = list(x.shape)
    shape[axis] = n_in
    out = np.zeros(shape, dtype=x.dtype)
    key = [slice(None)] * x.ndim
    key[axis] = sorted_m[starts]
    out[tuple(key)] = sums
    return out


def _scatter_add(x: np.ndarray, m: np.ndarray, n_in: int, axis: int) -> np.ndarray:
    """The adjoint of ``np.take(., m, axis)``: slices of ``x`` summed into the positions ``m`` names.

    A product with the dense 0/1 matrix is fastest (BLAS), but 0 * inf would spread NaN across the
    row; non-finite gradients are summed term by term instead."""
    if not np.isfinite(x).all():
        return _sum_into(x, m, n_in, axis)
    mat = np.zeros((m.size, n_in), dtype=x.dtype)
    mat[np.arange(m.size), m] = 1
    return np.moveaxis(np.moveaxis(x, axis, -1) @ mat, -1, axis)


class Taps:
    """A per-axis linear map as PyTorch's resampling kernels apply it: output ``o`` is the sum over the taps
    ``k < count[o]`` (all of them where ``count`` is None) of ``x[index[o, k]] * weight[o, k]``.

    ``_apply`` multiplies by the same map as a dense (n_out, n_in) matrix while the data is finite (one BLAS
    product), and walks the taps when the data holds an inf or NaN: the matrix's zeros would give 0 * inf =
    NaN at outputs whose own taps are finite, and the matrix merges taps that PyTorch multiplies one by one
    (a tap of weight 0, the taps clamped onto the same edge pixel)."""

    def __init__(self, index: np.ndarray, weight: np.ndarray, n_in: int, count: np.ndarray | None = None):
        self.index, self.weight, self.n_in, self.count = index, weight, n_in, count
        used = np.ones(index.shape, bool) if count is None else np.arange(index.shape[1]) < count[:, None]
        rows, taps = np.nonzero(used)
        self.dense = np.zeros((len(index), n_in), dtype=weight.dtype)
        np.add.at(self.dense, (rows, index[rows, taps]), weight[rows, taps])  # taps clamped onto one pixel add up

    def _rows(self, k: int):
        return slice(None) if self.count is None else np.flatnonzero(self.count > k)

    def _weights(self, x: np.ndarray) -> np.ndarray:
        """The weights in ``x``'s dtype, shaped to scale slices of ``x`` whose first axis is the map's."""
        return self.weight.astype(x.dtype, copy=False).reshape(self.weight.shape + (1,) * (x.ndim - 1))

    def gather(self, x: np.ndarray, axis: int) -> np.ndarray:
        """The map applied tap by tap along ``axis``."""
        xs = np.moveaxis(x, axis, 0)
        w = self._weights(xs)
        out = xs[self.index[:, 0]] * w[:, 0]  # every output has its first tap
        for k in range(1, self.index.shape[1]):
            rows = self._rows(k)
            out[rows] += xs[self.index[rows, k]] * w[rows, k]
        return np.moveaxis(out, 0, axis)

    def scatter(self, g: np.ndarray, axis: int) -> np.ndarray:
        """The adjoint map applied tap by tap along ``axis``: each output's gradient times each tap's weight,
        added into that tap's input."""
        gs = np.moveaxis(g, axis, 0)
        w = self._weights(gs)
        out = np.zeros((self.n_in,) + gs.shape[1:], dtype=g.dtype)
        for k in range(self.index.shape[1]):
            rows = self._rows(k)
            out += _sum_into(gs[rows] * w[rows, k], self.index[rows, k], self.n_in, 0)
        return np.moveaxis(out, 0, axis)


@silent
def _apply(x: np.ndarray, maps, transpose: bool) -> np.ndarray:
    """Apply each (axis, map, n_in) to ``x``; with ``transpose``, the adjoint maps in reverse order.

    A map is an index vector (a gather along the axis) or ``Taps``; one call's maps are of one kind."""
    maps = maps[::-1] if transpose else maps
    if type(x) is MetaArray:  # a meta tensor: each axis takes its map's length, nothing gathered
        shape = list(x.shape)
        for axis, m, n_in in maps:
            shape[axis] = n_in if transpose else len(m.index if isinstance(m, Taps) else m)
        return MetaArray(shape, x.dtype)
    if maps and isinstance(maps[0][1], Taps):
        return _through_taps(x, maps, transpose)
    for axis, m, n_in in maps:
        x = _scatter_add(x, m, n_in, axis) if transpose else np.take(x, m, axis=axis)
    return c_order(x)


def _through_taps(x: np.ndarray, maps, transpose: bool) -> np.ndarray:
    """The taps' dense products, or their walk where the data holds an inf or NaN. A non-finite input always
    leaves a non-finite output (inf * 0 is NaN), so only the smaller of the two is tested: the input of an
    upsampling, the result of its adjoint."""
    grow = np.prod([len(m.index) / n_in for _, m, n_in in maps])
    if (grow <= 1) if transpose else (grow >= 1):
        return _taps_each(x, maps, transpose, walk=not np.isfinite(x).all())
    out = _taps_each(x, maps, transpose, walk=False)
    return out if np.isfinite(out).all() else _taps_each(x, maps, transpose, walk=True)


def _taps_each(x: np.ndarray, maps, transpose: bool, walk: bool) -> np.ndarray:
    for axis, m, _ in maps:
        if walk:
            x = m.scatter(x, axis) if transpose else m.gather(x, axis)
        else:
            mat = m.dense.astype(x.dtype, copy=False)
            x = np.moveaxis(np.moveaxis(x, axis, -1) @ (mat if transpose else mat.T), -1, axis)
    return c_order(x)


class _AxisMapBackward(Node):
    """A node of an axis map; its gradient is the adjoint map, recorded as ``adjoint`` (and back)."""

    adjoint = None
    in_fmt = False  # the forward input's suggested memory format (False: not asked; None: contiguous)

    def grad_format(self, g):
        """The memory format PyTorch's backward kernel writes the input's gradient in (False: as the maps leave
        it): the padding kernels', the forward input's suggested format."""
        return self.in_fmt

    def backward(self, g):
        return (axis_map(g, self.maps, not self.transpose, self.adjoint, fmt=self.grad_format(g)),)


def axis_map(input: Tensor, maps, transpose: bool, node_cls, info=None, keep_input: bool = False,
             kernel=None, fmt=False) -> Tensor:
    """``input`` with the separable maps applied (or their adjoints), recording ``node_cls``; ``info``:
    the op's arguments as PyTorch's node keeps them (its ``_saved_<name>``), ``keep_input``: the node
    saves the input as PyTorch's does; ``kernel``: an array function giving the maps' values in the
    order PyTorch's kernel sums them (the backward still applies the adjoint maps); ``fmt``: the memory format
    the result is written in (None: contiguous; False: as the maps leave it), which a forward's node keeps for
    its gradient (``grad_format``)."""
    out = kernel(input._data) if kernel is not None else _apply(input._data, maps, transpose)
    if fmt is not False:
        out = laid_in_format(out, fmt)
    return record(out, node_cls, (input,), (input,) if keep_input else (), maps=maps, transpose=transpose, info=info,
                  in_fmt=False if transpose else fmt)


def info_field(name: str):
    """A ``_saved_<name>`` read from the node's ``info``."""
    return lambda node: (getattr(node, "info", None) or {}).get(name)


def map_node(name: str, adjoint: str | None = None, fields=None, base=None):
    """A node class named ``name`` whose double-backward node is PyTorch's ``...BackwardBackward0``;
    ``fields``: its ``saved_fields``; ``base``: a subclass of ``_AxisMapBackward`` to build it on."""
    fwd = type(name, (base or _AxisMapBackward,), {} if fields is None else {"saved_fields": fields})
    adjoint = adjoint or name.replace("Backward0", "BackwardBackward0")
    fwd.adjoint = type(adjoint, (_AxisMapBackward,), {"adjoint": fwd})
    return fwd


# -- constant padding -----------------------------------------------------------------------------
class ConstantPadNdBackward0(Node):
    saved_fields = (("pad", lambda n: u64(n.pad)),)

    def backward(self, g):
        return (constant_pad_nd(g, [-p for p in self.pad], 0),)


def _pad_pairs(pad, ndim: int):
    """[(axis, before, after)] for PyTorch's pad list (last dim first)."""
    return [(ndim - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]


def _pad_last(op, input, pad, *args, **kwargs):
    # the padded dims are the last ones, never the batch dim
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    return input._wrap(op(input._phys, pad, *args, **kwargs))


@op(variants="function", batch=_pad_last)
def constant_pad_nd(input: Tensor, pad, value: float = 0) -> Tensor:
    """Pad (or crop, for negative amounts) the trailing dims with ``value``."""
    x = input._data
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > x.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {x.ndim}")
    shape = list(x.shape)
    src = [slice(None)] * x.ndim
    dst = [slice(None)] * x.ndim
    for axis, before, after in _pad_pairs(pad, x.ndim):
        n = x.shape[axis]
        new = n + before + after
        if new < 0 or n + min(before, 0) < 0 or n + min(after, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        shape[axis] = new
        src[axis] = slice(max(-before, 0), n - max(-after, 0))
        dst[axis] = slice(max(before, 0), new - max(after, 0))
    if all(p <= 0 for p in pad):
        out = _crop(x[tuple(src)])
    else:
        # (full_like: a meta x gives a meta out, written nowhere)
        out = np.full_like(x, value if x.dtype != np.bool_ else bool(value), shape=shape, order="C")
        # ATen allocates the padded result in the input's suggested memory format (channels-last stays so)
        fmt = suggested_format(x.shape, elem_strides(x.shape, x.strides, x.itemsize, type(x) is not MetaArray))
        if fmt is not None:
            out = laid_out(out, format_strides(out.shape, fmt))
        out[tuple(dst)] = x[tuple(src)]
        out = laid_in_format(out, suggested_of(x))  # PyTorch's: at::empty in the input's suggested memory format
    return record(out, ConstantPadNdBackward0, (input,), pad=tuple(pad))


def _crop(view):
    """PyTorch crops by narrowing, then cloning: the clone keeps a dense view's strides (a size-1 dim's too) and
    lays another out in the order of its strides (C order for an expanded one). (The backward crops so too.)"""
    big = [view.strides[d] for d in range(view.ndim) if view.shape[d] != 1]
    if dense(view):
        order = None
    elif 0 in big or all(a >= b for a, b in zip(big, big[1:])):  # expanded, or in C order already: C order
        order = tuple(range(view.ndim))
    else:  # the largest stride first
        order = tuple(sorted(range(view.ndim), key=lambda d: (-view.strides[d], d)))
    if order is None:
        if type(view) is MetaArray:
            return MetaArray(view.shape, view.dtype, view.strides)
        out = view.copy(order="K")  # the same strides, but a size-1 dim's (numpy's K order)
        # only size-1 dims' strides differ, which address nothing: the copy's memory read as the view's strides
        return out if out.strides == view.strides or not out.size else \
            np.lib.stride_tricks.as_strided(out, strides=view.strides)
    back = tuple(int(i) for i in np.argsort(order))
    if type(view) is MetaArray:
        return MetaArray(tuple(view.shape[d] for d in order), view.dtype).transpose(back)
    return np.ascontiguousarray(view.transpose(order)).transpose(back)


# -- reflect / replicate / circular ---------------------------------------------------------------
_SUPPORTED = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
# PyTorch's circular pad is slice assignments: CopySlices, whose gradient goes through a slice's backward
_CIRCULAR = map_node("CopySlices", "SliceBackwardBackward0")
_NODES = {(m, k): map_node(f"{m.capitalize()}Pad{k}DBackward0",
                           fields=(("self", 0), ("padding", lambda n: u64(info_field("padding")(n)))))
          for m in ("reflection", "replication") for k in (1, 2, 3)}


def _dims(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _index(mode: str, n: int, before: int, after: int) -> np.ndarray:
    j = np.arange(-before, n + after)
    if mode == "replicate":
        return np.clip(j, 0, n - 1)
    if mode == "circular":
        # negative amounts crop first; positive ones then wrap around what is left
        lo, m = max(-before, 0), n - max(-before, 0) - max(-after, 0)
        return lo + np.arange(-max(before, 0), m + max(after, 0)) % m
    j = np.abs(j)
    return (n - 1) - np.abs((n - 1) - j)


def _check_nonconstant(x: np.ndarray, pad, mode: str) -> int:
    k = len(pad) // 2
    if k > x.ndim:  # PyTorch's pad checks this first, whatever the mode
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {x.ndim}")
    if len(pad) % 2 or k not in (1, 2, 3) or x.ndim not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {x.ndim}D input tensor.\n{_SUPPORTED}")
    batch_ok = all(s != 0 for s in x.shape[x.ndim - k - 1:])
    if not batch_ok and mode != "circular":
        kinds = {1: "2D or 3D", 2: "3D or 4D", 3: "4D or 5D"}[k]
        raise RuntimeError(f"Expected {kinds} (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {_dims(x.shape)}")
    for axis, before, after in _pad_pairs(pad, x.ndim):
        n = x.shape[axis]
        if mode == "reflect" and (before >= n or after >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({before}, {after}) at dimension {axis} of input {_dims(x.shape)}")
        if mode == "circular" and (before > n or after > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if n + before + after < 0 or (mode == "replicate" and n + before + after < 1):
            raise RuntimeError(f"input (D: ..., W: {n}) is too small. Calculated output W: {n + before + after}")
    return k


@op(variants="functional")
def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the trailing dims: ``pad`` = (left, right) for the last dim, then the one before, ..."""
    pad = tuple(int(p) for p in pad)
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    x = input._data
    k = _check_nonconstant(x, pad, mode)
    meta = type(x) is MetaArray  # a meta tensor: each map's length (every mode's is n + before + after) only
    maps = [(axis, MetaArray((x.shape[axis] + before + after,), np.intp) if meta else
             _index(mode, x.shape[axis], before, after), x.shape[axis])
            for axis, before, after in _pad_pairs(pad, x.ndim)]
    if mode == "circular":
        return axis_map(input, maps, False, _CIRCULAR)
    # PyTorch's reflection and replication kernels write the result and the input's gradient in the input's
    # suggested memory format (channels-last kept)
    return axis_map(input, maps, False, _NODES[("reflection" if mode == "reflect" else "replication", k)],
                    {"padding": pad}, keep_input=True, fmt=suggested_of(x))
