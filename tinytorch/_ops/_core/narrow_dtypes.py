"""The float8 and complex32 operands of the op families (``_dtype.NARROW_NP``): numpy computes nothing on
them as PyTorch does, so the families' general paths hand them here. PyTorch's CPU build runs a few ops on
them (float8: mul of two tensors, abs, mm; complex32: add, sub, mul, neg, abs, conj, sgn), computing in
float / complex<float> and rounding the result once; every other op refuses with its kernel's message."""
from __future__ import annotations

import numpy as np

from ... import _dtype, _dtype_casts
from ..._quiet_fp import loud, quiet

_F32, _C64 = np.dtype(np.float32), np.dtype(np.complex64)
C32 = _dtype.C32_NP
F8 = _dtype.F8_NP
E8M0 = _dtype.float8_e8m0fnu.np

def scalar_name(npd: np.dtype) -> str:
    """PyTorch's ScalarType name of a dtype (Float8_e4m3fn, ComplexHalf)."""
    return _dtype.FROM_NP[npd]._scalar


def refuse(kernel: str, npd: np.dtype):
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(npd)}'")


def _wide(x: np.ndarray) -> np.ndarray:
    return _dtype_casts.convert(x, _C64 if x.dtype == C32 else _F32)


def unary(name: str, x: np.ndarray, kernel: str | None = None) -> np.ndarray:
    """``name`` (an elementwise op of one tensor) on a float8 or complex32 array, or PyTorch's refusal naming its
    ``kernel`` (declared with the op: ``unary(narrow_kernel=...)``; default ``<name>_cpu``)."""
    npd = x.dtype
    if name == "abs" and npd != E8M0:
        if npd == C32:  # the magnitude in float, rounded to half
            return _dtype_casts.convert(np.abs(_wide(x)), np.dtype(np.float16))
        return _dtype_casts.convert(np.abs(_wide(x)), npd)
    if npd == C32 and name in ("neg", "sgn", "conj_physical"):
        token = quiet()
        try:
            w = _wide(x)
            if name == "neg":
                out = -w
            elif name == "conj_physical":
                out = np.conj(w)
            else:
                mag = np.abs(w)
                out = np.where(mag == 0, 0, w / np.where(mag == 0, 1, mag)).astype(_C64)
        finally:
            loud(token)
        return _dtype_casts.convert(out, C32)
    if name == "sigmoid" and npd in F8:
        refuse("sigmoid_cpu_reduced_float", npd)
    if name == "sign" and npd == C32:
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                                  "torch.sgn instead.")
    refuse(kernel or f"{name}_cpu", npd)


def binary(name: str, ad, bd, npd: np.dtype, alpha=1) -> np.ndarray:
    """add / sub / mul of operands already in the narrow result dtype ``npd`` (arrays, or a Python number for
    the scalar side), or PyTorch's refusal."""
    if npd in F8:
        scalar = not isinstance(ad, np.ndarray) or not isinstance(bd, np.ndarray) or not bd.ndim or not ad.ndim
        if name == "div":  # a number or a 0-d tensor takes the scalar kernel
            refuse("div_cpu_reduced_float" if scalar else "div_cpu", npd)
        if name != "mul":
            refuse({"add": "add_stub", "sub": "add_stub"}.get(name, f"{name}_cpu"), npd)
        if scalar:
            refuse("mul_cpu_reduced_float", npd)  # a number or a 0-d tensor takes the scalar kernel
        return _dtype_casts.convert(np.multiply(_wide(ad), _wide(bd)), npd)
    if name == "div":
        refuse("div_cpu", npd)
    a = _wide(ad) if type(ad) is np.ndarray else np.complex64(ad)
    b = _wide(bd) if type(bd) is np.ndarray else np.complex64(bd)
    token = quiet()
    try:
        if name == "mul":
            out = np.multiply(a, b)
        else:  # PyTorch's kernel: a + alpha * b, alpha a complex<float> (-alpha for sub): its signed zeros
            out = np.add(a, np.multiply(np.complex64(alpha if name == "add" else -alpha), b))
    finally:
        loud(token)
    return _dtype_casts.convert(np.asarray(out), C32)


def reduction(kernel: str, npd: np.dtype):
    """The refusal of a reduction (sum, mean, prod, max...) of a float8 or complex32 tensor."""
    refuse(kernel, npd)


