"""The pointwise losses (PyTorch's Loss kernels): mse, l1, smooth_l1, huber, binary_cross_entropy (with
logits), kl_div and poisson_nll (gaussian_nll is in loss_nll.py). mse, smooth_l1, huber and the binary
cross-entropies are fused kernels here as there (forward in numpy in one pass, backward from tinytorch ops
so grad-of-grad works); the others are composed from tensor ops in PyTorch's order, so they record the
same graph. The ``torch.X`` spellings take the reduction as PyTorch's enum (0 none, 1 mean, 2 sum)."""
from __future__ import annotations

import inspect
import math
import warnings

import numpy as np

from ..._dtype import BF16_NP, FLOATING_NP, FROM_NP
from ..._quiet_fp import silent
from ...autograd.grad_mode import _State
from ...autograd.node import Node
from ._reduction import legacy_get_string
from ._reduction import resolve as _resolve_reduction
from ...tensor import Size, Tensor, _make
from .._core.batching import expanded, level_of, logical_ndim
from .._core.registry import aten_only, op
from .activation import functional_spelling
from .._core.layout import laid_in_format
from .._core.record import record
from .._core.tensor_iterator import elementwise_layout
from .._core.util import (as_array, binary_operands, broadcast_shapes, fit_grad, lowp_round, meta, opmath,
                          reduction_enum)
from ..pointwise.compare import where as _where
from ...autograd.forward_ad import _add_terms, _out_dtype, zero_tangent

_REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


_REDUCTION_ENUM = ("none", "mean", "sum")


def reduction_name(reduction) -> str:
    """'none'/'mean'/'sum' from a name or from PyTorch's enum (the torch.X spellings take the enum)."""
    return _REDUCTION_ENUM[reduction] if isinstance(reduction, int) else reduction


def apply_reduction(loss: Tensor, reduction: str) -> Tensor:
    check_reduction(reduction)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _legacy(dt: np.dtype) -> str:
    return FROM_NP[dt]._scalar


def _dims(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _reduce(losses: np.ndarray, reduction: str) -> np.ndarray:
    """PyTorch's apply_loss_reduction on the array: the mean or sum (half and bfloat16 accumulated in float32
    and rounded once, as its reductions); the mean of nothing is NaN, without numpy's warning."""
    if reduction == "none":
        return losses
    if reduction == "mean" and not losses.size:
        return np.full((), np.nan, losses.dtype)
    wide = opmath(losses)
    return lowp_round(as_array(wide.mean() if reduction == "mean" else wide.sum()), losses.dtype)


def _scale_grad(g: Tensor, reduction: str, n: int) -> Tensor:
    """The upstream gradient as seen by each element: g, or g / n for a mean."""
    return g / n if reduction == "mean" and n else g


def _weight_array(weight: Tensor | None, fn: str) -> np.ndarray | None:
    if weight is None:
        return None
    if _State.enabled and weight._requires_grad:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument 'weight'. This "
                           "input cannot have requires_grad True.")
    return weight._data


def _pointwise_loss(op, input, target, *args, **kwargs):
    """vmap: the unreduced loss on the physical batch in one call, then each sample's reduction."""
    params = dict(inspect.signature(op).bind(input, target, *args, **kwargs).arguments)
    del params["input"], params["target"]
    reduction = _resolve_reduction(params.pop("size_average", None), params.pop("reduce", None),
                                   reduction_name(params.pop("reduction", "mean")))
    lead = level_of((input, target))
    n = max(logical_ndim(input, lead), logical_ndim(target, lead))
    errors = lead._wrap(op(expanded(input, lead, n), expanded(target, lead, n), reduction="none", **params))
    if reduction == "none" or errors.dim() == 0:
        return errors
    return errors.mean() if reduction == "mean" else errors.sum()


# -- regression and binary losses -----------------------------------------------------------------
def _contiguous(t: Tensor) -> Tensor:
    """``t`` (a fresh gradient) laid out contiguous, the same numbers."""
    t._data = laid_in_format(t._data, None)
    return t


