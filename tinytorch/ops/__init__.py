"""Primitive ops: each forward (numpy) beside its node's backward (tinytorch ops only)."""
from . import arith, binary, clamp, compare, index, inplace, join, linalg, power, reduce, shape, unary  # noqa: F401
from . import minmax, scan, softmax, sort  # noqa: F401,E402  (after reduce, whose helpers they use)
