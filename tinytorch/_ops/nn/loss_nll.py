"""The negative log-likelihood losses: ``nll_loss`` and ``cross_entropy`` (PyTorch's LossNLL kernels),
and ``gaussian_nll_loss`` (composed, as in PyTorch).

``cross_entropy`` with class-index targets is PyTorch's ``nll_loss_nd(log_softmax(input, class_dim), ...)``
and records the same two nodes: ``NllLossBackward0`` whose edge leads to a ``LogSoftmaxBackward0``. The
probability-target and label-smoothing forms are composed from tensor ops in PyTorch's order, so they record
the same graph. Argument checks raise PyTorch's exception types and texts. The CPU paths (the common
training case in one pass over the arrays, the gradient on the arrays) are in ``tinytorch/_cpu/softmax.py``."""
from __future__ import annotations

import math

import numpy as np

from ... import _meta_data
from ..._dtype import FLOATING_NP
from ...autograd.grad_mode import _State, no_grad
from ...autograd.node import Node, u64
from ._reduction import resolve as _resolve_reduction
from ...tensor import Tensor, _make
from .._core.batching import expanded, level_of, unsupported
from .._core.record import record
from .._core.registry import aten_only, op
from .._core.util import as_array, reduction_enum
from .loss import _dims, _legacy, _weight_array, check_reduction
from ..reduce.softmax import log_softmax as _log_softmax


# -- negative log-likelihood ----------------------------------------------------------------------

def _total_weight(node) -> Tensor:
    """PyTorch's total_weight: the targets' weights summed (0 for reduction='none'), in the log-probs' dtype; one
    tensor per node, made when first asked for (``_saved_total_weight``, a graph capture's ``nll_loss_forward[1]``)."""
    made = node.__dict__.get("_total_weight_t")
    if made is not None:
        return made
    logp_t, t, _, _, reduction, wt = node.shown
    dt = logp_t._data.dtype
    if reduction == "none":
        made = _make(as_array(0, dtype=dt))
    elif node.weight_sum is not None:
        made = _make(as_array(node.weight_sum, dtype=dt))
    else:  # every target counted once (cross_entropy's one-pass CPU path keeps no weights)
        made = _make(as_array(len(t), dtype=dt))
    if logp_t._meta:  # a fake trace's: the trace sees it as the fake log-probs' (nll_loss_forward's [1])
        _meta_data.meta_result(made, logp_t)
    node._total_weight_t = made
    return made


class NllLossBackward0(Node):
    """d loss / d log-probs: a constant (minus the target's weight at the target class, zero elsewhere) times
    the upstream gradient (for the mean, divided by the total weight first). ``shown``: what PyTorch's node keeps, for its
    ``_saved_<name>`` values only, made when asked (log-probs, targets, class weights or None, ignore_index,
    reduction, each target's weight or None for ones)."""
    saved_fields = (("ignore_index", lambda n: u64(n.shown[3])), ("reduction", lambda n: reduction_enum(n.shown[4])),
                    ("self", lambda n: n.shown[0]), ("target", lambda n: _make(as_array(n.shown[1]))),
                    ("total_weight", _total_weight),
                    ("weight", lambda n: None if n.shown[2] is None else _make(as_array(n.shown[2]))))

    unsqueeze_dim = None  # the dim a reduction='none' gradient is unsqueezed along (None: reduced)
    weight_sum = None  # the targets' weights summed (``_weight_sum``), where the forward reduced them
    denom = None  # the mean's divisor (the total weight, in the log-probs' dtype); None for 'sum' and 'none'
    graph_args = None  # (target, weight) tensors as given, where a graph capture can name them (1-d or 2-d inputs)

    def backward(self, g):
        if self.graph_args is not None and not _State.array_backward:  # a graph capture: PyTorch's operator
            logp_t, _, _, ignore_index, reduction, _ = self.shown
            target, weight = self.graph_args
            return (nll_loss_backward(g, logp_t, target, weight, reduction_enum(reduction), ignore_index,
                                      _total_weight(self)),)
        (coef,) = self._unpacked_saved
        if self.unsqueeze_dim is not None:
            g = g.unsqueeze(self.unsqueeze_dim)
        elif self.denom is not None:
            g = g / _make(as_array(self.denom))
        return (coef * g,)

    def jvp(self, t):
        (coef,) = self._unpacked_saved
        prod = coef * t
        if self.unsqueeze_dim is not None:
            return prod.sum(self.unsqueeze_dim)
        return prod.sum() if self.denom is None else prod.sum() / _make(as_array(self.denom))


class NllLoss2DBackward0(NllLossBackward0):
    pass