class MseLossBackward0(Node):
    saved_fields = (("reduction", lambda n: reduction_enum(n.reduction)), ("self", 0), ("target", 1))

    def backward(self, g):
        x, t = self._unpacked_saved
        d = (x - t) * _scale_grad(g * 2, self.reduction, self.n)
        d = _contiguous(d)  # as PyTorch's kernel writes it, into zeros_like(input, contiguous)
        return (fit_grad(d, self.x_meta) if self.need_x else None,
                fit_grad(-d, self.t_meta) if self.need_t else None)

    def jvp(self, tx, tt):
        # PyTorch's formula (its decomposition's): mse_loss_backward(self_t, self_p, target_p) +
        # mse_loss_backward(target_t, target_p, self_p), unreduced, then reduced and copied into the loss's dtype;
        # a missing tangent is a zero tensor there, whose term adds nothing (its node records through the primals)
        x, t = self._unpacked_saved
        terms = [mse_loss_backward(tx if tx is not None else zero_tangent(self, t.dim()), x, t, 0),
                 mse_loss_backward(tt if tt is not None else zero_tangent(self, x.dim()), t, x, 0)]
        d = terms[0] + terms[1]
        if tx is None or tt is None:
            d._data[...] = terms[tx is None]._data  # (PyTorch's zero term adds nothing: a -0.0 stays -0.0)
        dtype = _out_dtype(self)
        if self.reduction == "none":
            return d if d.dtype == dtype else d.to(dtype)
        d = d.mean() if self.reduction == "mean" else d.sum()
        return zero_tangent(self, 0).copy_(d)


class MseLossBackwardBackward0(Node):
    """``mse_loss_backward``'s node: PyTorch's formulas for its three inputs (grad_output, self, target)."""
    saved_fields = (("grad_output", 0), ("reduction", "reduction"), ("self", 1), ("target", 2))

    def backward(self, g):
        go, x, t = self._unpacked_saved
        norm = 2 / x.numel() if self.reduction == 1 and x.numel() else 2
        d = g * norm
        g_go = (x - t) * d
        g_go = g_go if self.reduction == 0 else g_go.sum()
        return fit_grad(g_go, self.go_meta), fit_grad(d * go, self.x_meta), fit_grad(-(d * go), self.t_meta)


@aten_only("mse_loss_backward", recorded=True)
@silent
def mse_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    """``torch.ops.aten.mse_loss_backward``: mse_loss's gradient, norm * (self - target) * grad_output with norm
    2 (2 / numel for a mean, reduction 1), as PyTorch's kernel multiplies."""
    norm = 2 / self.numel() if reduction == 1 and self.numel() else 2
    go, x, t = grad_output._data, self._data, target._data
    dtype = np.result_type(go, x, t)
    out = as_array(((x - t) * dtype.type(norm) * go).astype(dtype, copy=False))
    return record(out, MseLossBackwardBackward0, (grad_output, self, target), (grad_output, self, target),
                  reduction=reduction, go_meta=meta(grad_output, out), x_meta=meta(self, out), t_meta=meta(target, out))


