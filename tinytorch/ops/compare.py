"""Comparisons, logical and bitwise ops (no gradient), and selection: ``where``, ``maximum``,
``minimum``, each beside its node."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor, _make
from ._util import as_array, binary_operands, edge, fit_grad, needs_grad, unpack
from .arith import _BinaryNode


# -- comparisons (no gradient) --------------------------------------------------------------------
def _compare(ufunc):
    def op(a, b) -> Tensor:
        ta, tb, ad, bd = binary_operands(a, b)
        return _make(as_array(ufunc(ad, bd)))
    op.__name__ = ufunc.__name__
    op.__doc__ = f"Elementwise {ufunc.__name__}, a bool tensor."
    return op


eq = _compare(np.equal)
ne = _compare(np.not_equal)
lt = _compare(np.less)
le = _compare(np.less_equal)
gt = _compare(np.greater)
ge = _compare(np.greater_equal)


def _logical(ufunc, name):
    def op(a, b) -> Tensor:
        ta, tb, ad, bd = binary_operands(a, b)
        dt = np.result_type(ad, bd)
        if dt.kind == "f":
            from .._dtype import FROM_NP
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{FROM_NP[dt]._legacy[:-6]}\'')
        return _make(as_array(ufunc(ad, bd)))
    op.__name__ = name
    return op


bitwise_and = _logical(np.bitwise_and, "bitwise_and")
bitwise_or = _logical(np.bitwise_or, "bitwise_or")
bitwise_xor = _logical(np.bitwise_xor, "bitwise_xor")


def logical_and(a, b) -> Tensor:
    return _make(as_array(np.logical_and(unpack(a)[1], unpack(b)[1])))


def logical_or(a, b) -> Tensor:
    return _make(as_array(np.logical_or(unpack(a)[1], unpack(b)[1])))


def logical_not(a) -> Tensor:
    return _make(as_array(np.logical_not(a._data)))


def invert(a) -> Tensor:
    if a._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _make(as_array(~a._data))


# -- selection ------------------------------------------------------------------------------------
class WhereBackward0(_BinaryNode):
    def backward(self, g):
        (cond,) = self.saved_tensors
        # a literal zero, not g * 0: an inf gradient must not turn the unselected side into NaN
        ga = fit_grad(where(cond, g, 0.0), self.a_meta) if self.need_a else None
        gb = fit_grad(where(cond, 0.0, g), self.b_meta) if self.need_b else None
        return None, ga, gb

    def jvp(self, _, ta, tb):
        if ta is None and tb is None:
            return None
        (cond,) = self.saved_tensors
        return where(cond, 0.0 if ta is None else ta, 0.0 if tb is None else tb)


def where(condition, input=None, other=None) -> Tensor:
    """Pick ``input`` where ``condition`` holds, else ``other`` (broadcasting all three)."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    tc, cd = unpack(condition)
    if cd.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{tc.dtype._legacy[:-len('Tensor')]}")
    ta, tb, ad, bd = binary_operands(input, other)
    out = as_array(np.where(cd, ad, bd))
    if needs_grad(ta, tb):
        node = WhereBackward0(((None, 0), edge(ta), edge(tb)))
        node._set_meta(ta, tb, out)
        node.need_a = ta is not None and ta._requires_grad
        node.need_b = tb is not None and tb._requires_grad
        node.save_for_backward(tc)
        return _make(out, node)
    return _make(out)


class MaximumBackward0(_BinaryNode):
    loses = staticmethod(np.less)

    def backward(self, g):
        a, b = self.saved_tensors
        ad, bd = a._data, b._data
        # PyTorch's rule: ties split the gradient, the losing side gets exactly 0 (a NaN gradient
        # too), and a NaN input makes neither side lose; asarray because 0-d numpy gives scalars
        half = g * _make(np.asarray(np.where(ad == bd, 0.5, 1.0), dtype=g._data.dtype))
        ga = where(_make(np.asarray(self.loses(ad, bd))), 0.0, half)
        gb = where(_make(np.asarray(self.loses(bd, ad))), 0.0, half)
        return fit_grad(ga, self.a_meta), fit_grad(gb, self.b_meta)

    def jvp(self, ta, tb):
        # PyTorch's forward rule: tb + w (ta - tb), w = 1 where a wins, 0 where it loses, 1/2 at ties
        a, b = self.saved_tensors
        ad, bd = a._data, b._data
        w = _make(np.asarray(np.where(ad == bd, 0.5, self.loses(bd, ad)),
                             dtype=ad.dtype if ad.dtype.kind == "f" else np.float64))
        if tb is None:
            return w * ta
        return tb * (1 - w) if ta is None else tb + w * (ta - tb)


class MinimumBackward0(MaximumBackward0):
    loses = staticmethod(np.greater)


def _extremum(a, b, ufunc, node_cls) -> Tensor:
    ta, tb, ad, bd = binary_operands(a, b)
    out = as_array(ufunc(ad, bd))
    if needs_grad(ta, tb):
        node = node_cls((edge(ta), edge(tb)))
        node._set_meta(ta, tb, out)
        node.save_for_backward(ta if ta is not None else _make(as_array(ad)),
                               tb if tb is not None else _make(as_array(bd)))
        return _make(out, node)
    return _make(out)


def maximum(a, b) -> Tensor:
    """Elementwise maximum (NaN propagates)."""
    return _extremum(a, b, np.maximum, MaximumBackward0)


def minimum(a, b) -> Tensor:
    """Elementwise minimum (NaN propagates)."""
    return _extremum(a, b, np.minimum, MinimumBackward0)
