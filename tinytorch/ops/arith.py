"""Binary arithmetic, comparisons and selection: each op's forward beside its node's backward."""
from __future__ import annotations

import numpy as np

from .._dtype import get_default_dtype
from ..autograd.grad_mode import _State
from ..autograd.node import Node
from ..tensor import Tensor, _make
from ._util import _NONE_EDGE, as_array, binary_operands, edge, fit_grad, meta, needs_grad, unpack


class _BinaryNode(Node):
    """Remembers each input's shape/dtype only when it differs from the result's."""

    a_meta = None
    b_meta = None

    def _set_meta(self, ta, tb, out):
        self.a_meta = meta(ta, out)
        self.b_meta = meta(tb, out)


# -- add / sub ------------------------------------------------------------------------------------
class AddBackward0(_BinaryNode):
    alpha = 1

    def backward(self, g):
        gb = g if self.alpha == 1 else g * self.alpha
        return fit_grad(g, self.a_meta), fit_grad(gb, self.b_meta)


def _same(a, b):
    """The two arrays of tensor operands of one shape and dtype (the common case: no promotion, no
    broadcast, nothing for the backward to fit), else None."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        ad, bd = a._data, b._data
        if ad.dtype == bd.dtype and ad.shape == bd.shape and ad.dtype.kind != "b":
            return ad, bd
    return None


def _float_and_scalar(a, b):
    """The array of a floating tensor ``a`` with a Python float or int ``b``: the result keeps ``a``'s
    dtype and shape, so nothing is promoted or fitted (the common ``x * 0.5``, ``x + 1``), else None."""
    if isinstance(a, Tensor) and (type(b) is float or type(b) is int):
        ad = a._data
        if ad.dtype.kind == "f":
            return ad
    return None


def add(a, b, *, alpha=1) -> Tensor:
    """a + alpha * b with broadcasting."""
    if alpha == 1:
        same = _same(a, b)
        if same is not None:
            out = same[0] + same[1]
            if type(out) is not np.ndarray:
                out = np.asarray(out)
            if _State.enabled and (a._requires_grad or b._requires_grad):
                return _make(out, AddBackward0((a._edge(), b._edge())))
            return _make(out)
        ad = _float_and_scalar(a, b)
        if ad is not None:
            out = ad + b
            if type(out) is not np.ndarray:
                out = np.asarray(out)
            if _State.enabled and a._requires_grad:
                return _make(out, AddBackward0((a._edge(), _NONE_EDGE)))
            return _make(out)
    ta, tb, ad, bd = binary_operands(a, b)
    out = ad + bd if alpha == 1 else ad + bd * alpha
    out = as_array(out)
    if needs_grad(ta, tb):
        node = AddBackward0((edge(ta), edge(tb)))
        node._set_meta(ta, tb, out)
        node.alpha = alpha
        return _make(out, node)
    return _make(out)


class SubBackward0(_BinaryNode):
    alpha = 1

    def backward(self, g):
        gb = -g if self.alpha == 1 else g * (-self.alpha)
        return fit_grad(g, self.a_meta), fit_grad(gb, self.b_meta)


class RsubBackward1(Node):
    def backward(self, g):
        return -g, None

    def jvp(self, t, *_):
        return None if t is None else -t


def _is_bool(x) -> bool:
    if isinstance(x, Tensor):
        return x._data.dtype == np.bool_
    return isinstance(x, (bool, np.bool_)) or (isinstance(x, np.ndarray) and x.dtype == np.bool_)


def sub(a, b, *, alpha=1) -> Tensor:
    """a - alpha * b with broadcasting."""
    if alpha == 1:
        same = _same(a, b)
        if same is not None:
            out = same[0] - same[1]
            if type(out) is not np.ndarray:
                out = np.asarray(out)
            if _State.enabled and (a._requires_grad or b._requires_grad):
                return _make(out, SubBackward0((a._edge(), b._edge())))
            return _make(out)
        bd = _float_and_scalar(b, a)
        if bd is not None:  # scalar - tensor (what ``1 - t`` calls)
            out = a - bd
            if type(out) is not np.ndarray:
                out = np.asarray(out)
            if _State.enabled and b._requires_grad:
                return _make(out, RsubBackward1((b._edge(), _NONE_EDGE)))
            return _make(out)
    a_bool, b_bool = _is_bool(a), _is_bool(b)
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    ta, tb, ad, bd = binary_operands(a, b)
    out = as_array(ad - bd if alpha == 1 else ad - bd * alpha)
    if needs_grad(ta, tb):
        if ta is None and not isinstance(a, Tensor):
            # scalar - tensor: PyTorch's RsubBackward1 with a single input edge
            node = RsubBackward1((edge(tb), (None, 0)))
            return _make(out, node)
        node = SubBackward0((edge(ta), edge(tb)))
        node._set_meta(ta, tb, out)
        node.alpha = alpha
        return _make(out, node)
    return _make(out)


def rsub(a, b) -> Tensor:
    """b - a (what ``2 - t`` calls)."""
    return sub(b, a)


# -- mul / div ------------------------------------------------------------------------------------
class MulBackward0(_BinaryNode):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = fit_grad(g * (self.b_scalar if b is None else b), self.a_meta) if self.need_a else None
        gb = fit_grad(g * (self.a_scalar if a is None else a), self.b_meta) if self.need_b else None
        return ga, gb


def mul(a, b) -> Tensor:
    """Elementwise product with broadcasting."""
    same = _same(a, b)
    if same is not None:
        out = same[0] * same[1]
        if type(out) is not np.ndarray:
            out = np.asarray(out)
        if _State.enabled and (a._requires_grad or b._requires_grad):
            node = MulBackward0((a._edge(), b._edge()))
            need_a = node.need_a = a._requires_grad
            need_b = node.need_b = b._requires_grad
            node._save_inputs(a if need_b else None, b if need_a else None)
            return _make(out, node)
        return _make(out)
    ad = _float_and_scalar(a, b)
    if ad is not None:
        out = ad * b
        if type(out) is not np.ndarray:
            out = np.asarray(out)
        if _State.enabled and a._requires_grad:
            node = MulBackward0((a._edge(), _NONE_EDGE))
            node.need_a, node.need_b = True, False
            node._saved_versions = node._saved = (None, None)
            node.b_scalar = b
            return _make(out, node)
        return _make(out)
    ta, tb, ad, bd = binary_operands(a, b)
    out = as_array(ad * bd)
    if needs_grad(ta, tb):
        node = MulBackward0((edge(ta), edge(tb)))
        node._set_meta(ta, tb, out)
        need_a = node.need_a = ta is not None and ta._requires_grad
        need_b = node.need_b = tb is not None and tb._requires_grad
        # only what the other side's gradient needs is saved
        node.save_for_backward(ta if need_b else None, tb if need_a else None)
        if tb is None:
            node.b_scalar = bd
        if ta is None:
            node.a_scalar = ad
        return _make(out, node)
    return _make(out)


class DivBackward0(_BinaryNode):
    def backward(self, g):
        a, b = self.saved_tensors
        bv = b if b is not None else self.b_scalar
        ga = fit_grad(g / bv, self.a_meta) if self.need_a else None
        gb = fit_grad(-g * a / (bv * bv), self.b_meta) if self.need_b else None
        return ga, gb

    def jvp(self, ta, tb):
        from ..autograd.forward_ad import _add_terms
        a, b = self.saved_tensors
        bv = b if b is not None else self.b_scalar
        return _add_terms(None if ta is None else ta / bv, None if tb is None else -tb * a / (bv * bv))


def div(a, b, *, rounding_mode=None) -> Tensor:
    """True division (ints give floats), or floor/trunc division with ``rounding_mode``."""
    if rounding_mode is not None:
        return _rounded_div(a, b, rounding_mode)
    if isinstance(a, (bool, int, float)) and isinstance(b, Tensor):
        # scalar / tensor is reciprocal(tensor) * scalar in PyTorch: MulBackward0 -> ReciprocalBackward0,
        # and the same rounding
        from .unary import reciprocal
        return mul(reciprocal(b), a)
    ta, tb, ad, bd = binary_operands(a, b)
    kind = ad.dtype.kind if type(ad) is np.ndarray else np.asarray(bd).dtype.kind
    if kind != "f":
        fdt = get_default_dtype().np
        ad = ad.astype(fdt) if type(ad) is np.ndarray else ad
        bd = bd.astype(fdt) if type(bd) is np.ndarray else bd
    with np.errstate(divide="ignore", invalid="ignore"):
        out = as_array(ad / bd)
    if needs_grad(ta, tb):
        node = DivBackward0((edge(ta), edge(tb)))
        node._set_meta(ta, tb, out)
        node.need_a = ta is not None and ta._requires_grad
        node.need_b = tb is not None and tb._requires_grad
        node.save_for_backward(ta if node.need_b else None, tb)
        if tb is None:
            node.b_scalar = bd
        return _make(out, node)
    return _make(out)


def _rounded_div(a, b, mode: str, node_cls=None) -> Tensor:
    ta, tb, ad, bd = binary_operands(a, b)
    if mode not in ("floor", "trunc"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")
    if np.asarray(ad).dtype == np.bool_:
        raise NotImplementedError(f'"div_{mode}_cpu" not implemented for \'Bool\'')
    with np.errstate(divide="ignore", invalid="ignore"):
        if np.asarray(ad).dtype.kind == "f":
            # numpy's floor_divide is Python's (and PyTorch's) divmod rule: 1.0 // 0.1 is 9, not floor(10.000001)
            out = np.floor_divide(ad, bd) if mode == "floor" else np.trunc(ad / bd)
        else:
            if np.any(np.asarray(bd) == 0):
                raise RuntimeError("ZeroDivisionError")
            out = np.floor_divide(ad, bd) if mode == "floor" else np.trunc(np.true_divide(ad, bd)).astype(
                np.result_type(ad, bd))
    out = as_array(out)
    if needs_grad(ta, tb):
        node = (node_cls or DivBackward2)((edge(ta), edge(tb)))
        node._set_meta(ta, tb, out)
        return _make(out, node)
    return _make(out)


class DivBackward2(_BinaryNode):
    """Rounded division: a step function, so the gradient is zero."""

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


def floor_divide(a, b) -> Tensor:
    """Division rounded down (``a // b``); like PyTorch it records no usable gradient."""
    return _rounded_div(a, b, "floor", _FloorDivideBackward)


def _mod(ad, bd) -> np.ndarray:
    """PyTorch's remainder: fmod, moved by b when the signs differ (so 0 % -2 is +0, not numpy's -0)."""
    if np.asarray(ad).dtype.kind == "f":
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.fmod(ad, bd)
            return np.where((m != 0) & ((np.asarray(bd) < 0) != (m < 0)), m + bd, m).astype(m.dtype, copy=False)
    if np.any(np.asarray(bd) == 0):
        raise RuntimeError("ZeroDivisionError")
    return np.mod(ad, bd)


def remainder(a, b) -> Tensor:
    """Python-style modulus (sign of the divisor)."""
    ta, tb, ad, bd = binary_operands(a, b)
    if np.asarray(ad).dtype == np.bool_:
        raise NotImplementedError('"remainder_cpu" not implemented for \'Bool\'')
    out = as_array(_mod(ad, bd))
    if needs_grad(ta, tb):
        if ta is None and not isinstance(a, Tensor):
            node = _RemainderOfNumberBackward((edge(ta), edge(tb)))  # number % tensor: no derivative in PyTorch
        elif tb is None:
            node = RemainderBackward0((edge(ta), edge(tb)))
        else:
            node = RemainderBackward1((edge(ta), edge(tb)))
            node.save_for_backward(ta if ta is not None else _make(as_array(ad)), tb)
        node._set_meta(ta, tb, out)
        return _make(out, node)
    return _make(out)


class RemainderBackward0(_BinaryNode):
    def backward(self, g):
        return fit_grad(g, self.a_meta), None

    def jvp(self, ta, *_):
        return ta


class RemainderBackward1(_BinaryNode):
    """a - b * floor(a / b): the divisor's gradient is -floor(a / b)."""

    def backward(self, g):
        a, b = self.saved_tensors
        return fit_grad(g, self.a_meta), fit_grad(-g * floor_divide(a.detach(), b.detach()), self.b_meta)

    def jvp(self, ta, tb):
        from ..autograd.forward_ad import _add_terms
        a, b = self.saved_tensors
        return _add_terms(ta, None if tb is None else -tb * floor_divide(a.detach(), b.detach()))


# -- pow ------------------------------------------------------------------------------------------
class PowBackward0(Node):
    """tensor ** scalar."""

    def backward(self, g):
        (a,) = self.saved_tensors
        e = self.exponent
        if e == 0:
            return (g * 0,)
        return (g * e * a ** (e - 1),)

    def jvp(self, t):
        (a,) = self.saved_tensors
        e = self.exponent
        return t * 0 if e == 0 else t * e * a ** (e - 1)


class PowBackward1(_BinaryNode):
    """tensor ** tensor."""

    def backward(self, g):
        a, b, out = self.saved_tensors
        ga = fit_grad(g * b * a ** (b - 1), self.a_meta) if self.need_a else None
        gb = None
        if self.need_b:
            # d/db a^b = a^b log a; where a == 0 and b >= 0 PyTorch takes it as 0
            loga = where(a == 0, 0.0, a).log() if a is not None else None
            gb = fit_grad(g * where((a == 0) & (b >= 0), 0.0, out * loga), self.b_meta)
        return ga, gb

    def jvp(self, ta, tb):
        from ..autograd.forward_ad import _add_terms
        a, b, out = self.saved_tensors
        right = None
        if tb is not None:
            loga = where(a == 0, 0.0, a).log()
            right = tb * where((a == 0) & (b >= 0), 0.0, out * loga)
        return _add_terms(None if ta is None else ta * b * a ** (b - 1), right)


class PowBackward2(Node):
    """scalar ** tensor."""

    def backward(self, g):
        (out,) = self.saved_tensors
        base = self.base
        if base == 0:
            return (fit_grad(g * 0.0, self.b_meta),)
        return (fit_grad(g * out * float(np.log(base)), self.b_meta),)

    def jvp(self, t):
        (out,) = self.saved_tensors
        return t * 0.0 if self.base == 0 else t * out * float(np.log(self.base))


def pow(a, b) -> Tensor:
    """a ** b with broadcasting (tensor or scalar on either side)."""
    ta, tb, ad, bd = binary_operands(a, b)
    if np.asarray(ad).dtype.kind in "iu" and np.asarray(bd).dtype.kind in "iu" and np.any(np.asarray(bd) < 0):
        out = _int_pow_negative(a, ad, bd)
    else:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = as_array(np.power(ad, bd))
    if needs_grad(ta, tb):
        if tb is None:
            node = PowBackward0((edge(ta),))
            node.exponent = bd
            node.save_for_backward(ta)
            return _make(out, node)
        if ta is None and not isinstance(a, Tensor):
            node = PowBackward2((edge(tb),))
            node.base = ad
            node.b_meta = meta(tb, out)
            res = _make(out, node)
            node.save_for_backward(res)
            return res
        node = PowBackward1((edge(ta), edge(tb)))
        node._set_meta(ta, tb, out)
        node.need_a = ta._requires_grad
        node.need_b = tb._requires_grad
        res = _make(out, node)
        node.save_for_backward(ta, tb, res if node.need_b else None)
        return res
    return _make(out)


def _int_pow_negative(a, ad, bd) -> np.ndarray:
    """PyTorch's integer power with negative exponents: refused for a Python exponent; for a tensor
    one, 1 ** -n = 1, (-1) ** -n = +-1 and every other base (0 included) gives 0."""
    if not isinstance(bd, np.ndarray):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    neg = bd < 0
    kept = np.power(ad, np.where(neg, 0, bd))
    special = np.where(ad == 1, 1, np.where(ad == -1, np.where(bd % 2 != 0, -1, 1), 0))
    return as_array(np.where(neg, special, kept).astype(kept.dtype, copy=False))


def rpow(a, b) -> Tensor:
    return pow(b, a)


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