def _mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean (or summed) squared error; input and target broadcast."""
    check_reduction(reduction)
    ti, tt, xd, td = binary_operands(input, target)
    diff = xd - td
    out = as_array(diff * diff)
    out = _reduce(elementwise_layout(out, xd, td) if reduction == "none" else out, reduction)  # (TensorIterator's)
    need_x = ti is not None and ti._requires_grad
    need_t = tt is not None and tt._requires_grad
    saved = (ti if ti is not None else _make(xd), tt if tt is not None else _make(td))
    return record(out, MseLossBackward0, (ti, tt), saved, need_x=need_x, need_t=need_t, reduction=reduction,
                  n=diff.size, x_meta=meta(ti, diff), t_meta=meta(tt, diff))


class BinaryCrossEntropyBackward0(Node):
    saved_fields = (("reduction", lambda n: reduction_enum(n.reduction)), ("self", 0), ("target", 1), ("weight", 2))

    def backward(self, g):
        x, t, w = self._unpacked_saved
        g = _scale_grad(g, self.reduction, self.n)
        if w is not None:
            g = g * w
        gx = gt = None
        if self.need_x:
            gx = g * (x - t) / ((1 - x) * x).clamp(min=1e-12)
        if self.need_t:
            gt = g * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100))
        return gx, gt


def _binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
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
    return record(out, BinaryCrossEntropyBackward0, (input, target), (input, target, weight),
                  need_x=input._requires_grad, need_t=target._requires_grad, reduction=reduction, n=x.size)


def _log_sigmoid(x: Tensor) -> Tensor:
    # min(x, 0) - log1p(exp(-|x|)): no overflow for any x
    return x.clamp(max=0) - (-x.abs()).exp().log1p()


class BinaryCrossEntropyWithLogitsBackward0(Node):
    saved_fields = (("pos_weight", 3), ("reduction", lambda n: reduction_enum(n.reduction)), ("self", 0),
                    ("target", 1), ("weight", 2))

    def backward(self, g):
        x, t, w, pw = self._unpacked_saved
        g = _scale_grad(g, self.reduction, self.n)
        if w is not None:
            g = g * w
        gx = gt = None
        # (the formulas' factor first, the gradient last, as PyTorch's backward functions multiply: its layout, the
        # input's, orders the result)
        if self.need_x:
            if pw is None:
                gx = (x.sigmoid() - t) * g
            else:
                pt = pw * t
                gx = ((pt + 1 - t) * x.sigmoid() - pt) * g
            gx = fit_grad(gx, self.x_meta)
        if self.need_t:
            gt = -x * g if pw is None else (-x - (pw - 1) * _log_sigmoid(x)) * g
            gt = fit_grad(gt, self.t_meta)
        return gx, gt


@functional_spelling("binary_cross_entropy_with_logits")
def _bce_with_logits_functional(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average=None, reduce=None, reduction: str = "mean",
                                pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross-entropy of logits ``input`` (sigmoid applied inside, stably) against ``target``."""
    reduction = _resolve_reduction(size_average, reduce, reduction)
    check_reduction(reduction)
    return binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


@silent  # an infinite logit gives inf - inf (NaN) in PyTorch's formula too; numpy would warn
def _bce_logits_losses(x: np.ndarray, t, pos_weight, w) -> np.ndarray:
    log_sig = -np.logaddexp(0, -x)
    if pos_weight is None:
        losses = (1 - t) * x - log_sig
    else:
        losses = (1 - t) * x - ((pos_weight - 1) * t + 1) * log_sig
    if w is not None:
        losses = losses * w
    return losses.astype(x.dtype, copy=False)


