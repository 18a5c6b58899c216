"""Casts to and from the dtypes numpy has no native type for, as PyTorch's CPU build rounds them.

float8 (ml_dtypes' storage): PyTorch converts every source to float first (a double or an int64 is rounded
to float, then to float8: two roundings), then rounds to nearest even; float8_e4m3fn saturates finite
overflow and infinities to +-448, float8_e8m0fnu ignores the sign and rounds a tie up from a normal float;
back, a float8 becomes a float whose NaNs carry PyTorch's bit patterns, and every other dtype is reached
from that float. complex32 (two float16 fields): each part is rounded to float through float (so a double
rounds twice here too), and read back exactly through complex64."""
from __future__ import annotations

import math
import warnings

import numpy as np

from . import _dtype
from . import _quiet_fp
from ._quiet_fp import cast as _quiet_cast, loud, quiet

_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)
_C64 = np.dtype(np.complex64)
_U8 = np.dtype(np.uint8)
C32 = _dtype.C32_NP
F8 = _dtype.F8_NP
NARROW = _dtype.NARROW_NP


def _decode_table(npd: np.dtype) -> np.ndarray:
    """The float32 value of each of the 256 codes; NaNs as PyTorch's float8-to-float conversion writes them."""
    codes = np.arange(256, dtype=np.uint8)
    bits = codes.view(npd).astype(np.float32).view(np.uint32).copy()
    nan = np.isnan(bits.view(np.float32))
    c = codes.astype(np.uint32)
    if npd.name == "float8_e4m3fn":  # the code's mantissa bits moved up into float's
        bits[nan] = ((c & 0x80) << 24 | 0x7FF00000)[nan]
    elif npd.name == "float8_e5m2":  # read as the top byte of a half, then widened (and quieted) to float
        bits[nan] = ((c & 0x80) << 24 | 0x7FC00000 | (c & 0x3) << 21)[nan]
    else:  # the one NaN code of the fnuz and e8m0 formats: float's smallest signalling NaN
        bits[nan] = 0x7F800001
    return bits.view(np.float32)


_DECODE = {npd: _decode_table(npd) for npd in F8}
# to an integer dtype PyTorch's conversion reads the fnuz and e8m0 NaN as 0
_DECODE_INT = {npd: np.where(np.isnan(t) & (t.view(np.uint32) == 0x7F800001), np.float32(0), t)
               for npd, t in _DECODE.items()}


def _half(f: np.ndarray) -> np.ndarray:
    """float32 to float16 as PyTorch rounds it: a signalling NaN comes out quiet."""
    h = f.astype(_F16)
    nan = np.isnan(f)
    if nan.any():  # the sign, the top ten bits of the payload, and the quiet bit
        b = f[nan].view(np.uint32)
        h.view(np.uint16)[nan] = ((b >> 16) & 0x8000) | 0x7E00 | ((b >> 13) & 0x3FF)
    return h


def canonical_half_nans(h: np.ndarray) -> np.ndarray:
    """``h`` (float16, or complex32's two float16 fields) with each NaN made the quiet NaN with its sign
    (0x7e00 | sign), in place (``h`` contiguous): PyTorch turns a Python number into half with scalar code,
    which keeps no payload (an array's vector cast keeps it, as ``_half`` does)."""
    u = h.reshape(-1).view(np.uint16)
    nan = np.isnan(u.view(_F16))
    if nan.any():
        u[nan] = (u[nan] & 0x8000) | 0x7E00
    return h


def _to_float(x: np.ndarray) -> np.ndarray:
    """``x`` as the float PyTorch rounds a value through on its way to float8 or half parts."""
    if x.dtype in F8:
        return np.asarray(_DECODE[x.dtype][x.view(_U8)])  # (an array for a 0-d x too)
    if x.dtype == C32:
        return _widen(x["real"])
    if x.dtype.kind == "c":
        x = x.real
    return _quiet_cast(x, _F32, copy=False)


def _encode_f8(f: np.ndarray, npd: np.dtype) -> np.ndarray:
    token = quiet()
    try:
        name = npd.name
        if name == "float8_e4m3fn":
            return np.clip(f, -448.0, 448.0).astype(npd)  # saturating; NaN stays NaN
        if name == "float8_e8m0fnu":
            bits = f.view(np.uint32)
            exp = (bits >> 23) & 0xFF
            mant = bits & 0x7FFFFF
            up = (mant > 0x400000) | ((mant == 0x400000) & (exp != 0))
            return np.where(exp == 0xFF, 0xFF, exp + up).astype(np.uint8).view(npd)
        out = f.astype(npd)
        if name == "float8_e5m2":
            nan = np.isnan(f)
            if nan.any():  # PyTorch's NaN sets every mantissa bit
                codes = out.view(_U8)
                codes[nan] |= 0x7F
        return out
    finally:
        loud(token)


def _encode_c32(x: np.ndarray) -> np.ndarray:
    token = quiet()
    try:
        out = np.empty(x.shape, C32)
        if x.dtype.kind == "c":
            out["real"] = _half(x.real.astype(_F32))
            out["imag"] = _half(x.imag.astype(_F32))
        else:
            out["real"] = _half(_to_float(x))
            out["imag"] = 0
        return out
    finally:
        loud(token)


def _widen(h: np.ndarray) -> np.ndarray:
    """float16 to float32 as PyTorch widens it: a signalling NaN comes out quiet."""
    f = h.astype(_F32)
    nan = np.isnan(h)
    if nan.any():
        f.view(np.uint32)[nan] |= 0x400000
    return f


