"""Comparisons, logical and bitwise ops (no gradient), and selection: ``where``, ``maximum``,
``minimum``, each beside its node."""
from __future__ import annotations

import numpy as np

from ..._dtype import FLOATING_NP, FROM_NP
from ...tensor import Tensor, _make, register_attribute
from .._core.batching import pointwise
from .._core.record import record
from .._core.tensor_iterator import elementwise_layout
from .._core.registry import op
from .._core.util import as_array, binary_operands, fit_grad, meta, needs_grad, require_tensors, unpack
from .._core.binary import _BinaryNode

_COMPARE = "function method inplace out"  # comparisons write 0/1 into self's dtype in place


# -- comparisons (no gradient) --------------------------------------------------------------------
def _compare(ufunc, name: str, alias: str, dunder: str):
    ordering = name not in ("eq", "ne")

    def compare(a, b) -> Tensor:
        ta, tb, ad, bd = binary_operands(a, b)
        if ordering and type(ad) is np.ndarray and ad.dtype.kind == "c":  # complex numbers have no order
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{FROM_NP[ad.dtype]._scalar}\'')
        return _make(elementwise_layout(as_array(ufunc(ad, bd)), ad, bd))
    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = f"Elementwise {ufunc.__name__}, a bool tensor (no gradient)."
    return op(name, _COMPARE, aliases=(alias,) if alias else (), dunders=(dunder,), batch=pointwise)(compare)


eq = _compare(np.equal, "eq", "", "__eq__")
ne = _compare(np.not_equal, "ne", "not_equal", "__ne__")
lt = _compare(np.less, "lt", "less", "__lt__")
le = _compare(np.less_equal, "le", "less_equal", "__le__")
gt = _compare(np.greater, "gt", "greater", "__gt__")
ge = _compare(np.greater_equal, "ge", "greater_equal", "__ge__")


def _operand_dunder(fn):
    """PyTorch's comparison operators answer NotImplemented for an operand that is no tensor, number or array,
    so Python falls back: ``t == None`` is False, ``t != "a"`` True, ``t < None`` a TypeError naming both types."""
    def dunder(self, other):
        if other is None or not isinstance(other, (Tensor, bool, int, float, complex, np.ndarray, np.generic)):
            return NotImplemented
        return fn(self, other)

    dunder.__name__ = dunder.__qualname__ = fn.__name__
    dunder.__doc__ = fn.__doc__
    dunder.__wrapped__ = fn
    return dunder


for _name in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
    register_attribute(_name, _operand_dunder(getattr(Tensor, _name)))


def _bitwise(ufunc, name: str, dunder: str):
    def bitwise(a, b) -> Tensor:
        ta, tb, ad, bd = binary_operands(a, b)
        dt = np.result_type(ad, bd)
        if dt in FLOATING_NP:
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{FROM_NP[dt]._scalar}\'')
        return _make(as_array(ufunc(ad, bd)))
    bitwise.__name__ = bitwise.__qualname__ = name
    bitwise.__doc__ = f"Elementwise {name} of integer or bool tensors."
    return op(name, _COMPARE, dunders=(f"__{dunder}__",), rdunders=(f"__r{dunder}__",), idunders=(f"__i{dunder}__",),
              batch=pointwise)(bitwise)


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and", "and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or", "or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor", "xor")


def _logical(ufunc, name: str):
    def logical(a, b) -> Tensor:
        return _make(as_array(ufunc(unpack(a)[1], unpack(b)[1])))
    logical.__name__ = logical.__qualname__ = name
    logical.__doc__ = f"Elementwise {name} of the inputs' truth values, a bool tensor."
    return op(name, _COMPARE, batch=pointwise)(logical)


logical_and = _logical(np.logical_and, "logical_and")
logical_or = _logical(np.logical_or, "logical_or")
logical_xor = _logical(np.logical_xor, "logical_xor")


@op(variants=_COMPARE, batch=pointwise)
def logical_not(a) -> Tensor:
    """Elementwise not of the input's truth values, a bool tensor."""
    return _make(as_array(np.logical_not(a._data)))


@op("__invert__", "method", batch=pointwise)
def invert(a) -> Tensor:
    """``~t``: bitwise not of an integer or bool tensor."""
    if a._data.dtype in FLOATING_NP:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _make(as_array(~a._data))


