"""batch_norm: per-channel normalisation by the batch's statistics (training) or the running ones.

Training on float32/float64 follows PyTorch's CPU kernel's order and precision (``_batch_norm_train``),
keeping the centred input for a backward in the kernel's order too (``_centred_grads``, one formula run on
the arrays or, for create_graph, on tensors); other dtypes and eval mode keep the numpy-order formulas of
norm.py (the normalised input, ``_grad_input``). The compiled kernels that fuse the training steps register
from ``tinytorch/_cpu/batch_norm.py``."""
from __future__ import annotations

import numpy as np

from ..._meta_array import MetaArray

from ..._quiet_fp import silent
from ...autograd.grad_mode import _Active, _State
from ...autograd.node import Node
from ...tensor import Size, Tensor, _make
from .._core.registry import aten_only, op
from .activation import functional_spelling
from .._core.layout import laid_in_format, suggested_of
from .._core.record import record
from .norm import _EXACT_MEAN, _check_mixed_dtype, _float_only, _grad_input, _mean_np, _moments, _rsqrt_np

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


# -- batch_norm -----------------------------------------------------------------------------------
def _stat(i: int):
    """The batch's mean (0) or invstd (1) per channel, as kept (in the input's dtype), made when read."""
    def get(node):
        st = node.stats
        return None if st is None else _make(st[i].reshape(-1).astype(st[2], copy=False))
    return get


