"""Angle conversions and the normalised sinc: ``deg2rad``, ``rad2deg``, ``sinc``."""
from __future__ import annotations

import math

import numpy as np

from ._pointwise import unary

_MATH = "function method inplace torch_inplace out"
_TO_RAD = math.pi / 180.0
_TO_DEG = 180.0 / math.pi


def _sinc_grad(g, x, y):
    """d/dx sin(pi x)/(pi x) = (cos(pi x) - sinc(x)) / x, and 0 at x = 0 (the limit)."""
    slope = ((x * math.pi).cos() - y) / x
    return g * slope.masked_fill(x == 0, 0.0)


deg2rad = unary("deg2rad", lambda x: x * x.dtype.type(_TO_RAD), lambda g, x, y: g * _TO_RAD, saves=None,
                node="Deg2RadBackward0", variants=_MATH)
rad2deg = unary("rad2deg", lambda x: x * x.dtype.type(_TO_DEG), lambda g, x, y: g * _TO_DEG, saves=None,
                node="Rad2DegBackward0", variants=_MATH)
sinc = unary("sinc", np.sinc, _sinc_grad, saves="both", variants=_MATH)