@op(variants="function functional", functional=_bce_with_logits_functional, batch=_pointwise_loss, autocast="fp32")
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction=1) -> Tensor:
    """Sigmoid + binary cross-entropy in one stable formula: (1 - t) x - (1 + (pw - 1) t) log sigmoid(x)."""
    reduction = reduction_name(reduction)
    check_reduction(reduction)
    if target._data.shape != input._data.shape:
        raise ValueError(f"Target size ({Size(target._data.shape)}) must be the same as input size "
                         f"({Size(input._data.shape)})")
    w = _weight_array(weight, "binary_cross_entropy_with_logits")
    if pos_weight is not None and _State.enabled and pos_weight._requires_grad:
        raise RuntimeError("The function 'binary_cross_entropy_with_logits' is not differentiable with respect to "
                           "argument 'pos_weight'. This input cannot have requires_grad True.")
    # PyTorch's kernel: log_sigmoid(input), then (1 - target).mul_(input).sub_(...) written into target's dtype
    xd, td = input._data.dtype, target._data.dtype
    if xd.kind in "biu":
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{input.dtype._scalar}'")
    if td.kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    _, _, x, t = binary_operands(input, target)
    if td.kind in "iu":
        raise RuntimeError(f"result type {input.dtype._scalar} can't be cast to the desired output type "
                           f"{target.dtype._scalar}")
    losses = as_array(_bce_logits_losses(x, t, None if pos_weight is None else pos_weight._data, w))
    if losses.dtype != td and td in FLOATING_NP:
        losses = losses.astype(td)
    if reduction == "none":  # laid out as the kernel's first step, (1 - target), orders it: by the target first
        losses = elementwise_layout(losses, t, x)
    out = _reduce(losses, reduction)
    return record(out, BinaryCrossEntropyWithLogitsBackward0, (input, target), (input, target, weight, pos_weight),
                  need_x=input._requires_grad, need_t=target._requires_grad, reduction=reduction, n=losses.size,
                  x_meta=meta(input, losses), t_meta=meta(target, losses))


@op(variants="functional", batch=_pointwise_loss, autocast="fp32")
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of probabilities ``input`` against ``target`` (same shape)."""
    reduction = _resolve_reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    return _binary_cross_entropy(input, target, weight, reduction)


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


def _reduce_errors(errors: Tensor, reduction: str) -> Tensor:
    check_reduction(reduction)
    if reduction == "mean":
        return errors.mean()
    return errors.sum() if reduction == "sum" else errors


@op(variants="functional", batch=_pointwise_loss, autocast="fp32")
def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Squared error (x - y)^2, averaged, summed or per element."""
    _check_sizes(input, target)
    reduction = _resolve_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target) ** 2, weight, input, reduction)
    return _mse_loss(input, target, reduction)


@op(variants="functional", batch=_pointwise_loss, autocast="fp32")
def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Absolute error |x - y|, averaged, summed or per element."""
    _check_sizes(input, target)
    reduction = _resolve_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).abs(), weight, input, reduction)
    return _reduce_errors((input - target).abs(), reduction)


# -- smooth_l1 and huber: PyTorch's kernels, with their own nodes ---------------------------------------
# the dtypes PyTorch's smooth_l1 and huber kernels are built for (float8 and the others are refused)
_LOSS_FLOATS = frozenset(np.dtype(d) for d in (np.float16, np.float32, np.float64) + ((BF16_NP,) if BF16_NP else ()))


@silent  # inf - inf, and the quadratic's overflow where the linear branch is taken, as PyTorch's kernels
def _smooth_l1_array(xd: np.ndarray, td: np.ndarray, beta: float) -> np.ndarray:
    """PyTorch's smooth_l1 kernel: 0.5 z z / beta where z = |x - t| < beta, else z - 0.5 beta, in the
    input's dtype (bfloat16 computed in float32 with a float32 beta, rounded once, as its kernel)."""
    dt = xd.dtype
    if dt == BF16_NP:
        xd, td = xd.astype(np.float32), td.astype(np.float32)
    b = xd.dtype.type(beta)
    half = xd.dtype.type(0.5)
    z = np.abs(xd - td)
    out = np.where(z < b, half * z * z / b, z - half * b)
    return out.astype(dt, copy=False)


@silent
def _huber_array(xd: np.ndarray, td: np.ndarray, delta: float) -> np.ndarray:
    """PyTorch's huber kernel: 0.5 z z where z = |x - t| < delta, else delta (z - 0.5 delta), in the input's
    dtype (half computed in float32 with a float32 delta, rounded once, as its kernel)."""
    dt = xd.dtype
    if dt == np.float16:
        xd, td = xd.astype(np.float32), td.astype(np.float32)
    d = xd.dtype.type(delta)
    half = xd.dtype.type(0.5)
    z = np.abs(xd - td)
    out = np.where(z < d, half * z * z, d * (z - half * d))
    return out.astype(dt, copy=False)