class NativeBatchNormBackward0(Node):
    xhat = None  # the forward's normalised input (float32/float64 only), for the backward on arrays
    xc = None  # or the training forward's centred input, xhat being xc * invstd
    # what PyTorch's node keeps besides input and weight: the running statistics (as the module's
    # buffers, which its kernel updates without a version bump) and the batch's mean and invstd per
    # channel (empty in eval)
    running = (None, None)
    stats = None
    saved_fields = (("input", 0), ("weight", 1), ("running_mean", lambda n: n.running[0]),
                    ("running_var", lambda n: n.running[1]), ("training", "use_batch_stats"), ("eps", "eps"),
                    ("result1", _stat(0)), ("result2", _stat(1)))

    in_fmt = None  # the input's suggested memory format, its result's and its gradient's (``suggested_of``)

    def _release_extra(self) -> None:
        self.xhat = self.xc = self.invstd = None

    def _backward_arrays(self, gd: np.ndarray, wd):
        """The backward formulas on arrays, with the forward's centred input (training) or normalised
        input (eval), which the tinytorch-op path recomputes bit for bit from the saved input."""
        axes, shape = self.axes, self.param_shape
        need = tuple(e[0] is not None for e in self.next_functions)
        if self.xc is None:
            grads = _eval_grads(gd, self.xhat, self.invstd, wd, shape, need, lambda a: a.sum(axis=axes, dtype=a.dtype))
            return tuple(None if t is None else _make(t) for t in grads)
        grads = _train_backward_arrays(gd, self.xc, self.invstd, wd, gd.size // self.invstd.size, shape, axes, need)
        return tuple(None if t is None else _make(t) for t in grads)

    def backward(self, g):
        """The three gradients; the input's laid out in the input's suggested memory format (PyTorch's kernels
        allocate it so: channels-last for a channels-last input, else contiguous, whatever the gradient's layout),
        the same numbers."""
        gx, gw, gb = self._grads(g)
        if gx is not None:
            gx._data = laid_in_format(gx._data, self.in_fmt)
        return gx, gw, gb

    def _grads(self, g):
        kept = self.xhat if self.xc is None else self.xc
        if not _State.enabled and _State.array_backward and kept is not None and g._data.dtype == kept.dtype:
            saved = self._arrays_of_saved()  # None when saved through pack hooks: their unpack runs below
            if saved is not None and (saved[1] is None or saved[1].dtype == saved[0].dtype):
                return self._backward_arrays(g._data, saved[1])
        x, w = self._unpacked_saved
        axes, shape = self.axes, self.param_shape
        need = tuple(e[0] is not None for e in self.next_functions)
        if self.use_batch_stats and self.xc is not None:
            # the kernel-order training formula, from the saved input's statistics recomputed in that order
            xc = x - x.mean(axes, keepdim=True)
            invstd = ((xc * xc).mean(axes, keepdim=True).double() + self.eps).rsqrt().to(x.dtype)
            return _centred_grads(g, xc, invstd, w, x._data.size // shape[1], shape, need,
                                  lambda t: t.sum(axes, keepdim=True))
        if not self.use_batch_stats:
            invstd = _make(self.invstd)
            return _eval_grads(g, (x - _make(self.mean)) * invstd, invstd, w, shape, need, lambda t: t.sum(axes))
        _, _, invstd, xhat = _moments(x, axes, self.eps)
        g_hat = g if w is None else g * w.reshape(shape)
        return (_grad_input(g_hat, xhat, invstd, axes) if need[0] else None,
                (g * xhat).sum(axes) if need[1] else None,
                g.sum(axes) if need[2] else None)


def _centred_grads(g, xc, invstd, w, n: int, shape: tuple, need: tuple, sums):
    """The training backward in the order of PyTorch's CPU kernel, from the centred input xc: with
    ``sums`` the per-channel sums (dims kept), total = sums(g), dotp = sums(xc * g); grad_input = (g -
    total / n - xc * (dotp * invstd * invstd / n)) * invstd * weight, grad_weight = dotp * invstd,
    grad_bias = total. On tensors (a graph when create_graph) or on arrays (the same ufuncs, the same
    floats)."""
    need_x, need_w, need_b = need
    total = sums(g) if need_x or need_b else None
    dotp = sums(xc * g) if need_x or need_w else None
    gx = gw = gb = None
    if need_x:
        gx = (g - total / n - xc * (dotp * invstd * invstd / n)) * invstd
        if w is not None:
            gx = gx * w.reshape(shape)
    if need_w:
        gw = (dotp * invstd).reshape(-1)
    if need_b:
        gb = total.reshape(-1)
    return gx, gw, gb


def _eval_grads(g, xhat, invstd, w, shape: tuple, need: tuple, total):
    """The backward with the running statistics (constants): grad_input = g * weight * invstd,
    grad_weight = total(g * xhat), grad_bias = total(g), ``total`` summing over all but the channel dim."""
    g_hat = g if w is None else g * w.reshape(shape)
    return (g_hat * invstd if need[0] else None, total(g * xhat) if need[1] else None,
            total(g) if need[2] else None)


@silent
def _batch_norm_train(input: Tensor, x: np.ndarray, running_mean, running_var, weight, bias, momentum: float,
                      eps: float, axes: tuple, shape: tuple, n: int, stats_out: list | None = None) -> Tensor:
    """Training batch_norm of a float32/float64 array (``_train_arrays``), recorded; ``stats_out`` (a list) gets
    the batch's mean and invstd (dims kept), as native_batch_norm returns them."""
    w, b, rm, rv = (None if t is None else t._data for t in (weight, bias, running_mean, running_var))
    out, xc, invstd, mean = _train_arrays(x, w, b, rm, rv, momentum, eps, axes, shape, n)
    if stats_out is not None:
        stats_out += [mean, invstd]
    fmt = suggested_of(x)  # PyTorch's kernel writes its result in the input's suggested memory format
    return record(laid_in_format(out, fmt), NativeBatchNormBackward0, (input, weight, bias), (input, weight), axes=axes,
                  param_shape=shape, eps=eps, use_batch_stats=True, xc=xc, invstd=invstd,
                  running=(running_mean, running_var), stats=(mean, invstd, x.dtype), in_fmt=fmt)


def _train_arrays(x: np.ndarray, w, b, rm, rv, momentum: float, eps: float, axes: tuple, shape: tuple, n: int):
    """(out, the centred input, invstd, mean) of training batch_norm, the running statistics ``rm``/``rv``
    updated in place (any of the four arrays None), in the order and precision of PyTorch's CPU kernel:
    mean = sum / n; var_sum = sum of (x - mean)^2; invstd = 1 / sqrt(var_sum / n + eps) in float64, rounded
    once; output x * alpha + beta with alpha = invstd * weight and beta = bias - mean * alpha, the last two
    each one fused multiply-add in PyTorch (here in float64, where the float32 products are exact);
    running_mean = m * mean + (1 - m) * running_mean and running_var = m * (var_sum / (n - 1)) + (1 - m) *
    running_var, the latter summed in float64. Only the variance sum differs: PyTorch accumulates it with
    fused multiply-adds, numpy squares then adds."""
    # (a ufunc given two dtypes, or a dtype= argument, costs 2 us at these sizes: every mixed-precision
    # step below is an astype and then a ufunc of one dtype, with Python floats and ints)
    dt = x.dtype
    mean = np.add.reduce(x, axis=axes, keepdims=True)
    mean /= n
    xc = x - mean
    var_sum = np.add.reduce(np.multiply(xc, xc), axis=axes, keepdims=True)
    wide = (var_sum / n).astype(_F64)
    wide += eps
    np.sqrt(wide, out=wide)
    np.divide(1.0, wide, out=wide)
    invstd = wide.astype(dt, copy=False)
    if rm is not None:
        m = rm.dtype.type(momentum)
        update = mean.reshape(rm.shape) * m
        rm *= 1 - m
        rm += update
    if rv is not None:
        m = rv.dtype.type(momentum)
        if n > 1:
            wide = (var_sum.reshape(rv.shape) / (n - 1)).astype(_F64)
        else:  # one value per channel: PyTorch's 0 / 0
            wide = np.full(rv.shape, np.nan)
        wide *= float(m)
        wide += (rv * (1 - m)).astype(_F64, copy=False)
        np.copyto(rv, wide, casting="same_kind")
    alpha = invstd if w is None else invstd * w.reshape(shape)
    if dt == _F32:
        # float64 arithmetic stands in for PyTorch's fused multiply-add (the float32 product is exact)
        wide = mean.astype(_F64)
        wide *= alpha.astype(_F64)
        if b is None:
            np.negative(wide, out=wide)
        else:
            np.subtract(b.reshape(shape).astype(_F64), wide, out=wide)
        beta = wide.astype(dt)
    else:
        beta = -(mean * alpha) if b is None else b.reshape(shape) - mean * alpha
    out = x * alpha
    out += beta
    if out.dtype != dt:  # parameters of another dtype
        out = out.astype(dt)
    return out, xc, invstd, mean


def batch_norm_training(input: Tensor, running_mean: Tensor, running_var: Tensor, weight: Tensor | None,
                        bias: Tensor | None, momentum: float, eps: float) -> Tensor | None:
    """``F.batch_norm(input, running_mean, running_var, weight, bias, True, momentum, eps)`` for what a
    BatchNorm layer in training mostly sees: a plain float32/float64 Tensor of 2+ dims, more than one
    value per channel, running statistics and the parameters given as that dtype's tensors of its
    channel count, no transform on. Everything F.batch_norm would check is then known to pass, and its
    three layers of calls (a third of a small BatchNorm's forward) are skipped. None for anything else:
    the caller then goes through F.batch_norm (as a BatchNorm layer does while a graph capture runs, which records
    the ops F.batch_norm declares)."""
    if type(input) is not Tensor or _Active.transforms or input._meta:
        return None
    x = input._data
    dt = x.dtype
    if (dt != _F32 and dt != _F64) or x.ndim < 2 or not x.size or not eps > 0.0:
        return None
    c = x.shape[1]
    for t in (running_mean, running_var, weight, bias):
        if t is not None and (t._data.size != c or t._data.dtype != dt):
            return None
    if _State.enabled and (running_mean._requires_grad or running_var._requires_grad):
        return None  # refused with PyTorch's message there
    n = x.size // c
    if n < 2:
        return None
    axes, shape = _channel_axes(x.ndim, c)
    return _batch_norm_train(input, x, running_mean, running_var, weight, bias, momentum, eps, axes, shape, n)


def _channel_axes(ndim: int, c: int) -> tuple:
    """The axes a channel's statistics reduce over, and the shape that broadcasts one value per channel."""
    if ndim == 2:
        return (0,), (1, c)
    return (0,) + tuple(range(2, ndim)), (1, c) + (1,) * (ndim - 2)


def _check_channels(name: str, t, c: int) -> None:
    if t is not None and t._data.size != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")


@silent  # a channel holding inf or NaN: NaN statistics, as PyTorch's, without numpy's warnings
def _batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
                bias: Tensor | None = None, training: bool = False, momentum: float | None = 0.1,
                eps: float = 1e-5, stats_out: list | None = None) -> Tensor:
    """Normalise each channel (dim 1) by batch statistics (training) or the running ones (eval); ``stats_out``:
    see ``_batch_norm_train``."""
    x = input._data
    _float_only(x, "batch_norm")
    if x.size == 0:
        # ATen's empty-input path: a copy (not a view, to keep the graph), scaled by the first weight and bias
        out = input.clone()
        if weight is not None:
            out = out * weight.select(0, 0)
        return out if bias is None else out + bias.select(0, 0)
    c = x.shape[1] if x.ndim > 1 else 0
    if training:
        n = x.size // c if c else 0
        if eps <= 0.0:
            raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if not training and running_mean is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if not training and running_var is None:
        raise RuntimeError("running_var must be defined in evaluation mode")
    if _State.enabled:  # autograd's check on native_batch_norm's inputs, before its kernel's
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is not None and t._requires_grad:
                raise RuntimeError(f"The function 'native_batch_norm' is not differentiable with respect to "
                                   f"argument '{name}'. This input cannot have requires_grad True.")
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        _check_channels(name, t, c)
    _check_mixed_dtype(x.dtype, weight, bias, running_mean, running_var)
    axes, shape = _channel_axes(x.ndim, c)
    if training:
        # the running statistics are updated in place without a version bump: PyTorch's kernel writes
        # them behind autograd's back too (F.batch_norm leaves running_mean._version unchanged)
        if momentum is None:
            momentum = 0.0
        if x.ndim == 1:  # no channel dim: PyTorch's size(1) fails
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
        if x.dtype in _EXACT_MEAN:
            return _batch_norm_train(input, x, running_mean, running_var, weight, bias, momentum, eps, axes, shape, n,
                                     stats_out)
        mean, var, invstd, out = _moments(x, axes, x.dtype.type(eps), _mean_np, _rsqrt_np)
        if running_mean is not None:
            rm = running_mean._data
            rm *= rm.dtype.type(1 - momentum)
            rm += (mean.reshape(c) * momentum).astype(rm.dtype, copy=False)
        if running_var is not None:
            rv = running_var._data
            unbiased = var.reshape(c) * (n / (n - 1))
            rv *= rv.dtype.type(1 - momentum)
            rv += (unbiased * momentum).astype(rv.dtype, copy=False)
        attrs = {"use_batch_stats": True, "stats": (mean, invstd, x.dtype)}
    else:
        mean, invstd = _running_stats(x, running_mean, running_var, eps, shape)
        out = (x - mean) * invstd
        attrs = {"use_batch_stats": False, "mean": mean, "invstd": invstd,
                 "stats": (np.empty(0, x.dtype), np.empty(0, x.dtype), x.dtype)}
        if x.dtype in _EXACT_MEAN and invstd.dtype == x.dtype:
            attrs["xhat"] = out
    if weight is not None:
        out = out * weight._data.reshape(shape)
    if bias is not None:
        out = out + bias._data.reshape(shape)
    if out is attrs.get("xhat"):
        out = out.copy(order="K")  # the result may be modified in place; the backward's xhat must not be
    fmt = suggested_of(x)  # PyTorch's kernel writes its result in the input's suggested memory format
    return record(laid_in_format(out.astype(x.dtype, copy=False), fmt), NativeBatchNormBackward0, (input, weight, bias),
                  (input, weight), axes=axes, param_shape=shape, eps=eps, running=(running_mean, running_var),
                  in_fmt=fmt, **attrs)



