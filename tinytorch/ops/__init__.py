"""Primitive ops: each forward (numpy) beside its node's backward (tinytorch ops only)."""
from .._ops.nn import attention, multihead_attention, rms_norm  # noqa: F401
from .._ops.pointwise import arith, binary, clamp, compare, inplace, power, unary  # noqa: F401,E501
from .._ops.shape import conversions, join, shape  # noqa: F401,E501
from .._ops.index import index  # noqa: F401,E501
from .._ops.linalg import matmul as linalg  # noqa: F401,E501
from .._ops.reduce import reduce  # noqa: F401,E501
from .._ops.reduce import counting, minmax, scan, softmax, sort  # noqa: F401  (after reduce)
from .._ops.linalg import einsum, solve as linalg_ext, products, norms as vector_norm  # noqa: F401  (after reduce)
from .._ops.index import masked  # noqa: F401
from .._ops.special import erf_gamma as special  # noqa: F401
from .._ops.shape import tri  # noqa: F401
from .._ops.pointwise import complex  # noqa: F401
from .._ops.fft import fft, spectral, windows  # noqa: F401
from .._ops.shape import broadcast, indices, rotate, stacking  # noqa: F401
from .._ops.reduce import bucketize, differences, nan_reduce  # noqa: F401
from .._ops.pointwise import floating_binary, ternary as pointwise_ternary, trig  # noqa: F401
# nn.functional's ops (pool before adaptive_pool: each imports the other)
from .._ops.nn import (activation, activation_slopes, activation_smooth, conv, dropout, embedding, fold,  # noqa: F401
                       linear, loss, loss_margin, loss_nll, norm, batch_norm, normalize, pad, pool, adaptive_pool,
                       resize)
# issue 20's nn ops, composed of the kernels above
from .._ops.nn import (alpha_dropout, bilinear, conv3d, ctc_loss, embedding_bag, grid_sample,  # noqa: F401
                       instance_norm, lrn, multilabel_margin, pixel_shuffle, pool3d, unpool)
from .._ops.nn import fractional_pool, linear_cross_entropy, weight_norm  # noqa: F401,E402
from .._ops.special import (normal as special_normal, xlogy as special_log, bessel as special_bessel,  # noqa: F401
                            gamma as special_gamma, polynomials as special_polynomials)
from .._ops.linalg import triangular as linalg_solve, lu as linalg_lu, functions as linalg_functions  # noqa: F401
from .._ops.shape import copies, strided  # noqa: F401  (after shape, join and fold)
from .._ops.index import scatter_reduce  # noqa: F401
from .._ops.index import scatter_views  # noqa: F401
from .._ops.index import index_put  # noqa: F401
from .._ops.pointwise import float_bits  # noqa: F401
from .._ops.shape import assemble  # noqa: F401
from .._ops.reduce import integrate  # noqa: F401
from .._ops.linalg import products_blas  # noqa: F401
from .._ops.reduce import quantile  # noqa: F401
from .._ops.reduce import histogram  # noqa: F401
from .._ops.linalg import legacy as linalg_legacy  # noqa: F401
from .._ops.linalg import eig as linalg_eig  # noqa: F401
from .._ops.fft import signal_windows  # noqa: F401
from .._ops.reduce import masked as masked_reductions  # noqa: F401
from .._ops.shape import (tensor_ops as tensor_surface)  # noqa: F401  (after shape and strided: fill_diagonal_ writes through views)
