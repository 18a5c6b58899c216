"""Elementwise math of one tensor (PyTorch's UnaryOps): exp and log, powers and roots, trigonometric
and hyperbolic functions, rounding, sign, and the float predicates. Float results for int inputs, as
PyTorch. Each op is one declaration (see ``_pointwise.unary``): the numpy forward, the derivative as a
tinytorch formula, and the spellings PyTorch has."""
from __future__ import annotations

import builtins
import math

import numpy as np

from ..._dtype import C32_NP, NARROW_NP, FLOATING_NP, INEXACT_NP, FROM_NP, get_default_dtype
from ... import _dtype_casts
from .._core import narrow_dtypes
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.batching import pointwise
from .._core.pointwise import SparseValues, node_class, unary, unary_function, zero_grad
from .._core.layout import laid_like, laid_out, like_strides
from .._core.record import record
from .._core.registry import op
from .._core.util import as_array
from .arith import add_scalar, mul_scalar, number_sub, sub_scalar
from .complex import real_sign

_MATH = "function method inplace torch_inplace out"  # the spellings of most of PyTorch's math functions


def _float_input(x: np.ndarray) -> np.ndarray:
    return x if x.dtype in INEXACT_NP else x.astype(get_default_dtype().np)


def _sigmoid(x):
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    # exp of a non-positive number never overflows
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def _neg(x):
    if x.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return np.negative(x)



# sparse=SparseValues(...): PyTorch's sparse backend runs the op on a sparse tensor's stored values, its backward
# this formula there; SparseValues("cos"): its backward calls cos, which that backend refuses (the error it raises)
# -- exp, log, powers ------------------------------------------------------------------------------
exp = unary("exp", np.exp, lambda g, x, y: g * y, saves="result", on_arrays=True, variants=_MATH,
            narrow_kernel="exp_vml_cpu")
log = unary("log", np.log, lambda g, x, y: g / x, variants=_MATH, narrow_kernel="log_vml_cpu")
log2 = unary("log2", np.log2, lambda g, x, y: g / mul_scalar(x, math.log(2.0)), variants=_MATH,
             narrow_kernel="log2_vml_cpu")
log10 = unary("log10", np.log10, lambda g, x, y: g / mul_scalar(x, math.log(10.0)), variants=_MATH,
              narrow_kernel="log10_vml_cpu")
log1p = unary("log1p", np.log1p, lambda g, x, y: g / add_scalar(x, 1), node="Log1PBackward0", variants=_MATH,
              extra=("special.log1p",), sparse=SparseValues(csr=False), narrow_kernel="log1p_vml_cpu")
expm1 = unary("expm1", np.expm1, lambda g, x, y: g * add_scalar(y, 1), saves="result", variants=_MATH,
              extra=("special.expm1",), sparse=SparseValues("add", csr=False), narrow_kernel="expm1_vml_cpu")
exp2 = unary("exp2", np.exp2, lambda g, x, y: mul_scalar(g * y, math.log(2.0)), saves="result", variants=_MATH,
             extra=("special.exp2",), narrow_kernel="exp2")
sqrt = unary("sqrt", np.sqrt, lambda g, x, y: g / mul_scalar(y, 2), saves="result", variants=_MATH,
             sparse=SparseValues("div"), narrow_kernel="sqrt_vml_cpu", exact=True)
rsqrt = unary("rsqrt", lambda x: 1 / np.sqrt(x), lambda g, x, y: mul_scalar(g, -0.5) * y ** 3, saves="result",
              variants=_MATH, narrow_kernel="rsqrt_vml_cpu", exact=True)  # (PyTorch's kernel: 1 / sqrt too)
reciprocal = unary("reciprocal", lambda x: 1 / x, lambda g, x, y: -g * (y * y), saves="result", variants=_MATH,
                   exact=True)


@op(variants=_MATH, batch=pointwise)
def square(input: Tensor) -> Tensor:
    """input ** 2 (recorded as PowBackward0, as PyTorch does)."""
    return input.pow(2)


# -- trigonometric and hyperbolic ------------------------------------------------------------------
sin = unary("sin", np.sin, lambda g, x, y: g * x.cos(), variants=_MATH, sparse=SparseValues("cos"),
            narrow_kernel="sin_vml_cpu")
