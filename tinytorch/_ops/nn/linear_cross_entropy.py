"""``nn.functional.linear_cross_entropy``: cross_entropy(linear(input, W, b), target), with W of shape
(C, d_1, ..., d_K, in_features) for a K-dimensional loss. PyTorch can run it chunked over the rows
(``options``); tinytorch validates the options (warning, as PyTorch, where its chunked kernel would
not apply) and computes the unchunked composite, which is the same mathematics."""
from __future__ import annotations

import math
import warnings

from ..._dtype import int64
from ...tensor import Tensor
from .._core.registry import op
from .linear import linear
from .loss_nll import cross_entropy


def _check(input: Tensor, linear_weight: Tensor, target: Tensor, linear_bias, ignore_index):
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
                           f"requires batched input, (N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*batch, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    return num_classes, out_features, in_features, logits_shape


@op(variants="functional")
def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias=None, weight=None,
                         reduction: str = "mean", ignore_index=None, label_smoothing: float = 0.0,
                         options=None) -> Tensor:
    """Cross entropy of ``linear(input, linear_weight, linear_bias)`` against ``target``."""
    num_classes, out_features, in_features, logits_shape = _check(input, linear_weight, target, linear_bias,
                                                                   ignore_index)
    if options is not None and (out_features or reduction not in ("mean", "sum", "none")
                                or label_smoothing != 0.0 or target.dtype != int64):
        bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in {'mean','sum',"
                      "'none'}, label_smoothing == 0, target.dtype == int64, out_features == (). Got "
                      f"reduction={reduction!r}, label_smoothing={label_smoothing}, "
                      f"target.dtype=torch.{str(target.dtype).split('.')[-1]}, out_features={out_features}, "
                      f"tracing=False, linear_bias.shape={bias_shape}.", stacklevel=3)
    if out_features:
        rows = math.prod(out_features) * num_classes
        linear_weight = linear_weight.reshape(rows, in_features)
        linear_bias = linear_bias.reshape(rows) if linear_bias is not None else None
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)
