"""The arithmetic of PyTorch's x86 quantized engine (fbgemm, which the default ``x86`` engine runs for linear layers),
on numpy arrays, bit for bit on x86 CPUs with AVX2 and FMA (fbgemm's vector paths; its scalar fallback, for CPUs
without them, rounds the quantization twice and scales the products in two steps).

- quantization: ``q = clamp(rint(fma(x, 1/scale, zero_point)))`` in float32 (fbgemm's ``QuantizeAvx2``: the
  reciprocal of the float32 scale, one fused multiply-add, round half to even); 32-bit integers take fbgemm's scalar
  ``Quantize``: the product rounded, then the zero point added in float32, then rounded;
- dequantization: ``float32(scale) * float32(q - zero_point)``, one rounding;
- dynamic linear: the activation's range gives its qparams (``choose_qparams``: PyTorch's
  ``ChooseQuantizationParams``, on 7 bits with ``reduce_range``), it is quantized to uint8, multiplied by the int8
  weight with int32 accumulation (exact: with 7-bit activations no pair of products can saturate fbgemm's int16
  intermediate), offset by ``zero_point * column sums``, then scaled by ``float32(scale_x * scale_w)`` and the
  bias added, each a float32 rounding (fbgemm's ``requantizeForFloatAvx2``)."""
from __future__ import annotations

import numpy as np

_F32 = np.float32
SMALL_SCALE_THRESHOLD = float(np.float32(6.1e-5))  # fp16's smallest normal: scales below it are raised to it
_INT32_FLOAT_MAX = float(np.float32(2147483520.0))  # the largest float32 below 2**31


