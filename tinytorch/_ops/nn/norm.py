"""Normalisation primitives: layer_norm and group_norm (batch_norm in batch_norm.py), and the helpers the
three share.

Each forward is one numpy pass over the input; each records PyTorch's node (``NativeLayerNormBackward0``,
``NativeGroupNormBackward0``, ``NativeBatchNormBackward0``) with edges to input, weight and bias. The
backward recomputes the normalised input from the saved input with tinytorch ops, so the gradient is a
differentiable function of the input and second derivatives come out right. Without create_graph,
layer_norm's backward runs the same formula on arrays, with the forward's normalised input."""
from __future__ import annotations

import math

import numpy as np

from .._kernels import parallel
from ..._dtype import FLOATING_NP, FROM_NP
from ..._numpy_compat import NUMPY2
from ..._quiet_fp import silent
from ...autograd.grad_mode import _State
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.registry import op
from .._kernels import compiled as _compiled
from .activation import functional_spelling
from .._core.record import record
from ..shape.conversions import channels_last, channels_last_3d


def _float_only(x, kernel: str) -> None:
    """PyTorch's error for an integer or bool input to a floating-point kernel."""
    if (x.dtype not in FLOATING_NP and x.dtype.kind != "c"):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{FROM_NP[x.dtype]._scalar}\'')


