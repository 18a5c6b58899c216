"""``tinytorch.nn.functional``: a namespace filled from the op registry (every op declared with an
``nn.functional`` spelling in ``tinytorch/ops/``: activations, dropout, losses, ...), plus the few
spellings that are not yet declared ops."""
from __future__ import annotations

import numpy as np

from ..ops.activation_smooth import log_softmax, softmax  # noqa: F401  (reduce.py's ops, not yet declared)
from ..ops.linalg import linear  # noqa: F401
from ..tensor import Tensor, _make


# -- one_hot ----------------------------------------------------------------------------------------
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding with a new last dim of size ``num_classes`` (inferred when -1)."""
    t = tensor._data
    if t.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if t.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(t.max()) + 1
    if t.size and t.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if t.size and t.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _make((t[..., None] == np.arange(num_classes)).astype(np.int64))


# -- normalisation, embedding, channel dropout, padding, resizing, fold/unfold --------------------
from ._functional_layers import (batch_norm, embedding, fold,  # noqa: E402
                                 group_norm, interpolate, layer_norm, pad, unfold, upsample)


# -- distances (ops/products.py) ----------------------------------------------------------------------
from ..ops.products import cosine_similarity, pairwise_distance  # noqa: E402,F401

# -- convolution and pooling ----------------------------------------------------------------------
from ..ops.conv import conv1d, conv2d, conv_transpose2d  # noqa: E402,F401
from ..ops.pool import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool2d, avg_pool1d,  # noqa: E402,F401
                        avg_pool2d, max_pool1d, max_pool2d)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """max_pool1d that also returns the argmax positions."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """max_pool2d that also returns the argmax positions."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """adaptive_max_pool2d that also returns the argmax positions."""
    return adaptive_max_pool2d(input, output_size, True)



# every op declared with an nn.functional spelling (tinytorch/ops/_registry.py)
from ..ops import _registry  # noqa: E402

globals().update(_registry.namespace("nn.functional"))

__all__ = sorted(n for n, v in globals().items() if not n.startswith("_") and callable(v)
                 and n not in ("annotations", "Tensor"))