def fma32(a: np.ndarray, b, c) -> np.ndarray:
    """float32(a * b + c) with one rounding, for float32 ``a``, ``b`` and ``c``: the product is exact in float64;
    where the float64 sum lands on a float32 tie that the exact sum is not on, it is moved off it first."""
    p = a.astype(np.float64) * np.float64(b)
    c64 = np.asarray(c, dtype=np.float64)
    s = p + c64
    err = (p - (s - (s - p))) + (c64 - (s - p))  # TwoSum: the exact sum is s + err
    s32 = s.astype(_F32)
    tie = (np.abs(s - s32.astype(np.float64)) == np.abs(np.nextafter(s32, np.inf, dtype=_F32).astype(np.float64)
                                                         - s32.astype(np.float64)) / 2) & (err != 0)
    if tie.any():
        s = np.where(tie, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        s32 = s.astype(_F32)
    return s32


def quantize(x: np.ndarray, scale: float, zero_point: int, np_dtype) -> np.ndarray:
    """``x`` (float32) as the integers of ``np_dtype`` (int8, uint8 or int32) for ``scale`` and ``zero_point``."""
    info = np.iinfo(np_dtype)
    inv = _F32(1.0) / _F32(scale)
    x = np.asarray(x, dtype=_F32)
    with np.errstate(invalid="ignore", over="ignore"):
        if info.bits == 8:
            t = fma32(x, inv, _F32(zero_point))
            # _mm256_min_ps keeps its second operand for a NaN, and cvtps gives INT_MIN for -inf
            t = np.rint(np.fmin(t, _F32(_INT32_FLOAT_MAX)).astype(np.float64))
            t = np.nan_to_num(t, nan=_INT32_FLOAT_MAX, neginf=-2.0 ** 31)
        else:
            t = np.rint((x * inv).astype(_F32) + _F32(zero_point)).astype(np.float64)
        return np.clip(t, info.min, info.max).astype(np_dtype)


def dequantize(q: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    """The float32 values of the integers ``q`` (``q - zero_point`` in int32, wrapping as fbgemm's does)."""
    return (_F32(scale) * (q.astype(np.int64) - zero_point).astype(np.int32).astype(_F32)).astype(_F32)


def choose_qparams(x_min: float, x_max: float, qmin: int, qmax: int, reduce_range: bool = False) -> tuple:
    """(scale, zero_point) covering [x_min, x_max] and 0, as PyTorch's ``quant_utils::ChooseQuantizationParams``
    (without its symmetric and power-of-two options): the scale in double, cut below at fp16's smallest normal,
    the zero point from whichever end adds the smaller error, rounded half to even and clamped."""
    if not x_min <= x_max:
        raise RuntimeError("In ChooseQuantizationParams, min should be less than or equal to max")
    if reduce_range:
        qmin, qmax = qmin // 2, qmax // 2
    x_min, x_max = float(min(_F32(x_min), _F32(0.0))), float(max(_F32(x_max), _F32(0.0)))
    scale = (x_max - x_min) / (qmax - qmin)
    if _F32(scale) == 0.0 or np.isinf(_F32(1.0) / _F32(scale)):
        scale = 0.1
    if scale < SMALL_SCALE_THRESHOLD:
        org = float(_F32(scale))
        scale = SMALL_SCALE_THRESHOLD
        if x_min == 0.0:
            x_max = float(_F32(SMALL_SCALE_THRESHOLD * (qmax - qmin)))
        elif x_max == 0.0:
            x_min = float(_F32(-SMALL_SCALE_THRESHOLD * (qmax - qmin)))
        else:
            amplifier = _F32(SMALL_SCALE_THRESHOLD) / _F32(org)
            x_min, x_max = float(_F32(x_min) * amplifier), float(_F32(x_max) * amplifier)
    from_min, from_max = qmin - x_min / scale, qmax - x_max / scale
    err_min, err_max = abs(qmin) - abs(x_min / scale), abs(qmax) - abs(x_max / scale)
    initial = from_min if err_min < err_max else from_max
    if initial < qmin:
        zero_point = qmin
    elif initial > qmax:
        zero_point = qmax
    else:
        zero_point = int(np.rint(initial))
    return scale, zero_point


def min_max(x: np.ndarray) -> tuple:
    """fbgemm's ``FindMinMax``: (0, 0) for no elements."""
    if x.size == 0:
        return 0.0, 0.0
    return float(x.min()), float(x.max())


def column_offsets(w_int: np.ndarray, w_zero_point: int) -> np.ndarray:
    """Each output row's weight sum less ``zero_point * K`` (fbgemm's column offsets of the packed weight)."""
    return (w_int.astype(np.int64).sum(axis=1) - w_zero_point * w_int.shape[1]).astype(np.int32)


def linear_dynamic(x: np.ndarray, w_int: np.ndarray, w_scale: float, w_zero_point: int, col_offsets: np.ndarray,
                   bias: np.ndarray | None, reduce_range: bool, relu: bool = False) -> np.ndarray:
    """fbgemm's ``PackedLinearWeight::apply_dynamic``: float32 ``x`` (..., K) times the int8 weight (N, K)."""
    x = np.ascontiguousarray(x, dtype=_F32)
    k = x.shape[-1]
    x2 = x.reshape(-1, k)
    scale, zero_point = choose_qparams(*min_max(x2), 0, 255, reduce_range)
    xq = quantize(x2, scale, zero_point, np.uint8).astype(np.int32)
    acc = xq @ w_int.T.astype(np.int32)  # int32 accumulation: exact here (see the module's docstring)
    acc -= np.int32(zero_point) * col_offsets
    if w_zero_point:
        acc -= xq.sum(axis=1, dtype=np.int32)[:, None] * np.int32(w_zero_point)
    multiplier = _F32(_F32(scale) * _F32(w_scale))
    if bias is not None:  # the compiler fuses fbgemm's multiply and add into one FMA
        out = fma32(acc.astype(_F32), multiplier, np.broadcast_to(bias.astype(_F32), acc.shape))
    else:
        out = acc.astype(_F32) * multiplier
    if relu:
        out = np.maximum(out, _F32(0.0))
    return out.reshape(x.shape[:-1] + (w_int.shape[0],))
