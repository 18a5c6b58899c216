"""Primitive ops: each forward (numpy) beside its node's backward (tinytorch ops only)."""
from . import arith, binary, clamp, compare, conversions, index, inplace, join, linalg, power, reduce, shape, unary  # noqa: F401,E501
from . import masked, tri  # noqa: F401
