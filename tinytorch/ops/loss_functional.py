"""The losses of ``nn.functional`` beyond cross-entropy and the regressions: kl_div,
poisson_nll_loss, gaussian_nll_loss, margin_ranking_loss, hinge_embedding_loss,
triplet_margin_loss, cosine_embedding_loss, soft_margin_loss, multilabel_soft_margin_loss and
multi_margin_loss.

PyTorch composes most of them from tensor ops (in ATen or in Python); they are composed here in the
same order, so the recorded graph ends in the same nodes. soft_margin_loss and multi_margin_loss
are kernels of their own there, and primitives here (``_loss_ops.py``)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..autograd.grad_mode import no_grad
from ..nn._reduction import legacy_get_string
from ..tensor import Tensor, _make
from . import loss_margin as _loss_ops
from . import normalize as _act
from .activation_smooth import logsigmoid
from .arith import where

__all__ = ["kl_div", "poisson_nll_loss", "gaussian_nll_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "triplet_margin_loss", "cosine_embedding_loss",
           "soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss"]


def _legacy(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    return reduction


def _apply_reduction(loss: Tensor, reduction: str) -> Tensor:
    _loss_ops._check_reduction(reduction)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _xlogy(x: Tensor) -> Tensor:
    """x * log(x), 0 where x == 0."""
    zero = _make(np.asarray(x._data == 0))
    return where(zero, 0.0, x * where(zero, 1.0, x).log())


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence of ``target`` from the log-probabilities ``input``."""
    legacy = size_average is not None or reduce is not None
    if legacy:
        reduction = legacy_get_string(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", stacklevel=2)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy(target) - target * input
    if reduction == "batchmean":
        summed = loss.sum()
        return summed / input.shape[0] if input.ndim != 0 else summed
    return _apply_reduction(loss, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of ``target`` under a Poisson of rate exp(input) (or input)."""
    reduction = _legacy(size_average, reduce, reduction)
    _loss_ops._check_reduction(reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        loss = loss + where(_make(np.asarray(target._data <= 1)), 0.0, stirling)
    return _apply_reduction(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of ``target`` under a Gaussian of mean ``input``, variance ``var``."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _make(np.ones_like(input._data))
    elif bool((var._data < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(
                y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass  # one dimension of var is 1 (heteroscedastic across it): broadcasting does it
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)  # the clamp must not stop gradients flowing to var
    loss = (var.log() + (input - target) ** 2 / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, -y (x1 - x2) + margin)."""
    reduction = _legacy(size_average, reduce, reduction)
    _loss_ops._check_reduction(reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but "
                           f"got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    out = _act.clamp_min(-target * (input1 - input2) + margin, 0)
    return _apply_reduction(out, reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """x where y == 1, max(0, margin - x) where y == -1."""
    reduction = _legacy(size_average, reduce, reduction)
    _loss_ops._check_reduction(reduction)
    zeros = _make(np.zeros_like(input._data))
    margin_clamp = _act.clamp_min(margin - input, 0)
    t = target._data
    out_margin = where(_make(np.asarray(t != 1)), margin_clamp, zeros)
    out_self = where(_make(np.asarray(t != -1)), input, zeros)
    return _apply_reduction(out_margin + out_self, reduction)


def _pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p along the last dimension."""
    ndim = max(x1.ndim, x2.ndim)
    return _act.vector_norm(x1 - x2 + eps, p, ndim - 1 if ndim else 0, keepdim) if ndim else \
        (x1 - x2 + eps).abs()


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)), d the p-norm distance."""
    reduction = _legacy(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, q, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == q == n):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {q}D, and "
                           f"negative {n}D inputs")
    _loss_ops._check_reduction(reduction)
    dist_pos = _pairwise_distance(anchor, positive, p, eps)
    dist_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_swap = _pairwise_distance(positive, negative, p, eps)
        dist_neg = dist_neg.minimum(dist_swap)
    out = _act.clamp_min(margin + dist_pos - dist_neg, 0)
    return _apply_reduction(out, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where y == 1, max(0, cos(x1, x2) - margin) where y == -1."""
    reduction = _legacy(size_average, reduce, reduction)
    _loss_ops._check_reduction(reduction)
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
    neg = _act.clamp_min(cos - margin, 0)
    t = target._data
    out = where(_make(np.asarray(t == 1)), pos, zeros) + where(_make(np.asarray(t == -1)), neg,
                                                                 zeros)
    return _apply_reduction(out, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """log(1 + exp(-y x)): two-class logistic loss with targets ±1."""
    reduction = _legacy(size_average, reduce, reduction)
    return _loss_ops.soft_margin_loss(input, target, reduction)


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


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average=None, reduce=None,
                      reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: sum over j != y of max(0, margin - x[y] + x[j])^p / C."""
    reduction = _legacy(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    return _loss_ops.multi_margin_loss(input, target, p, margin, weight, reduction)
