"""The margin and embedding losses: margin_ranking, hinge_embedding, triplet_margin,
cosine_embedding, soft_margin, multilabel_soft_margin, multi_margin and multilabel_margin.

PyTorch composes most of them from tensor ops (in ATen or in Python); they are composed here in the
same order, so the recorded graph ends in the same nodes. soft_margin_loss and multi_margin_loss are
kernels of their own there (``SoftMarginLossBackward0``, ``MultiMarginLossBackward0``), and
primitives here. The ``torch.X`` spellings take the reduction as PyTorch's enum (0 none, 1 mean, 2 sum).

multilabel_margin_loss: for each sample, the hinge max(0, 1 - (x[y_j] - x[i])) summed over its target
classes y_j (read up to the first -1) and its non-target classes i, divided by the number of classes.
The target pattern is a numpy mask; the loss a tinytorch expression of the input."""
from __future__ import annotations

import numpy as np

from ..._meta_array import MetaArray, no_meta_kernel
from ..._quiet_fp import silent
from ...autograd.grad_mode import _State
from ...autograd.node import Node
from ._reduction import resolve as _legacy, resolve as _resolve_reduction
from ...tensor import Tensor, _make
from .._core.registry import op
from .._core.util import as_array, reduction_enum
from .._core.record import record
from .activation import functional_spelling
from .activation_smooth import logsigmoid
from ..pointwise.compare import where
from .loss import _reduce, apply_reduction, check_reduction, reduction_name
from ..linalg.norms import NormBackward1, vector_norm
from ..pointwise.clamp import clamp_min
from ..linalg import products as _products


class SoftMarginLossBackward0(Node):
    saved_fields = (("reduction", lambda n: reduction_enum(n.reduction)), ("self", 0), ("target", 1))

    def backward(self, g):
        x, y = self._unpacked_saved
        coef = -y * (-y * x).sigmoid()
        if self.reduction == "mean":
            g = g / x.numel()
        return (coef * g,)


def _soft_margin_loss(input: Tensor, target: Tensor, reduction: str) -> Tensor:
    """log(1 + exp(-y x)), reduced."""
    check_reduction(reduction)
    x, y = input._data, target._data
    try:
        ok = np.broadcast_shapes(x.shape, y.shape) == x.shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"The size of tensor a ({x.shape[-1]}) must match the size of tensor b "
                           f"({y.shape[-1]}) at non-singleton dimension {x.ndim - 1}")
    losses = np.log1p(np.exp(-y * x)).astype(x.dtype, copy=False)
    return record(_reduce(losses, reduction), SoftMarginLossBackward0, (input,), (input, target), reduction=reduction)


class MultiMarginLossBackward0(Node):
    saved_fields = (("self", 0), ("target", 1), ("p", "p"), ("margin", "margin"), ("weight", 2),
                    ("reduction", lambda n: reduction_enum(n.reduction)))

    def backward(self, g):
        x = self._unpacked_saved[0]
        if type(x._data) is MetaArray:  # PyTorch has no meta kernel for this backward
            raise NotImplementedError(no_meta_kernel("multi_margin_loss_backward"))
        x2 = x.view(self.shape2d)
        hot, mask, scale = (_make(a) for a in (self.hot, self.mask, self.scale))
        z = x2.gather(1, _make(self.target[:, None])) * -1 + x2 + self.margin
        dz = mask if self.p == 1 else z * mask * 2.0
        if self.reduction == "none":
            g = g.reshape(-1, 1)
        elif self.reduction == "mean":
            g = g / self.shape2d[0]
        grad = dz * scale * g
        grad = grad - hot * grad.sum(1, keepdim=True)
        return (grad.view(x.shape),)