def _running_stats(x: np.ndarray, running_mean: Tensor, running_var: Tensor, eps: float, shape: tuple) -> tuple:
    """Eval's mean and 1 / sqrt(var + eps) from the running statistics, in the input's dtype, shaped to broadcast."""
    mean = running_mean._data.reshape(shape).astype(x.dtype, copy=False)
    return mean, 1 / np.sqrt(running_var._data.reshape(shape).astype(x.dtype, copy=False) + x.dtype.type(eps))


@functional_spelling("batch_norm")
def _batch_norm_functional(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
                           weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
                           momentum: float | None = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) by batch statistics (training) or the running ones (eval)."""
    if training:
        # the array's shape (a Size costs more than the rest of this check); vmap's tensors have no array
        size = input._data.shape if type(input) is Tensor else input.shape
        values = size[0] if len(size) else 1
        for d in size[2:]:
            values *= d
        if values == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {Size(size)}")
    return batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


@op(variants="function functional", functional=_batch_norm_functional)
def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
               running_var: Tensor | None, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool) -> Tensor:
    """Normalise each channel (dim 1) by batch statistics (training) or the running ones (eval)."""
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@silent  # inf - inf in the centring, 1 / sqrt(0): PyTorch's NaN and inf, without numpy's warnings
def _mean_invstd(x: np.ndarray, eps: float) -> tuple:
    """native_batch_norm's returned statistics: each channel's mean and 1 / sqrt(var + eps), in float64."""
    if not x.size:
        return np.zeros(x.shape[1]), np.full(x.shape[1], 1.0 / np.sqrt(eps))
    mean, _, invstd, _ = _moments(x, _channel_axes(x.ndim, x.shape[1])[0], x.dtype.type(eps), _mean_np, _rsqrt_np)
    return mean.reshape(-1), invstd.reshape(-1)


@op(variants="function out")
def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                      running_var: Tensor | None, training: bool, momentum: float, eps: float) -> tuple:
    """(batch_norm's output, the batch mean, its 1/sqrt(var + eps)) when training (the running statistics
    updated); in eval the two statistics are empty. The statistics carry no graph (PyTorch's)."""
    stats: list = []
    out = _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, stats)
    if not training:
        # empty on the CPU; PyTorch's meta kernel gives them the channels' size all the same
        n = input._data.shape[1] if type(input._data) is MetaArray and input._data.ndim > 1 else 0
        empty = np.zeros_like(input._data, shape=(n,))
        return out, _make(empty), _make(empty.copy())
    if stats:  # the training kernel's own statistics (what its backward reads)
        return out, _make(stats[0].reshape(-1)), _make(stats[1].reshape(-1))
    mean, invstd = _mean_invstd(input._data.astype(np.float64), eps)
    dt = input._data.dtype
    return out, _make(mean.astype(dt)), _make(invstd.astype(dt))


