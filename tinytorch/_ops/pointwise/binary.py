"""Binary math beside the arithmetic (PyTorch's BinaryOps): atan2, hypot, logaddexp(2), xlogy, lerp,
isclose/allclose/equal, and the integer bit ops bitwise_not and the shifts."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.node import Node
from ...tensor import Tensor, _make
from ..._dtype import NARROW_NP, cpp_name
from ..._quiet_fp import silent
from .._core import narrow_dtypes
from .._core.record import OUT, float_dtype, legacy_name, record, wants_grad
from .._core.batching import pointwise
from . import arith
from .._core.registry import op
from .._core.tensor_iterator import elementwise_empty
from .._core.util import as_array, binary_operands, fit_grad, holomorphic_backward, meta, require_tensors
from .arith import mul_scalar
from ..._dtype import FLOATING_NP, FROM_NP, INEXACT_NP, LOWP_NP, get_default_dtype

_BINARY = "function method inplace out"


_F32 = np.dtype(np.float32)
_FMA_DTYPES = (_F32, np.dtype(np.float64))  # where PyTorch's CPU kernels fuse (FMA)


def _lerp_fused(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
    """PyTorch's CPU lerp for float32/float64: one FMA either side of |weight| 0.5, ``a + w * (b - a)``
    below and ``b - (b - a) * (1 - w)`` from there, ``b - a`` and ``1 - w`` rounded in the dtype."""
    shape = np.broadcast_shapes(a.shape, b.shape, w.shape)
    with np.errstate(all="ignore"):
        diff = np.subtract(b, a, out=np.empty_like(a, shape=np.broadcast_shapes(a.shape, b.shape), order="C"))
        small = np.abs(w) < 0.5
        out = elementwise_empty(a, a, b, w, shape=shape)  # PyTorch's order (a meta a: meta arrays throughout)
        if w.ndim == 0:
            if small:
                arith._muladd_into(out, a, diff, w, 1)
            else:
                arith._muladd_into(out, b, diff, np.negative(np.subtract(w.dtype.type(1), w), dtype=a.dtype), 1)
            return out
        low = np.empty_like(a, shape=shape, order="C")
        arith._muladd_into(low, a, diff, w, 1)
        arith._muladd_into(out, b, diff, np.negative(np.subtract(w.dtype.type(1), w)), 1)
        np.copyto(out, low, where=small)
    return out


@op(variants="function method", batch=pointwise)
def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other| elementwise (equal infinities count as close)."""
    a, b = input._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"{legacy_name(a.dtype)} did not match {legacy_name(b.dtype)}")
    with np.errstate(all="ignore"):
        if a.dtype.kind == "b":
            return _make(as_array(a == b))
        if a.dtype not in INEXACT_NP:
            close = np.abs(a.astype(np.float64) - b) <= atol + rtol * np.abs(b.astype(np.float64))
        else:
            real = np.abs(b).dtype.type  # complex numbers compare by the modulus of their difference
            close = (a == b) | (np.isfinite(a) & np.isfinite(b) &
                                (np.abs(a - b) <= real(atol) + real(rtol) * np.abs(b)))
            if equal_nan:
                close |= np.isnan(a) & np.isnan(b)
    return _make(as_array(close))