@silent  # margin - x[y] + x[j] meets inf - inf when an input is infinite: NaN, silently as in PyTorch
def _multi_margin_loss(input: Tensor, target: Tensor, p: int, margin: float,
                       weight: Tensor | None, reduction: str) -> Tensor:
    """sum over j != y of max(0, margin - x[y] + x[j])^p (times weight[y]) / C, per sample."""
    check_reduction(reduction)
    x, t = input._data, target._data
    x2 = x.reshape(1, -1) if x.ndim <= 1 else x
    n, c = x2.shape
    tt = t.reshape(-1)
    if tt.size != n or (x.ndim == 2 and t.ndim != 1):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the "
                           "number of input samples (batch size). Expected target size "
                           f"[{n}], but got [{', '.join(map(str, t.shape))}]. Input has shape "
                           f"[{', '.join(map(str, x.shape))}].")
    if tt.size and (tt.min() < 0 or tt.max() >= c):
        raise RuntimeError("target out of range")
    rows = np.arange(n)
    z = margin - x2[rows, tt][:, None] + x2
    hot = np.zeros_like(x2)
    hot[rows, tt] = 1
    mask = ((z > 0) & (hot == 0)).astype(x.dtype)
    h = np.where(mask > 0, z if p == 1 else z * z, 0)
    scale = np.full((n, 1), 1.0 / c, dtype=x.dtype)
    if weight is not None:
        scale = (weight._data[tt] / c).astype(x.dtype)[:, None]
    losses = (h * scale).sum(1).astype(x.dtype)
    if x.ndim <= 1 and reduction == "none":
        losses = losses.reshape(t.shape)
    return record(_reduce(losses, reduction), MultiMarginLossBackward0, (input,), (input, target, weight),
                  shape2d=(n, c), target=tt, hot=hot, mask=mask, scale=scale, p=p, margin=margin, reduction=reduction)


@functional_spelling("margin_ranking_loss")
def _margin_ranking_functional(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                               size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, -y (x1 - x2) + margin)."""
    reduction = _legacy(size_average, reduce, reduction)
    check_reduction(reduction)
    return margin_ranking_loss(input1, input2, target, margin, reduction)


@op(variants="function functional", functional=_margin_ranking_functional, autocast="fp32")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction=1) -> Tensor:
    """max(0, -y (x1 - x2) + margin)."""
    reduction = reduction_name(reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but "
                           f"got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    out = clamp_min(-target * (input1 - input2) + margin, 0)
    return apply_reduction(out, reduction)


@functional_spelling("hinge_embedding_loss")
def _hinge_embedding_functional(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """x where y == 1, max(0, margin - x) where y == -1."""
    reduction = _legacy(size_average, reduce, reduction)
    check_reduction(reduction)
    return hinge_embedding_loss(input, target, margin, reduction)


@op(variants="function functional", functional=_hinge_embedding_functional, autocast="fp32")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction=1) -> Tensor:
    """x where y == 1, max(0, margin - x) where y == -1."""
    reduction = reduction_name(reduction)
    zeros = _make(np.zeros_like(input._data))
    margin_clamp = clamp_min(margin - input, 0)
    t = target._data
    out_margin = where(_make(as_array(t != 1)), margin_clamp, zeros)
    out_self = where(_make(as_array(t != -1)), input, zeros)
    return apply_reduction(out_margin + out_self, reduction)


def _pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p along the last dimension."""
    ndim = max(x1.ndim, x2.ndim)
    return vector_norm(x1 - x2 + eps, p, ndim - 1 if ndim else 0, keepdim, _node=NormBackward1) if ndim else \
        (x1 - x2 + eps).abs()


@functional_spelling("triplet_margin_loss")
def _triplet_margin_functional(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                               p: float = 2, eps: float = 1e-6, swap: bool = False, size_average=None,
                               reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)), d the p-norm distance."""
    reduction = _legacy(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction)


@op(variants="function functional", functional=_triplet_margin_functional, autocast="fp32")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False, reduction=1) -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)), d the p-norm distance."""
    reduction = reduction_name(reduction)
    a, q, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == q == n):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {q}D, and "
                           f"negative {n}D inputs")
    check_reduction(reduction)
    dist_pos = _pairwise_distance(anchor, positive, p, eps)
    dist_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_swap = _pairwise_distance(positive, negative, p, eps)
        dist_neg = dist_neg.minimum(dist_swap)
    out = clamp_min(margin + dist_pos - dist_neg, 0)
    return apply_reduction(out, reduction)