cos = unary("cos", np.cos, lambda g, x, y: g * -x.sin(), variants=_MATH, narrow_kernel="cos_vml_cpu")
tan = unary("tan", np.tan, lambda g, x, y: g * add_scalar(y ** 2, 1), saves="result", variants=_MATH,
            sparse=SparseValues("add", csr=False), narrow_kernel="tan_vml_cpu")
asin = unary("asin", np.arcsin, lambda g, x, y: g * add_scalar(-x * x, 1).rsqrt(), variants=_MATH, aliases=("arcsin",),
             sparse=SparseValues("add", csr=False), narrow_kernel="asin_vml_cpu")
acos = unary("acos", np.arccos, lambda g, x, y: g * -add_scalar(-x * x, 1).rsqrt(), variants=_MATH, aliases=("arccos",),
             narrow_kernel="acos_vml_cpu")
atan = unary("atan", np.arctan, lambda g, x, y: g / add_scalar(x * x, 1), variants=_MATH, aliases=("arctan",),
             sparse=SparseValues("add", csr=False), narrow_kernel="atan_vml_cpu")
sinh = unary("sinh", np.sinh, lambda g, x, y: g * x.cosh(), variants=_MATH, sparse=SparseValues("cosh", csr=False),
             narrow_kernel="sinh_vml_cpu")
cosh = unary("cosh", np.cosh, lambda g, x, y: g * x.sinh(), variants=_MATH, narrow_kernel="cosh_vml_cpu")
tanh = unary("tanh", np.tanh, lambda g, x, y: g * (1 - y * y), saves="result", quiet=True, on_arrays=True,
             variants=_MATH + " functional", sparse=SparseValues("tanh_backward"),
             narrow_kernel="tanh_vml_cpu",
             aten_backward=("tanh_backward", lambda gg, g, y: gg * (mul_scalar(y, -2) * g)))
asinh = unary("asinh", np.arcsinh, lambda g, x, y: g * add_scalar(x ** 2, 1).rsqrt(), variants=_MATH,
              aliases=("arcsinh",), sparse=SparseValues("add", csr=False), narrow_kernel="asinh_vml_cpu")
acosh = unary("acosh", np.arccosh, lambda g, x, y: g * sub_scalar(x * x, 1).rsqrt(), variants=_MATH,
              aliases=("arccosh",), narrow_kernel="acosh_vml_cpu")
atanh = unary("atanh", np.arctanh, lambda g, x, y: g / number_sub(1, x ** 2), variants=_MATH, aliases=("arctanh",),
              sparse=SparseValues("rsub", csr=False), narrow_kernel="atanh_vml_cpu")
sigmoid = unary("sigmoid", _sigmoid, lambda g, x, y: g * (y * (1 - y)), saves="result", on_arrays=True,
                variants=_MATH + " functional", extra=("special.expit",),
                aten_backward=("sigmoid_backward", lambda gg, g, y: gg * g * add_scalar(mul_scalar(y, -2), 1)))

# -- sign, magnitude, rounding: integers stay integers ---------------------------------------------
_ZERO_GRAD = zero_grad  # (step functions: a zero gradient, as PyTorch)

neg = unary("neg", _neg, lambda g, x, y: -g, saves=None, floating=False, quiet=True, variants=_MATH,
            aliases=("negative",), dunders=("__neg__",), exact=True)
abs = unary("abs", np.abs, lambda g, x, y: g * x.sgn(), floating=False, quiet=True, variants=_MATH,
            aliases=("absolute: function method inplace out",), dunders=("__abs__",), sparse=SparseValues(), exact=True)
def _sign(x):
    if x.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, tinytorch.sign is not intended to support complex numbers. Please use "
                                  "tinytorch.sgn instead.")
    return real_sign(x)


sign = unary("sign", _sign, _ZERO_GRAD, saves=None,
             floating=False, variants="function method inplace out", sparse=SparseValues())
def _integers_kept(fn):
    """``fn`` (floor, ceil, trunc) with integer and bool arrays returned as they are, as PyTorch and numpy 2
    do (numpy 1.x computed them in float64)."""
    return lambda x: x.copy() if x.dtype.kind in "biu" else fn(x)


floor = unary("floor", _integers_kept(np.floor), _ZERO_GRAD, saves=None, floating=False, variants=_MATH,
              sparse=SparseValues(), narrow_kernel="floor_vml_cpu")
