"""Binary arithmetic (add, sub, mul): each op's reference forward beside its node's backward formula.
Division (div, floor_divide, remainder) is in ``division.py``, ``pow`` in ``power.py``; comparisons, logical
ops and selection in ``compare.py``. The common cases' fast forwards and the array backwards are PyTorch's
CPU paths, registered onto these declarations from ``tinytorch/_cpu/pointwise.py``."""
from __future__ import annotations

import operator

import numpy as np

from ..._quiet_fp import cast, loud, quiet
from ...autograd.forward_ad import formula_sum, fw_primal, recorded_zero_times
from ...autograd.grad_mode import _Active, _State
from ...autograd.node import EdgePair, SavedPair
from ...autograd.node import Node, scalar_tensor
from ...tensor import Tensor, _make
from .._core.batching import pointwise
from .._core.binary import _ARITH, _BinaryNode, _checked_alpha, _lowp, alpha_in, scalar_overload
from .._core import deprecated as _deprecated
from .._core.record import record
from .._core.tensor_iterator import elementwise_layout
from .._core.registry import op
from .._core.util import as_array, binary_operands, fit_grad, holomorphic_backward, meta, needs_grad


def _scaled_sum(ad, bd, alpha):
    """``ad + alpha * bd`` (operands already in the result dtype), as PyTorch's DEFAULT CPU path rounds it:
    the product, then the sum. (Its vectorised paths fuse the two into one rounding: ``tinytorch/_cpu``.)
    The result keeps the operands' dtype (numpy takes a bfloat16 array times a Python float to float32). A
    Python number ``bd`` is a 0-d tensor to PyTorch, first cast to the floating tensor's dtype (``ad``'s)."""
    if (type(bd) is float or type(bd) is int) and type(ad) is np.ndarray and ad.dtype.kind == "f":
        bd = ad.dtype.type(bd)
    return np.asarray(ad + bd * alpha_in(bd, alpha)).astype(np.result_type(ad, bd), copy=False)


def _muladd_into(out: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray, value) -> None:
    """``out[...] = a + (value * b) * c`` for arrays broadcast to ``out``, in its dtype (addcmul, and lerp's two
    forms), as PyTorch's DEFAULT CPU path rounds it: ``value * b``, its product with ``c``, then the sum, each
    rounded. (Its vectorised paths fuse the product and the sum into one rounding: ``tinytorch/_cpu``.)"""
    with np.errstate(all="ignore"):
        t = np.multiply(b, value, out=np.empty_like(out))  # (a meta out: a meta one)
        np.multiply(t, c, out=t)
        np.add(a, t, out=out)


# -- add / sub ------------------------------------------------------------------------------------
class AddBackward0(_BinaryNode, EdgePair):
    saved_fields = (("alpha", "alpha"),)
    alpha = 1
    fw_inputs = (None, None)

    def backward(self, g):
        gb = g if self.alpha == 1 else mul_scalar(g, self.alpha)
        return fit_grad(g, self.a_meta), fit_grad(gb, self.b_meta)

    def jvp(self, ta, tb):
        # PyTorch's formula, self_t + maybe_multiply(other_t, alpha): a missing tangent is its operand's zero tensor
        return formula_sum(self, ta, None if tb is None else (tb if self.alpha == 1 else mul_scalar(tb, self.alpha)),
                           zero_of=self.fw_inputs[1 if tb is None else 0])


@op(variants=_ARITH, dunders=("__add__",), rdunders=("__radd__",), idunders=("__iadd__",), batch=pointwise,
    scalar=operator.add)
def add(a, b, *legacy, alpha=1) -> Tensor:
    """a + alpha * b with broadcasting."""
    if legacy:  # add(Number alpha, Tensor other), deprecated
        kw = {} if alpha == 1 and alpha is not True else {"alpha": alpha}
        args, kw = _deprecated.modern("add", (a, b) + legacy, kw)
        return add(*args, **kw)
    ta, tb, ad, bd = binary_operands(a, b)
    if alpha != 1 or alpha is True:
        alpha = _checked_alpha(ad, bd, alpha)
    fp = quiet()
    try:
        out = ad + bd if alpha == 1 else _scaled_sum(ad, bd, alpha)
    finally:
        loud(fp)
    out = elementwise_layout(as_array(out), ad, bd)
    if needs_grad(ta, tb):
        return record(out, AddBackward0, (ta, tb), a_meta=meta(ta, out), b_meta=meta(tb, out), alpha=alpha,
                      **_fw_operands(ta, tb))
    return _make(out)


