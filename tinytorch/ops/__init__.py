"""Primitive ops: each forward (numpy) beside its node's backward (tinytorch ops only)."""
from . import arith, binary, clamp, compare, index, inplace, join, linalg, power, reduce, shape, unary  # noqa: F401
from . import activation, activation_smooth, dropout, loss, loss_margin, loss_nll, normalize  # noqa: F401  (nn.functional's ops)
