"""Elementwise functions of one tensor. Float results for int inputs, as PyTorch."""
from __future__ import annotations

import numpy as np

from .._dtype import get_default_dtype
from ..autograd.grad_mode import _State
from ..autograd.node import Node
from ..tensor import Tensor, _make
from ._util import as_array


def _float_input(x: np.ndarray) -> np.ndarray:
    return x if x.dtype.kind == "f" else x.astype(get_default_dtype().np)


def _unary(node_cls, fn, save: str, floating: bool = True, quiet: bool = False):
    """Build ``op(t)``: forward ``fn`` on the array; the node saves the input ("in"), the result ("out") or nothing.

    ``quiet``: ``fn`` can raise no floating-point warning (relu, abs, neg, tanh), so numpy's error
    state is left alone: entering ``np.errstate`` costs about a microsecond, as much as a small op."""

    def op(input: Tensor) -> Tensor:
        x = input._data
        if floating and x.dtype.kind != "f":
            x = x.astype(get_default_dtype().np)
        if quiet:
            out = fn(x)
        else:
            with np.errstate(all="ignore"):
                out = fn(x)
        if type(out) is not np.ndarray:
            out = np.asarray(out)
        if _State.enabled and input._requires_grad:
            node = node_cls((input._edge(),))
            res = _make(out, node)
            if save == "out":
                node._save_own_output(res)
            elif save == "in":
                node.save_for_backward(input)
            return res
        return _make(out)

    op.__name__ = node_cls.__name__[:-len("Backward0")].lower()
    op.__doc__ = f"Elementwise {op.__name__}."
    return op


class NegBackward0(Node):
    def backward(self, g):
        return (-g,)


class ExpBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return (g * y,)


class LogBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g / x,)


class SqrtBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return (g / (2 * y),)


class SinBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * x.cos(),)


class CosBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * -x.sin(),)


class TanhBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return (g * (1 - y * y),)


class SigmoidBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return (g * (y * (1 - y)),)


class AbsBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * x.sign(),)


class ReluBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return (threshold_backward(g, y),)

    def jvp(self, t):
        return threshold_backward(t, self.saved_tensors[0])


class ThresholdBackwardBackward0(Node):
    def backward(self, gg):
        (y,) = self.saved_tensors
        return threshold_backward(gg, y), None


def threshold_backward(grad: Tensor, output: Tensor) -> Tensor:
    """``grad`` where ``output > 0``, else exactly 0 (ReLU's backward as one primitive)."""
    g = grad._data
    mask = output._data > 0
    out = np.multiply(g, mask, dtype=g.dtype)
    if np.isnan(out.max()) if out.size else False:
        # a masked inf/NaN gradient became NaN in the product; PyTorch selects, giving 0
        out = np.where(mask, g, g.dtype.type(0))
    out = as_array(out)
    if _State.enabled and (grad._requires_grad or output._requires_grad):
        node = ThresholdBackwardBackward0((grad._edge(), output._edge()))
        node.save_for_backward(output)
        return _make(out, node)
    return _make(out)


class Log1PBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g / (1 + x),)

    def jvp(self, t):
        (x,) = self.saved_tensors
        return t / (1 + x)


class Expm1Backward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return (g * (y + 1),)

    def jvp(self, t):
        (y,) = self.saved_tensors
        return t * (y + 1)


class RsqrtBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return (g * -0.5 * y * y * y,)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


class ReciprocalBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return (g * -(y * y),)

    def jvp(self, t):
        (y,) = self.saved_tensors
        return t * -(y * y)


class SignBackward0(Node):
    def backward(self, g):
        return (g * 0,)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


def _sigmoid(x):
    # exp of a non-positive number never overflows
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


_ZERO = {}  # dtype -> read-only 0-d zero of that dtype: a Python 0 costs numpy a conversion per call


def _relu(x):
    zero = _ZERO.get(x.dtype)
    if zero is None:
        if x.dtype.kind == "b":
            return x.copy()
        if x.dtype == np.float16:  # numpy's half maximum drops the sign of -0.0, PyTorch keeps it
            return np.where(x < 0, np.float16(0), x)
        zero = np.zeros((), x.dtype)
        zero.flags.writeable = False
        _ZERO[x.dtype] = zero
    return np.maximum(zero, x)  # this order keeps -0.0, as PyTorch's relu does


def _neg(x):
    if x.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return np.negative(x)


neg = _unary(NegBackward0, _neg, "none", floating=False, quiet=True)
exp = _unary(ExpBackward0, np.exp, "out")
log = _unary(LogBackward0, np.log, "in")
sqrt = _unary(SqrtBackward0, np.sqrt, "out")
sin = _unary(SinBackward0, np.sin, "in")
cos = _unary(CosBackward0, np.cos, "in")
tanh = _unary(TanhBackward0, np.tanh, "out", quiet=True)
sigmoid = _unary(SigmoidBackward0, _sigmoid, "out")
abs = _unary(AbsBackward0, np.abs, "in", floating=False, quiet=True)
relu = _unary(ReluBackward0, _relu, "out", floating=False, quiet=True)
log1p = _unary(Log1PBackward0, np.log1p, "in")
expm1 = _unary(Expm1Backward0, np.expm1, "out")
rsqrt = _unary(RsqrtBackward0, lambda x: 1 / np.sqrt(x), "out")
reciprocal = _unary(ReciprocalBackward0, lambda x: 1 / x, "out")
sign = _unary(SignBackward0, lambda x: x.copy() if x.dtype == np.bool_ else np.sign(x), "none", floating=False)