# -- binary ops: operands handed on as NarrowArray, whose ufuncs run PyTorch's kernels or refuse ----------
_UFUNC_KERNELS = {"add": "add_stub", "subtract": "add_stub", "true_divide": "div_cpu", "divide": "div_cpu",
                  "less": "lt_cpu", "less_equal": "le_cpu", "greater": "gt_cpu", "greater_equal": "ge_cpu",
                  "maximum": "maximum_cpu", "minimum": "minimum_cpu", "power": "pow", "fmod": "fmod_cpu",
                  "remainder": "remainder_cpu", "arctan2": "atan2_cpu", "floor_divide": "div_floor_cpu"}
_NAMES = {"add": "add", "subtract": "sub", "multiply": "mul", "true_divide": "div", "divide": "div"}


class NarrowArray(np.ndarray):
    """A view of a float8 / complex32 operand array that binary_operands hands on: the family's arithmetic
    on it (``ad + bd``, ``ad * bd``, ``ad == bd``) reaches ``__array_ufunc__``, which runs PyTorch's kernel
    for the dtype (computing in float and rounding once) or raises its refusal; results are plain arrays."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = tuple(x.view(np.ndarray) if isinstance(x, NarrowArray) else x for x in inputs)
        npd = self.dtype
        name = ufunc.__name__
        if method != "__call__" or kwargs.get("out") is not None:
            refuse(_UFUNC_KERNELS.get(name, f"{name}_cpu"), npd)
        if name in ("equal", "not_equal"):  # compared in float (complex<float>)
            wide = tuple(_wide(x) if isinstance(x, np.ndarray) else x for x in plain)
            return ufunc(*wide)
        if name in _NAMES and len(plain) == 2:
            return binary(_NAMES[name], plain[0], plain[1], npd)
        if npd == C32 and name in ("maximum", "minimum"):
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        refuse(_UFUNC_KERNELS.get(name, f"{name}_cpu"), npd)


def operands(ad, bd, dt: np.dtype):
    """binary_operands' arrays for a float8 / complex32 result dtype ``dt``: converted to it as PyTorch's
    casts round (complex32 + half), then viewed as NarrowArray."""
    if type(ad) is np.ndarray:
        if ad.dtype != dt:
            ad = _dtype_casts.convert(ad, dt)
        ad = ad.view(NarrowArray)
    if type(bd) is np.ndarray:
        if bd.dtype != dt:
            bd = _dtype_casts.convert(bd, dt)
        bd = bd.view(NarrowArray)
    return ad, bd


def matmul(a: np.ndarray, b: np.ndarray, float_matmul) -> np.ndarray:
    """A float8 GEMM as PyTorch's CPU addmm runs it (float products and sums, rounded once to the dtype);
    complex32 and float8_e8m0fnu have no kernel."""
    npd = a.dtype
    if npd not in F8 or npd == E8M0:
        refuse("addmm_impl_cpu_", npd)
    token = quiet()
    try:
        out = float_matmul(_wide(a), _wide(b))
    finally:
        loud(token)
    return _dtype_casts.convert(out, npd)


# -- the other ops PyTorch's CPU build refuses for them: each op's own code names, for float8 and for complex32, the
# kernel in PyTorch's "not implemented for" error, an exception to raise as it is, or None where it runs the op
NO_COMPLEX_CLAMP = "clamp is not supported for complex types"


def guard(npd: np.dtype, float8, complex32) -> None:
    """Raise PyTorch's refusal of an op for the float8 / complex32 dtype ``npd`` (``float8`` or ``complex32``: a
    kernel name, or an exception to raise as it is); return where that argument is None (the op runs)."""
    found = complex32 if npd == C32 else float8
    if found is None:
        return
    if isinstance(found, Exception):
        raise found
    refuse(found, npd)


def predicate(name: str, x: np.ndarray):
    """isnan / isinf / isfinite of a float8 array: PyTorch's refusal, or its answer where it has its own (e8m0's
    isfinite is True everywhere, NaN included); None where the float values answer it."""
    npd = x.dtype
    if npd == C32 or name == "isnan" or npd == _dtype.float8_e5m2.np:
        return None
    if name == "isfinite" and npd == E8M0:
        return np.ones(x.shape, np.bool_)
    refuse(name, npd)