@op(variants="function method", no_batch="it returns a Python bool, not a tensor", meta="reads_value")
def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when every pair of elements is close (``isclose``)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@op(variants="function method", no_batch="it returns a Python bool, not a tensor", meta="data_dependent")
def equal(input: Tensor, other: Tensor) -> bool:
    """True when both tensors have the same shape and elements (NaN equals nothing)."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "equal_notnan_cpu", "equal_notnan_cpu")
    a, b = input._data, other._data
    return bool(a.shape == b.shape and (a == b).all())


# -- binary ----------------------------------------------------------------------------------------
def _float_binary(a, b, name: str, allow_int: bool):
    ta, tb, ad, bd = binary_operands(a, b)
    if ad.dtype not in FLOATING_NP:
        if not allow_int:
            raise NotImplementedError(f"\"{name}\" not implemented for '{legacy_name(ad.dtype)}'")
        dt = get_default_dtype().np
        ad, bd = (v.astype(dt) if isinstance(v, np.ndarray) else dt.type(v) for v in (ad, bd))
    return ta, tb, ad, bd


def _binary_args(a, b, out, *result) -> dict:
    """``record``'s arguments for these functions: both operands are inputs (None for a number) and are
    saved, followed by ``result`` (``OUT``, for a node keeping it)."""
    ta, tb = (a if isinstance(a, Tensor) else None), (b if isinstance(b, Tensor) else None)
    if not wants_grad((ta, tb)):
        return {"inputs": (ta, tb)}
    # a Python number operand is saved as a constant tensor: the other input's gradient formula needs it
    sa = ta if ta is not None else _t(a, tb)
    sb = tb if tb is not None else _t(b, ta)
    return {"inputs": (ta, tb), "saved": (sa, sb) + result, "a_meta": meta(ta, out), "b_meta": meta(tb, out),
            "need_a": ta is not None and ta._requires_grad, "need_b": tb is not None and tb._requires_grad}


def _pair(self, ga, gb):
    return (fit_grad(ga, self.a_meta) if self.need_a else None,
            fit_grad(gb, self.b_meta) if self.need_b else None)


def _t(v, like: Tensor):
    return v if isinstance(v, Tensor) else _make(as_array(v, dtype=like._data.dtype))


class Atan2Backward0(Node):
    saved_fields = (("self", 0), ("other", 1))

    def backward(self, g):
        a, b = self._unpacked_saved
        d = a * a + b * b
        return _pair(self, g * b / d, g * -a / d)


@op(variants=_BINARY, aliases=("arctan2",), batch=pointwise)
def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of (other, input): atan(input / other) in the right quadrant."""
    require_tensors("atan2", input, other)
    ta, tb, ad, bd = _float_binary(input, other, "atan2", True)
    out = np.arctan2(ad, bd)
    return record(out, Atan2Backward0, **_binary_args(input, other, out))


class HypotBackward0(Node):
    saved_fields = (("self", 0), ("other", 1), ("result", 2))

    def backward(self, g):
        a, b, y = self._unpacked_saved
        return _pair(self, g * a / y, g * b / y)


@op(variants=_BINARY, batch=pointwise)
def hypot(input: Tensor, other: Tensor) -> Tensor:
    """sqrt(input^2 + other^2) without overflow."""
    require_tensors("hypot", input, other)
    ta, tb, ad, bd = _float_binary(input, other, "hypot_cpu", False)
    out = np.hypot(ad, bd)
    return record(out, HypotBackward0, **_binary_args(input, other, out, OUT))


class LogaddexpBackward0(Node):
    saved_fields = (("self", 0), ("other", 1))

    @holomorphic_backward
    def backward(self, g):
        a, b = self._unpacked_saved
        if a.is_complex() or b.is_complex():  # 1 / (1 + e^(b - a)): PyTorch's formula, written for complex too
            return _pair(self, g / ((b - a).exp() + 1), g / ((a - b).exp() + 1))
        return _pair(self, g * (a - b).sigmoid(), g * (b - a).sigmoid())


def _complex_logaddexp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """PyTorch's complex logaddexp: the operand of larger real part is factored out (a NaN operand wins),
    max + log1p(exp(min - max)); where both real parts are the same infinity, log(exp(a) + exp(b))."""
    a, b = np.broadcast_arrays(a, b)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    a_max = nan_a & ~nan_b | ~nan_b & (a.real >= b.real)
    hi, lo = np.where(a_max, a, b), np.where(a_max, b, a)
    with np.errstate(all="ignore"):
        out = np.log1p(np.exp(lo - hi)) + hi
        same_inf = np.isinf(lo.real) & (lo.real == hi.real)
        if same_inf.any():
            out = np.where(same_inf, np.log(np.exp(lo) + np.exp(hi)), out)
    return out


# a NaN operand, or two infinities of opposite sign: numpy's NaN is PyTorch's, its warning is not
_logaddexp, _logaddexp2 = silent(np.logaddexp), silent(np.logaddexp2)


