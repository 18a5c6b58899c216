"""layer_norm's CPU paths: the float64 forward and the backward without a graph of the gradient fused into
compiled loops (``_kernels/compiled/layer_norm.py``, numba), large arrays cut into runs of rows across threads,
and the backward reusing the forward's normalised input: each gives the reference's floats (the same operations
in the same order, each row's statistics the same reductions whatever the thread). With numba installed
(``[fast]``) the float32 forward is PyTorch's kernel instead (ATen's RowwiseMoments and its fused scale and
shift: ``pytorch_forward_into`` of the compiled family), its statistics returned by native_layer_norm and kept
for the backward, which starts from them as PyTorch's does: PyTorch's bits on its AVX2 and AVX-512 CPU paths.
Without numba the float32 forward takes the reference's steps, as float64 does: emulating the kernel's 8-lane
Welford steps in numpy passes cost 3.5-9x the plain formula, and the numpy path runs each op's reference
formula at numpy's speed (within a few ulps of PyTorch's kernel)."""
from __future__ import annotations

import math

import numpy as np

from .._numpy_compat import NUMPY2
from .._quiet_fp import silent
from ..autograd.grad_mode import _State
from ..tensor import _make
from .._ops._core import paths
from .._ops._core.record import record
from .._ops._kernels import compiled as _compiled, parallel
from .._ops.nn import norm
from .._ops.nn.norm import NativeLayerNormBackward0, _grad_input, _layer_norm_grads, _mean_np, _moments, _rsqrt_np

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_EMPTY = {t: np.empty(0, t) for t in _FLOATS}  # a compiled kernel's "None"


def _short_rows(c: int) -> bool:
    """Whether numpy sums a contiguous row of ``c`` elements in one pairwise sum (the compiled kernels'
    order): numpy 1.x sums a row longer than its buffer (8192 elements) in buffer-sized pieces, one after
    another; numpy 2 in one."""
    return c <= 8192 and (NUMPY2 or c <= np.getbufsize())


def _rows_split(x: np.ndarray, k: int) -> bool:
    """Whether a normalisation over the last ``k`` dims of ``x`` is cut into runs of rows (along dim 0)
    across threads: a large float32/float64 array with leading dims. Each row's statistics are the
    same reductions in the same order either way."""
    return (type(x) is np.ndarray and x.size >= 2 * parallel.GRAIN and x.ndim > k and x.shape[0] >= 4
            and x.dtype.kind == "f"
            and x.dtype.itemsize >= 4 and x.flags.c_contiguous and parallel.get_num_threads() > 1)


