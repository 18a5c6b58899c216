"""``pow`` in its three forms (tensor ** number, tensor ** tensor, number ** tensor), each beside
its node."""
from __future__ import annotations

import numpy as np

from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.batching import pointwise
from .._core.record import OUT, record
from .._core.registry import op
from .._core.util import add_terms, as_array, binary_operands, fit_grad, holomorphic_backward, meta, needs_grad, unpack
from .._core.binary import _BinaryNode
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
    slope first, then times the gradient."""
    if not isinstance(e, complex):
        e = float(e)
    return e * a ** (e - 1)


class PowBackward1(_BinaryNode):
    """tensor ** tensor."""
    saved_fields = (("self", 0), ("exponent", 1), ("result", 2))

    @holomorphic_backward
    def backward(self, g):
        a, b, out = self._unpacked_saved
        ga = fit_grad(g * b * a ** (b - 1), self.a_meta) if self.need_a else None
        gb = None
        if self.need_b:
            # d/db a^b = a^b log a; where a == 0 and b >= 0 PyTorch takes it as 0
            loga = where(a == 0, 0.0, a).log() if a is not None else None
            gb = fit_grad(g * where((a == 0) & (b.real >= 0), 0.0, out * loga), self.b_meta)
        return ga, gb

    def jvp(self, ta, tb):
        a, b, out = self._unpacked_saved
        right = None
        if tb is not None:
            loga = where(a == 0, 0.0, a).log()
            right = tb * where((a == 0) & (b.real >= 0), 0.0, out * loga)
        return add_terms(None if ta is None else ta * b * a ** (b - 1), right)


class PowBackward2(Node):
    """scalar ** tensor."""
    saved_fields = (("self", "base"), ("exponent", 1), ("result", 0))

    @holomorphic_backward  # a complex exponent: g * conj(base^b log base), as PyTorch
    def backward(self, g):
        out = self._unpacked_saved[0]
        base = self.base
        if base == 0:
            return (fit_grad(g * 0.0, self.b_meta),)
        log_base = complex(np.log(complex(base))) if isinstance(base, complex) else float(np.log(base))
        return (fit_grad(g * out * log_base, self.b_meta),)

    def jvp(self, t):
        out = self._unpacked_saved[0]
        return t * 0.0 if self.base == 0 else t * out * float(np.log(self.base))


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

