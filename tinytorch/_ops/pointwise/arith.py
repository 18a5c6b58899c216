"""Binary arithmetic (add, sub, mul): each op's forward beside its node's backward. Division (div,
floor_divide, remainder) is in ``division.py``, ``pow`` in ``power.py``; comparisons, logical ops and
selection in ``compare.py``. add, sub and mul share one fast forward for the common cases
(``fast_forward`` in ``_core/binary.py``) before their general path (promotion, broadcasting, alpha)."""
from __future__ import annotations

import operator

import numpy as np

from ...autograd.grad_mode import _State
from ..._quiet_fp import cast, loud, quiet
from ...autograd._pair import EdgePair, SavedPair
from ...autograd.node import Node, scalar_tensor
from ...tensor import Tensor, _make
from .._core.batching import pointwise
from .._core.binary import _ARITH, _BinaryNode, _checked_alpha, _lowp, _plus_scaled, alpha_in, fast_forward
from .._core import deprecated as _deprecated
from .._core.record import record, record_pair
from .._core.registry import op
from .._kernels.times import times as _times
from .._core.util import add_terms, as_array, binary_operands, fit_grad, holomorphic_backward, meta, needs_grad

# the ufuncs and the Python operations of fast_forward (_core/binary.py), add/sub/mul's common cases
_add, _subtract, _multiply = np.add, np.subtract, np.multiply
_py_add, _py_sub, _py_mul = operator.add, operator.sub, operator.mul


# -- add / sub ------------------------------------------------------------------------------------
class AddBackward0(_BinaryNode, EdgePair):
    saved_fields = (("alpha", "alpha"),)
    alpha = 1

    def backward(self, g):
        if self.alpha == 1 and self.a_meta is None and self.b_meta is None:
            return g, g  # what fit_grad gives when both inputs had the result's shape and dtype
        gb = g if self.alpha == 1 else g * self.alpha
        return fit_grad(g, self.a_meta), fit_grad(gb, self.b_meta)

    def jvp(self, ta, tb):
        return add_terms(ta, None if tb is None else (tb if self.alpha == 1 else tb * self.alpha))


@op(variants=_ARITH, dunders=("__add__",), rdunders=("__radd__",), idunders=("__iadd__",), batch=pointwise)
def add(a, b, *legacy, alpha=1) -> Tensor:
    """a + alpha * b with broadcasting."""
    if legacy:  # add(Number alpha, Tensor other), deprecated
        kw = {} if alpha == 1 and alpha is not True else {"alpha": alpha}
        args, kw = _deprecated.modern("add", (a, b) + legacy, kw)
        return add(*args, **kw)
    if alpha == 1 and alpha is not True:
        fast = fast_forward(_add, _py_add, a, b)
        if fast is not None:
            out, which = fast
            if _State.enabled:
                ta, tb = (a if which & 1 else None), (b if which & 2 else None)
                if (ta is not None and ta._requires_grad) or (tb is not None and tb._requires_grad):
                    return record_pair(out, AddBackward0, ta, tb)
            return _make(out)
    ta, tb, ad, bd = binary_operands(a, b)
    if alpha != 1 or alpha is True:
        alpha = _checked_alpha(ad, bd, alpha)
    fp = quiet()
    try:
        out = ad + bd if alpha == 1 else _plus_scaled(ad, bd, alpha)
    finally:
        loud(fp)
    out = as_array(out)
    if needs_grad(ta, tb):
        return record(out, AddBackward0, (ta, tb), a_meta=meta(ta, out), b_meta=meta(tb, out), alpha=alpha)
    return _make(out)


class SubBackward0(_BinaryNode, EdgePair):
    saved_fields = (("alpha", "alpha"),)
    alpha = 1

    def backward(self, g):
        gb = -g if self.alpha == 1 else g * (-self.alpha)
        return fit_grad(g, self.a_meta), fit_grad(gb, self.b_meta)

    def jvp(self, ta, tb):
        return add_terms(ta, None if tb is None else (-tb if self.alpha == 1 else tb * (-self.alpha)))


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


@op(variants=_ARITH, aliases=("subtract",), dunders=("__sub__",), idunders=("__isub__",), batch=pointwise)
def sub(a, b, *legacy, alpha=1) -> Tensor:
    """a - alpha * b with broadcasting."""
    if legacy:  # sub(Number alpha, Tensor other), deprecated
        kw = {} if alpha == 1 and alpha is not True else {"alpha": alpha}
        args, kw = _deprecated.modern("sub", (a, b) + legacy, kw)
        return sub(*args, **kw)
    if alpha == 1 and alpha is not True:
        fast = fast_forward(_subtract, _py_sub, a, b)
        if fast is not None:
            out, which = fast
            if _State.enabled:
                if which == 2:  # number - tensor: PyTorch's RsubBackward1, one input edge
                    if b._requires_grad:
                        return record(out, RsubBackward1, (b,))
                else:
                    tb = b if which == 3 else None
                    if a._requires_grad or (tb is not None and tb._requires_grad):
                        return record_pair(out, SubBackward0, a, tb)
            return _make(out)
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
            out = _plus_scaled(ad, bd, -alpha)
        out = as_array(out)
    finally:
        loud(fp)
    if needs_grad(ta, tb):
        if ta is None and not isinstance(a, Tensor):
            # scalar - tensor: PyTorch's RsubBackward1 with a single input edge
            return record(out, RsubBackward1, (tb,))
        return record(out, SubBackward0, (ta, tb), a_meta=meta(ta, out), b_meta=meta(tb, out), alpha=alpha)
    return _make(out)