def _row_grain(x: np.ndarray) -> int:
    return max(2, parallel.GRAIN * x.shape[0] // x.size)


def _compiled_row_grain(c: int) -> int:
    """Rows of ``c`` elements a part of a compiled layer_norm kernel takes at least (its loops run several
    times faster than numpy's passes, so a part must hold more elements to be worth a thread)."""
    return max(1, parallel.ELEMENTWISE_GRAIN // c)


_ref = paths.reference("layer_norm")
_ref_native = paths.reference("native_layer_norm")
_F32 = np.dtype(np.float32)


def _pytorch_float32(fast, x: np.ndarray, size: int, kept: tuple, weight, bias, eps: float):
    """(out, mean, rstd, xhat) of PyTorch's float32 LayerNorm kernel over rows of the last ``size`` elements of
    ``x`` (float32, C-contiguous), the statistics of shape ``kept``: each row's moments by ATen's
    RowwiseMoments and the output ``fma((x - mean) * rstd, weight, bias)``, one compiled pass per row (the
    compiled family ``fast``'s ``pytorch_forward_into``), which also keeps the normalised input for the
    backward. Runs of rows across threads (each row on its own: the same floats on any thread)."""
    rows = x.reshape(-1, size)
    n = rows.shape[0]
    out, mean, rstd = np.empty(x.shape, _F32), np.empty(kept, _F32), np.empty(kept, _F32)
    r_out, r_mean, r_rstd = out.reshape(n, size), mean.reshape(n), rstd.reshape(n)
    xhat, none = np.empty(x.shape, _F32), _EMPTY[_F32]
    r_xhat = xhat.reshape(n, size)
    wd = none if weight is None else weight._data.reshape(size)
    bd = none if bias is None else bias._data.reshape(size)
    parallel.parallel_for(n, lambda a, b: fast.pytorch_forward_into(
        rows[a:b], wd, bd, float(eps), r_out[a:b], r_xhat[a:b], r_mean[a:b], r_rstd[a:b]),
        grain=_compiled_row_grain(size))
    return out, mean, rstd, xhat


def _forward(x: np.ndarray, shape: tuple, weight, bias, eps: float):
    """(out, mean, invstd, xhat or None) of layer_norm over the ``shape`` trailing dims of ``x``, the
    statistics of the kept shape, or None where no path applies (the reference runs)."""
    k = len(shape)
    if (type(x) is not np.ndarray or x.dtype not in _FLOATS or not x.size or k == 0 or x.ndim < k
            or x.shape[x.ndim - k:] != shape or not _params_of(x, shape, weight, bias)):
        return None  # (a meta tensor's data-less storage included: the reference knows what to do with it)
    kept = x.shape[:x.ndim - k] + (1,) * k  # the statistics' shape
    fast = _compiled.family("layer_norm")
    if x.dtype == _F32 and fast is not None:  # PyTorch's kernel takes the rows contiguous (X.contiguous()): so here
        return _pytorch_float32(fast, x if x.flags.c_contiguous else np.ascontiguousarray(x), math.prod(shape), kept,
                                weight, bias, eps)
    if not (k == 1 and x.ndim and _short_rows(x.shape[-1])):
        fast = None
    if (fast is None and not _rows_split(x, k)) or not x.flags.c_contiguous:
        return None
    mean, invstd = np.empty(kept, x.dtype), np.empty(kept, x.dtype)
    out, xhat = np.empty(x.shape, x.dtype), np.empty(x.shape, x.dtype)
    if fast is not None:  # the reference's steps fused (the same floats)
        c, none = x.shape[-1], _EMPTY[x.dtype]
        rows, r_out, r_xhat = (a.reshape(-1, c) for a in (x, out, xhat))
        r_mean, r_inv = mean.reshape(-1), invstd.reshape(-1)
        wd = none if weight is None else weight._data.reshape(-1)
        bd = none if bias is None else bias._data.reshape(-1)
        parallel.parallel_for(rows.shape[0], lambda a, b: fast.forward_into(
            rows[a:b], wd, bd, float(eps), r_out[a:b], r_xhat[a:b], r_mean[a:b], r_inv[a:b]),
            grain=_compiled_row_grain(c))
    else:  # runs of rows across threads, each as the reference's whole-array steps
        axes = tuple(range(x.ndim - k, x.ndim))
        wd = None if weight is None else weight._data
        bd = None if bias is None else bias._data

        @silent
        def rows(a, b):
            mean[a:b], _, invstd[a:b], xh = _moments(x[a:b], axes, x.dtype.type(eps), _mean_np, _rsqrt_np)
            xhat[a:b] = xh
            o = xh if wd is None else xh * wd
            out[a:b] = o if bd is None else o + bd

        parallel.parallel_for(x.shape[0], rows, grain=_row_grain(x))
    return out, mean, invstd, xhat


def _record(input, shape: tuple, weight, bias, eps: float, out, mean, invstd, xhat):
    params = (input, weight, bias)
    axes = tuple(range(out.ndim - len(shape), out.ndim))
    extra = {} if xhat is None else {"xhat": xhat}
    return record(out, NativeLayerNormBackward0, params, params, axes=axes, eps=eps, normalized_shape=shape,
                  stats=(mean, invstd), **extra)


def _shape(normalized_shape) -> tuple:
    return (normalized_shape,) if isinstance(normalized_shape, int) else tuple(map(int, normalized_shape))


# PyTorch's float32 kernel (8-lane Welford, fused scale and shift) against the reference's numpy steps
# (pairwise sums): outputs, statistics and the gradients that follow them lie within this many ulps of the
# largest magnitude a program holds (its inputs and results: a mean near zero, or a gradient that cancels,
# carries the inputs' rounding). Measured over 60 draws of tests/house/path_programs/norm.py: 10.
_PYTORCH_ULPS = 32
_WHEN_F32 = ("with numba installed, a float32 input with float32 parameters or none: PyTorch's float32 kernel "
             "(ATen's AVX2 LayerNorm, which its AVX-512 build runs too: RowwiseMoments' 8-lane Welford statistics, "
             "fma((x - mean) * rstd, weight, bias)), any layout (taken contiguous, as PyTorch's X.contiguous()), "
             "one compiled pass per row, runs of rows across threads")
_WHY_F32 = ("PyTorch's bits on its AVX2 and AVX-512 CPU paths (its DEFAULT build rounds the multiply-adds twice: "
            "an ulp now and then); ")


@paths.forward("layer_norm", ulps=_PYTORCH_ULPS, scale="program", when=_WHEN_F32 + "; a C-contiguous float64 "
               "input with float64 parameters: one normalised dim of at most 8192 with numba installed (the "
               "reference's steps fused); a large float32 (without numba) or float64 input with leading dims "
               "(runs of rows across threads)",
               why=_WHY_F32 + "speed: one compiled pass per row, or the rows across threads; the normalised input "
               "kept for the backward")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    shape = _shape(normalized_shape)
    done = _forward(input._data, shape, weight, bias, eps)
    if done is None:
        return _ref(input, normalized_shape, weight, bias, eps, cudnn_enable)  # (with its errors where it raises)
    return _record(input, shape, weight, bias, eps, *done)


@paths.forward("native_layer_norm", ulps=_PYTORCH_ULPS, scale="program",
               when="where layer_norm's path runs: " + _WHEN_F32,
               why=_WHY_F32 + "layer_norm's output with the statistics its path computed, not computed again")
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    shape = _shape(normalized_shape)
    x = input._data
    done = _forward(x, shape, weight, bias, eps) if x.dtype == _F32 else None
    if done is None:
        return _ref_native(input, normalized_shape, weight, bias, eps)
    out = _record(input, shape, weight, bias, eps, *done)
    mean, invstd = done[1], done[2]
    return out, _make(mean.copy()), _make(invstd.copy())  # (copies: the node keeps its own)


def _params_of(x: np.ndarray, shape: tuple, weight, bias) -> bool:
    """Whether the weight and bias (either None) are of the normalised shape and the input's dtype."""
    for t in (weight, bias):
        if t is not None and (type(t._data) is not np.ndarray or t._data.shape != shape or t._data.dtype != x.dtype):
            return False
    return True


def _swapped_rows(g: np.ndarray) -> bool:
    """Whether ``g`` (3-d) is a C-contiguous array with its first two dims swapped, both longer than 1: the
    gradient a batch_first=False transformer's layer_norm gets (its residual stream transposed). numpy (1.24
    and 2.x alike) sums such a gradient over its leading dims row after row in memory order, and its product
    with a C-contiguous array (a normalised input) is C-contiguous, summed in C order."""
    return g.ndim == 3 and g.shape[0] > 1 and g.shape[1] > 1 and g.transpose(1, 0, 2).flags.c_contiguous


def _backward_compiled(fast, gd, xhat, invstd, wd, need_x: bool, need_w: bool, need_b: bool, x=None, mean=None,
                       bias_rows=None):
    """(grad_input, grad_weight, grad_bias) of rows (R, C) by the compiled kernels (an array not asked for
    comes back None): a large one in one region whose parts each take a run of rows for the input
    gradient and the matching run of columns for the parameter gradients (each column summed down all
    the rows, in order), so every float is the one-thread kernel's. With ``xhat`` None, the normalised
    rows are made on the way from the input rows ``x`` and their ``mean``. ``bias_rows``: the rows the
    bias gradient sums, in that order (the gradient's rows in memory order, where they are permuted)."""
    rows, c = gd.shape
    gx = np.empty((rows, c), gd.dtype) if need_x else None
    gw = np.empty(c, gd.dtype) if need_w else _EMPTY[gd.dtype]
    gb = np.empty(c, gd.dtype) if need_b else _EMPTY[gd.dtype]

    rows_in, mean = (xhat, _EMPTY[gd.dtype]) if xhat is not None else (x, mean)

    def part(a, b):
        if need_x:
            fast.input_grad_into(gd[a:b], rows_in[a:b], mean[a:b], invstd[a:b], wd, gx[a:b])
        lo, hi = a * c // rows, b * c // rows  # the columns in the same proportion as the rows: parts cover 0..c once
        if bias_rows is None:
            if need_w or need_b:
                fast.param_grads_into(gd, rows_in, mean, invstd, gw, gb, lo, hi)
            return
        if need_w:
            fast.param_grads_into(gd, rows_in, mean, invstd, gw, _EMPTY[gd.dtype], lo, hi)
        if need_b:
            fast.param_grads_into(bias_rows, bias_rows, _EMPTY[gd.dtype], invstd, _EMPTY[gd.dtype], gb, lo, hi)

    parallel.parallel_for(rows, part, grain=_compiled_row_grain(c))
    return gx, gw if need_w else None, gb if need_b else None


@paths.kernel(norm, "_layer_norm_grads_arrays", when="gradients of rows of one normalised dim (the fused loops) or "
              "of a large input (runs of rows)", why="speed: fused compiled loops over rows of one normalised dim "
              "(numba); large gradients cut into runs of rows across threads")
def layer_norm_grads_arrays(gd, wd, xhat, invstd, axes, need):
    need = list(need)
    grads = [None, None, None]
    if (len(axes) == 1 and gd.ndim > 1 and gd.shape == xhat.shape and 1 < gd.shape[-1]
            and _short_rows(gd.shape[-1]) and gd.dtype in _FLOATS and gd.dtype == xhat.dtype == invstd.dtype
            and gd.strides[-1] == gd.itemsize and (wd is None or wd.dtype == gd.dtype)):
        fast = _compiled.family("layer_norm")
        if fast is not None:  # the formulas fused (the same floats)
            c, whole = gd.shape[-1], gd.flags.c_contiguous
            # rows of another order (a permuted gradient): the per-row input gradient still; numpy sums the
            # parameter gradients' rows in an order the kernels take only for two swapped dims (_swapped_rows),
            # else those stay numpy's below
            swapped = not whole and _swapped_rows(gd) and xhat.flags.c_contiguous
            grads = list(_backward_compiled(
                fast, np.ascontiguousarray(gd).reshape(-1, c), np.ascontiguousarray(xhat).reshape(-1, c),
                invstd.reshape(-1), _EMPTY[gd.dtype] if wd is None else wd.reshape(-1), need[0],
                need[1] and (whole or swapped), need[2] and (whole or swapped),
                bias_rows=gd.transpose(1, 0, 2).reshape(-1, c) if swapped else None))
            if need[0]:
                grads[0] = grads[0].reshape(gd.shape)
            need[0] = False
            if whole or swapped:
                need = [False, False, False]
    if need[0] and _rows_split(gd, len(axes)) and gd.shape == xhat.shape:
        gxd = np.empty(gd.shape, gd.dtype)

        def rows(a, b):
            g_hat = gd[a:b] if wd is None else gd[a:b] * wd
            gxd[a:b] = _grad_input(g_hat, xhat[a:b], invstd[a:b], axes, _mean_np)

        parallel.parallel_for(gd.shape[0], rows, grain=_row_grain(gd))
        grads[0] = gxd
        need[0] = False
    if any(need):
        rest = _layer_norm_grads(gd, wd, xhat, invstd, axes, tuple(need), _mean_np)
        grads = [r if n else a for a, r, n in zip(grads, rest, need)]
    return tuple(grads)


@paths.kernel(norm, "_layer_norm_grads_from_stats", when="C-contiguous float32/float64 rows of one normalised dim "
              "(at most 8192), the gradient's and the statistics' of the input's dtype; the gradient C-contiguous "
              "or with its two leading dims swapped (a batch_first=False transformer's)", why="speed: the fused loops "
              "make each row's normalised input on the way (native_layer_norm_backward, a compiled step's operator)")
def layer_norm_grads_from_stats(gd, wd, x, mean, rstd, axes, need):
    c = x.shape[-1] if x.ndim else 0
    if (all(type(a) is np.ndarray for a in (gd, x, mean, rstd)) and len(axes) == 1 and x.ndim > 1
            and gd.shape == x.shape and 1 < c and _short_rows(c) and x.dtype in _FLOATS
            and gd.dtype == x.dtype == mean.dtype == rstd.dtype and x.flags.c_contiguous
            and (gd.flags.c_contiguous or _swapped_rows(gd))
            and mean.size == rstd.size == x.size // c and mean.flags.c_contiguous and rstd.flags.c_contiguous
            and (wd is None or (wd.dtype == x.dtype and wd.flags.c_contiguous))):
        fast = _compiled.family("layer_norm")
        if fast is not None:  # the same operations, fused (a gradient of two swapped dims: its bias gradient
            # summed in memory order, as layer_norm_grads_arrays sums it)
            swapped = not gd.flags.c_contiguous
            grads = _backward_compiled(fast, np.ascontiguousarray(gd).reshape(-1, c), None, rstd.reshape(-1),
                                       _EMPTY[gd.dtype] if wd is None else wd.reshape(-1), *need, x=x.reshape(-1, c),
                                       mean=mean.reshape(-1),
                                       bias_rows=gd.transpose(1, 0, 2).reshape(-1, c) if swapped else None)
            return (None if grads[0] is None else grads[0].reshape(gd.shape), *grads[1:])
    return norm._layer_norm_grads_arrays(gd, wd, (x - mean) * rstd, rstd, axes, need)


@paths.backward(NativeLayerNormBackward0, when="no graph of the gradient wanted", why="speed: the forward's "
                "normalised input reused (the operator it calls recomputes it from the statistics)")
def layer_norm_backward(self, g):
    if _State.enabled:
        return NativeLayerNormBackward0.formula(self, g)
    x, w = self._unpacked_saved[:2]
    invstd = self.stats[1]
    xhat = getattr(self, "xhat", None)
    if xhat is None:  # the reference's forward ran: its statistics give its normalised input again
        xhat = (x._data - self.stats[0]) * invstd
    grads = norm._layer_norm_grads_arrays(g._data, None if w is None else w._data, xhat, invstd, self.axes,
                                          tuple(e[0] is not None for e in self.next_functions))
    return tuple(None if a is None else _make(a) for a in grads)