ceil = unary("ceil", _integers_kept(np.ceil), _ZERO_GRAD, saves=None, floating=False, variants=_MATH,
             sparse=SparseValues(), narrow_kernel="ceil_vml_cpu")
trunc = unary("trunc", _integers_kept(np.trunc), _ZERO_GRAD, saves=None, floating=False, variants=_MATH,
              aliases=("fix",), sparse=SparseValues(), narrow_kernel="trunc_vml_cpu")
_round_half_even = unary_function(node_class("RoundBackward0", _ZERO_GRAD, None), np.round, floating=False,
                                  name="round")


class RoundBackward1(Node):
    def backward(self, g):
        return (g * 0,)


@op(variants=_MATH, batch=pointwise, extra=("special.round",))
def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Round half to even; with ``decimals``, to that many decimal places (negative: tens, hundreds...)."""
    if decimals == 0:
        return _round_half_even(input)
    x = input._data
    if x.dtype not in FLOATING_NP:
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{input.dtype._scalar}'")
    p = x.dtype.type(10.0 ** builtins.abs(decimals))
    r = np.rint(x * p) / p if decimals > 0 else np.rint(x / p) * p
    return record(r.astype(x.dtype), RoundBackward1, (input,))


def _frac(x: np.ndarray) -> np.ndarray:
    if x.dtype not in FLOATING_NP:
        raise NotImplementedError(f"\"frac_cpu\" not implemented for '{_legacy(x.dtype)}'")
    return x - np.trunc(x)


frac = unary("frac", _frac, lambda g, x, y: g, saves=None, floating=False, variants=_MATH,
             sparse=SparseValues(csr=False))


def _legacy(dt: np.dtype) -> str:
    return FROM_NP[dt]._scalar


# -- predicates and nan_to_num ---------------------------------------------------------------------
_WIDE_OF = {False: np.dtype(np.float32), True: np.dtype(np.complex64)}


def _predicate(name: str, fn):
    def predicate(input: Tensor) -> Tensor:
        x = input._data
        if x.dtype in NARROW_NP:  # float8: its few kernels (narrow_dtypes.predicate); complex32: through complex64
            found = narrow_dtypes.predicate(name, x)
            if found is not None:
                return _make(found)
            x = _dtype_casts.convert(x, _WIDE_OF[x.dtype == C32_NP])
        return _make(as_array(fn(x)))
    predicate.__name__ = predicate.__qualname__ = name
    predicate.__doc__ = f"Elementwise {name} (a bool tensor; no gradient)."
    return op(name, "function method", batch=pointwise)(predicate)


isnan = _predicate("isnan", np.isnan)
isinf = _predicate("isinf", np.isinf)
isfinite = _predicate("isfinite", np.isfinite)


@op(variants="function method out", batch=pointwise)
def signbit(input: Tensor) -> Tensor:
    """True where the sign bit is set (-0.0 included)."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "signbit_cpu",
                     NotImplementedError("signbit is not implemented for complex tensors."))
    return _make(as_array(np.signbit(input._data)))


class NanToNumBackward0(Node):
    saved_fields = (("self", 0),)

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (g.where(x.isfinite(), 0.0),)


@op(variants=_MATH, batch=pointwise)
def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """NaN, +inf and -inf replaced (by 0 and the dtype's largest and lowest finite values by default)."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "nan_to_num", "nan_to_num")
    x = input._data
    if x.dtype not in FLOATING_NP:
        return _make(laid_out(x, like_strides(x)))
    fi = np.finfo(x.dtype)
    out = as_array(np.nan_to_num(x, nan=nan, posinf=fi.max if posinf is None else posinf,
                                   neginf=fi.min if neginf is None else neginf))  # numpy 1.x: a scalar for 0-d x
    # laid out as empty_like(input), as ATen's nan_to_num allocates (numpy's copy of an expanded input keeps
    # its 0 strides' order, where PyTorch's gives it C order)
    return record(laid_like(out, x), NanToNumBackward0, (input,), (input,))


@op(variants="function method", dunders=("__pos__",), batch=pointwise)
def positive(input: Tensor) -> Tensor:
    """``+x``: the tensor itself (no copy, no graph node), as PyTorch returns it; refused for bool."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input
