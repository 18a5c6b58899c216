"""Fused loss kernels: forward in numpy in one pass, backward from tinytorch ops (so grad-of-grad works).

``cross_entropy`` (class-index targets) computes the log-softmax and the negative log-likelihood
together and records the same two nodes PyTorch does: ``NllLossBackward0`` whose edge leads to a
``LogSoftmaxBackward0``. Argument checks raise PyTorch's exception types and texts."""
from __future__ import annotations

import numpy as np

from .._dtype import FROM_NP
from ..autograd.grad_mode import _State
from ..autograd.node import Node
from ..tensor import Size, Tensor, _make
from ._util import as_array, binary_operands, edge, fit_grad, meta
from .reduce import LogSoftmaxBackward0

_REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy(dt: np.dtype) -> str:
    return FROM_NP[dt]._legacy[:-len("Tensor")]


def _dims(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _reduce(losses: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return losses
    return as_array(losses.mean() if reduction == "mean" else losses.sum())


def _scale_grad(g: Tensor, reduction: str, n: int) -> Tensor:
    """The upstream gradient as seen by each element: g, or g / n for a mean."""
    return g / n if reduction == "mean" and n else g


def _stable_log_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    m = np.max(x, axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)  # rows of -inf stay -inf instead of turning NaN
    shifted = x - m
    with np.errstate(divide="ignore"):
        return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))


# -- negative log-likelihood ----------------------------------------------------------------------
class NllLossBackward0(Node):
    """d loss / d log-probs: a constant (minus the target's weight over the normaliser at the target
    class, zero elsewhere) times the upstream gradient."""

    def backward(self, g):
        (coef,) = self.saved_tensors
        if self.unsqueeze_dim is not None:
            g = g.unsqueeze(self.unsqueeze_dim)
        return (coef * g,)

    def jvp(self, t):
        (coef,) = self.saved_tensors
        prod = coef * t
        return prod.sum() if self.unsqueeze_dim is None else prod.sum(self.unsqueeze_dim)


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


def _nll(logp: np.ndarray, logp_t: Tensor | None, t: np.ndarray, w: np.ndarray | None, ignore_index: int,
         reduction: str) -> Tensor:
    """NLL over checked arguments; ``logp_t`` (the graph's log-prob tensor) is None when no grad is wanted."""
    nd = logp.ndim
    if nd == 1:
        x2, t2 = logp.reshape(1, -1), t.reshape(1)
    else:
        x2, t2 = logp, t
    t2 = t2.astype(np.int64, copy=False)
    ignored = t2 == ignore_index
    safe = np.where(ignored, 0, t2)
    picked = np.take_along_axis(x2, safe[:, None], axis=1)[:, 0]
    wt = np.ones(t2.shape, dtype=x2.dtype) if w is None else w[safe]
    wt = np.where(ignored, 0, wt).astype(x2.dtype, copy=False)
    losses = np.where(ignored, 0, -wt * picked).astype(x2.dtype, copy=False)
    denom = None
    with np.errstate(invalid="ignore", divide="ignore"):
        if reduction == "none":
            out = losses.reshape(()) if nd == 1 else losses
        elif reduction == "sum":
            out = as_array(losses.sum())
        else:
            denom = wt.sum()
            out = as_array(losses.sum() / denom)
        out = as_array(out.astype(x2.dtype, copy=False))
        if logp_t is None:
            return _make(out)
        scale = np.where(ignored, 0, -wt / denom if denom is not None else -wt).astype(x2.dtype, copy=False)
    coef = np.zeros_like(x2)
    np.put_along_axis(coef, safe[:, None], scale[:, None], axis=1)
    node = (NllLoss2DBackward0 if nd > 2 else NllLossBackward0)((logp_t._edge(),))
    node.unsqueeze_dim = 1 if reduction == "none" and nd > 1 else None
    node.save_for_backward(_make(coef.reshape(logp.shape)))
    return _make(out, node)


def _nll_nd(logp_t: Tensor, t: np.ndarray, w, ignore_index: int, reduction: str, need_grad: bool) -> Tensor:
    """PyTorch's nll_loss_nd: inputs of 3 or 5+ dims go through a 4-d view, as its graph shows."""
    x = logp_t._data
    if x.ndim <= 2 or x.ndim == 4:
        return _nll(x, logp_t if need_grad else None, t, w, ignore_index, reduction)
    n, c = x.shape[0], x.shape[1]
    view = logp_t.view(n, c, 1, -1) if need_grad else _make(x.reshape(n, c, 1, -1))
    out = _nll(view._data, view if need_grad else None, t.reshape(n, 1, -1), w, ignore_index, reduction)
    return out.view(t.shape) if reduction == "none" else out


