"""Primitive ops: each forward (numpy) beside its node's backward (tinytorch ops only)."""
from . import arith, index, inplace, join, linalg, reduce, shape, unary  # noqa: F401