def _dims(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _mean_kept(t: Tensor, axes: tuple) -> Tensor:
    return t.mean(axes, keepdim=True)


def _grad_input(g_hat, xhat, invstd, axes: tuple, mean=_mean_kept):
    """d loss / d x of xhat = (x - mean(x)) * invstd, given d loss / d xhat (statistics over ``axes``):
    on tensors, or on their arrays with ``mean`` = ``_mean_np`` (the same ufuncs: the same floats)."""
    return invstd * (g_hat - mean(g_hat, axes) - xhat * mean(g_hat * xhat, axes))


def _standardize(x: Tensor, axes: tuple, eps: float):
    """(xhat, invstd) from the batch statistics of ``x``, in differentiable ops."""
    xc = x - x.mean(axes, keepdim=True)
    invstd = ((xc * xc).mean(axes, keepdim=True) + eps).rsqrt()
    return xc * invstd, invstd


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


@silent
def _np_stats(x: np.ndarray, axes: tuple, eps: float):
    mean = _mean_np(x, axes)
    xc = x - mean
    var = _mean_np(xc * xc, axes)
    invstd = (1 / np.sqrt(var + x.dtype.type(eps))).astype(x.dtype, copy=False)
    return mean, var, xc, invstd


def _rows_split(x: np.ndarray, k: int) -> bool:
    """Whether a normalisation over the last ``k`` dims of ``x`` is cut into runs of rows (along dim 0)
    across threads: a large float32/float64 array with leading dims. Each row's statistics are the
    same reductions in the same order either way."""
    return (type(x) is np.ndarray and x.size >= 2 * parallel.GRAIN and x.ndim > k and x.shape[0] >= 4
            and x.dtype.kind == "f"
            and x.dtype.itemsize >= 4 and x.flags.c_contiguous and parallel.get_num_threads() > 1)


def _row_grain(x: np.ndarray) -> int:
    return max(2, parallel.GRAIN * x.shape[0] // x.size)


def _maybe(flag: bool, fn):
    return fn() if flag else None


# -- layer_norm -----------------------------------------------------------------------------------
_EMPTY = {t: np.empty(0, t) for t in _EXACT_MEAN}  # a compiled kernel's "None"


def _short_rows(c: int) -> bool:
    """Whether numpy sums a contiguous row of ``c`` elements in one pairwise sum (the compiled kernels'
    order): numpy 1.x sums a row longer than its buffer (8192 elements) in buffer-sized pieces, one after
    another; numpy 2 in one."""
    return c <= 8192 and (NUMPY2 or c <= np.getbufsize())


def _same_dtype(dt, *params) -> bool:
    return all(t is None or t._data.dtype == dt for t in params)


def _stats(i: int, output: bool = False):
    """The mean (0) or rstd (1) the node keeps; ``output``: as results of the node (group_norm's are
    differentiable outputs of PyTorch's native_group_norm, layer_norm's are not)."""
    def get(node):
        value = node.stats[i]
        if callable(value):  # the fused kernel keeps no mean: computed from the input when asked
            value = value()
        if not output:
            return _make(value)
        t = _make(value, node)
        t._output_nr = i + 1
        return t
    return get


def _compiled_row_grain(c: int) -> int:
    """Rows of ``c`` elements a part of a compiled layer_norm kernel takes at least (its loops run several
    times faster than numpy's passes, so a part must hold more elements to be worth a thread)."""
    return max(1, parallel.ELEMENTWISE_GRAIN // c)


def _layer_norm_backward_compiled(fast, gd, xhat, invstd, wd, need_x: bool, need_w: bool, need_b: bool):
    """(grad_input, grad_weight, grad_bias) of rows (R, C) by the compiled kernels (an array not asked for
    comes back None): a large one in one region whose parts each take a run of rows for the input
    gradient and the matching run of columns for the parameter gradients (each column summed down all
    the rows, in order), so every float is the one-thread kernel's."""
    rows, c = gd.shape
    gx = np.empty((rows, c), gd.dtype) if need_x else None
    gw = np.empty(c, gd.dtype) if need_w else _EMPTY[gd.dtype]
    gb = np.empty(c, gd.dtype) if need_b else _EMPTY[gd.dtype]

    def part(a, b):
        if need_x:
            fast.input_grad_into(gd[a:b], xhat[a:b], invstd[a:b], wd, gx[a:b])
        if need_w or need_b:  # the columns in the same proportion as the rows: parts cover 0..c once
            fast.param_grads_into(gd, xhat, gw, gb, a * c // rows, b * c // rows)

    parallel.parallel_for(rows, part, grain=_compiled_row_grain(c))
    return gx, gw if need_w else None, gb if need_b else None


class NativeLayerNormBackward0(Node):
    saved_fields = (("input", 0), ("normalized_shape", "normalized_shape"), ("weight", 1), ("bias", 2),
                    ("result1", _stats(0)), ("result2", _stats(1)))

    def backward(self, g):
        x, w = self._unpacked_saved[:2]
        axes, lead = self.axes, self.lead
        need_x, need_w, need_b = (e[0] is not None for e in self.next_functions)
        if not _State.enabled:
            # no graph of the gradient: on arrays, with the forward's xhat and invstd (computed by
            # the same operations as ``_standardize``)
            gd, xhat, invstd = g._data, self.xhat, self.invstd
            gx = gw = gb = None
            if (len(axes) == 1 and lead and gd.shape == xhat.shape and 1 < gd.shape[-1] and _short_rows(gd.shape[-1])
                    and gd.dtype == xhat.dtype
                    and gd.dtype == invstd.dtype and gd.strides[-1] == gd.itemsize
                    and (w is None or w._data.dtype == gd.dtype)):
                fast = _compiled.family("layer_norm")
                if fast is not None:  # the formulas below, fused (the same floats)
                    c, whole = gd.shape[-1], gd.flags.c_contiguous
                    # rows of another order (a permuted gradient): the per-row input gradient still, but
                    # numpy sums the parameter gradients' rows in memory order: those stay numpy's below
                    wd = _EMPTY[gd.dtype] if w is None else w._data.reshape(-1)
                    # (the kernel takes rows: a transposed input's xhat is in Fortran order)
                    gx, gw, gb = _layer_norm_backward_compiled(
                        fast, np.ascontiguousarray(gd).reshape(-1, c), np.ascontiguousarray(xhat).reshape(-1, c),
                        invstd.reshape(-1), wd, need_x, need_w and whole, need_b and whole)
                    gx = _make(gx.reshape(gd.shape)) if need_x else None
                    if whole:
                        return gx, _make(gw) if need_w else None, _make(gb) if need_b else None
                    need_x = False
                    gw = gb = None
            if need_x and _rows_split(gd, len(axes)) and gd.shape == xhat.shape:
                gxd = np.empty(gd.shape, gd.dtype)
                wd = None if w is None else w._data

                def rows(a, b):
                    g_hat = gd[a:b] if wd is None else gd[a:b] * wd
                    gxd[a:b] = _grad_input(g_hat, xhat[a:b], invstd[a:b], axes, _mean_np)

                parallel.parallel_for(gd.shape[0], rows, grain=_row_grain(gd))
                gx = _make(gxd)
            elif need_x:
                gx = _make(_grad_input(gd if w is None else gd * w._data, xhat, invstd, axes, _mean_np))
            # np.add.reduce is ndarray.sum without its Python layer (the same reduction)
            if need_w:
                gw = _make(np.asarray(np.add.reduce(gd * xhat, axis=lead, dtype=gd.dtype) if lead else gd * xhat))
            if need_b:
                gb = _make(np.asarray(np.add.reduce(gd, axis=lead, dtype=gd.dtype)) if lead else gd)
            return gx, gw, gb
        xhat, invstd = _standardize(x, axes, self.eps)
        gx = _maybe(need_x, lambda: _grad_input(g if w is None else g * w, xhat, invstd, axes))
        gw = _maybe(need_w, lambda: (g * xhat).sum(lead) if lead else g * xhat)
        gb = _maybe(need_b, lambda: g.sum(lead) if lead else g)
        return gx, gw, gb


def _layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
                eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift elementwise."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    x = input._data
    _float_only(x, "LayerNormKernelImpl")
    k = len(normalized_shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._data.shape != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{_dims(t._data.shape)} and normalized_shape = {_dims(normalized_shape)}")
    if k == 0 or x.ndim < k or x.shape[x.ndim - k:] != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={_dims(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{_dims(x.shape)}")
    axes = tuple(range(x.ndim - k, x.ndim))
    if (k == 1 and x.size and x.dtype in _EXACT_MEAN and x.flags.c_contiguous and _short_rows(x.shape[-1])
            and _same_dtype(x.dtype, weight, bias)):
        fast = _compiled.family("layer_norm")
        if fast is not None:  # the steps below, fused (the same floats)
            c, none = x.shape[-1], _EMPTY[x.dtype]
            rows = x.reshape(-1, c)
            wd = none if weight is None else weight._data.reshape(-1)
            bd = none if bias is None else bias._data.reshape(-1)
            out, xhat = np.empty(rows.shape, x.dtype), np.empty(rows.shape, x.dtype)
            invstd = np.empty(rows.shape[0], x.dtype)
            parallel.parallel_for(rows.shape[0], lambda a, b: fast.forward_into(rows[a:b], wd, bd, float(eps), out[a:b],
                                                                                xhat[a:b], invstd[a:b]),
                                  grain=_compiled_row_grain(c))
            invstd = invstd.reshape(x.shape[:-1] + (1,))
            params = (input, weight, bias)
            return record(out.reshape(x.shape), NativeLayerNormBackward0, params, params, axes=axes,
                          lead=tuple(range(x.ndim - k)), eps=eps, xhat=xhat.reshape(x.shape), invstd=invstd,
                          normalized_shape=normalized_shape,
                          stats=(lambda: _mean_np(x, axes).astype(x.dtype, copy=False), invstd))
    if _rows_split(x, k):  # large: runs of rows across threads, each as the whole-array steps below
        out, xhat = np.empty(x.shape, x.dtype), np.empty(x.shape, x.dtype)
        invstd = np.empty(x.shape[:x.ndim - k] + (1,) * k, x.dtype)
        mean = np.empty(invstd.shape, x.dtype)
        wd = None if weight is None else weight._data
        bd = None if bias is None else bias._data

        def rows(a, b):
            mu, _, xc, inv = _np_stats(x[a:b], axes, eps)
            mean[a:b], invstd[a:b] = mu, inv
            xh = np.multiply(xc, inv, out=xhat[a:b])
            o = xh if wd is None else xh * wd
            if bd is not None:
                o = o + bd if o is xh else np.add(o, bd, out=o)
            out[a:b] = o

        parallel.parallel_for(x.shape[0], rows, grain=_row_grain(x))
        params = (input, weight, bias)
        return record(out, NativeLayerNormBackward0, params, params, axes=axes, lead=tuple(range(x.ndim - k)),
                      eps=eps, xhat=xhat, invstd=invstd, normalized_shape=normalized_shape, stats=(mean, invstd))
    mean, _, xc, invstd = _np_stats(x, axes, eps)
    xhat = out = np.multiply(xc, invstd, out=xc)  # xc is a fresh array, needed no more
    if weight is not None:
        out = out * weight._data
    if bias is not None:
        if out is xhat:
            out = out + bias._data
        else:
            out += bias._data  # the result may be modified in place; the backward's xhat must not be
    if out is xhat:
        out = out.copy()
    # the node keeps the bias too, as PyTorch's
    params = (input, weight, bias)
    return record(out.astype(x.dtype, copy=False), NativeLayerNormBackward0, params, params, axes=axes,
                  lead=tuple(range(x.ndim - k)), eps=eps, xhat=xhat, invstd=invstd, normalized_shape=normalized_shape,
                  stats=(mean.astype(x.dtype, copy=False), invstd))


# -- group_norm -----------------------------------------------------------------------------------
class NativeGroupNormBackward0(Node):
    saved_fields = (("input", 0), ("weight", 1), ("N", lambda n: n.shape[0]), ("C", lambda n: n.shape[1]),
                    ("HxW", lambda n: math.prod(n.shape[2:])), ("group", lambda n: n.grouped[1]), ("eps", "eps"),
                    ("result1", _stats(0, True)), ("result2", _stats(1, True)))

    def backward(self, g):
        x, w = self._unpacked_saved
        shape, grouped, pshape = self.shape, self.grouped, self.param_shape
        axes = (0,) + tuple(range(2, len(shape)))
        need_x, need_w, need_b = (e[0] is not None for e in self.next_functions)
        xhat, invstd = _standardize(x.reshape(grouped), (2,), self.eps)
        g_hat = g if w is None else g * w.reshape(pshape)
        gx = _maybe(need_x, lambda: _grad_input(g_hat.reshape(grouped), xhat, invstd, (2,)).reshape(shape))
        gw = _maybe(need_w, lambda: (g * xhat.reshape(shape)).sum(axes))
        gb = _maybe(need_b, lambda: g.sum(axes))
        return gx, gw, gb


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
    grouped = (n, num_groups, math.prod(x.shape[1:]) // num_groups)
    rows = x.reshape(grouped)
    mean, _, xc, invstd = _np_stats(rows, (2,), eps)
    out = (xc * invstd).reshape(x.shape)
    if not np.isfinite(mean).all():  # a group's statistics as PyTorch's kernel leaves them (its output is NaN)
        nan = _rowwise_moments_nan(input, rows, mean)
        if nan is not None:
            mean[nan] = np.nan
    pshape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        out = out * weight._data.reshape(pshape)
    if bias is not None:
        out = out + bias._data.reshape(pshape)
    return record(out.astype(x.dtype, copy=False), NativeGroupNormBackward0, (input, weight, bias), (input, weight),
                  shape=x.shape, grouped=grouped, param_shape=pshape, eps=eps,
                  stats=(mean.reshape(n, num_groups).astype(x.dtype, copy=False),
                         invstd.reshape(n, num_groups).astype(x.dtype, copy=False)))


# -- the declared spellings: torch.X takes ATen's argument order, nn.functional.X its own ----------
@functional_spelling("layer_norm")
def _layer_norm_functional(input: Tensor, normalized_shape, weight: Tensor | None = None,
                           bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift elementwise."""
    return layer_norm(input, normalized_shape, weight, bias, eps)


@op(variants="function functional", functional=_layer_norm_functional)
def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift elementwise."""
    return _layer_norm(input, normalized_shape, weight, bias, eps)


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
    axes = tuple(range(input.dim() - len(tuple(normalized_shape)), input.dim()))
    mean, rstd = _stats(input, axes, eps)
    return out, mean, rstd


def _stats(input: Tensor, axes: tuple, eps: float):
    """The mean and 1/sqrt(var + eps) over ``axes`` (kept), without history, in the input's dtype."""
    x = input._data.astype(np.float64)
    shape = [1 if i in axes else s for i, s in enumerate(x.shape)]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = x.mean(axis=axes, keepdims=True) if x.size else np.full(shape, np.nan)
        var = ((x - mean) ** 2).mean(axis=axes, keepdims=True) if x.size else mean
        rstd = 1.0 / np.sqrt(var + eps)
    return _make(mean.astype(input._data.dtype)), _make(rstd.astype(input._data.dtype))


@op(variants="function")
def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int, C: int, HxW: int,
                      group: int, eps: float) -> tuple:
    """(group_norm's output, the mean (N, group), the reciprocal standard deviation (N, group)); all three
    differentiable in the input (PyTorch's statistics carry its graph too)."""
    out = group_norm(input, group, weight, bias, eps)
    x = input.reshape(N, group, (C // group) * HxW)
    mean = x.mean(-1)
    rstd = ((x - mean.unsqueeze(-1)).pow(2).mean(-1) + eps).rsqrt()
    if not np.isfinite(mean._data).all():
        nan = _rowwise_moments_nan(input, x._data, mean._data)
        if nan is not None:
            mean = mean.masked_fill(_make(nan), float("nan"))
    return out, mean, rstd