def c32_to_c64(x: np.ndarray) -> np.ndarray:
    """A complex32 array's values as complex64 (exactly)."""
    out = np.empty(x.shape, _C64)
    out.real = _widen(x["real"])
    out.imag = _widen(x["imag"])
    return out


def convert(x: np.ndarray, npd: np.dtype) -> np.ndarray:
    """``x`` cast to ``npd`` where either is a float8 or complex32 dtype (a fresh array); overflow to inf and
    NaN to an integer without numpy's warnings, as PyTorch casts."""
    token = quiet()
    try:
        return _convert(x, npd)
    finally:
        loud(token)


def _convert(x: np.ndarray, npd: np.dtype) -> np.ndarray:
    if npd in F8:
        if x.dtype == npd:
            return x.copy()
        return _encode_f8(_to_float(x), npd)
    if npd == C32:
        if x.dtype == C32:
            return x.copy()
        if x.dtype in F8:
            x = _to_float(x)
        return _encode_c32(x)
    # from float8 or complex32 to a numpy-native dtype: through float (complex64), as PyTorch reads them
    if x.dtype == C32:
        if npd.kind == "b":  # nonzero in either part
            return (x["real"] != 0) | (x["imag"] != 0)
        if npd.kind == "c":
            wide = c32_to_c64(x)
        elif npd == _F16:  # the real part as it is
            return x["real"].copy()
        else:  # the real part, through float
            wide = _widen(x["real"])
    elif npd.kind in "iu":
        wide = np.asarray(_DECODE_INT[x.dtype][x.view(_U8)])
    else:
        wide = _to_float(x)
    if npd == _F16:
        return _half(wide)
    if npd == _dtype.BF16_NP:  # PyTorch's float-to-bfloat16 writes every NaN as 0x7FC0
        out = _quiet_cast(wide, npd)
        out.view(np.uint16)[np.isnan(wide)] = 0x7FC0
        return out
    if npd == wide.dtype:
        return wide
    return _quiet_cast(wide, npd)


# c10's names of the types its checked conversion of a number names: "value cannot be converted to type X
# without overflow"
OVERFLOW_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                  "int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
                  "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t", "bool": "bool",
                  "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
_F32_MAX = float(np.finfo(np.float32).max)
_F64 = np.dtype(np.float64)
_BF16_MAX = 3.3895313892515355e38  # bfloat16's largest finite value


def _overflow(npd: np.dtype) -> RuntimeError:
    return RuntimeError(f"value cannot be converted to type {OVERFLOW_NAMES.get(npd.name, npd.name)} without overflow")


def check_number(value, npd: np.dtype, lowp_checked: bool = False):
    """``value`` (a Python number) as PyTorch's fills take it into dtype ``npd`` (c10's checked_convert): a
    finite float beyond float32's range, a NaN or out-of-range number for an integer dtype, or a complex number
    with an imaginary part for a real dtype is its RuntimeError. Half and bfloat16 are checked too
    (``lowp_checked``) except where PyTorch fills one element (its scalar_fill: through double, unchecked, inf
    silently). Returns the value to write."""
    kind = npd.kind
    if kind == "b" or npd in NARROW:  # float8 and complex32 round it as their casts do (convert)
        return value
    lowp = npd == _F16 or npd == _dtype.BF16_NP
    if isinstance(value, complex):
        if kind != "c":
            if value.imag != 0:
                raise _overflow(_F64 if lowp and not lowp_checked else npd)
            value = value.real
        elif npd == _C64 and any(math.isfinite(p) and abs(p) > _F32_MAX for p in (value.real, value.imag)):
            raise _overflow(npd)
        else:
            return value
    if kind in "iu" and not isinstance(value, bool):
        if value != value:
            raise _overflow(npd)
        info = np.iinfo(npd)
        high = info.max if isinstance(value, int) else float(info.max)
        if value > high or (value < -high if kind == "u" else value < info.min):
            raise _overflow(npd)
        if kind == "u" and value < 0:
            return int(value) % (int(info.max) + 1)  # -1 is 255 for uint8, as PyTorch's C cast wraps it
    elif (npd == _F32 or npd == _C64) and isinstance(value, float) and math.isfinite(value) and abs(value) > _F32_MAX:
        raise _overflow(npd)
    elif lowp and isinstance(value, (int, float)):
        if lowp_checked and math.isfinite(value) and abs(value) > (65504.0 if npd == _F16 else _BF16_MAX):
            raise _overflow(npd)
        token = quiet()  # past the range it rounds to inf, silently as PyTorch's
        try:
            return npd.type(value)
        finally:
            loud(token)
    return value


_WARNED = []


def warn_complex32() -> None:
    """PyTorch's one warning, the first time a complex32 tensor is made."""
    if not _WARNED:
        _WARNED.append(True)
        warnings.warn("ComplexHalf support is experimental and many operators don't support it yet.",
                      UserWarning, stacklevel=3)


def _cast_fallback(a: np.ndarray, npd: np.dtype) -> np.ndarray:
    if npd not in NARROW and a.dtype not in NARROW:
        raise TypeError(f"Cannot cast array data from {a.dtype!r} to {npd!r}")
    return convert(a, npd)


_quiet_fp.bind_narrow_cast(_cast_fallback)
