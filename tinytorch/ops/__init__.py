"""Primitive ops: each forward (numpy) beside its node's backward (tinytorch ops only)."""
from . import arith, binary, clamp, compare, index, inplace, join, linalg, power, reduce, shape, unary  # noqa: F401
from . import special_normal, special_log, special_bessel, special_gamma, special_polynomials, linalg_solve, linalg_lu, linalg_misc  # noqa: F401,E501
