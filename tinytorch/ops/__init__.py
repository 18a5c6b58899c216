"""Primitive ops: each forward (numpy) beside its node's backward (tinytorch ops only)."""
from . import arith, binary, clamp, compare, index, inplace, join, linalg, power, reduce, shape, unary  # noqa: F401
from . import counting, einsum, linalg_ext, minmax, products, scan, softmax, sort, vector_norm  # noqa: F401  (after reduce)
