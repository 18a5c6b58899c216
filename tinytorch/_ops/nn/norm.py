"""Normalisation primitives: layer_norm and group_norm (batch_norm in batch_norm.py), and the statistics
the three share.

Each forward is one numpy pass over the input and records PyTorch's node (``NativeLayerNormBackward0``,
``NativeGroupNormBackward0``, ``NativeBatchNormBackward0``) with edges to input, weight and bias. The
statistics (``_moments``) and the input gradient (``_grad_input``) are written once, in operations that
tensors and numpy arrays share: the forward runs them on arrays; a backward runs them on the saved tensors
when a graph of the gradient is wanted (the gradient is then a differentiable function of the input, so
second derivatives come out right), and layer_norm's on their arrays otherwise (the same ufuncs: the same
floats); layer_norm's backward starts from the statistics its forward saved, as PyTorch's does. layer_norm's
CPU paths (a fused compiled kernel, rows across threads, PyTorch's float32 kernel steps, the forward's
normalised input reused by the backward) register onto it from ``tinytorch/_cpu/norm.py``."""
from __future__ import annotations

import math

import numpy as np

from ..._dtype import FLOATING_NP, FROM_NP, LOWP_NP
from ..._quiet_fp import silent
from ...autograd.forward_ad import zero_tangent, zero_times
from ...autograd.grad_mode import _State
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.registry import aten_only, op
from .activation import functional_spelling
from .._core.record import record
from ..pointwise.division import div_scalar
from ..shape.conversions import channels_last, channels_last_3d
from .._core.layout import laid_in_format, suggested_of


def _float_only(x, kernel: str) -> None:
    """PyTorch's error for an integer or bool input to a floating-point kernel."""
    if (x.dtype not in FLOATING_NP and x.dtype.kind != "c"):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{FROM_NP[x.dtype]._scalar}\'')