@functional_spelling("cosine_embedding_loss")
def _cosine_embedding_functional(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                                 size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where y == 1, max(0, cos(x1, x2) - margin) where y == -1."""
    reduction = _legacy(size_average, reduce, reduction)
    check_reduction(reduction)
    return cosine_embedding_loss(input1, input2, target, margin, reduction)


@op(variants="function functional", functional=_cosine_embedding_functional, autocast="fp32")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction=1) -> Tensor:
    """1 - cos(x1, x2) where y == 1, max(0, cos(x1, x2) - margin) where y == -1."""
    reduction = reduction_name(reduction)
    td = target.ndim
    sizes = f"[{', '.join(map(str, input1.shape))}] and [{', '.join(map(str, input2.shape))}]"
    if td > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1 and not (input1.ndim == 2 and input2.ndim == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {sizes}.")
    if td == 0 and not (input1.ndim == 1 and input2.ndim == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {sizes}.")
    eps = 1e-12
    prod_sum = (input1 * input2).sum(td)
    mag1 = (input1 * input1).sum(td) + eps
    mag2 = (input2 * input2).sum(td) + eps
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = _make(np.zeros_like(cos._data))
    pos = 1 - cos
    neg = clamp_min(cos - margin, 0)
    t = target._data
    out = where(_make(as_array(t == 1)), pos, zeros) + where(_make(as_array(t == -1)), neg,
                                                                 zeros)
    return apply_reduction(out, reduction)


@op(variants="functional", autocast="fp32")
def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """log(1 + exp(-y x)): two-class logistic loss with targets ±1."""
    reduction = _legacy(size_average, reduce, reduction)
    return _soft_margin_loss(input, target, reduction)


@op(variants="functional")
def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average=None, reduce=None,
                                reduction: str = "mean") -> Tensor:
    """Per-class logistic loss against 0/1 targets, averaged over the classes."""
    reduction = _legacy(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


@op(variants="functional", autocast="fp32")
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average=None, reduce=None,
                      reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: sum over j != y of max(0, margin - x[y] + x[j])^p / C."""
    reduction = _legacy(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    return _multi_margin_loss(input, target, p, margin, weight, reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function=None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) with any distance ``d`` (default: pairwise_distance).

    Not a declared op: it takes a Python callable, so it is PyTorch's composite, op by op."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, q, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == q == n):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {q}D, and "
                           f"negative {n}D inputs")
    distance = _products.pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(distance(positive, negative))
    loss = clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss


# -- multilabel_margin_loss --------------------------------------------------------------------------
def _targets(y: np.ndarray):
    """(valid (N, C) bool: y[n, j] is a target read before the first -1, member (N, C) bool: i is a target)."""
    stop = np.cumsum(y < 0, axis=1) > 0
    valid = ~stop
    if type(y) is MetaArray:  # a meta target: which classes it names is no shape
        return valid, MetaArray(y.shape, np.bool_)
    member = np.zeros(y.shape, bool)
    rows = np.nonzero(valid)
    member[rows[0], y[valid]] = True
    return valid, member


class MultilabelMarginLossBackward0(Node):
    """Stands before the composite on a meta input that requires grad: PyTorch's backward kernel has no meta
    kernel, so the gradient raises as PyTorch's does (the forward has one)."""

    def backward(self, g):
        raise NotImplementedError(no_meta_kernel("multilabel_margin_loss_backward"))


@functional_spelling("multilabel_margin_loss")
def _multilabel_margin_functional(input: Tensor, target: Tensor, size_average=None, reduce=None,
                                  reduction: str = "mean") -> Tensor:
    """Multi-class multi-label hinge loss of scores (N, C) or (C,) against padded target classes."""
    reduction = _resolve_reduction(size_average, reduce, reduction)
    check_reduction(reduction)
    return multilabel_margin_loss(input, target, {"none": 0, "mean": 1, "sum": 2}[reduction])


@op(variants="functional", functional=_multilabel_margin_functional, autocast="fp32")
def multilabel_margin_loss(input: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    """Multi-class multi-label hinge loss (ATen's spelling: reduction 0 none, 1 mean, 2 sum)."""
    if input.ndim > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    one = input.ndim < 2
    x = input.reshape(1, -1) if one else input
    y = target._data.reshape(x.shape).astype(np.int64)
    n, c = x.shape
    if c == 0:
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size")
    if y.size and ((y >= c) | (y < -1)).any():
        raise RuntimeError("multilabel_margin_loss: target index out of range")
    valid, member = _targets(y)
    if type(x._data) is MetaArray and x._requires_grad and _State.enabled:
        x = record(x._data, MultilabelMarginLossBackward0, (x,))
    xy = x.gather(1, _make(np.where(valid, y, 0)))                      # (N, J) the target scores
    z = 1 - xy.unsqueeze(2) + x.unsqueeze(1)                           # (N, J, C)
    # PyTorch's kernel adds z where z > 0 for each non-target class: a NaN or -inf z adds nothing, and the
    # terms left out are not multiplied by 0 (inf * 0) but dropped
    keep = valid[:, :, None] & ~member[:, None, :] & (z._data > 0)
    per = where(_make(keep), z, 0.0).sum((1, 2)) / c
    if reduction == 0:
        return per.reshape(()) if one else per
    return per.mean() if reduction == 1 else per.sum()
