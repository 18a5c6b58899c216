"""Attach the ops to ``Tensor`` as methods and operators (``t.sum()``, ``a + b``, ``t[0] = 1``)."""
from __future__ import annotations

import numpy as np

from . import _dtype
from .ops import arith, index, inplace, join, shape, unary
from .tensor import Tensor


def _to(self, *args, **kwargs):
    """Cast to a dtype (device arguments must be the CPU); ``to(other)`` takes other's dtype."""
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    device_arg = kwargs.pop("device", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, np.dtype):
            dtype = _dtype.FROM_NP[a]  # backward formulas cast gradients back with the input's numpy dtype
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif a is not None:
            device_arg = a
    if device_arg is not None:
        from ._size import _require_cpu
        _require_cpu(device_arg)
    if dtype is None:
        return self.clone() if copy else self
    return shape.to_dtype(self, dtype, copy=copy)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from .factory import tensor
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_factory(name):
    def fn(self, *size, dtype=None, device=None, requires_grad=False, **kwargs):
        from . import factory
        f = getattr(factory, name)
        if name == "full":
            return f(size[0], size[1], dtype=dtype or self.dtype, requires_grad=requires_grad)
        return f(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)
    return fn


def _bind() -> None:
    T = Tensor
    # arithmetic, comparisons, logical and bitwise ops: declared in ops/arith.py, power.py, compare.py
    T.__pos__ = lambda self: self
    # unary
    T.relu = unary.relu
    # shape
    for name in ("view", "reshape", "flatten", "unflatten", "squeeze", "unsqueeze", "permute", "transpose", "t",
                 "expand", "expand_as", "clone", "contiguous", "broadcast_to"):
        setattr(T, name, getattr(shape, name))
    for name in ("split", "chunk", "unbind", "select", "narrow", "gather", "scatter"):
        setattr(T, name, getattr(join, name))
    T.swapaxes = T.swapdims = shape.transpose
    T.view_as = lambda self, other: shape.view(self, other._data.shape)
    T.reshape_as = lambda self, other: shape.reshape(self, other._data.shape)
    T.T = property(shape.T)
    T.mT = property(shape.mT)
    T.repeat = shape.repeat
    T.to = _to
    T.float = lambda self: shape.to_dtype(self, _dtype.float32)
    T.double = lambda self: shape.to_dtype(self, _dtype.float64)
    T.half = lambda self: shape.to_dtype(self, _dtype.float16)
    T.long = lambda self: shape.to_dtype(self, _dtype.int64)
    T.int = lambda self: shape.to_dtype(self, _dtype.int32)
    T.short = lambda self: shape.to_dtype(self, _dtype.int16)
    T.byte = lambda self: shape.to_dtype(self, _dtype.uint8)
    T.char = lambda self: shape.to_dtype(self, _dtype.int8)
    T.bool = lambda self: shape.to_dtype(self, _dtype.bool_)
    T.type_as = lambda self, other: shape.to_dtype(self, other.dtype)
    # indexing
    T.__getitem__ = index.getitem
    T.__setitem__ = index.setitem
    # in place
    for name in ("relu_", "scatter_"):
        setattr(T, name, getattr(inplace, name))
    # constructors relative to an existing tensor
    T.new_tensor = _new_tensor
    for name in ("zeros", "ones", "empty", "full"):
        setattr(T, "new_" + name, _new_factory(name))
    T.equal = lambda self, other: bool(self._data.shape == other._data.shape and (self._data == other._data).all())
    T.allclose = lambda self, other, rtol=1e-05, atol=1e-08, equal_nan=False: __import__("numpy").allclose(
        self._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan)


_bind()


# -- the rest of the tensor API (scans, sorting, masked/indexed ops, triangles, special functions,
# products, norms, matrix functions), bound here as one block ---------------------------------------
def _bind_more() -> None:
    from .ops import masked, special, tri

    T = Tensor

    def inplace_of(fn):
        def method(self, *args, **kwargs):
            return inplace.apply_inplace(self, fn, *args, **kwargs)
        method.__name__ = fn.__name__ + "_"
        return method

    for mod, names in (
            (masked, ("masked_fill", "masked_select", "masked_scatter", "index_select", "index_add", "index_copy",
                      "index_fill", "take", "take_along_dim")),
            (tri, ("tril", "triu", "diag", "diag_embed", "trace", "flip", "fliplr", "flipud", "roll",
                   "movedim", "tile", "repeat_interleave"))):
        for name in names:
            setattr(T, name, getattr(mod, name))
    T.moveaxis = tri.movedim
    for fn in (masked.masked_fill, masked.masked_scatter, masked.index_add, masked.index_copy, masked.index_fill,
               tri.tril, tri.triu):
        setattr(T, fn.__name__ + "_", inplace_of(fn))


_bind_more()

# views added with the view + in-place machinery (ops/views.py)
Tensor.diagonal = shape.diagonal