def _smooth_l1_slope(d: Tensor, beta: float) -> Tensor:
    """d loss / d x at d = x - t, as PyTorch's vectorized smooth_l1_backward: sign(d) where |d| >= beta, d / beta
    inside. An inf difference gets +-1 (the quadratic's chain rule would give 0 * inf there, NaN)."""
    return _where(d.abs() >= beta, d.sign(), d / beta)


def _huber_slope(d: Tensor, delta: float) -> Tensor:
    """d loss / d x at d = x - t, as PyTorch's vectorized huber_backward: delta sign(d) where |d| >= delta, d
    inside."""
    return _where(d.abs() >= delta, d.sign() * delta, d)


class _RegressionLossBackward(Node):
    """smooth_l1 and huber: PyTorch's backward kernels, ``norm * slope(x - t) * g`` for the input and
    ``norm * slope(t - x) * g`` for the target (norm 1 / numel for a mean), from tinytorch ops so that
    grad-of-grad works. ``_slope(d, param)`` is the loss's, ``_param`` names its parameter."""
    _same_dtype_tangents = False

    def backward(self, g):
        x, t = self._unpacked_saved
        norm = 1.0 / self.n if self.reduction == "mean" and self.n else 1.0
        slope, param = type(self)._slope, getattr(self, self._param)
        # contiguous, as PyTorch's kernels write into zeros_like(input, contiguous)
        gx = fit_grad(_contiguous(slope(x - t, param) * norm * g), self.x_meta) if self.need_x else None
        gt = fit_grad(_contiguous(slope(t - x, param) * norm * g), self.t_meta) if self.need_t else None
        return gx, gt

    def jvp(self, tx, tt):
        x, t = self._unpacked_saved
        slope, param = type(self)._slope, getattr(self, self._param)
        dtype = _out_dtype(self)
        if self._same_dtype_tangents:  # (PyTorch's huber_loss formula refuses a tangent of another dtype)
            for tan in (tx, tt):
                if tan is not None and tan.dtype != dtype:
                    raise RuntimeError(f"Found dtype {_legacy(tan._data.dtype)} but expected {_legacy(x._data.dtype)}")
        d = _add_terms(None if tx is None else slope(x - t, param) * tx,
                       None if tt is None else slope(t - x, param) * tt)
        if d is None:
            return d
        if self.reduction != "none":
            d = d.mean() if self.reduction == "mean" else d.sum()
        return d.to(dtype)  # (smooth_l1's formula is its decomposition's, copied into the loss: the loss's dtype)


class SmoothL1LossBackward0(_RegressionLossBackward):
    saved_fields = (("beta", "beta"), ("reduction", lambda n: reduction_enum(n.reduction)), ("self", 0),
                    ("target", 1))
    _slope, _param = staticmethod(_smooth_l1_slope), "beta"


class HuberLossBackward0(_RegressionLossBackward):
    saved_fields = (("delta", "delta"), ("reduction", lambda n: reduction_enum(n.reduction)), ("self", 0),
                    ("target", 1))
    _slope, _param = staticmethod(_huber_slope), "delta"
    _same_dtype_tangents = True


def _regression_loss(input: Tensor, target: Tensor, reduction: str, kernel, node_cls, name: str, **param) -> Tensor:
    """The loss ``kernel`` of the operands' arrays as one ``node_cls`` node (the callers checked ``reduction``)."""
    ti, tt, xd, td = binary_operands(input, target)
    if xd.dtype not in _LOSS_FLOATS:
        raise NotImplementedError(f'"{name}" not implemented for \'{_legacy(xd.dtype)}\'')
    losses = kernel(xd, td, *param.values())
    if reduction == "none":  # laid out as PyTorch's TensorIterator over (input, target)
        losses = elementwise_layout(as_array(losses), xd, td)
    out = _reduce(as_array(losses), reduction)
    saved = (ti if ti is not None else _make(xd), tt if tt is not None else _make(td))
    return record(out, node_cls, (ti, tt), saved, need_x=ti is not None and ti._requires_grad,
                  need_t=tt is not None and tt._requires_grad, reduction=reduction, n=losses.size,
                  x_meta=meta(ti, losses), t_meta=meta(tt, losses), **param)


