"""``tinytorch.nn.functional``: activations, dropout, one_hot and losses as plain functions.

Most are one call into a primitive (``tinytorch.ops`` or ``nn/_activation_ops.py``); the
probability-target and label-smoothing forms of cross_entropy are composed from tensor ops in
the same order as PyTorch, so they record the same graph."""
from __future__ import annotations

import warnings

import numpy as np

from ..ops import loss as _loss
from ..ops._util import broadcast_shapes
from ..ops.compare import where as _where
from ..ops.linalg import linear  # noqa: F401  (re-exported: F.linear)
from ..ops.reduce import log_softmax as _log_softmax
from ..ops.activation_smooth import log_softmax, softmax  # noqa: F401  (not yet declared: reduce.py's ops)
from ..tensor import Tensor, _make
from ._reduction import resolve as _resolve_reduction

__all__ = ["linear", "relu", "relu_", "relu6", "leaky_relu", "gelu", "silu", "elu", "softplus", "hardtanh",
           "sigmoid", "tanh", "softmax", "log_softmax", "softmin", "dropout", "one_hot", "cross_entropy",
           "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits"]


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


# -- classification losses ------------------------------------------------------------------------
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class indices under log-probabilities ``input`` (classes on dim 1)."""
    reduction = _resolve_reduction(size_average, reduce, reduction)
    return _loss.nll_loss(input, target, weight, ignore_index, reduction)


def _class_shape(ndim: int, n_classes: int, class_dim: int) -> tuple:
    """The shape that broadcasts a per-class vector along ``class_dim``."""
    return tuple(n_classes if d == class_dim else 1 for d in range(ndim))


def _cross_entropy_probs(input: Tensor, target: Tensor, weight, reduction: str, label_smoothing: float):
    class_dim = 0 if input.ndim == 1 else 1
    n_classes = input.shape[class_dim]
    logp = _log_softmax(input, class_dim)
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    prod = logp * target
    if weight is not None:
        prod = prod * weight.view(_class_shape(input.ndim, n_classes, class_dim))
    if reduction == "mean":
        return -prod.sum() / (input.numel() / n_classes)
    if reduction == "sum":
        return -prod.sum()
    return -prod.sum(class_dim)


def _cross_entropy_smoothed(input: Tensor, target: Tensor, weight, ignore_index: int, reduction: str,
                            label_smoothing: float):
    class_dim = 0 if input.ndim == 1 else 1
    n_classes = input.shape[class_dim]
    logp = _log_softmax(input, class_dim)
    nll = _loss.nll_loss(logp, target, weight, ignore_index, reduction)
    ignored = target._data == ignore_index
    if weight is not None:
        smooth = -(logp * weight.view(_class_shape(input.ndim, n_classes, class_dim))).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = _where(_make(ignored), 0.0, smooth)
    if reduction == "mean":
        if weight is not None:
            denom = np.asarray(weight._data[target._data[~ignored]].sum())
        else:
            denom = np.asarray((~ignored).sum())
        smoothed = smooth.sum() / _make(denom)
    elif reduction == "sum":
        smoothed = smooth.sum()
    else:
        smoothed = smooth
    return (1 - label_smoothing) * nll + smoothed * (label_smoothing / n_classes)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy of logits ``input`` against class indices or class probabilities ``target``."""
    reduction = _resolve_reduction(size_average, reduce, reduction)
    _loss.check_reduction(reduction)
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    if input._data.shape == target._data.shape:
        if target._data.dtype.kind != "f":
            raise RuntimeError("Expected floating point type for target with class probabilities, got "
                               f"{target.dtype._legacy[:-6]}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        return _cross_entropy_smoothed(input, target, weight, ignore_index, reduction, label_smoothing)
    return _loss.cross_entropy(input, target, weight, ignore_index, reduction)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of probabilities ``input`` against ``target`` (same shape)."""
    reduction = _resolve_reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    return _loss.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross-entropy of logits ``input`` (sigmoid applied inside, stably) against ``target``."""
    reduction = _resolve_reduction(size_average, reduce, reduction)
    return _loss.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)


# -- regression losses ----------------------------------------------------------------------------
def _check_sizes(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)
    broadcast_shapes(input._data.shape, target._data.shape)


def _weighted(errors: Tensor, weight: Tensor, input: Tensor, reduction: str) -> Tensor:
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    errors = errors * weight
    if reduction == "none":
        return errors
    if reduction == "sum":
        return errors.sum()
    if reduction == "mean":
        return errors.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _reduce(errors: Tensor, reduction: str) -> Tensor:
    _loss.check_reduction(reduction)
    if reduction == "mean":
        return errors.mean()
    return errors.sum() if reduction == "sum" else errors


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Squared error (x - y)^2, averaged, summed or per element."""
    _check_sizes(input, target)
    reduction = _resolve_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target) ** 2, weight, input, reduction)
    return _loss.mse_loss(input, target, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Absolute error |x - y|, averaged, summed or per element."""
    _check_sizes(input, target)
    reduction = _resolve_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).abs(), weight, input, reduction)
    return _reduce((input - target).abs(), reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = x - y)."""
    _check_sizes(input, target)
    reduction = _resolve_reduction(size_average, reduce, reduction)
    d = (input - target).abs()
    if beta == 0.0:
        return _reduce(d, reduction)
    return _reduce(_where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta), reduction)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta) (d = x - y)."""
    _check_sizes(input, target)
    d = (input - target).abs()
    errors = _where(d <= delta, d * d * 0.5, (d - 0.5 * delta) * delta)
    if weight is not None:
        return _weighted(errors, weight, input, reduction)
    return _reduce(errors, reduction)


# -- normalisation, embedding, channel dropout, padding, resizing, fold/unfold --------------------
from ._functional_layers import (batch_norm, embedding, fold,  # noqa: E402
                                 group_norm, interpolate, layer_norm, pad, unfold, upsample)

__all__ += ["batch_norm", "layer_norm", "group_norm", "embedding", "dropout1d", "dropout2d", "dropout3d", "pad",
            "interpolate", "upsample", "unfold", "fold"]

# -- more losses (functional_loss.py)
from ..ops.loss_functional import (cosine_embedding_loss, gaussian_nll_loss,  # noqa: E402
                              hinge_embedding_loss, kl_div, margin_ranking_loss,
                              multi_margin_loss, multilabel_soft_margin_loss, poisson_nll_loss,
                              soft_margin_loss, triplet_margin_loss)

__all__ += ["cosine_embedding_loss", "gaussian_nll_loss",
            "hinge_embedding_loss", "kl_div", "margin_ranking_loss", "multi_margin_loss",
            "multilabel_soft_margin_loss", "poisson_nll_loss", "soft_margin_loss",
            "triplet_margin_loss"]

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


__all__ += ["conv1d", "conv2d", "conv_transpose2d", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d",
            "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "max_pool1d_with_indices",
            "max_pool2d_with_indices", "adaptive_max_pool2d_with_indices"]

# every op declared with an nn.functional spelling (tinytorch/ops/_registry.py)
from ..ops import _registry  # noqa: E402

globals().update(_registry.namespace("nn.functional"))