def _rounding(name, fn):
    cls = type(f"{name.capitalize()}Backward0", (SignBackward0,), {})
    op = _unary(cls, fn, "none", floating=False)
    op.__name__ = name
    return op


floor = _rounding("floor", np.floor)
ceil = _rounding("ceil", np.ceil)
round = _rounding("round", np.round)
trunc = _rounding("trunc", np.trunc)


class Log2Backward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g / (x * float(np.log(2.0))),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


class Log10Backward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g / (x * float(np.log(10.0))),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


log2 = _unary(Log2Backward0, np.log2, "in")
log10 = _unary(Log10Backward0, np.log10, "in")


def square(input: Tensor) -> Tensor:
    """input ** 2 (recorded as PowBackward0, as PyTorch does)."""
    from .arith import pow
    return pow(input, 2)


def isnan(input: Tensor) -> Tensor:
    return _make(as_array(np.isnan(input._data)))


def isinf(input: Tensor) -> Tensor:
    return _make(as_array(np.isinf(input._data)))


def isfinite(input: Tensor) -> Tensor:
    return _make(as_array(np.isfinite(input._data)))


# -- clamp ----------------------------------------------------------------------------------------
class ClampBackward1(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        d = x._data
        keep = np.ones(d.shape, dtype=bool)
        if self.lo is not None:
            keep &= d >= self.lo
        if self.hi is not None:
            keep &= d <= self.hi
        from .arith import where
        return (where(_make(keep), g, 0.0),)

    def jvp(self, t):
        from .arith import where
        (x,) = self.saved_tensors
        d = x._data
        keep = np.ones(d.shape, dtype=bool)
        if self.lo is not None:
            keep &= d >= self.lo
        if self.hi is not None:
            keep &= d <= self.hi
        return where(_make(keep), t, 0.0)


def clamp(input: Tensor, min=None, max=None) -> Tensor:
    """Limit values to [min, max]; the gradient passes where the input was inside the range."""
    if min is None and max is None:
        raise RuntimeError("tinytorch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        # a 0-d tensor beside a number becomes a number, as PyTorch's overload resolution does
        if min is not None and max is not None and not (isinstance(min, Tensor) and isinstance(max, Tensor)):
            min, max = (b.item() if isinstance(b, Tensor) and b._data.ndim == 0 else b for b in (min, max))
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            return _clamp_tensors(input, min, max)
    x = input._data
    if x.dtype.kind != "f" and (isinstance(min, float) or isinstance(max, float)):
        x = x.astype(get_default_dtype().np)
    out = x
    if min is not None:
        out = np.maximum(out, np.asarray(min, dtype=x.dtype)) if x.dtype.kind == "f" else np.maximum(out, min)
    if max is not None:
        out = np.minimum(out, np.asarray(max, dtype=x.dtype)) if x.dtype.kind == "f" else np.minimum(out, max)
    if out is x:
        out = x.copy()
    out = as_array(out)
    if _State.enabled and input._requires_grad:
        node = ClampBackward1((input._edge(),))
        node.lo, node.hi = min, max
        node.save_for_backward(input)
        return _make(out, node)
    return _make(out)


class ClampBackward0(Node):
    """clamp with tensor bounds: each element's gradient goes to whichever of input, min, max it equals."""

    def backward(self, g):
        from .arith import where
        x, lo, hi = self.saved_tensors
        keep = x == x  # all True, shaped like x
        g_lo = g_hi = None
        if lo is not None:
            keep = keep & (x >= lo)
            below = x < lo if hi is None else (x < lo) & (lo < hi)
            g_lo = _fit(where(below, g, 0.0), self.lo_meta) if self.need_lo else None
        if hi is not None:
            keep = keep & (x <= hi)
            above = x > hi if lo is None else (x > hi) | (hi < lo)
            g_hi = _fit(where(above, g, 0.0), self.hi_meta) if self.need_hi else None
        return _fit(where(keep, g, 0.0), self.x_meta), g_lo, g_hi


def _fit(g: Tensor, m):
    from ._util import fit_grad
    return fit_grad(g, m)


def _clamp_tensors(input: Tensor, min, max) -> Tensor:
    from ._util import as_array as arr, binary_operands, edge, meta
    lo_t, hi_t = (None if b is None else b if isinstance(b, Tensor) else _make(np.asarray(b)) for b in (min, max))
    x = input
    for b in (lo_t, hi_t):
        if b is not None:
            _, _, xd, _ = binary_operands(x, b)  # promotes and checks the shapes broadcast
            x = _make(arr(xd)) if xd.dtype != x._data.dtype else x
    dt = x._data.dtype
    out = x._data
    if lo_t is not None:
        out = np.maximum(out, lo_t._data.astype(dt, copy=False))
    if hi_t is not None:
        out = np.minimum(out, hi_t._data.astype(dt, copy=False))
    out = arr(out if out is not x._data else out.copy())
    parts = (input, lo_t, hi_t)
    if _State.enabled and any(p is not None and p._requires_grad for p in parts):
        node = ClampBackward0(tuple(edge(p) for p in parts))
        node.x_meta, node.lo_meta, node.hi_meta = (meta(p, out) for p in parts)
        node.need_lo = lo_t is not None and lo_t._requires_grad
        node.need_hi = hi_t is not None and hi_t._requires_grad
        node.save_for_backward(input, lo_t, hi_t)
        return _make(out, node)
    return _make(out)
