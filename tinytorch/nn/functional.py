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
from ..ops.reduce import softmax as _softmax
from ..ops.unary import relu as _relu
from ..ops.unary import sigmoid, tanh  # noqa: F401  (re-exported: F.sigmoid, F.tanh)
from .._random import draws as _draws
from ..random import _engine
from ..tensor import Tensor, _make
from . import _activation_ops as _act
from ._reduction import resolve as _resolve_reduction

__all__ = ["linear", "relu", "relu_", "relu6", "leaky_relu", "gelu", "silu", "elu", "softplus", "hardtanh",
           "sigmoid", "tanh", "softmax", "log_softmax", "softmin", "dropout", "one_hot", "cross_entropy",
           "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits"]


# -- activations ----------------------------------------------------------------------------------
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0) elementwise."""
    return input.relu_() if inplace else _relu(input)


def relu_(input: Tensor) -> Tensor:
    """In-place relu."""
    return input.relu_()


def _maybe_inplace(input: Tensor, out: Tensor, inplace: bool) -> Tensor:
    return input.copy_(out) if inplace else out


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit: x * Phi(x), or its tanh approximation."""
    return _act.gelu(input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    return _maybe_inplace(input, _act.silu(input), inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta x)) / beta."""
    return _act.softplus(input, beta, threshold)


def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim``."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    return _softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """log(softmax(x)) along ``dim``, computed stably."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    return _log_softmax(input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmax(-x) along ``dim``."""
    if dim is None:
        dim = _implicit_dim("softmin", input.ndim, _stacklevel)
    return _softmax(-input, dim, dtype)


# -- dropout and one_hot --------------------------------------------------------------------------
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p); the identity unless training."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    x = input._data
    if p == 1:
        mask = np.zeros(x.shape, dtype=x.dtype)
    else:
        # PyTorch's CPU dropout: bernoulli_(1 - p) (a double uniform per element), divided by 1 - p
        keep = _draws.bernoulli_scalar(_engine(None), x.size, 1 - p)
        # drawn in memory order: PyTorch's mask is empty_like(input), with a dense view's strides
        order = np.argsort([-s for s in x.strides], kind="stable") if x.ndim > 1 else None
        if order is not None and x.transpose(order).flags.c_contiguous and not x.flags.c_contiguous:
            keep = keep.reshape([x.shape[i] for i in order]).transpose(np.argsort(order))
        mask = keep.reshape(x.shape).astype(x.dtype) / x.dtype.type(1 - p)
    return input.mul_(_make(mask)) if inplace else input * _make(mask)


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
from ._functional_layers import (batch_norm, dropout1d, dropout2d, dropout3d, embedding, fold,  # noqa: E402
                                 group_norm, interpolate, layer_norm, pad, unfold, upsample)

__all__ += ["batch_norm", "layer_norm", "group_norm", "embedding", "dropout1d", "dropout2d", "dropout3d", "pad",
            "interpolate", "upsample", "unfold", "fold"]

# -- more activations and losses (functional_activation.py, functional_loss.py); hardtanh, relu6,
# leaky_relu and elu are rebound to primitives that record PyTorch's nodes (HardtanhBackward0...)
from .functional_activation import (celu, celu_, elu, elu_, glu, gumbel_softmax,  # noqa: E402
                                    hardshrink, hardsigmoid, hardswish, hardtanh, hardtanh_,
                                    leaky_relu, leaky_relu_, logsigmoid, mish, normalize, prelu,
                                    relu6, rrelu, rrelu_, selu, selu_, softshrink, softsign,
                                    tanhshrink, threshold, threshold_)
from .functional_loss import (cosine_embedding_loss, gaussian_nll_loss,  # noqa: E402
                              hinge_embedding_loss, kl_div, margin_ranking_loss,
                              multi_margin_loss, multilabel_soft_margin_loss, poisson_nll_loss,
                              soft_margin_loss, triplet_margin_loss)

__all__ += ["celu", "celu_", "elu_", "glu", "gumbel_softmax", "hardshrink", "hardsigmoid",
            "hardswish", "hardtanh_", "leaky_relu_", "logsigmoid", "mish", "normalize", "prelu",
            "rrelu", "rrelu_", "selu", "selu_", "softshrink", "softsign", "tanhshrink",
            "threshold", "threshold_", "cosine_embedding_loss", "gaussian_nll_loss",
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
