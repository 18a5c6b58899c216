"""Angle conversions: ``deg2rad``, ``rad2deg`` (sinc is declared with the special functions, special_log.py)."""
from __future__ import annotations

import math

from .._core.pointwise import SparseValues, unary

_MATH = "function method inplace torch_inplace out"
_TO_RAD = math.pi / 180.0
_TO_DEG = 180.0 / math.pi


deg2rad = unary("deg2rad", lambda x: x * x.dtype.type(_TO_RAD), lambda g, x, y: g * _TO_RAD, saves=None,
                node="Deg2RadBackward0", variants=_MATH, sparse=SparseValues(csr=False))
rad2deg = unary("rad2deg", lambda x: x * x.dtype.type(_TO_DEG), lambda g, x, y: g * _TO_DEG, saves=None,
                node="Rad2DegBackward0", variants=_MATH, sparse=SparseValues(csr=False))