def _weight_array(weight: Tensor | None, fn: str) -> np.ndarray | None:
    if weight is None:
        return None
    if _State.enabled and weight._requires_grad:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument 'weight'. This "
                           "input cannot have requires_grad True.")
    return weight._data


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class-index ``target`` under log-probabilities ``input``."""
    check_reduction(reduction)
    w = _weight_array(weight, "nll_loss_forward")
    check_nll(input._data, target._data, w, ignore_index)
    need = _State.enabled and input._requires_grad
    return _nll_nd(input, target._data, w, ignore_index, reduction, need)


_ROWS: dict = {}


def _rows(n: int) -> np.ndarray:
    rows = _ROWS.get(n)
    if rows is None:
        rows = _ROWS[n] = np.arange(n)
    return rows


def _cross_entropy_common(input: Tensor, t: np.ndarray, reduction: str):
    """The training case, (N, C) logits, in-range int64 targets, no weights, mean or sum: a few numpy
    calls instead of the general path's masking. None when a row is not finite (the general path then
    gives PyTorch's NaN/inf semantics)."""
    x = input._data
    m = x.max(axis=1, keepdims=True)
    if not np.isfinite(m).all():
        return None
    logp = x - m
    lse = np.log(np.exp(logp).sum(axis=1, keepdims=True))
    logp -= lse
    n = t.shape[0]
    rows = _rows(n)
    total = -logp[rows, t].sum(dtype=x.dtype)
    out = as_array(total / x.dtype.type(n) if reduction == "mean" else total)
    if not (_State.enabled and input._requires_grad):
        return _make(out)
    lsm = LogSoftmaxBackward0((input._edge(),))
    lsm.dim = 1
    logp_t = _make(logp, lsm)
    lsm.save_for_backward(logp_t)
    coef = np.zeros_like(x)
    coef[rows, t] = -1.0 / n if reduction == "mean" else -1.0
    node = NllLossBackward0(((lsm, 0),))
    node.unsqueeze_dim = None
    node.save_for_backward(_make(coef))
    return _make(out, node)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
                  reduction: str = "mean") -> Tensor:
    """Log-softmax over the class dim and NLL in one pass, for class-index targets."""
    x = input._data
    t = target._data
    if (weight is None and reduction != "none" and x.ndim == 2 and t.ndim == 1 and t.dtype == np.int64
            and x.dtype.kind == "f" and x.shape[0] == t.shape[0] and t.shape[0] and ignore_index < 0
            and reduction in _REDUCTIONS and t.min() >= 0 and t.max() < x.shape[1]):
        out = _cross_entropy_common(input, t, reduction)
        if out is not None:
            return out
    check_reduction(reduction)
    if x.ndim and x.dtype.kind != "f":
        raise NotImplementedError(f'"log_softmax_lastdim_kernel_impl" not implemented for \'{_legacy(x.dtype)}\'')
    w = _weight_array(weight, "nll_loss_forward")
    check_nll(x, target._data, w, ignore_index)
    class_dim = 0 if x.ndim == 1 else 1
    logp = _stable_log_softmax(x, class_dim)
    need = _State.enabled and input._requires_grad
    if need:
        node = LogSoftmaxBackward0((input._edge(),))
        node.dim = class_dim
        logp_t = _make(logp, node)
        node.save_for_backward(logp_t)
    else:
        logp_t = _make(logp)
    return _nll_nd(logp_t, target._data, w, ignore_index, reduction, need)