def _dims(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


# -- the statistics, once: on tensors, or on arrays with the array spellings of mean and rsqrt ----------
def _mean_kept(t: Tensor, axes: tuple) -> Tensor:
    return t.mean(axes, keepdim=True)


def _rsqrt(t: Tensor) -> Tensor:
    return t.rsqrt()


_EXACT_MEAN = (np.dtype(np.float32), np.dtype(np.float64))


def _mean_np(x: np.ndarray, axes: tuple) -> np.ndarray:
    """``x.mean(axis=axes, keepdims=True)``; for float32/float64 as numpy computes it (a sum, then one
    division by the count, in place) without the Python layers of ``ndarray.mean``."""
    if x.dtype not in _EXACT_MEAN:
        return x.mean(axis=axes, keepdims=True)
    count = 1
    for a in axes:
        count *= x.shape[a]
    out = np.add.reduce(x, axis=axes, keepdims=True)
    out /= count
    return out


def _rsqrt_np(v: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(v)  # as the rsqrt op computes it


def _moments(x, axes: tuple, eps: float, mean=_mean_kept, rsqrt=_rsqrt):
    """(mean, var, invstd, xhat) over ``axes`` (dims kept): the biased variance, invstd = 1 / sqrt(var + eps)
    and xhat = (x - mean) * invstd. On tensors (differentiable), or on arrays with ``mean=_mean_np,
    rsqrt=_rsqrt_np`` and ``eps`` a scalar of their dtype (the same ufuncs in the same order: the same floats;
    a Python float would widen bfloat16)."""
    mu = mean(x, axes)
    xc = x - mu
    var = mean(xc * xc, axes)
    invstd = rsqrt(var + eps)
    return mu, var, invstd, xc * invstd


def _grad_input(g_hat, xhat, invstd, axes: tuple, mean=_mean_kept):
    """d loss / d x of xhat = (x - mean(x)) * invstd, given d loss / d xhat (statistics over ``axes``):
    on tensors, or on their arrays with ``mean`` = ``_mean_np`` (the same ufuncs: the same floats)."""
    return invstd * (g_hat - mean(g_hat, axes) - xhat * mean(g_hat * xhat, axes))


def _saved_stat(i: int, output: bool = False):
    """The node's saved mean (0) or invstd (1); ``output``: as results of the node (group_norm's are
    differentiable outputs of PyTorch's native_group_norm, layer_norm's are not)."""
    def get(node):
        value = node.stats[i]
        if not output:
            return _make(value)
        t = _make(value, node)
        t._output_nr = i + 1
        return t
    return get


# -- layer_norm -----------------------------------------------------------------------------------
class NativeLayerNormBackward0(Node):
    saved_fields = (("input", 0), ("normalized_shape", "normalized_shape"), ("weight", 1), ("bias", 2),
                    ("result1", _saved_stat(0)), ("result2", _saved_stat(1)))

    graph_stats = None  # the mean and rstd tensors a graph capture named (native_layer_norm's results 1 and 2)

    def backward(self, g):
        """The gradients; the input's contiguous whatever the layouts of the input and the gradient, as PyTorch's
        kernel writes it (the same numbers)."""
        grads = self._grads(g)
        if grads[0] is not None:
            grads[0]._data = laid_in_format(grads[0]._data, None)
        return grads

    def _grads(self, g):
        x, w = self._unpacked_saved[:2]
        axes, need = self.axes, tuple(e[0] is not None for e in self.next_functions)
        if _State.enabled:  # a graph of the gradient: the statistics recomputed in tinytorch ops, differentiable
            _, _, invstd, xhat = _moments(x, axes, self.eps)
            return tuple(_layer_norm_grads(g, w, xhat, invstd, axes, need))
        # none: PyTorch's operator, the same formulas on the arrays from the forward's statistics (as PyTorch's
        # backward takes its saved mean and rstd; the reference's forward made them with _moments' steps: the same
        # xhat); a graph capture records it as one node, the statistics the tensors it named
        stats = self.graph_stats or tuple(_make(a) for a in self.stats)
        return tuple(native_layer_norm_backward(g, x, list(self.normalized_shape), *stats, w, self._unpacked_saved[2],
                                                list(need)))

    def jvp(self, tx, tw, tb):
        # PyTorch's layer_norm_jvp: the tangent's centred part times invstd, plus (x - mean) times invstd's tangent,
        # -invstd^3 * sum(t_c * (x - mean)) / n; then times the weight, plus xhat times the weight's tangent, plus
        # the bias's tangent (a missing tangent a zero tensor). One departure: PyTorch reads its saved mean and
        # invstd without history, which drops their terms from a second derivative through the tangent (it then
        # disagrees with finite differences); here they are recomputed from the primal, with its history.
        x, w, _ = self._unpacked_saved
        axes = self.axes
        if x.requires_grad:
            mean, _, invstd, _ = _moments(x, axes, self.eps)
        else:
            mean, invstd = (_make(a) for a in self.stats)
        if tx is None:
            tx = zero_tangent(self, x.dim())
        n = math.prod(x.shape[a] for a in axes)
        xc = x - mean
        tc = tx - tx.mean(axes, keepdim=True)
        invstd_t = div_scalar(((-invstd.pow(3)) * tc * xc).sum(axes, keepdim=True), n)
        out_t = tc * invstd + xc * invstd_t
        affine = (1,) * (x.dim() - len(axes)) + tuple(x.shape[a] for a in axes)
        if w is not None:
            xhat_w = zero_times(self, xc * invstd, zero_first=False) if tw is None else (xc * invstd) * tw.view(affine)
            out_t = out_t * w.view(affine) + xhat_w
        if self._unpacked_saved[2] is not None:
            out_t = out_t + (zero_tangent(self, x.dim()) if tb is None else tb.view(affine))
        return out_t


@aten_only("native_layer_norm_backward", recorded=True)
def native_layer_norm_backward(grad_out: Tensor, input: Tensor, normalized_shape, mean: Tensor, rstd: Tensor,
                               weight: Tensor | None, bias: Tensor | None, output_mask) -> tuple:
    """``torch.ops.aten.native_layer_norm_backward``: the input's, weight's and bias's gradients (where
    ``output_mask`` asks) from the forward's statistics, ``_layer_norm_grads`` on the arrays."""
    x = input._data
    axes = tuple(range(x.ndim - len(tuple(normalized_shape)), x.ndim))
    grads = _layer_norm_grads_from_stats(grad_out._data, None if weight is None else weight._data, x, mean._data,
                                         rstd._data, axes, tuple(bool(m) for m in output_mask))
    return tuple(None if a is None else _make(a) for a in grads)


def _layer_norm_grads_from_stats(gd, wd, x, mean, rstd, axes: tuple, need: tuple) -> tuple:
    """``_layer_norm_grads_arrays`` from the forward's input and statistics: its normalised input made again,
    ``(x - mean) * rstd`` (the forward's own steps, so its floats)."""
    return _layer_norm_grads_arrays(gd, wd, (x - mean) * rstd, rstd, axes, need)


def _layer_norm_grads_arrays(gd, wd, xhat, invstd, axes: tuple, need: tuple) -> tuple:
    """``_layer_norm_grads`` on the arrays: the step the node (reusing the forward's normalised input) and the
    ATen operator share."""
    return _layer_norm_grads(gd, wd, xhat, invstd, axes, need, _mean_np)


def _layer_norm_grads(g, w, xhat, invstd, axes: tuple, need: tuple, mean=_mean_kept):
    """(d input, d weight, d bias) of layer_norm given d out (None where not ``need``-ed): on tensors, or on
    arrays with ``mean=_mean_np``."""
    lead = tuple(range(g.ndim - len(axes)))  # the parameters' gradients sum over the leading dims
    return (_grad_input(g if w is None else g * w, xhat, invstd, axes, mean) if need[0] else None,
            ((g * xhat).sum(lead) if lead else g * xhat) if need[1] else None,
            (g.sum(lead) if lead else g) if need[2] else None)


_F32 = np.dtype(np.float32)


def _check_mixed_dtype(dt, *params) -> None:
    """PyTorch's CPU rule for batch, layer and group norm (its mixed_type.h): the first given parameter of another
    dtype than the input makes the call mixed, allowed only with every parameter float32 and a float16/bfloat16
    input."""
    first = next((t for t in params if t is not None), None)
    if first is None or first._data.dtype == dt:
        return
    for t in params:
        if t is not None and t._data.dtype != _F32:
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if dt not in LOWP_NP:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _checked_shape(x: np.ndarray, normalized_shape, weight: Tensor | None, bias: Tensor | None) -> tuple:
    """``normalized_shape`` as a tuple, after PyTorch's checks of the input and parameters against it."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    _float_only(x, "LayerNormKernelImpl")
    k = len(normalized_shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._data.shape != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{_dims(t._data.shape)} and normalized_shape = {_dims(normalized_shape)}")
    if k == 0 or x.ndim < k or x.shape[x.ndim - k:] != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={_dims(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{_dims(x.shape)}")
    return normalized_shape


# -- group_norm -----------------------------------------------------------------------------------
class NativeGroupNormBackward0(Node):
    saved_fields = (("input", 0), ("weight", 1), ("N", lambda n: n.shape[0]), ("C", lambda n: n.shape[1]),
                    ("HxW", lambda n: math.prod(n.shape[2:])), ("group", lambda n: n.grouped[1]), ("eps", "eps"),
                    ("result1", _saved_stat(0, True)), ("result2", _saved_stat(1, True)))
    in_fmt = None  # the input's suggested memory format: its result's and its gradient's

    def backward(self, g):
        x, w = self._unpacked_saved
        shape, grouped, pshape = self.shape, self.grouped, self.param_shape
        axes = (0,) + tuple(range(2, len(shape)))
        need_x, need_w, need_b = (e[0] is not None for e in self.next_functions)
        _, _, invstd, xhat = _moments(x.reshape(grouped), (2,), self.eps)
        g_hat = g if w is None else g * w.reshape(pshape)
        gx = _grad_input(g_hat.reshape(grouped), xhat, invstd, (2,)).reshape(shape) if need_x else None
        if gx is not None:  # in the input's suggested memory format, as PyTorch's kernel allocates it
            gx._data = laid_in_format(gx._data, self.in_fmt)
        return (gx, (g * xhat.reshape(shape)).sum(axes) if need_w else None, g.sum(axes) if need_b else None)


def _rowwise_moments_nan(input: Tensor, rows: np.ndarray, mean: np.ndarray) -> np.ndarray | None:
    """Where PyTorch's group mean is NaN but the sum's mean of ``rows`` (groups, group size) is not: a bool
    array shaped ``mean`` (None where there is none; callers ask only when a mean is not finite).

    PyTorch's CPU kernel for a contiguous input (RowwiseMoments) runs Welford's update in 32-byte vectors
    (K lanes: 8 float32, 4 float64, 16 half) over chunks of 16 vectors, merges the chunks in a binary cascade,
    the leftover elements one by one, then the lanes into those, in order. A merge into an infinite running mean
    gives NaN (finite - inf, or 0 * inf for an empty part), so an inf keeps the mean infinite only when nothing
    merges into it after it: the last lane of the last vector of the last chunk that reaches the cascade's top
    level, one position per group size (none below K). The channels-last kernel sums, as the sum's mean does."""
    x = input._data
    if x.ndim in (4, 5) and not x.flags.c_contiguous and input.is_contiguous(
            memory_format=_channels_last(x.ndim)):
        return None
    nonfinite = ~np.isfinite(rows)
    size, lanes = rows.shape[-1], 32 // rows.dtype.itemsize
    vectors = size // lanes
    if vectors:
        chunks = -(-vectors // 16)
        top = max(1, (chunks - 1).bit_length()) - 1  # the cascade's depth, less one
        survivor = (min(16 * ((chunks >> top) << top), vectors) - 1) * lanes + lanes - 1
        nonfinite[..., survivor] = False  # an inf there gives the sum's inf; NaN is NaN either way
    nan = nonfinite.any(-1).reshape(mean.shape)
    return nan if nan.any() else None


def _channels_last(ndim: int):
    return channels_last if ndim == 4 else channels_last_3d


@silent  # a group holding inf or NaN: NaN statistics, as PyTorch's, without numpy's warnings
def _group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
                eps: float = 1e-5) -> Tensor:
    """Normalise each group of channels of each sample, then scale and shift per channel."""
    x = input._data
    _float_only(x, "GroupNormKernelImpl")
    if x.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {x.ndim}")
    n, c = x.shape[0], x.shape[1]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {_dims(x.shape)} and num_groups={num_groups}")
    spatial = math.prod(x.shape[2:])
    if num_groups > 0 and (n * c // num_groups) * spatial == 1:
        size = [n * c // num_groups, num_groups] + list(x.shape[2:])
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._data.ndim != 1 or t._data.size != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {_dims(t._data.shape)} and input of shape {_dims(x.shape)}")
    _check_mixed_dtype(x.dtype, weight, bias)
    grouped = (n, num_groups, math.prod(x.shape[1:]) // num_groups)
    rows = x.reshape(grouped)
    mean, _, invstd, xhat = _moments(rows, (2,), x.dtype.type(eps), _mean_np, _rsqrt_np)
    out = xhat.reshape(x.shape)
    if not np.isfinite(mean).all():  # a group's statistics as PyTorch's kernel leaves them (its output is NaN)
        nan = _rowwise_moments_nan(input, rows, mean)
        if nan is not None:
            mean[nan] = np.nan
    pshape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        out = out * weight._data.reshape(pshape)
    if bias is not None:
        out = out + bias._data.reshape(pshape)
    fmt = suggested_of(x)  # PyTorch's kernel writes its result (and the input's gradient) in this memory format
    return record(laid_in_format(out.astype(x.dtype, copy=False), fmt), NativeGroupNormBackward0, (input, weight, bias),
                  (input, weight), shape=x.shape, grouped=grouped, param_shape=pshape, eps=eps, in_fmt=fmt,
                  stats=(mean.reshape(n, num_groups).astype(x.dtype, copy=False),
                         invstd.reshape(n, num_groups).astype(x.dtype, copy=False)))


# -- the declared spellings: torch.X takes ATen's argument order, nn.functional.X its own ----------
@functional_spelling("layer_norm")
def _layer_norm_functional(input: Tensor, normalized_shape, weight: Tensor | None = None,
                           bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift elementwise."""
    return layer_norm(input, normalized_shape, weight, bias, eps)


@op(variants="function functional", functional=_layer_norm_functional)
@silent  # a row holding inf or NaN: NaN statistics, as PyTorch's, without numpy's warnings
def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift elementwise."""
    x = input._data
    normalized_shape = _checked_shape(x, normalized_shape, weight, bias)
    _check_mixed_dtype(x.dtype, weight, bias)  # a float64 input to a float32 model's LayerNorm: refused
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    mean, _, invstd, out = _moments(x, axes, x.dtype.type(eps), _mean_np, _rsqrt_np)
    if weight is not None:
        out = out * weight._data
    if bias is not None:
        out = out + bias._data
    params = (input, weight, bias)  # the node keeps the bias too, as PyTorch's
    # contiguous whatever the input's layout, as PyTorch's kernel writes it
    return record(laid_in_format(out.astype(x.dtype, copy=False), None), NativeLayerNormBackward0, params, params,
                  axes=axes, eps=eps,
                  normalized_shape=normalized_shape, stats=(mean, invstd))


@functional_spelling("group_norm")
def _group_norm_functional(input: Tensor, num_groups: int, weight: Tensor | None = None,
                           bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise each group of channels of each sample, then scale and shift per channel."""
    return group_norm(input, num_groups, weight, bias, eps)


@op(variants="function functional", functional=_group_norm_functional)
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    """Normalise each group of channels of each sample, then scale and shift per channel."""
    return _group_norm(input, num_groups, weight, bias, eps)


# -- ATen's native forms: the normalised output with the statistics it used -------------------------------
@op(variants="function")
def native_layer_norm(input: Tensor, normalized_shape, weight: Tensor | None, bias: Tensor | None,
                      eps: float) -> tuple:
    """(layer_norm's output, the mean, the reciprocal standard deviation), the statistics shaped
    ``input.shape[:axis] + (1,) * len(normalized_shape)`` and outside the graph (PyTorch's)."""
    out = layer_norm(input, normalized_shape, weight, bias, eps)
    x = input._data
    axes = tuple(range(x.ndim - len(_checked_shape(x, normalized_shape, weight, bias)), x.ndim))
    mean, _, rstd, _ = silent(_moments)(x, axes, x.dtype.type(eps), _mean_np, _rsqrt_np)
    return out, _make(mean), _make(rstd)


@op(variants="function")
def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int, C: int, HxW: int,
                      group: int, eps: float) -> tuple:
    """(group_norm's output, the mean (N, group), the reciprocal standard deviation (N, group)); all three
    differentiable in the input (PyTorch's statistics carry its graph too)."""
    out = group_norm(input, group, weight, bias, eps)
    x = input.reshape(N, group, (C // group) * HxW)
    mean, _, rstd, _ = _moments(x, (2,), eps)
    mean, rstd = mean.squeeze(-1), rstd.squeeze(-1)
    if not np.isfinite(mean._data).all():
        nan = _rowwise_moments_nan(input, x._data, mean._data)
        if nan is not None:
            mean = mean.masked_fill(_make(nan), float("nan"))
    return out, mean, rstd