@op(variants="function method out", batch=pointwise)
def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """log(exp(input) + exp(other)), computed stably."""
    require_tensors("logaddexp", input, other)
    ta, tb, ad, bd = binary_operands(input, other)
    if getattr(ad, "dtype", None) is not None and ad.dtype.kind == "c":
        out = _complex_logaddexp(ad, np.asarray(bd, ad.dtype)).astype(ad.dtype, copy=False)
        return record(out, LogaddexpBackward0, **_binary_args(input, other, out))
    ta, tb, ad, bd = _float_binary(input, other, "logaddexp_cpu", False)
    out = _logaddexp(ad, bd)
    return record(out, LogaddexpBackward0, **_binary_args(input, other, out))


class Logaddexp2Backward0(Node):
    saved_fields = (("self", 0), ("other", 1))

    def backward(self, g):
        a, b = self._unpacked_saved
        return _pair(self, g * ((a - b) * math.log(2)).sigmoid(), g * ((b - a) * math.log(2)).sigmoid())


@op(variants="function method out", batch=pointwise)
def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """log2(2^input + 2^other)."""
    require_tensors("logaddexp2", input, other)
    ta, tb, ad, bd = _float_binary(input, other, "logaddexp2_cpu", False)
    out = _logaddexp2(ad, bd)
    return record(out, Logaddexp2Backward0, **_binary_args(input, other, out))


class XlogyBackward0(Node):
    saved_fields = (("self", 0), ("other", 1))

    def backward(self, g):
        a, b = self._unpacked_saved
        # PyTorch's formulas: d/da = log(b) (0 where a == 0 and b <= 0), d/db = a / b
        ga = xlogy(g, b).masked_fill((a == 0) & (b <= 0), 0.0) if self.need_a else None
        return _pair(self, ga, g * a / b if self.need_b else None)


class XlogyBackward1(XlogyBackward0):  # a Python number for input
    pass


class XlogyBackward2(XlogyBackward0):  # a Python number for other
    pass


@op(variants=_BINARY + " torch_inplace", extra=("special.xlogy",), batch=pointwise)
def xlogy(input: Tensor, other: Tensor) -> Tensor:
    """input * log(other), 0 where input == 0 (unless other is NaN)."""
    ta, tb, ad, bd = binary_operands(input, other)
    dt = (ad if isinstance(ad, np.ndarray) else bd).dtype
    if dt not in FLOATING_NP:  # integers and bools compute in the default float dtype
        dt = float_dtype(np.zeros(0, dt)).dtype
    ad, bd = as_array(ad, dtype=dt), as_array(bd, dtype=dt)
    with np.errstate(all="ignore"):
        out = np.where((ad == 0) & ~np.isnan(bd), ad.dtype.type(0), ad * np.log(bd))
    # a Python number operand is saved as a tensor: both formulas need both values
    node = XlogyBackward1 if ta is None else XlogyBackward2 if tb is None else XlogyBackward0
    out = as_array(out, dtype=ad.dtype)
    return record(out, node, **_binary_args(input, other, out))


class LerpBackward0(Node):
    saved_fields = (("weight", "weight"),)

    @holomorphic_backward
    def backward(self, g):
        return _pair(self, mul_scalar(g, 1 - self.weight), mul_scalar(g, self.weight))


class LerpBackward1(Node):
    saved_fields = (("weight", 2), ("self", 0), ("end", 1))

    @holomorphic_backward
    def backward(self, g):
        start, end, w = self._unpacked_saved
        ga = fit_grad(g * (1 - w), self.a_meta) if self.need_a else None
        gb = fit_grad(g * w, self.b_meta) if self.need_b else None
        gw = fit_grad(g * (end - start), self.w_meta) if self.need_w else None
        return ga, gb, gw


def _lerp_promoted(dt: np.dtype, weight_dt: np.dtype) -> np.dtype:
    """The dtype lerp computes in when the weight is a 0-dim tensor: PyTorch's type promotion, where a
    0-dim operand only counts when its category (bool < integer < floating < complex) is higher."""
    cat = _category(dt)
    weight_cat = _category(weight_dt)
    if weight_cat <= cat:
        return dt
    if weight_cat == 3 and cat == 2:  # a real float start: its complex counterpart
        if dt == np.float16:
            raise NotImplementedError("\"lerp_kernel_tensor\" not implemented for 'ComplexHalf'")
        return np.dtype(np.complex128 if dt == np.float64 else np.complex64)
    return weight_dt


def _category(dt: np.dtype) -> int:
    return 3 if dt.kind == "c" else 2 if dt in FLOATING_NP else 0 if dt.kind == "b" else 1