@op(variants="functional", batch=_pointwise_loss, autocast="fp32")
def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = x - y)."""
    _check_sizes(input, target)
    reduction = _resolve_reduction(size_average, reduce, reduction)
    if beta == 0.0:  # PyTorch's F.smooth_l1_loss calls l1_loss then
        return _reduce_errors((input - target).abs(), reduction)
    check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _regression_loss(input, target, reduction, _smooth_l1_array, SmoothL1LossBackward0, "smooth_l1_cpu",
                            beta=beta)


@op(variants="functional", batch=_pointwise_loss, autocast="fp32")
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta) (d = x - y)."""
    _check_sizes(input, target)
    if weight is None:
        check_reduction(reduction)
    elif weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    losses = _regression_loss(input, target, "none" if weight is not None else reduction, _huber_array,
                              HuberLossBackward0, "huber_cpu", delta=delta)
    if weight is None:
        return losses
    # PyTorch weighs the unreduced loss and takes its plain mean (mse and l1 divide by the weights' sum)
    errors = losses * weight
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    return _reduce_errors(errors, reduction)


# ``torch.ops.aten.<loss>``: ATen's signatures, the reduction as its enum (0 none, 1 mean, 2 sum), which a graph
# shows and replays (``aten.mse_loss.default(x, y, 2)``); the functional spellings above take its name
@aten_only("mse_loss")
def _aten_mse_loss(self: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    return mse_loss(self, target, reduction=reduction_name(reduction))


@aten_only("smooth_l1_loss")
def _aten_smooth_l1_loss(self: Tensor, target: Tensor, reduction: int = 1, beta: float = 1.0) -> Tensor:
    return smooth_l1_loss(self, target, reduction=reduction_name(reduction), beta=beta)


@aten_only("huber_loss")
def _aten_huber_loss(self: Tensor, target: Tensor, reduction: int = 1, delta: float = 1.0) -> Tensor:
    return huber_loss(self, target, reduction=reduction_name(reduction), delta=delta)


def _xlogy(x: Tensor) -> Tensor:
    """x * log(x), 0 where x == 0."""
    zero = _make(as_array(x._data == 0))
    return _where(zero, 0.0, x * _where(zero, 1.0, x).log())


@functional_spelling("kl_div")
def _kl_div_functional(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
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
    if reduction == "batchmean":
        summed = kl_div(input, target, "sum", log_target=log_target)
        return summed / input.shape[0] if input.ndim != 0 else summed
    return kl_div(input, target, reduction, log_target=log_target)


@op(variants="function functional", functional=_kl_div_functional, autocast="fp32")
def kl_div(input: Tensor, target: Tensor, reduction=1, *, log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence of ``target`` from the log-probabilities ``input``."""
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy(target) - target * input
    return apply_reduction(loss, reduction_name(reduction))


@functional_spelling("poisson_nll_loss")
def _poisson_nll_functional(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                            size_average=None, eps: float = 1e-8, reduce=None,
                            reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of ``target`` under a Poisson of rate exp(input) (or input)."""
    reduction = _resolve_reduction(size_average, reduce, reduction)
    check_reduction(reduction)
    return poisson_nll_loss(input, target, log_input, full, eps, reduction)


@op(variants="function functional", functional=_poisson_nll_functional, autocast="fp32")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction) -> Tensor:
    """Negative log-likelihood of ``target`` under a Poisson of rate exp(input) (or input)."""
    reduction = reduction_name(reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        loss = loss + _where(_make(as_array(target._data <= 1)), 0.0, stirling)
    return apply_reduction(loss, reduction)