@op(dunders=("__rsub__",), batch=pointwise)
def rsub(a, b, *, alpha=1) -> Tensor:
    """b - alpha * a (what ``2 - t`` calls)."""
    return sub.__wrapped__(b, a, alpha=alpha)


# -- mul / div ------------------------------------------------------------------------------------
class MulBackward0(_BinaryNode, SavedPair):
    saved_fields = (("other", (1, lambda n: scalar_tensor(getattr(n, "b_scalar", None)))),
                    ("self", (0, lambda n: scalar_tensor(getattr(n, "a_scalar", None)))))
    _instance_attrs = ("need_a", "need_b", "a_scalar", "b_scalar")
    need_a = need_b = True  # the common case: a product of two tensors that require grad sets neither

    def backward(self, g):
        gd = g._data
        if (not _State.enabled and self.a_meta is None and self.b_meta is None and not self._packed
                and not self._freed and gd.dtype.kind != "c"):
            # nothing recorded and nothing to fit: the products straight on the arrays, once the
            # versions of the saved inputs are checked (_unpacked_saved raises the error otherwise)
            sa, sb = self._sa, self._sb
            if (sa is None or sa._vc[0] == self._va) and (sb is None or sb._vc[0] == self._vb):
                ga = gb = None
                if self.need_a:
                    ga = _times(gd, self.b_scalar if sb is None else sb._data)
                    if ga is None:
                        return self._backward_ops(g)
                    ga = _make(ga)
                if self.need_b:
                    gb = _times(gd, self.a_scalar if sa is None else sa._data)
                    if gb is None:
                        return self._backward_ops(g)
                    gb = _make(gb)
                return ga, gb
        return self._backward_ops(g)

    @holomorphic_backward
    def _backward_ops(self, g):
        a, b = self._unpacked_saved
        ga = fit_grad(g * (self.b_scalar if b is None else b), self.a_meta) if self.need_a else None
        gb = fit_grad(g * (self.a_scalar if a is None else a), self.b_meta) if self.need_b else None
        return ga, gb

    def jvp(self, ta, tb):
        a, b = self._unpacked_saved
        return add_terms(None if ta is None else ta * (self.b_scalar if b is None else b),
                         None if tb is None else tb * (self.a_scalar if a is None else a))


@op(variants=_ARITH, aliases=("multiply",), dunders=("__mul__",), rdunders=("__rmul__",), idunders=("__imul__",),
    batch=pointwise)
def mul(a, b) -> Tensor:
    """Elementwise product with broadcasting."""
    fast = fast_forward(_multiply, _py_mul, a, b)
    if fast is not None:
        out, which = fast
        if _State.enabled:
            need_a = which & 1 and a._requires_grad
            need_b = which & 2 and b._requires_grad
            if need_a or need_b:
                # only what the other side's gradient needs is saved; a number is kept as a number
                if which == 3:
                    if need_a and need_b:
                        return record_pair(out, MulBackward0, a, b, a, b)
                    if need_a:
                        return record(out, MulBackward0, (a, b), (None, b), need_b=False)
                    return record(out, MulBackward0, (a, b), (a, None), need_a=False)
                if which == 1:
                    return record(out, MulBackward0, (a, None), b_scalar=b, need_b=False)
                return record(out, MulBackward0, (None, b), a_scalar=a, need_a=False)
        return _make(out)
    ta, tb, ad, bd = binary_operands(a, b, scalar_in_float=True)
    fp = quiet()
    try:
        # binary_operands' float32 scalar beside half: float32 products (numpy 1.x multiplied in half, by value)
        out = as_array(ad * bd if type(bd) is not np.float32 and type(ad) is not np.float32 else
                       _multiply(ad, bd, dtype=np.float32))
    finally:
        loud(fp)
    if type(bd) is np.float32 or type(ad) is np.float32:  # binary_operands' float32 scalar: maybe half/bf16
        lowp = _lowp(ad, bd)
        if lowp is not None and out.dtype != lowp:
            out = cast(out, lowp)  # computed in float32 with the scalar unrounded
    if needs_grad(ta, tb):
        need_a = ta is not None and ta._requires_grad
        need_b = tb is not None and tb._requires_grad
        # only what the other side's gradient needs is saved; a number operand is kept as it is
        scalars = {"b_scalar": bd} if tb is None else {"a_scalar": ad} if ta is None else {}
        return record(out, MulBackward0, (ta, tb), (ta if need_b else None, tb if need_a else None),
                      a_meta=meta(ta, out), b_meta=meta(tb, out), need_a=need_a, need_b=need_b, **scalars)
    return _make(out)