@op(variants=_BINARY, batch=pointwise)
def lerp(input: Tensor, end: Tensor, weight) -> Tensor:
    """input + weight * (end - input)."""
    dt = input._data.dtype
    # PyTorch checks the dtypes (in its C++ names) before the kernel's; a 0-dim weight may differ
    if end._data.dtype != dt:
        raise RuntimeError(f"expected dtype {cpp_name(dt)} for `end` but got dtype {cpp_name(end._data.dtype)}")
    if isinstance(weight, Tensor) and weight.dim() and weight._data.dtype != dt:
        raise RuntimeError(f"expected dtype {cpp_name(dt)} for `weight` but got dtype {cpp_name(weight._data.dtype)}")
    if isinstance(weight, Tensor) and not weight.dim():
        promoted = _lerp_promoted(dt, weight._data.dtype)
        if promoted != dt:
            to = FROM_NP[promoted]
            return lerp(input.to(to), end.to(to), weight)
    if dt not in INEXACT_NP:
        name = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{name}\" not implemented for '{legacy_name(dt)}'")
    ta, tb, ad, bd = binary_operands(input, end)
    if not isinstance(weight, Tensor):
        w = weight if isinstance(weight, complex) else float(weight)
        if ad.dtype in _FMA_DTYPES and bd.dtype == ad.dtype and type(w) is float:
            r = _lerp_fused(ad, bd, as_array(w, ad.dtype))
        elif ad.dtype in LOWP_NP and bd.dtype == ad.dtype and type(w) is float:
            r = _lerp_fused(ad.astype(_F32), bd.astype(_F32), as_array(w, _F32)).astype(ad.dtype)
        else:
            r = ad + w * (bd - ad)
        r = as_array(r, dtype=ad.dtype)
        return record(r, LerpBackward0, (input, end), weight=w, a_meta=meta(input, r), b_meta=meta(end, r),
                      need_a=input._requires_grad, need_b=end._requires_grad)
    wd = weight._data.astype(ad.dtype)
    if ad.dtype in _FMA_DTYPES and bd.dtype == ad.dtype:
        r = _lerp_fused(ad, bd, wd)
    elif ad.dtype in LOWP_NP and bd.dtype == ad.dtype and wd.dtype == ad.dtype:
        # half/bfloat16: PyTorch's kernel computes in float32 (its two formulas) and rounds once
        r = _lerp_fused(ad.astype(_F32), bd.astype(_F32), wd.astype(_F32)).astype(ad.dtype)
    else:
        r = as_array(ad + wd * (bd - ad))
    return record(r, LerpBackward1, (input, end, weight), (input, end, weight), a_meta=meta(input, r),
                  b_meta=meta(end, r), w_meta=meta(weight, r), need_a=input._requires_grad,
                  need_b=end._requires_grad, need_w=weight._requires_grad)


# -- bitwise and logical -----------------------------------------------------------------------------
def _int_only(x: np.ndarray, name: str) -> None:
    if x.dtype in FLOATING_NP:
        raise NotImplementedError(f"\"{name}\" not implemented for '{legacy_name(x.dtype)}'")


@op(variants=_BINARY, batch=pointwise)
def bitwise_not(input: Tensor) -> Tensor:
    """~input for integer and bool tensors."""
    _int_only(input._data, "bitwise_not_cpu")
    return _make(as_array(~input._data))


@op(variants=_BINARY, dunders=("__lshift__",), rdunders=("__rlshift__",), idunders=("__ilshift__",),
    batch=pointwise)
def bitwise_left_shift(input, other) -> Tensor:
    """input << other for integer tensors."""
    _, _, a, b = binary_operands(input, other)
    _int_only(a, "lshift_cpu")
    return _make(as_array(np.left_shift(a, b)))


@op(variants=_BINARY, dunders=("__rshift__",), rdunders=("__rrshift__",), idunders=("__irshift__",),
    batch=pointwise)
def bitwise_right_shift(input, other) -> Tensor:
    """input >> other for integer tensors (arithmetic shift)."""
    _, _, a, b = binary_operands(input, other)
    _int_only(a, "rshift_cpu")
    return _make(as_array(np.right_shift(a, b)))
