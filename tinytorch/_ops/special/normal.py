"""The normal distribution's functions of ``torch.special``: erfcx, ndtr, ndtri, log_ndtr.

ndtr is PyTorch's composite (1 + erf(x / sqrt 2)) / 2, so its values and its graph (MulBackward1) are
PyTorch's; the others are SciPy's kernels (``_core/lazy_scipy.py``: optional, imported when first called)."""
from __future__ import annotations

import math

import numpy as np

from ...tensor import Tensor
from .._core.pointwise import unary
from .._core.registry import op
from .._core.batching import pointwise
from .._core.lazy_scipy import special_kernel
from .erf_gamma import erf, erfc_np
from ..._dtype import FLOATING_NP, get_default_dtype

_SPECIAL = "function out"
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)

erfcx = unary("special.erfcx", special_kernel("erfcx"),
              lambda g, x, y: g * (2.0 * x * y - _TWO_OVER_SQRT_PI), saves="both", node="SpecialErfcxBackward0",
              variants=_SPECIAL)
ndtri = unary("special.ndtri", special_kernel("ndtri"), lambda g, x, y: g * _SQRT_2PI * (y * y / 2.0).exp(),
              saves="result", node="SpecialNdtriBackward0", variants=_SPECIAL)
def _log_ndtr(x: np.ndarray) -> np.ndarray:
    """PyTorch's formula, rounded where its float32 kernel rounds (the gradient exp(-result - x^2/2)
    cancels digits at very negative x, so the forward has to be PyTorch's to the ulp):
    with z = x / sqrt 2: log(erfcx(-z) / 2) - z^2 below -1, log1p(-erfc(z) / 2) above."""
    dt = x.dtype
    z = (x * dt.type(math.sqrt(0.5))).astype(dt)
    low = special_kernel("erfcx")(-z)
    high = erfc_np(z.astype(np.float64)).astype(dt)
    with np.errstate(all="ignore"):
        lo = np.log(low / dt.type(2)) - z * z
        hi = np.log1p(-high / dt.type(2))
    return np.where(x < -1, lo, hi).astype(dt)


log_ndtr = unary("special.log_ndtr", _log_ndtr,
                 lambda g, x, y: g / _SQRT_2PI * (-(y + x * x / 2.0)).exp(), saves="both",
                 node="SpecialLogNdtrBackward0", variants=_SPECIAL)


@op("special.ndtr", variants=_SPECIAL, batch=pointwise, overlap="unchecked")
def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF, as PyTorch composes it from erf."""
    x = input if input._data.dtype in FLOATING_NP else input.to(_default_float())
    return (1 + erf(x * math.sqrt(0.5))) * 0.5


def _default_float():
    return get_default_dtype()