def _fw_operands(ta, tb) -> dict:
    """In a dual level, add's, sub's and mul's node keeps both operands (None for a number): their forward formulas
    read a missing tangent as the zero tensor of its operand (of its dtype; a number's does not promote), and
    mul's reads the primal its backward may not keep."""
    return {"fw_inputs": (ta, tb)} if _Active.fw and _State.fw_level is not None else {}



class AddBackward1(Node):
    """tensor + number as PyTorch's formulas add it (``add.Scalar``; see ``scalar_overload``)."""

    def backward(self, g):
        return (g,)

    def jvp(self, t):
        return t


def add_scalar(t: Tensor, number) -> Tensor:
    """``t + number`` recorded as PyTorch's derivative formulas record it: AddBackward1, one edge."""
    return scalar_overload(add, AddBackward1, t, number)

class SubBackward0(_BinaryNode, EdgePair):
    saved_fields = (("alpha", "alpha"),)
    alpha = 1
    fw_inputs = (None, None)

    def backward(self, g):
        gb = None
        if self._nb is not None:  # (other's gradient only where it is wanted, as PyTorch's node computes it)
            gb = -g if self.alpha == 1 else mul_scalar(-g, self.alpha)
        return fit_grad(g, self.a_meta), fit_grad(gb, self.b_meta)

    def jvp(self, ta, tb):
        # PyTorch's formula, self_t - maybe_multiply(other_t, alpha): a missing tangent is its operand's zero tensor
        return formula_sum(self, ta, None if tb is None else (tb if self.alpha == 1 else mul_scalar(tb, self.alpha)),
                           subtract=True, zero_of=self.fw_inputs[1 if tb is None else 0])



class SubBackward1(Node):
    """tensor - number as PyTorch's formulas subtract it (``sub.Scalar``; see ``scalar_overload``)."""

    def backward(self, g):
        return (g,)

    def jvp(self, t):
        return t


def sub_scalar(t: Tensor, number) -> Tensor:
    """``t - number`` recorded as PyTorch's derivative formulas record it: SubBackward1, one edge."""
    return scalar_overload(sub, SubBackward1, t, number)


def number_sub(number, t: Tensor) -> Tensor:
    """``number - t`` as PyTorch's C++ formulas write it (its ``operator-(Scalar, Tensor)``): the number wrapped
    in a tensor, so SubBackward0 with no edge for it; Python's ``1 - t`` records RsubBackward1."""
    return sub(_make(as_array(number, dtype=t._data.dtype)), t)

class RsubBackward1(Node):
    def backward(self, g):
        return (-g,)

    def jvp(self, t, *_):
        return None if t is None else -t


def _is_bool(x) -> bool:
    if isinstance(x, Tensor):
        return x._data.dtype == np.bool_
    # a numpy bool scalar is a number to PyTorch (read as a float), so it subtracts
    return isinstance(x, bool) or (isinstance(x, np.ndarray) and x.dtype == np.bool_)


def check_bool_sub(a_bool: bool, b_bool: bool) -> None:
    """PyTorch's refusal of a subtraction with a bool operand (its sub_check)."""
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")


@op(variants=_ARITH, aliases=("subtract",), dunders=("__sub__",), idunders=("__isub__",), batch=pointwise,
    scalar=operator.sub)
def sub(a, b, *legacy, alpha=1) -> Tensor:
    """a - alpha * b with broadcasting."""
    if legacy:  # sub(Number alpha, Tensor other), deprecated
        kw = {} if alpha == 1 and alpha is not True else {"alpha": alpha}
        args, kw = _deprecated.modern("sub", (a, b) + legacy, kw)
        return sub(*args, **kw)
    check_bool_sub(_is_bool(a), _is_bool(b))
    ta, tb, ad, bd = binary_operands(a, b)
    if alpha != 1 or alpha is True:
        alpha = _checked_alpha(ad, bd, alpha)
    fp = quiet()
    try:
        if alpha == 1:
            out = ad - bd
        elif type(alpha) is int and np.result_type(ad, bd).kind in "iu":  # -alpha may not fit an unsigned dtype
            out = ad - bd * alpha_in(bd, alpha)
        else:
            out = _scaled_sum(ad, bd, -alpha)
        out = elementwise_layout(as_array(out), ad, bd)
    finally:
        loud(fp)
    if needs_grad(ta, tb):
        if ta is None and not isinstance(a, Tensor):
            # scalar - tensor: PyTorch's RsubBackward1 with a single input edge
            return record(out, RsubBackward1, (tb,))
        return record(out, SubBackward0, (ta, tb), a_meta=meta(ta, out), b_meta=meta(tb, out), alpha=alpha,
                      **_fw_operands(ta, tb))
    return _make(out)


