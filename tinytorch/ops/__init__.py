"""Primitive ops: each forward (numpy) beside its node's backward (tinytorch ops only)."""
from . import attention, multihead_attention, rms_norm  # noqa: F401
from . import arith, binary, clamp, compare, index, inplace, join, linalg, power, reduce, shape, unary  # noqa: F401