@aten_only("native_batch_norm_backward", recorded=True)
def native_batch_norm_backward(grad_out: Tensor, input: Tensor, weight: Tensor | None, running_mean, running_var,
                               save_mean: Tensor, save_invstd: Tensor, train: bool, eps: float, output_mask) -> tuple:
    """``torch.ops.aten.native_batch_norm_backward`` of a batch norm on float32/float64 (what a graph capture records
    for ``NativeBatchNormBackward0``), as the node computes it: in training the centred input from the saved mean,
    then the kernel-order formulas (``_train_backward_arrays``); in eval the normalised input from the running
    statistics, as the forward made it, then ``_eval_grads``."""
    x, gd = input._data, grad_out._data
    if x.dtype not in _EXACT_MEAN or gd.dtype != x.dtype or (train and save_mean._data.dtype != x.dtype):
        raise NotImplementedError("native_batch_norm_backward: tinytorch computes it for batch norm on "
                                  "float32/float64 only")
    axes, shape = _channel_axes(x.ndim, x.shape[1])
    if not train:
        return _eval_backward(gd, x, weight, running_mean, running_var, eps, axes, shape, output_mask)
    xc = x - save_mean._data.reshape(shape)
    wd = None if weight is None else weight._data
    grads = _train_backward_arrays(gd, xc, save_invstd._data.reshape(shape), wd, x.size // x.shape[1], shape, axes,
                                   tuple(bool(m) for m in output_mask))
    return tuple(None if t is None else _make(t) for t in grads)


