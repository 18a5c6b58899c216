"""Division: ``div`` (true, trunc and floor rounding modes), ``floor_divide`` and ``remainder``, each
forward beside its node's backward (PyTorch's DivBackward0/2 and RemainderBackward0/1)."""
from __future__ import annotations

import operator

import numpy as np

from ..._dtype import FLOATING_NP, get_default_dtype
from .._core import narrow_dtypes
from .._core.narrow_dtypes import NarrowArray
from ..._quiet_fp import cast
from ...autograd.forward_ad import zero_tangent, zero_times
from ...autograd.grad_mode import _State
from ...autograd.node import Node, scalar_tensor
from ...tensor import Tensor, _make
from .._core.batching import pointwise
from .._core.record import OUT, record
from .._core.tensor_iterator import elementwise_layout
from .._core.registry import op
from .._core.util import add_terms, as_array, binary_operands, fit_grad, holomorphic_backward, meta, needs_grad
from .._core.binary import _ARITH, _BinaryNode, _lowp, scalar_overload

class DivBackward0(_BinaryNode):
    saved_fields = (("other", (1, lambda n: scalar_tensor(getattr(n, "b_number", None)))), ("self", 0))

    @holomorphic_backward
    def backward(self, g):
        a, b = self._unpacked_saved[:2]
        bv = b if b is not None else self.b_scalar
        gb = None
        if self.need_b:  # PyTorch's div_tensor_other_backward, -grad * ((self / other) / other), first as its node
            quotient = a / bv / bv  # (the right operand before -grad, the order PyTorch's compiled formula runs)
            gb = -g * quotient
        ga = g / bv if self.need_a else None
        return fit_grad(ga, self.a_meta), fit_grad(gb, self.b_meta)  # (summed back after both, as mul's)

    def jvp(self, ta, tb):
        # PyTorch's formula, (self_t - other_t * result) / other_p, a missing tangent its zero tensor (whose product
        # with result records history through result, whose difference is a SubBackward0 all the same)
        _, b, result = self._unpacked_saved  # (the result saved in the dual level)
        other = b if b is not None else self.b_scalar
        moved = zero_times(self, result) if tb is None else tb * result
        num = (zero_tangent(self, moved.dim()) if ta is None else ta) - moved
        if tb is None:
            num._data[...] = ta._data  # (PyTorch's zero adds nothing: a -0.0 stays -0.0)
        return num / other



class DivBackward1(Node):
    """tensor / number as PyTorch's formulas divide (``div.Scalar``; see ``scalar_overload``): one edge, the
    number saved as it is."""
    saved_fields = (("other", "other"),)
    _instance_attrs = ("other",)

    def backward(self, g):
        other = self.other
        return (div_scalar(g, other.conjugate() if type(other) is complex else other),)

    def jvp(self, t):
        return div_scalar(t, self.other)


def div_scalar(t: Tensor, number) -> Tensor:
    """``t / number`` recorded as PyTorch's derivative formulas record it: DivBackward1, one edge."""
    return scalar_overload(div, DivBackward1, t, number, other=number)

@op(variants=_ARITH, aliases=("divide", "true_divide"), dunders=("__truediv__", "__div__"),
    rdunders=("__rtruediv__", "__rdiv__"), idunders=("__itruediv__", "__idiv__"), batch=pointwise,
    scalar=operator.truediv)  # (number / tensor runs as reciprocal(tensor) * number: see below)
def div(a, b, *, rounding_mode=None) -> Tensor:
    """True division (ints give floats), or floor/trunc division with ``rounding_mode``."""
    if rounding_mode is not None:
        return _rounded_div(a, b, rounding_mode)
    if isinstance(a, (bool, int, float)) and isinstance(b, Tensor):
        # scalar / tensor is reciprocal(tensor) * scalar in PyTorch: MulBackward0 -> ReciprocalBackward0,
        # and the same rounding
        return b.reciprocal() * a
    ta, tb, ad, bd = binary_operands(a, b, scalar_in_float=True)
    lowp = _lowp(ad, bd) if ad.dtype.itemsize == 2 or getattr(bd, "itemsize", 0) == 2 else None
    kind = "f" if lowp is not None else ad.dtype.kind if type(ad) is np.ndarray else np.asarray(bd).dtype.kind
    if kind not in "fc":  # (float8 / complex32 too, numpy kind "V"; e5m2's "f" reaches NarrowArray's ufunc)
        if type(ad) is NarrowArray or type(bd) is NarrowArray:  # no division kernel for them
            narrow_dtypes.binary("div", ad, bd, (ad if type(ad) is NarrowArray else bd).dtype)
        fdt = get_default_dtype().np
        ad = ad.astype(fdt) if isinstance(ad, (np.ndarray, np.generic)) else ad  # (numpy 1.x: binary_operands'
        bd = bd.astype(fdt) if isinstance(bd, (np.ndarray, np.generic)) else bd  # numpy scalars too)
    with np.errstate(all="ignore"):  # (PyTorch warns of no overflow, zero divisor or NaN)
        # binary_operands' float32 scalar beside half: a float32 quotient (numpy 1.x divided in half, by value)
        out = as_array(ad / bd if type(bd) is not np.float32 and type(ad) is not np.float32 else
                       np.true_divide(ad, bd, dtype=np.float32))
    if lowp is not None and out.dtype != lowp:
        out = cast(out, lowp)
    out = elementwise_layout(out, ad, bd)
    if needs_grad(ta, tb):
        need_b = tb is not None and tb._requires_grad
        # a number divisor: the Python number too, as PyTorch's _saved_other wraps it
        number = {"b_scalar": bd, "b_number": b} if tb is None else {}
        # (in a dual level the result too, which the forward formula reads: PyTorch's runs as the op runs)
        saved = (ta if need_b else None, tb) if _State.fw_level is None else (ta if need_b else None, tb, OUT)
        return record(out, DivBackward0, (ta, tb), saved, a_meta=meta(ta, out),
                      b_meta=meta(tb, out), need_a=ta is not None and ta._requires_grad, need_b=need_b, **number)
    return _make(out)