def check_nll(x: np.ndarray, t: np.ndarray, w: np.ndarray | None, ignore_index: int) -> None:
    """PyTorch's argument checks for nll_loss (and cross_entropy with class indices), in its order."""
    nd = x.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1 and x.shape[0] != (t.shape[0] if t.ndim else 0):
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                         f"({t.shape[0] if t.ndim else 0}).")
    n_classes = x.shape[0] if nd == 1 else x.shape[1]
    if nd <= 2:
        if t.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if nd == 1 and t.ndim == 1 and t.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {t.shape[0]}")
        if w is not None and (w.ndim != 1 or w.size != n_classes):
            raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes "
                               f"but got weight tensor of shape: {_dims(w.shape)}")
    else:
        if nd != 4 and t.shape[1:] != x.shape[2:]:
            raise RuntimeError(f"Expected target size {_dims((x.shape[0],) + x.shape[2:])}, got {_dims(t.shape)}")
        if nd == 4 and t.ndim != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {t.ndim}")
        if nd == 4 and (x.shape[0] != t.shape[0] or x.shape[2:] != t.shape[1:]):
            raise RuntimeError(f"size mismatch (got input: {_dims(x.shape)} , target: {_dims(t.shape)}")
        if w is not None and w.size != n_classes:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
    if t.dtype != np.int64 and t.dtype != np.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_legacy(t.dtype)}")
    if w is not None and w.dtype != x.dtype:
        raise RuntimeError(f"expected scalar type {_legacy(x.dtype)} but found {_legacy(w.dtype)}")
    bad = (t != ignore_index) & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {t.reshape(-1)[np.flatnonzero(bad)[0]]} is out of bounds.")


def _target_weights(x2: np.ndarray, t: np.ndarray, w: np.ndarray | None, ignore_index: int) -> tuple:
    """Per target (``t``: a 1-d input's one target as a 1-d array): whether it is ignored, its class (0 where
    ignored) and its weight (0 where ignored), in the log-probs ``x2``'s dtype."""
    t2 = t.astype(np.int64, copy=False)
    ignored = t2 == ignore_index
    safe = np.where(ignored, 0, t2)
    wt = np.ones(t2.shape, dtype=x2.dtype) if w is None else w[safe]
    return ignored, safe, np.where(ignored, 0, wt).astype(x2.dtype, copy=False)


def _loss_sum(picked: np.ndarray, wt: np.ndarray, ignored: np.ndarray, weighted: bool):
    """The losses summed: minus each target's weight times its log-prob, nothing for an ignored target (the
    arrays are per target, in the order of the target tensor's elements). numpy's order of additions here;
    PyTorch's CPU kernel's own (a cascade of partial sums) registers from ``tinytorch/_cpu/nll_sums.py``."""
    return np.where(ignored, 0, -wt * picked).astype(picked.dtype, copy=False).sum()


def _weight_sum(wt: np.ndarray, ignored: np.ndarray, weighted: bool):
    """PyTorch's total_weight: the targets' weights summed (``wt`` is 0 for an ignored target; each weight is 1
    without class weights)."""
    return wt.sum()


def _coefficients(x2: np.ndarray, ignored, safe, wt, zero_total=None) -> np.ndarray:
    """d loss / d log-probs before the mean's division: minus each target's weight at its class, zero elsewhere
    and on ignored targets. The backward divides the upstream gradient by the total weight first, and then
    multiplies, as PyTorch's kernel does (``weight * -(grad / total_weight)``); but a mean over a total weight of
    0 (``zero_total``) is divided here, so that only the targets' entries become NaN, as PyTorch's do."""
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = -wt if zero_total is None else -wt / zero_total
    coef = np.zeros_like(x2)
    np.put_along_axis(coef, safe[:, None], np.where(ignored, 0, scale).astype(x2.dtype, copy=False)[:, None], axis=1)
    return coef