@silent
def _eval_backward(gd, x, weight, running_mean, running_var, eps: float, axes: tuple, shape: tuple, output_mask):
    mean, invstd = _running_stats(x, running_mean, running_var, eps, shape)
    if invstd.dtype != x.dtype:
        raise NotImplementedError("native_batch_norm_backward: running statistics of another dtype than the input")
    grads = _eval_grads(gd, (x - mean) * invstd, invstd, None if weight is None else weight._data, shape,
                        tuple(bool(m) for m in output_mask), lambda a: a.sum(axis=axes, dtype=a.dtype))
    return tuple(None if t is None else _make(t) for t in grads)


def _train_backward_arrays(gd: np.ndarray, xc: np.ndarray, invstd: np.ndarray, wd, n: int, shape: tuple, axes: tuple,
                           need: tuple) -> tuple:
    """The training backward on arrays: ``_centred_grads`` with numpy's per-channel sums; the per-channel
    gradients as (C,) arrays of their own (the engine keeps such a gradient as .grad without a copy)."""
    grads = _centred_grads(gd, xc, invstd, wd, n, shape, need, lambda a: np.add.reduce(a, axis=axes, keepdims=True))
    return tuple(None if t is None else t if t.base is None or t.ndim > 1 else t.copy() for t in grads)
