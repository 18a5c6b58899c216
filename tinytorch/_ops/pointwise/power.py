"""``pow`` in its three forms (tensor ** number, tensor ** tensor, number ** tensor), each beside
its node."""
from __future__ import annotations

import numpy as np

from ...autograd.forward_ad import formula_sum, recorded_zero_times
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.batching import pointwise
from .._core.record import OUT, record
from .._core.registry import op
from .._core.util import as_array, binary_operands, fit_grad, holomorphic_backward, meta, needs_grad, unpack
from .._core.binary import _BinaryNode
from .arith import mul_scalar, sub_scalar
from .compare import where


# -- pow ------------------------------------------------------------------------------------------
class PowBackward0(Node):
    """tensor ** scalar."""
    saved_fields = (("self", 0), ("exponent", "exponent"))

    @holomorphic_backward
    def backward(self, g):
        (a,) = self._unpacked_saved
        e = self.exponent
        if e == 0:
            return (g * 0,)
        return (g * _pow_slope(a, e),)

    def jvp(self, t):
        (a,) = self._unpacked_saved
        e = self.exponent
        return t * 0 if e == 0 else t * _pow_slope(a, e)


def _pow_slope(a, e):
    """d(a ** e)/da = e * a ** (e - 1), as PyTorch's pow_backward computes it: a real exponent as a double, the
    slope first, then times the gradient; the exponent multiplies as a number (``mul.Scalar``, MulBackward1)."""
    if not isinstance(e, complex):
        e = float(e)
    return mul_scalar(a ** (e - 1), e)


class PowBackward1(_BinaryNode):
    """tensor ** tensor."""
    saved_fields = (("self", 0), ("exponent", 1), ("result", 2))

    @holomorphic_backward
    def backward(self, g):
        a, b, out = self._unpacked_saved
        ga = fit_grad(where(b == 0.0, 0.0, g * _pow_slope_by(a, b)), self.a_meta) if self.need_a else None
        gb = fit_grad(g * _pow_log_slope(a, b, out), self.b_meta) if self.need_b else None
        return ga, gb

    def jvp(self, ta, tb):
        # PyTorch's formula, pow_backward_self(self_t, ..) + pow_backward_exponent(exponent_t, ..): a missing tangent
        # is its zero tensor, whose product with a slope that requires grad still records history
        a, b, out = self._unpacked_saved
        slopes = a.requires_grad or b.requires_grad
        left = right = None
        if ta is not None:
            left = where(b == 0.0, 0.0, ta * _pow_slope_by(a, b))
        elif slopes:
            left = where(b == 0.0, 0.0, recorded_zero_times(self, _pow_slope_by(a, b)))
            left._fw_zero = True  # (a zero term: formula_sum adds it as nothing)
        if tb is not None or slopes:
            log_slope = _pow_log_slope(a, b, out)
            right = tb * log_slope if tb is not None else recorded_zero_times(self, log_slope)
        return formula_sum(self, left, right)


def _pow_slope_by(a, b):
    """d(a ** b)/da = b * a ** (b - 1) for a tensor exponent (PyTorch's pow_backward_self; the caller takes it as
    0 where b == 0, where a ** (b - 1) may be inf)."""
    return b * a ** sub_scalar(b, 1)


def _pow_log_slope(a, b, out):
    """d(a ** b)/db = a ** b * log a, taken as 0 where a == 0 and b >= 0 (PyTorch's pow_backward_exponent: the
    logarithm in the result's dtype)."""
    zero_limit = (a == 0) & ((b.real >= 0) & (b.imag == 0) if b.is_complex() else b >= 0)
    return where(zero_limit, 0.0, out * a.to(out.dtype).log())


class PowBackward2(Node):
    """scalar ** tensor."""
    saved_fields = (("self", "base"), ("exponent", 1), ("result", 0))

    @holomorphic_backward  # a complex exponent: g * conj(base^b log base), as PyTorch
    def backward(self, g):
        out, b = self._unpacked_saved
        return (fit_grad(g * _pow_log_slope_of_number(self.base, b, out), self.b_meta),)

    def jvp(self, t):
        out, b = self._unpacked_saved
        return t * _pow_log_slope_of_number(self.base, b, out)


def _pow_log_slope_of_number(base, b, out):
    """d(base ** b)/db = base ** b * log(base) for a number base (PyTorch's pow_backward_exponent): the
    logarithm a number, so a ``mul.Scalar``; for a zero base taken as 0 where b >= 0 (-inf below)."""
    with np.errstate(divide="ignore"):
        log_base = complex(np.log(complex(base))) if isinstance(base, complex) else float(np.log(base))
    slope = mul_scalar(out, log_base)
    if base == 0:
        return where((b.real >= 0) & (b.imag == 0) if b.is_complex() else b >= 0, 0.0, slope)
    return slope


@op(variants="function method inplace out", dunders=("__pow__",), rdunders=("__rpow__",), idunders=("__ipow__",),
    batch=pointwise)
def pow(a, b) -> Tensor:
    """a ** b with broadcasting (tensor or scalar on either side)."""
    ta, tb, ad, bd = binary_operands(a, b)
    if np.result_type(ad).kind in "iu" and np.result_type(bd).kind in "iu" and np.any(np.asarray(bd) < 0):
        out = _int_pow_negative(a, ad, bd)
    else:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = as_array(_power(ad, bd))
    if not needs_grad(ta, tb):
        return _make(out)
    if tb is None:  # the Python number exponent (binary_operands casts it on numpy 1.x)
        return record(out, PowBackward0, (ta,), (ta,), exponent=unpack(b)[1])
    if ta is None and not isinstance(a, Tensor):  # the exponent saved too, as PyTorch's PowBackward2 keeps it
        return record(out, PowBackward2, (tb,), (OUT, tb), base=unpack(a)[1], b_meta=meta(tb, out))
    # PyTorch keeps its result either way
    return record(out, PowBackward1, (ta, tb), (ta, tb, OUT), a_meta=meta(ta, out), b_meta=meta(tb, out),
                  need_a=ta._requires_grad, need_b=tb._requires_grad)


def _power(ad, bd):
    """``ad ** bd`` elementwise: numpy's power of the operands (``bd`` an array or a Python number)."""
    return np.power(ad, bd)


def _int_pow_negative(a, ad, bd) -> np.ndarray:
    """PyTorch's integer power with negative exponents: refused for a Python exponent; for a tensor
    one, 1 ** -n = 1, (-1) ** -n = +-1 and every other base (0 included) gives 0."""
    if not isinstance(bd, np.ndarray):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    neg = bd < 0
    kept = np.power(ad, np.where(neg, 0, bd))
    special = np.where(ad == 1, 1, np.where(ad == -1, np.where(bd % 2 != 0, -1, 1), 0))
    return as_array(np.where(neg, special, kept).astype(kept.dtype, copy=False))