def _nll(logp: np.ndarray, logp_t: Tensor | None, t: np.ndarray, w: np.ndarray | None, ignore_index: int,
         reduction: str, graph_args: tuple | None = None) -> Tensor:
    """NLL over checked arguments; ``logp_t`` (the graph's log-prob tensor) is None when no grad is wanted;
    ``graph_args`` the target and weight tensors as given (see NllLossBackward0)."""
    nd = logp.ndim
    x2, t2 = (logp.reshape(1, -1), t.reshape(1)) if nd == 1 else (logp, t)
    ignored, safe, wt = _target_weights(x2, t2, w, ignore_index)
    picked = np.take_along_axis(x2, safe[:, None], axis=1)[:, 0]
    denom = total_weight = None
    with np.errstate(invalid="ignore", divide="ignore"):
        if reduction == "none":
            losses = np.where(ignored, 0, -wt * picked).astype(x2.dtype, copy=False)
            out = losses.reshape(()) if nd == 1 else losses
        else:
            out = as_array(_loss_sum(picked, wt, ignored, w is not None))
            total_weight = _weight_sum(wt, ignored, w is not None)
            if reduction == "mean":
                denom = total_weight
                out = as_array(out / denom)
        out = as_array(out.astype(x2.dtype, copy=False))
        if logp_t is None:
            return _make(out)  # nothing recorded: no coefficients to make
    if denom is not None and not denom:
        coef, denom = _coefficients(x2, ignored, safe, wt, zero_total=denom), None
    else:
        coef = _coefficients(x2, ignored, safe, wt)
    cls = NllLoss2DBackward0 if nd > 2 else NllLossBackward0
    extra = {} if graph_args is None else {"graph_args": graph_args}
    return record(out, cls, (logp_t,), (_make(coef.reshape(logp.shape)),),
                  unsqueeze_dim=1 if reduction == "none" and nd > 1 else None, weight_sum=total_weight, denom=denom,
                  shown=(logp_t, t, w, ignore_index, reduction, wt), **extra)


@aten_only("nll_loss_backward", recorded=True)
def nll_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                      ignore_index: int, total_weight: Tensor) -> Tensor:
    """``torch.ops.aten.nll_loss_backward`` for 1-d and 2-d log-probs: ``grad_output`` times the coefficients
    (``_coefficients``; the mean's normaliser is ``total_weight``)."""
    x, t = self._data, target._data
    x2, t2 = (x.reshape(1, -1), t.reshape(1)) if x.ndim == 1 else (x, t)
    ignored, safe, wt = _target_weights(x2, t2, None if weight is None else weight._data, ignore_index)
    zero_total = total_weight._data if reduction == 1 and not total_weight._data else None
    coef = _make(_coefficients(x2, ignored, safe, wt, zero_total).reshape(x.shape))
    if reduction == 0 and x.ndim > 1:
        grad_output = grad_output.unsqueeze(1)
    elif reduction == 1 and zero_total is None:
        grad_output = grad_output / total_weight
    return coef * grad_output


@aten_only("nll_loss_nd")
def nll_loss_nd(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = 1,
                ignore_index: int = -100) -> Tensor:
    """``torch.ops.aten.nll_loss_nd``: nll_loss with ATen's reduction enum (what export records for it)."""
    return nll_loss(self, target, weight, ignore_index=ignore_index, reduction=("none", "mean", "sum")[reduction])


@aten_only("cross_entropy_loss")
def cross_entropy_loss(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = 1,
                       ignore_index: int = -100, label_smoothing: float = 0.0) -> Tensor:
    """``torch.ops.aten.cross_entropy_loss``: cross_entropy with ATen's reduction enum (export's record of it)."""
    return cross_entropy(self, target, weight, ignore_index=ignore_index,
                         reduction=("none", "mean", "sum")[reduction], label_smoothing=label_smoothing)


@aten_only("nll_loss_forward")
def nll_loss_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore_index: int):
    """``torch.ops.aten.nll_loss_forward``: the loss and its total weight (``_total_weight``)."""
    out = _nll_loss(self, target, weight, ignore_index, ("none", "mean", "sum")[reduction])
    node = out.grad_fn
    if isinstance(node, NllLossBackward0):
        return out, _total_weight(node)
    x, t = self._data, target._data
    ignored, _, wt = _target_weights(x, t.reshape(-1) if x.ndim == 1 else t, None if weight is None else weight._data,
                                     ignore_index)
    total = 0 if reduction == 0 else _weight_sum(wt, ignored, weight is not None)
    return out, _make(as_array(total, dtype=x.dtype))


def _nll_nd(logp_t: Tensor, t: np.ndarray, w, ignore_index: int, reduction: str, need_grad: bool,
            graph_args: tuple | None = None) -> Tensor:
    """PyTorch's nll_loss_nd: inputs of 3 or 5+ dims go through a 4-d view, as its graph shows."""
    x = logp_t._data
    if x.ndim <= 2 or x.ndim == 4:
        return _nll(x, logp_t if need_grad else None, t, w, ignore_index, reduction, graph_args)
    n, c = x.shape[0], x.shape[1]
    view = logp_t.view(n, c, 1, -1) if need_grad else _make(x.reshape(n, c, 1, -1))
    out = _nll(view._data, view if need_grad else None, t.reshape(n, 1, -1), w, ignore_index, reduction)
    return out.view(t.shape) if reduction == "none" else out