def _rounded_div(a, b, mode: str, node_cls=None) -> Tensor:
    ta, tb, ad, bd = binary_operands(a, b)
    if mode not in ("floor", "trunc"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")
    if np.asarray(ad).dtype == np.bool_:
        raise NotImplementedError(f'"div_{mode}_cpu" not implemented for \'Bool\'')
    # over: the lowest integer // -1 wraps to itself, as in PyTorch (numpy would warn)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if np.asarray(ad).dtype in FLOATING_NP:
            # numpy's floor_divide is Python's (and PyTorch's) divmod rule: 1.0 // 0.1 is 9, not floor(10.000001)
            out = np.floor_divide(ad, bd) if mode == "floor" else np.trunc(ad / bd)
        else:
            if np.any(np.asarray(bd) == 0):
                raise RuntimeError("ZeroDivisionError")
            out = np.floor_divide(ad, bd)
            if mode == "trunc":  # in integers: a float quotient would round int64s past 2**53
                out = out + ((np.fmod(ad, bd) != 0) & ((np.asarray(ad) < 0) != (np.asarray(bd) < 0)))
                out = out.astype(np.result_type(ad, bd), copy=False)
    out = elementwise_layout(as_array(out), ad, bd)
    if node_cls is not None:
        return record(out, node_cls, (ta, tb), a_meta=meta(ta, out), b_meta=meta(tb, out))
    if needs_grad(ta, tb):  # what PyTorch's DivBackward2 keeps (its gradient is zero all the same)
        return record(out, DivBackward2, (ta, tb), (ta if tb is not None and tb._requires_grad else None, tb),
                      a_meta=meta(ta, out), b_meta=meta(tb, out), rounding_mode=mode,
                      **({"b_number": b} if tb is None else {}))
    return _make(out)


class DivBackward2(_BinaryNode):
    """Rounded division: a step function, so the gradient is zero."""
    saved_fields = (("other", (1, lambda n: scalar_tensor(getattr(n, "b_number", None)))),
                    ("rounding_mode", "rounding_mode"), ("self", 0))

    def backward(self, g):
        z = g * 0
        return fit_grad(z, self.a_meta), fit_grad(z, self.b_meta)


class _FloorDivideBackward(_BinaryNode):
    """PyTorch records floor_divide with a node that refuses to differentiate."""

    def backward(self, g):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


_FloorDivideBackward.__name__ = _FloorDivideBackward.__qualname__ = "NotImplemented"


class _RemainderOfNumberBackward(_BinaryNode):
    def backward(self, g):
        raise RuntimeError("derivative for aten::remainder is not implemented")


_RemainderOfNumberBackward.__name__ = _RemainderOfNumberBackward.__qualname__ = "NotImplemented"


@op(variants=_ARITH, dunders=("__floordiv__",), rdunders=("__rfloordiv__",), idunders=("__ifloordiv__",),
    batch=pointwise)
def floor_divide(a, b) -> Tensor:
    """Division rounded down (``a // b``); like PyTorch it records no usable gradient."""
    return _rounded_div(a, b, "floor", _FloorDivideBackward)


def _mod(ad, bd) -> np.ndarray:
    """PyTorch's remainder: fmod, moved by b when the signs differ (so 0 % -2 is +0, not numpy's -0)."""
    if np.asarray(ad).dtype in FLOATING_NP:
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.fmod(ad, bd)
            return np.where((m != 0) & ((np.asarray(bd) < 0) != (m < 0)), m + bd, m).astype(m.dtype, copy=False)
    if np.any(np.asarray(bd) == 0):
        raise RuntimeError("ZeroDivisionError")
    return np.mod(ad, bd)


@op(variants=_ARITH, dunders=("__mod__",), rdunders=("__rmod__",), idunders=("__imod__",), batch=pointwise)
def remainder(a, b) -> Tensor:
    """Python-style modulus (sign of the divisor)."""
    ta, tb, ad, bd = binary_operands(a, b)
    if np.asarray(ad).dtype == np.bool_:
        raise NotImplementedError('"remainder_cpu" not implemented for \'Bool\'')
    out = as_array(_mod(ad, bd))
    if not needs_grad(ta, tb):
        return _make(out)
    metas = {"a_meta": meta(ta, out), "b_meta": meta(tb, out)}
    if ta is None and not isinstance(a, Tensor):  # number % tensor: no derivative in PyTorch
        return record(out, _RemainderOfNumberBackward, (ta, tb), **metas)
    if tb is None:
        return record(out, RemainderBackward0, (ta, tb), **metas)
    return record(out, RemainderBackward1, (ta, tb), (ta if ta is not None else _make(as_array(ad)), tb), **metas)


class RemainderBackward0(_BinaryNode):
    def backward(self, g):
        return fit_grad(g, self.a_meta), None

    def jvp(self, ta, *_):
        return ta


class RemainderBackward1(_BinaryNode):
    """a - b * floor(a / b): the divisor's gradient is -floor(a / b)."""
    saved_fields = (("self", 0), ("other", 1))

    def backward(self, g):
        a, b = self._unpacked_saved
        return fit_grad(g, self.a_meta), fit_grad(-g * floor_divide(a.detach(), b.detach()), self.b_meta)

    def jvp(self, ta, tb):
        a, b = self._unpacked_saved
        return add_terms(ta, None if tb is None else -tb * floor_divide(a.detach(), b.detach()))
