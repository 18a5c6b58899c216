"""``clamp`` and its one-sided forms ``clamp_min`` / ``clamp_max`` (PyTorch's TensorCompare), with
number or tensor bounds. The gradient passes where the input is inside the range; with tensor bounds
each element's gradient goes to whichever of input, min and max it equals."""
from __future__ import annotations

import numpy as np

from ..._dtype import NARROW_NP, FLOATING_NP, get_default_dtype
from .._core import narrow_dtypes
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.batching import pointwise
from .._core.record import record, wants_grad
from .._core.registry import op
from .._core.tensor_iterator import elementwise_layout
from .._core.util import as_array, binary_operands, fit_grad, meta
from .compare import where

_CLAMP = "function method inplace torch_inplace out"


def _inside(node, x: Tensor) -> Tensor:
    """Where ``x`` is inside the number bounds, laid out as ``x`` (PyTorch's clamp_backward selects by the mask of
    ``self``, whose layout orders the gradient's)."""
    d = x._data
    keep = None
    if node.lo is not None:
        keep = d >= node.lo
    if node.hi is not None:
        keep = d <= node.hi if keep is None else keep & (d <= node.hi)
    if keep is None:
        keep = np.ones_like(d, dtype=bool, order="C")  # (a meta x: meta)
    return _make(keep)


class ClampBackward1(Node):
    """Number bounds: the gradient where the input was inside them."""
    saved_fields = (("self", 0), ("min", "lo"), ("max", "hi"))

    lo = hi = None

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (where(_inside(self, x), g, 0.0),)

    def jvp(self, t):
        (x,) = self._unpacked_saved
        return where(_inside(self, x), t, 0.0)


class ClampMinBackward0(ClampBackward1):
    saved_fields = (("self", 0), ("min", "lo"))
    pass


class ClampMaxBackward0(ClampBackward1):
    saved_fields = (("self", 0), ("max", "hi"))
    pass


class ClampBackward0(Node):
    """Tensor bounds: each element's gradient goes to whichever of input, min, max it equals."""
    saved_fields = (("self", 0), ("min", 1), ("max", 2))

    def backward(self, g):
        x, lo, hi = self._unpacked_saved
        keep = x == x  # all True, shaped like x
        g_lo = g_hi = None
        if lo is not None:
            keep = keep & (x >= lo)
            below = x < lo if hi is None else (x < lo) & (lo < hi)
            g_lo = fit_grad(where(below, g, 0.0), self.lo_meta) if self.need_lo else None
        if hi is not None:
            keep = keep & (x <= hi)
            above = x > hi if lo is None else (x > hi) | (hi < lo)
            g_hi = fit_grad(where(above, g, 0.0), self.hi_meta) if self.need_hi else None
        grads = (fit_grad(where(keep, g, 0.0), self.x_meta), g_lo, g_hi)
        return tuple(gr for gr, keep_it in zip(grads, self.slots) if keep_it)


class ClampMinBackward1(ClampBackward0):
    saved_fields = (("self", 0), ("min", 1))
    pass


class ClampMaxBackward1(ClampBackward0):
    saved_fields = (("self", 0), ("max", 2))
    pass


def _number_bounds(input: Tensor, lo, hi, node_cls) -> Tensor:
    x = input._data
    if x.dtype not in FLOATING_NP and (isinstance(lo, float) or isinstance(hi, float)):
        x = x.astype(get_default_dtype().np)
    out = x
    # integer bounds in x's dtype (numpy 1.x promoted a 0-d int32 x with a Python int to int64, by value)
    if lo is not None:
        out = np.maximum(out, np.asarray(lo, dtype=x.dtype)) if x.dtype in FLOATING_NP else \
            np.maximum(out, lo, dtype=x.dtype)
    if hi is not None:
        out = np.minimum(out, np.asarray(hi, dtype=x.dtype)) if x.dtype in FLOATING_NP else \
            np.minimum(out, hi, dtype=x.dtype)
    if out is x:
        out = x.copy()
    return record(as_array(out), node_cls, (input,), (input,), lo=lo, hi=hi)


def _tensor_bounds(input: Tensor, lo, hi, node_cls, slots=(True, True, True)) -> Tensor:
    """``slots``: which of (input, min, max) are inputs of the node (clamp_min has no max)."""
    lo_t, hi_t = (None if b is None else b if isinstance(b, Tensor) else _make(as_array(b)) for b in (lo, hi))
    x = input
    for b in (lo_t, hi_t):
        if b is not None:
            _, _, xd, _ = binary_operands(x, b)  # promotes and checks the shapes broadcast
            x = _make(as_array(xd)) if xd.dtype != x._data.dtype else x
    dt = x._data.dtype
    out = x._data
    if lo_t is not None:
        out = np.maximum(out, lo_t._data.astype(dt, copy=False))
    if hi_t is not None:
        out = np.minimum(out, hi_t._data.astype(dt, copy=False))
    out = as_array(out if out is not x._data else out.copy())
    # laid out as PyTorch's TensorIterator lays out (input, min, max): a transposed input gives a transposed result
    out = elementwise_layout(out, x._data, *(b._data for b in (lo_t, hi_t) if b is not None))
    inputs = tuple(p for p, keep in zip((input, lo_t, hi_t), slots) if keep)
    if not wants_grad(inputs):
        return _make(out)
    return record(out, node_cls, inputs, (input, lo_t, hi_t), slots=slots, x_meta=meta(input, out),
                  lo_meta=meta(lo_t, out), hi_meta=meta(hi_t, out), need_lo=lo_t is not None and lo_t._requires_grad,
                  need_hi=hi_t is not None and hi_t._requires_grad)


@op(variants=_CLAMP, aliases=("clip",), batch=pointwise)
def clamp(input: Tensor, min=None, max=None) -> Tensor:
    """Limit values to [min, max]; the gradient passes where the input was inside the range."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "clamp_scalar_cpu", NotImplementedError(narrow_dtypes.NO_COMPLEX_CLAMP))
    if min is None and max is None:
        raise RuntimeError("tinytorch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        # a 0-d tensor beside a number becomes a number, as PyTorch's overload resolution does
        if min is not None and max is not None and not (isinstance(min, Tensor) and isinstance(max, Tensor)):
            min, max = (b.item() if isinstance(b, Tensor) and b._data.ndim == 0 else b for b in (min, max))
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            return _tensor_bounds(input, min, max, ClampBackward0)
    return _number_bounds(input, min, max, ClampBackward1)


@op(variants=_CLAMP, batch=pointwise)
def clamp_min(input: Tensor, min) -> Tensor:
    """max(input, min) with clamp's gradient rule."""
    if isinstance(min, Tensor):
        return _tensor_bounds(input, min, None, ClampMinBackward1, (True, True, False))
    return _number_bounds(input, min, None, ClampMinBackward0)


@op(variants=_CLAMP, batch=pointwise)
def clamp_max(input: Tensor, max) -> Tensor:
    """min(input, max) with clamp's gradient rule."""
    if isinstance(max, Tensor):
        return _tensor_bounds(input, None, max, ClampMaxBackward1, (True, False, True))
    return _number_bounds(input, None, max, ClampMaxBackward0)
