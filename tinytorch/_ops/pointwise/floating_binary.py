"""C-library binary functions: ``fmod`` (remainder with the dividend's sign), ``copysign``,
``fmax``/``fmin`` (max/min that ignore NaN) and ``float_power`` (pow in float64)."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._dtype import FLOATING_NP, get_default_dtype
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.batching import composite, pointwise
from .power import pow as _pow
from .._core.record import OUT, record, wants_grad
from .._core.registry import op
from .._core.util import as_array, binary_operands, fit_grad, meta, require_tensors


def _as_tensor(v, like: np.ndarray) -> Tensor:
    return v if isinstance(v, Tensor) else _make(as_array(v, dtype=like.dtype))


def _binary_args(input, other, out: np.ndarray, ad, *result) -> dict:
    """``record``'s arguments for these functions: both operands are inputs (None for a number), saved
    as tensors (a number in the input's dtype) followed by ``result`` (``OUT``, for a node keeping it)."""
    ta = input if isinstance(input, Tensor) else None
    tb = other if isinstance(other, Tensor) else None
    if not wants_grad((ta, tb)):
        return {"inputs": (ta, tb)}
    return {"inputs": (ta, tb), "saved": (_as_tensor(input, ad), _as_tensor(other, ad)) + result,
            "a_meta": meta(ta, out), "b_meta": meta(tb, out), "need_a": ta is not None and ta._requires_grad,
            "need_b": tb is not None and tb._requires_grad}


def _pair(node, ga, gb):
    return (fit_grad(ga, node.a_meta) if node.need_a and ga is not None else None,
            fit_grad(gb, node.b_meta) if node.need_b and gb is not None else None)


class FmodBackward0(Node):
    """d/da fmod(a, b) = 1, d/db = -trunc(a / b)."""

    def backward(self, g):
        a, b = self._unpacked_saved
        return _pair(self, g, -g * a.div(b, rounding_mode="trunc") if self.need_b else None)


class FmodBackward1(FmodBackward0):
    """fmod with a tensor divisor (PyTorch's second overload)."""
    saved_fields = (("self", 0), ("other", 1))


@op(variants="function method inplace out", batch=pointwise)
def fmod(input: Tensor, other) -> Tensor:
    """The C ``fmod``: input - trunc(input / other) * other, with the sign of ``input``."""
    ta, tb, ad, bd = binary_operands(input, other)
    if ad.dtype.kind in "iub" and np.any(np.asarray(bd) == 0):
        raise RuntimeError("ZeroDivisionError")
    with np.errstate(all="ignore"):
        out = np.asarray(np.fmod(ad, bd))
    node_cls = FmodBackward1 if isinstance(other, Tensor) else FmodBackward0
    return record(out, node_cls, **_binary_args(input, other, out, ad))


class CopysignBackward0(Node):
    """d/da copysign(a, b) = result / a (0 where a == 0); b gets a zero gradient."""
    saved_fields = (("self", 0), ("result", 2))

    def backward(self, g):
        a, b, y = self._unpacked_saved
        ga = g * (y / a).masked_fill(a == 0, 0.0) if self.need_a else None
        return _pair(self, ga, g * 0 if self.need_b else None)


class CopysignBackward1(CopysignBackward0):
    """copysign with a Python-number ``other`` (PyTorch's Scalar overload)."""


@op(variants="function method inplace out", batch=pointwise)
def copysign(input: Tensor, other) -> Tensor:
    """|input| with the sign (bit) of ``other``; integer inputs compute in the default float dtype."""
    ta, tb, ad, bd = binary_operands(input, other)
    if ad.dtype not in FLOATING_NP:
        ad = ad.astype(get_default_dtype().np)
    out = np.asarray(np.copysign(ad, bd)).astype(ad.dtype, copy=False)
    node_cls = CopysignBackward0 if isinstance(other, Tensor) else CopysignBackward1
    return record(out, node_cls, **_binary_args(input, other, out, ad, OUT))


class _NanIgnoringBackward(Node):
    """The gradient goes to the operand chosen (``a`` when it wins or ``b`` is NaN), as PyTorch's."""
    picks_larger = True

    def backward(self, g):
        a, b = self._unpacked_saved
        a_wins = ((a >= b) if self.picks_larger else (a <= b)) | b.isnan()
        return _pair(self, g.masked_fill(~a_wins, 0.0) if self.need_a else None,
                     g.masked_fill(a_wins, 0.0) if self.need_b else None)


class FmaxBackward0(_NanIgnoringBackward):
    saved_fields = (("self", 0), ("other", 1))
    picks_larger = True


class FminBackward0(_NanIgnoringBackward):
    saved_fields = (("self", 0), ("other", 1))
    picks_larger = False


@op(variants="function method out", batch=pointwise)
def fmax(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum; where one operand is NaN the other is taken."""
    require_tensors("fmax", input, other)
    ta, tb, ad, bd = binary_operands(input, other)
    out = np.asarray(np.fmax(ad, bd))
    return record(out, FmaxBackward0, **_binary_args(input, other, out, ad))


@op(variants="function method out", batch=pointwise)
def fmin(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum; where one operand is NaN the other is taken."""
    require_tensors("fmin", input, other)
    ta, tb, ad, bd = binary_operands(input, other)
    out = np.asarray(np.fmin(ad, bd))
    return record(out, FminBackward0, **_binary_args(input, other, out, ad))


def _float_power_(self: Tensor, exponent) -> Tensor:
    if self.dtype.name != "float64":
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype._scalar} but the "
                           f"operation's result requires dtype Double")
    return self.pow_(exponent.double() if isinstance(exponent, Tensor) else float(exponent))


def _is_complex(x) -> bool:
    return x._data.dtype.kind == "c" if isinstance(x, Tensor) else isinstance(x, complex)


@op(variants="function method inplace out", inplace=_float_power_, batch=composite)
def float_power(input, exponent) -> Tensor:
    """``pow`` computed in float64 whatever the operands' dtypes (a composite of ``to`` and ``pow``)."""
    wide = _dtype.complex128 if any(_is_complex(x) for x in (input, exponent)) else _dtype.float64
    base = input.to(wide) if isinstance(input, Tensor) else (complex(input) if wide.is_complex else float(input))
    exp = exponent.to(wide) if isinstance(exponent, Tensor) else (complex(exponent) if wide.is_complex
                                                                  else float(exponent))
    return _pow(base, exp)
