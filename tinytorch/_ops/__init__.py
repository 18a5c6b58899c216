"""The ops, one subpackage per family as PyTorch groups them: each op's forward (numpy) beside its
node's backward (tinytorch ops only), declared once in ``_core.registry``, which attaches the torch,
Tensor, in-place and ``out=`` spellings. ``_kernels`` holds the array kernels kept for speed or for
PyTorch's exact floats.

Importing a family module declares its ops; the list below imports them all. Its order matters
where one module's import-time declarations read another's (noted beside those lines)."""
from .nn import attention, multihead_attention, rms_norm  # noqa: F401
from .pointwise import arith, binary, clamp, compare, division, inplace, power, unary  # noqa: F401
from .shape import conversions, join, shape  # noqa: F401
from .creation import deprecated  # noqa: F401
from .index import index  # noqa: F401
from .linalg import matmul  # noqa: F401
from .reduce import reduce  # noqa: F401
from .reduce import counting, minmax, scan, softmax, sort  # noqa: F401  (after reduce)
from .linalg import solve, decompositions, products, norms  # noqa: F401  (after reduce)
from .index import masked  # noqa: F401
from .special import erf_gamma  # noqa: F401
from .shape import tri  # noqa: F401
from .pointwise import complex  # noqa: F401
from .fft import fft, spectral, windows  # noqa: F401
from .shape import broadcast, indices, rotate, stacking  # noqa: F401
from .reduce import bucketize, differences, hashing, nan_reduce  # noqa: F401
from .pointwise import floating_binary, ternary, trig  # noqa: F401
# nn.functional's ops
from .nn import (activation, activation_smooth, conv, dropout, embedding, fold, linear,  # noqa: F401
                 loss, loss_margin, loss_nll, norm, batch_norm, normalize, pad, pool, resize)
from .nn import (bilinear, conv3d, ctc_loss, grid_sample,  # noqa: F401
                 instance_norm, lrn, pixel_shuffle, pool3d, unpool)
from .nn import fractional_pool, linear_cross_entropy, weight_norm  # noqa: F401
from .special import bessel, gamma, normal, polynomials, xlogy  # noqa: F401
from .linalg import matrix_functions, triangular  # noqa: F401
from .shape import copies, strided  # noqa: F401  (after shape, join and fold)
from .index import index_put, scatter_reduce, scatter_views  # noqa: F401
from .pointwise import float_bits  # noqa: F401
from .shape import assemble  # noqa: F401
from .reduce import histogram, integrate, quantile  # noqa: F401
from .linalg import legacy  # noqa: F401
from .masked import reductions as masked_reductions  # noqa: F401
from .shape import tensor_ops  # noqa: F401  (after shape and strided: fill_diagonal_ writes through views)
from .sparse import pointwise as sparse_pointwise  # noqa: F401  (last: calls the dense ops; loads the family)