# -- selection ------------------------------------------------------------------------------------
class WhereBackward0(_BinaryNode):
    """Two edges, input's and other's, as PyTorch's: the condition is saved, not differentiated."""
    saved_fields = (("condition", 0),)

    def backward(self, g):
        (cond,) = self._unpacked_saved
        # a literal zero, not g * 0: an inf gradient must not turn the unselected side into NaN
        ga = fit_grad(where(cond, g, 0.0), self.a_meta) if self.need_a else None
        gb = fit_grad(where(cond, 0.0, g), self.b_meta) if self.need_b else None
        return ga, gb

    def jvp(self, ta, tb):
        if ta is None and tb is None:
            return None
        (cond,) = self._unpacked_saved
        return where(cond, 0.0 if ta is None else ta, 0.0 if tb is None else tb)


def _where_method(self, condition, other):
    return where(condition, self, other)


@op(variants="function method out", method=_where_method, batch=pointwise)
def where(condition, input=None, other=None) -> Tensor:
    """Pick ``input`` where ``condition`` holds, else ``other`` (broadcasting all three)."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    tc, cd = unpack(condition)
    if cd.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{tc.dtype._scalar}")
    ta, tb, ad, bd = binary_operands(input, other)
    out = elementwise_layout(as_array(np.where(cd, ad, bd)), cd, ad, bd)
    if needs_grad(ta, tb):
        return record(out, WhereBackward0, (ta, tb), (tc,), a_meta=meta(ta, out), b_meta=meta(tb, out),
                      need_a=ta is not None and ta._requires_grad, need_b=tb is not None and tb._requires_grad)
    return _make(out)


class MaximumBackward0(_BinaryNode):
    saved_fields = (("self", 0), ("other", 1))
    loses, loses_op, wins_op = staticmethod(np.less), "lt", "gt"  # (self loses / wins against other)

    def backward(self, g):
        a, b = self._unpacked_saved
        ad, bd = a._data, b._data
        # PyTorch's rule: ties split the gradient, the losing side gets exactly 0 (a NaN gradient
        # too), and a NaN input makes neither side lose; asarray because 0-d numpy gives scalars
        half = g * _make(as_array(np.where(ad == bd, 0.5, 1.0), dtype=g._data.dtype))
        ga = where(_make(as_array(self.loses(ad, bd))), 0.0, half)
        gb = where(_make(as_array(self.loses(bd, ad))), 0.0, half)
        return fit_grad(ga, self.a_meta), fit_grad(gb, self.b_meta)

    def jvp(self, ta, tb):
        # PyTorch's forward rule: tb + w (ta - tb), w = 1 where a wins, 0 where it loses, 1/2 at ties
        a, b = self._unpacked_saved
        ad, bd = a._data, b._data
        w = _make(as_array(np.where(ad == bd, 0.5, self.loses(bd, ad)),
                             dtype=ad.dtype if ad.dtype in FLOATING_NP else np.float64))
        if tb is None:
            return w * ta
        return tb * (1 - w) if ta is None else tb + w * (ta - tb)


class MinimumBackward0(MaximumBackward0):
    loses, loses_op, wins_op = staticmethod(np.greater), "gt", "lt"


def _extremum(a, b, ufunc, node_cls) -> Tensor:
    ta, tb, ad, bd = binary_operands(a, b)
    out = elementwise_layout(as_array(ufunc(ad, bd)), ad, bd)
    if needs_grad(ta, tb):  # a number operand is saved as a tensor
        return record(out, node_cls, (ta, tb), (ta if ta is not None else _make(as_array(ad)),
                                                tb if tb is not None else _make(as_array(bd))),
                      a_meta=meta(ta, out), b_meta=meta(tb, out))
    return _make(out)


@op(variants="function method out", batch=pointwise)
def maximum(a, b) -> Tensor:
    """Elementwise maximum (NaN propagates)."""
    require_tensors("maximum", a, b)
    return _extremum(a, b, np.maximum, MaximumBackward0)


@op(variants="function method out", batch=pointwise)
def minimum(a, b) -> Tensor:
    """Elementwise minimum (NaN propagates)."""
    require_tensors("minimum", a, b)
    return _extremum(a, b, np.minimum, MinimumBackward0)
