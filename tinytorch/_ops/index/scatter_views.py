"""The ``*_scatter`` ops: ``input`` with one of its views (a slice, a selected index, a diagonal, a
strided window) replaced by ``src``, as a new tensor. Each is a clone whose view is written with
``copy_``, so the gradient is the view machinery's: ``src`` gets the gradient at the view, ``input``
everywhere else (PyTorch's SliceScatterBackward0 and friends compute the same). On meta tensors, where PyTorch's
kernels check and compute nothing, the result is the clone recorded with PyTorch's node."""
from __future__ import annotations

import numpy as np

from ..._meta_array import MetaArray
from ...autograd.grad_mode import no_grad
from ...autograd.node import Node, sum_to
from ...tensor import Tensor, _make
from .._core.record import record
from .._core.registry import op
from ..shape.join import select
from ..shape.shape import diagonal
from ..shape.strided import _offsets, _storage, as_strided


def _check_src(view_shape: tuple, src: Tensor) -> None:
    if tuple(view_shape) != tuple(src.shape):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"[{', '.join(map(str, src.shape))}], slice size = [{', '.join(map(str, view_shape))}]")


class SliceScatterBackward0(Node):
    """A meta input's node (PyTorch's meta kernels compute nothing, and check nothing of ``src``): the input gets
    the incoming gradient's geometry, ``src`` the view's, refused as PyTorch's engine refuses a gradient that
    ``src``'s shape cannot expand to. (On CPU the clone-and-copy_ graph gives the gradients.)"""

    def backward(self, g):
        v = self.take(g)
        if tuple(v.shape) != self.src_shape:
            try:
                fits = np.broadcast_shapes(self.src_shape, tuple(v.shape)) == tuple(v.shape)
            except ValueError:
                fits = False
            if not fits:
                raise RuntimeError(f"Function {type(self).__name__} returned an invalid gradient at index 1 - got "
                                   f"[{', '.join(map(str, v.shape))}] but expected shape compatible with "
                                   f"[{', '.join(map(str, self.src_shape))}]")
            v = sum_to(v, self.src_shape)
        return g, v


class SelectScatterBackward0(SliceScatterBackward0):
    pass


class DiagonalScatterBackward0(SliceScatterBackward0):
    pass


def _fill_view(out: Tensor, src: Tensor, take, node) -> Tensor:
    """``out`` with its view ``take(out)`` written with ``src``."""
    if type(out._data) is MetaArray:
        return record(out._data, node, (out, src), take=take, src_shape=tuple(src.shape))
    view = take(out)
    _check_src(tuple(view.shape), src)
    view.copy_(src)
    return out


@op(variants="function method out")
def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """``input`` with ``input[start:end:step]`` along ``dim`` replaced by ``src``."""
    out = input.clone()
    d = dim + out.dim() if dim < 0 else dim
    key = (slice(None),) * d + (slice(start, end, step),)
    return _fill_view(out, src, lambda t: t[key], SliceScatterBackward0)


@op(variants="function method")
def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    out = input.clone()
    return _fill_view(out, src, lambda t: select(t, dim, index), SelectScatterBackward0)


@op(variants="function method")
def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """``input`` with ``input.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    out = input.clone()
    return _fill_view(out, src, lambda t: diagonal(t, offset, dim1, dim2), DiagonalScatterBackward0)


class AsStridedScatterBackward0(Node):
    """PyTorch's formula, which is not the derivative of the forward for ``input``: PyTorch's
    as_strided_scatter_backward gives ``input`` the (contiguous) gradient at the storage elements the
    window covers and zero elsewhere -- the complement of what the forward's clone-and-overwrite would
    give (PyTorch's own gradcheck of the op is marked an expected failure). ``src`` gets the gradient
    read through the window, ``grad.contiguous().as_strided(size, stride, storage_offset)``, which is
    the derivative."""
    saved_fields = (("size", "size"), ("stride", "stride"), ("storage_offset", "offset"))

    def backward(self, g):
        gc = g.contiguous()
        window = as_strided(gc, self.size, self.stride, self.offset)  # PyTorch's error if it leaves gc
        g_input = g_src = None
        if self.next_functions[0][0] is not None:
            g_input = gc * _make(self.covered.astype(g._data.dtype))
        if self.next_functions[1][0] is not None:
            g_src = window
        return g_input, g_src


@op(variants="function method")
def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """``input`` with ``input.as_strided(size, stride, storage_offset)`` replaced by ``src``."""
    if input.requires_grad and not input.is_contiguous():
        raise RuntimeError("as_strided_scatter is currently only supported for contiguous inputs")
    size, stride, offset = tuple(size), tuple(stride), int(storage_offset or 0)
    x = input._data
    if type(x) is MetaArray:
        # no storage to write into: the window's size checked, and the result's geometry PyTorch's meta kernel
        # gives (the input's, as its clone keeps; an expanded input's C order); the covered mask holds True
        _check_src(size, src)
        keep = all(x.strides) or 0 in x.shape
        out = MetaArray(x.shape, x.dtype, x.strides if keep else None, x.offset if keep else 0)
        return record(out, AsStridedScatterBackward0, (input, src), size=size, stride=stride, offset=offset,
                      covered=MetaArray(x.shape, np.bool_, value=np.ones((), np.bool_)))
    with no_grad():
        # PyTorch clones the input with its geometry (strides and storage offset), and the window is
        # taken in that storage: for a view, positions of the input's storage, not of its elements
        storage, own_offset, own_strides = _storage(input)
        buffer = _make(storage.copy())
        start = own_offset if storage_offset is None else storage_offset
        window = as_strided(buffer, size, stride, start)
        _check_src(tuple(window.shape), src)
        window.copy_(src.detach())
        out = _make(np.ascontiguousarray(as_strided(buffer, tuple(input.shape), own_strides, own_offset)._data))
    covered = np.zeros(out.numel(), dtype=bool)
    positions = _offsets(size, stride, offset).reshape(-1)
    # a window in a view's storage may reach past the output's elements: the backward then refuses it
    covered[positions[positions < covered.size]] = True
    return record(out._data, AsStridedScatterBackward0, (input, src), size=size, stride=stride, offset=offset,
                  covered=covered.reshape(out._data.shape))