# -- regression and binary losses -----------------------------------------------------------------
class MseLossBackward0(Node):
    def backward(self, g):
        x, t = self.saved_tensors
        d = (x - t) * _scale_grad(g * 2, self.reduction, self.n)
        return (fit_grad(d, self.x_meta) if self.need_x else None,
                fit_grad(-d, self.t_meta) if self.need_t else None)

    def jvp(self, tx, tt):
        from ..autograd.forward_ad import _add_terms
        x, t = self.saved_tensors
        d = _add_terms(tx, None if tt is None else -tt)
        if d is None:
            return None
        d = (x - t) * 2 * d
        if self.reduction == "none":
            return d
        return d.sum() / self.n if self.reduction == "mean" and self.n else d.sum()


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean (or summed) squared error; input and target broadcast."""
    check_reduction(reduction)
    ti, tt, xd, td = binary_operands(input, target)
    diff = xd - td
    out = _reduce(as_array(diff * diff), reduction)
    need_x = ti is not None and ti._requires_grad
    need_t = tt is not None and tt._requires_grad
    if _State.enabled and (need_x or need_t):
        node = MseLossBackward0((edge(ti), edge(tt)))
        node.need_x, node.need_t, node.reduction, node.n = need_x, need_t, reduction, diff.size
        node.x_meta, node.t_meta = meta(ti, diff), meta(tt, diff)
        node.save_for_backward(ti if ti is not None else _make(xd), tt if tt is not None else _make(td))
        return _make(out, node)
    return _make(out)


class BinaryCrossEntropyBackward0(Node):
    def backward(self, g):
        x, t, w = self.saved_tensors
        g = _scale_grad(g, self.reduction, self.n)
        if w is not None:
            g = g * w
        gx = gt = None
        if self.need_x:
            gx = g * (x - t) / ((1 - x) * x).clamp(min=1e-12)
        if self.need_t:
            gt = g * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100))
        return gx, gt


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         reduction: str = "mean") -> Tensor:
    """-w [t log x + (1 - t) log(1 - x)] with each log clamped at -100, as PyTorch."""
    check_reduction(reduction)
    x, t = input._data, target._data
    if t.dtype != x.dtype:
        raise RuntimeError(f"Found dtype {_legacy(t.dtype)} but expected {_legacy(x.dtype)}")
    if not ((x >= 0) & (x <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1")
    w = _weight_array(weight, "binary_cross_entropy")
    with np.errstate(divide="ignore"):
        losses = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
    if w is not None:
        if np.broadcast_shapes(w.shape, losses.shape) != losses.shape:
            raise RuntimeError(f"output with shape {_dims(losses.shape)} doesn't match the broadcast shape "
                               f"{_dims(np.broadcast_shapes(w.shape, losses.shape))}")
        losses = losses * w
    out = _reduce(as_array(losses.astype(x.dtype, copy=False)), reduction)
    need_x, need_t = input._requires_grad, target._requires_grad
    if _State.enabled and (need_x or need_t):
        node = BinaryCrossEntropyBackward0((input._edge(), target._edge()))
        node.need_x, node.need_t, node.reduction, node.n = need_x, need_t, reduction, x.size
        node.save_for_backward(input, target, weight)
        return _make(out, node)
    return _make(out)


def _log_sigmoid(x: Tensor) -> Tensor:
    # min(x, 0) - log1p(exp(-|x|)): no overflow for any x
    return x.clamp(max=0) - (-x.abs()).exp().log1p()


class BinaryCrossEntropyWithLogitsBackward0(Node):
    def backward(self, g):
        x, t, w, pw = self.saved_tensors
        g = _scale_grad(g, self.reduction, self.n)
        if w is not None:
            g = g * w
        gx = gt = None
        if self.need_x:
            if pw is None:
                gx = g * (x.sigmoid() - t)
            else:
                pt = pw * t
                gx = g * ((pt + 1 - t) * x.sigmoid() - pt)
            gx = fit_grad(gx, self.x_meta)
        if self.need_t:
            gt = g * -x if pw is None else g * (-x - (pw - 1) * _log_sigmoid(x))
            gt = fit_grad(gt, self.t_meta)
        return gx, gt


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """Sigmoid + binary cross-entropy in one stable formula: (1 - t) x - (1 + (pw - 1) t) log sigmoid(x)."""
    check_reduction(reduction)
    if target._data.shape != input._data.shape:
        raise ValueError(f"Target size ({Size(target._data.shape)}) must be the same as input size "
                         f"({Size(input._data.shape)})")
    w = _weight_array(weight, "binary_cross_entropy_with_logits")
    if pos_weight is not None and _State.enabled and pos_weight._requires_grad:
        raise RuntimeError("The function 'binary_cross_entropy_with_logits' is not differentiable with respect to "
                           "argument 'pos_weight'. This input cannot have requires_grad True.")
    _, _, x, t = binary_operands(input, target)
    log_sig = -np.logaddexp(0, -x)
    if pos_weight is None:
        losses = (1 - t) * x - log_sig
    else:
        losses = (1 - t) * x - ((pos_weight._data - 1) * t + 1) * log_sig
    if w is not None:
        losses = losses * w
    losses = as_array(losses.astype(x.dtype, copy=False))
    out = _reduce(losses, reduction)
    need_x, need_t = input._requires_grad, target._requires_grad
    if _State.enabled and (need_x or need_t):
        node = BinaryCrossEntropyWithLogitsBackward0((input._edge(), target._edge()))
        node.need_x, node.need_t, node.reduction, node.n = need_x, need_t, reduction, losses.size
        node.x_meta, node.t_meta = meta(input, losses), meta(target, losses)
        node.save_for_backward(input, target, weight, pos_weight)
        return _make(out, node)
    return _make(out)