@op(dunders=("__rsub__",), batch=pointwise, scalar=lambda a, b: b - a)
def rsub(a, b, *, alpha=1) -> Tensor:
    """b - alpha * a (what ``2 - t`` calls)."""
    return sub.__wrapped__(b, a, alpha=alpha)


# -- mul / div ------------------------------------------------------------------------------------
class MulBackward0(_BinaryNode, SavedPair):
    saved_fields = (("other", (1, lambda n: scalar_tensor(getattr(n, "b_scalar", None)))),
                    ("self", (0, lambda n: scalar_tensor(getattr(n, "a_scalar", None)))))
    _instance_attrs = ("need_a", "need_b", "a_scalar", "b_scalar")
    need_a = need_b = True  # the common case: a product of two tensors that require grad sets neither
    fw_inputs = (None, None)

    @holomorphic_backward
    def backward(self, g):
        a, b = self._unpacked_saved
        # other's gradient first, as PyTorch's generated node computes them (a captured backward shows the order);
        # then a broadcast operand's gradient summed back to its shape, self's first, as PyTorch's engine does
        gb = g * (self.a_scalar if a is None else a) if self.need_b else None
        ga = g * (self.b_scalar if b is None else b) if self.need_a else None
        return fit_grad(ga, self.a_meta), fit_grad(gb, self.b_meta)

    def jvp(self, ta, tb):
        # PyTorch's formula: other_t * self_p + self_t * other_p. A missing tangent (a number's, or a tensor's that
        # is no dual) is its zero tensor there, whose product with a primal that requires grad still records
        # history (recorded_zero_times); the operand the backward does not keep is kept in a dual level (fw_inputs)
        a, b = self._unpacked_saved
        if tb is not None:
            first = tb * (self.a_scalar if a is None else a)
        else:
            first = recorded_zero_times(self, a if a is not None else fw_primal(self.fw_inputs[0]))
        if ta is not None:
            second = ta * (self.b_scalar if b is None else b)
        else:
            second = recorded_zero_times(self, b if b is not None else fw_primal(self.fw_inputs[1]))
        return formula_sum(self, first, second)


@op(variants=_ARITH, aliases=("multiply",), dunders=("__mul__",), rdunders=("__rmul__",), idunders=("__imul__",),
    batch=pointwise, scalar=operator.mul)
def mul(a, b) -> Tensor:
    """Elementwise product with broadcasting."""
    ta, tb, ad, bd = binary_operands(a, b, scalar_in_float=True)
    fp = quiet()
    try:
        # binary_operands' float32 scalar beside half: float32 products (numpy 1.x multiplied in half, by value)
        out = as_array(ad * bd if type(bd) is not np.float32 and type(ad) is not np.float32 else
                       np.multiply(ad, bd, dtype=np.float32))
    finally:
        loud(fp)
    if type(bd) is np.float32 or type(ad) is np.float32:  # binary_operands' float32 scalar: maybe half/bf16
        lowp = _lowp(ad, bd)
        if lowp is not None and out.dtype != lowp:
            out = cast(out, lowp)  # computed in float32 with the scalar unrounded
    out = elementwise_layout(out, ad, bd)
    if needs_grad(ta, tb):
        need_a = ta is not None and ta._requires_grad
        need_b = tb is not None and tb._requires_grad
        # only what the other side's gradient needs is saved; a number operand is kept as it is
        scalars = {"b_scalar": bd} if tb is None else {"a_scalar": ad} if ta is None else {}
        return record(out, MulBackward0, (ta, tb), (ta if need_b else None, tb if need_a else None),
                      a_meta=meta(ta, out), b_meta=meta(tb, out), need_a=need_a, need_b=need_b, **scalars,
                      **_fw_operands(ta, tb))
    return _make(out)


class MulBackward1(Node):
    """tensor * number as PyTorch's formulas multiply (``mul.Scalar``; see ``scalar_overload``): one edge, the
    number saved as it is."""
    saved_fields = (("other", "other"),)
    _instance_attrs = ("other",)

    def backward(self, g):
        other = self.other
        return (mul_scalar(g, other.conjugate() if type(other) is complex else other),)

    def jvp(self, t):
        return mul_scalar(t, self.other)


def mul_scalar(t: Tensor, number) -> Tensor:
    """``t * number`` recorded as PyTorch's derivative formulas record it: MulBackward1, one edge."""
    return scalar_overload(mul, MulBackward1, t, number, other=number)
