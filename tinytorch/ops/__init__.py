"""Primitive ops: each forward (numpy) beside its node's backward (tinytorch ops only)."""
from . import arith, binary, clamp, compare, index, inplace, join, linalg, power, reduce, shape, unary  # noqa: F401
from . import broadcast, bucketize, differences, floating_binary, indices, nan_reduce, pointwise_ternary, rotate, stacking, trig  # noqa: F401
# nn.functional's ops (pool before adaptive_pool: each imports the other)
from . import (activation, activation_smooth, conv, dropout, embedding, fold, linear, loss, loss_margin,  # noqa: F401
               loss_nll, norm, normalize, pad, pool, adaptive_pool, resize)