def _nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
              reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class-index ``target`` under log-probabilities ``input``."""
    check_reduction(reduction)
    w = _weight_array(weight, "nll_loss_forward")
    check_nll(input._data, target._data, w, ignore_index)
    need = _State.enabled and input._requires_grad
    graph_args = (target, weight) if need and input._data.ndim <= 2 else None
    return _nll_nd(input, target._data, w, ignore_index, reduction, need, graph_args)


def _cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
                   reduction: str = "mean") -> Tensor:
    """Log-softmax over the class dim and NLL, for class-index targets (PyTorch's order: log_softmax's checks
    come first)."""
    return _nll_loss(_log_softmax(input, 0 if input.ndim == 1 else 1), target, weight, ignore_index, reduction)


def _class_loss(op, input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                reduction="mean", label_smoothing=0.0):
    """vmap: fold the batch into the loss's N, then reduce per sample over the non-ignored targets."""
    if weight is not None:
        raise unsupported(f"nn.functional.{op.__name__} with weight")
    lead = level_of((input, target))
    x = expanded(input, lead, input.dim())
    t = expanded(target, lead, target.dim())
    B = lead._bsz
    logical_x = tuple(input.shape)
    kw = {"label_smoothing": label_smoothing} if op.__name__ == "cross_entropy" else {}
    if len(logical_x) == 1:      # one sample of C classes: the batch becomes the loss's N
        return lead._wrap(op(x, t, ignore_index=ignore_index, reduction="none", **kw))
    xs = x.reshape((B * logical_x[0],) + logical_x[1:])
    ts = t.reshape((B * logical_x[0],) + tuple(target.shape)[1:])
    errs = op(xs, ts, ignore_index=ignore_index, reduction="none", **kw)
    errs = errs.reshape((B,) + tuple(target.shape))
    if reduction == "none":
        return lead._wrap(errs)
    total = errs.reshape(B, -1).sum(1)
    if reduction == "sum":
        return lead._wrap(total)
    count = (t != ignore_index).reshape(B, -1).sum(1).to(errs.dtype)
    return lead._wrap(total / count)


# -- classification losses ------------------------------------------------------------------------
@op(variants="functional", batch=_class_loss, autocast="fp32", meta="cpu_args")
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class indices under log-probabilities ``input`` (classes on dim 1)."""
    reduction = _resolve_reduction(size_average, reduce, reduction)
    return _nll_loss(input, target, weight, ignore_index, reduction)


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
    """PyTorch's label-smoothed cross-entropy of class indices, made of ops as its C++ composite: the NLL, and the
    mean log-probability over the classes (weighted), zero at ignored targets, reduced as the NLL is."""
    class_dim = 0 if input.ndim == 1 else 1
    n_classes = input.shape[class_dim]
    logp = _log_softmax(input, class_dim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if weight is not None:
        smooth = -(logp * weight.view(_class_shape(input.ndim, n_classes, class_dim))).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    ignored = target == ignore_index
    smooth.masked_fill_(ignored, 0.0)
    if reduction == "mean":  # (the count first, as PyTorch's graph shows it)
        if weight is not None:
            kept = weight.gather(0, target.masked_fill(ignored, 0).flatten())  # (an ignored target's weight: 0)
            count = kept.masked_fill_(ignored.flatten(), 0).sum()
        else:
            count = ignored.bitwise_not().sum()
        smoothed = smooth.sum() / count
    elif reduction == "sum":
        smoothed = smooth.sum()
    else:
        smoothed = smooth
    smoothed = smoothed * (label_smoothing / n_classes)  # (its term first, as PyTorch's graph shows it)
    return nll * (1 - label_smoothing) + smoothed


@op(variants="functional", batch=_class_loss, autocast="fp32", meta="cpu_args")
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy of logits ``input`` against class indices or class probabilities ``target``."""
    reduction = _resolve_reduction(size_average, reduce, reduction)
    check_reduction(reduction)
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    if input._data.shape == target._data.shape:
        if target._data.dtype not in FLOATING_NP:
            raise RuntimeError("Expected floating point type for target with class probabilities, got "
                               f"{target.dtype._scalar}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        return _cross_entropy_smoothed(input, target, weight, ignore_index, reduction, label_smoothing)
    return _cross_entropy(input, target, weight, ignore_index, reduction)


@op(variants="functional")
def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of ``target`` under a Gaussian of mean ``input``, variance ``var``."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _make(np.ones_like(input._data))
    elif bool((var < 0).any()):  # a tensor's truth: on the meta device PyTorch's item() error, as its torch.any
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
