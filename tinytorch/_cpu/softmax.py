"""softmax, log_softmax and cross_entropy's CPU paths: large arrays' rows across threads, log_softmax's and
nll_loss's gradients on the saved arrays, and cross_entropy's common training case (class indices, mean or
sum) in one pass over the arrays, with the reference's numpy steps: the same bits and the same two nodes."""
from __future__ import annotations

import math

import numpy as np

from ..autograd.grad_mode import _State
from ..tensor import _make
from .._quiet_fp import loud, quiet
from .._ops._core import paths
from .._ops._core.record import OUT, record
from .._ops._core.util import as_array, c_order, last_axis_max, row_starts
from .._ops._kernels import compiled as _compiled, parallel
from .nll_sums import _level_bits, cascade
from .._ops.nn.loss_nll import NllLossBackward0
from .._ops.reduce import softmax as softmax_ops
from .._ops.reduce.softmax import LogSoftmaxBackward0, _log_softmax_grad, _saved

_EXACT = (np.dtype(np.float32), np.dtype(np.float64))
_INT64 = np.dtype(np.int64)
_NO_COEF = {t: np.zeros((0, 0), t) for t in _EXACT}  # the compiled finish's coefficients where none are kept


# -- rows across threads ------------------------------------------------------------------------------
def _rows(ref, x: np.ndarray, d: int) -> np.ndarray:
    """``ref(x, d)``, a large floating ``x`` cut along another dim than ``d`` across threads (None from
    ``parallel.slices``: not cut, e.g. one thread): each part computes its own rows, the same floats."""
    if x.size >= parallel.SPLIT_FROM and x.dtype.kind == "f":
        out = parallel.slices(lambda v: ref(v, d), x, (d,), x.dtype)
        if out is not None:
            return out
    return ref(x, d)


_THREADS = f"floating arrays of {parallel.SPLIT_FROM} elements or more, C-contiguous, several threads"
_softmax_ref = paths.reference_kernel(softmax_ops, "_softmax_array")
_log_softmax_ref = paths.reference_kernel(softmax_ops, "_log_softmax_array")


@paths.kernel(softmax_ops, "_softmax_array", when=_THREADS, why="speed: rows across threads")
def softmax_array(x, d):
    return _rows(_softmax_ref, x, d)


@paths.kernel(softmax_ops, "_log_softmax_array", when=_THREADS, why="speed: rows across threads")
def log_softmax_array(x, d):
    return _rows(_log_softmax_ref, x, d)


# -- gradients on the arrays --------------------------------------------------------------------------
def _sum_kept(a: np.ndarray, dim: int) -> np.ndarray:
    return np.add.reduce(a, dim, a.dtype, None, True)  # ndarray.sum without its Python frame


@paths.backward(LogSoftmaxBackward0, when="no graph of the gradient wanted; float32/float64 of one dim or more, "
                "of the saved result's shape and dtype", why="speed: the formula (_log_softmax_grad) on the arrays")
def log_softmax_backward(self, g):
    gd = g._data
    if not _State.enabled and gd.dtype in _EXACT and gd.ndim:
        saved = self._arrays_of_saved()
        if saved is not None and saved[0].dtype == gd.dtype and saved[0].shape == gd.shape:
            # (contiguous, as the formula's operator writes it: ``_log_softmax_backward_data``)
            return (_make(c_order(_log_softmax_grad(gd, saved[0], self.dim, np.exp, _sum_kept))),)
    return LogSoftmaxBackward0.formula(self, g)


@paths.backward(NllLossBackward0, when="no graph of the gradient wanted; float32/float64",
                why="speed: the product with the saved coefficients on the arrays")
def nll_loss_backward(self, g):
    gd = g._data
    if not _State.enabled and gd.dtype in _EXACT:
        saved = self._arrays_of_saved()
        if saved is not None and saved[0].dtype == gd.dtype:
            if self.unsqueeze_dim is not None:
                gd = np.expand_dims(gd, self.unsqueeze_dim)
            elif self.denom is not None:
                gd = gd / self.denom
            return (_make(as_array(saved[0] * gd)),)
    return NllLossBackward0.formula(self, g)


# -- cross_entropy's training case ----------------------------------------------------------------------
def _one_pass(input, target, ignore_index: int, reduction: str):
    """The training case in one pass over arrays: C-contiguous float32/float64 (N, C) logits, in-range int64
    targets, no weight, ignore_index never hit, mean or sum. The same numpy operations as the reference
    (log_softmax's ``_log_softmax_array``, then ``_nll``), so the same bits, and the same two nodes. None
    for anything else (a fake tensor's too: its log-probs must be a fake tensor the trace sees), and for a row
    whose max is not finite (its log-probs are NaN, as PyTorch's; the
    reference's -w * logp keeps a NaN's sign bit where the negated sum here would flip it); such a row always
    makes the loss non-finite, so the row maxima are only looked at then. Each numpy call costs about a
    microsecond at these sizes, so the steps below are the fewest calls that give those bits."""
    x = input._data
    t = target._data
    if (input._meta or x.ndim != 2 or t.ndim != 1 or t.dtype != _INT64 or x.dtype not in _EXACT
            or (reduction != "mean" and reduction != "sum") or not x.flags.c_contiguous):
        return None
    n, c = x.shape
    if n != t.shape[0] or not n or 0 <= ignore_index < c:
        return None
    need = _State.enabled and input._requires_grad
    if c and (c <= _COMPILED_ROW or n * c <= 4096):
        # (only where numba is in use already: the steps save microseconds a call, its import takes 0.3 s)
        fast = _compiled.loaded_family("cross_entropy")
        if fast is not None:
            got = _compiled_pass(fast, x, t, need, n, c)
            if got is not None:
                total, logp, coef = got
                return _result(input, target, total, logp, coef, reduction, n, need)
    try:  # the flat index of each target, refused (ValueError) for one outside [0, c): both bounds at once
        idx = np.ravel_multi_index((row_starts(n, 1), t), x.shape)
    except ValueError:
        return None  # the reference raises PyTorch's error
    token = quiet()
    try:
        m = last_axis_max(x)  # the row maxima (as np.max(x, 1, keepdims=True)), the fastest call
        logp = x - m
        lse = np.log(np.add.reduce(np.exp(logp), 1, None, None, True))
        if need:  # the whole log-softmax is saved for the backward
            logp -= lse
            picked = logp.ravel().take(idx)
        else:  # only the targets' entries, each computed as above
            picked = logp.ravel().take(idx)
            picked -= lse.ravel()
        total = cascade(picked, np.subtract)  # the kernel's order (nll_sums.py); None: NaN
    finally:
        loud(token)
    if total is None or (not math.isfinite(total) and not np.isfinite(m).all()):
        return None
    coef = None
    if need:
        coef = np.zeros((n, c), x.dtype)
        coef.ravel()[idx] = -1.0
    return _result(input, target, total, logp, coef, reduction, n, need)


def _result(input, target, total, logp, coef, reduction: str, n: int, need: bool):
    """The loss from its sum (a 0-d array or a scalar of the logits' dtype), with its two nodes when ``need``:
    log_softmax's, keeping the log-probs ``logp``, and nll_loss's, keeping ``coef``."""
    dt = logp.dtype.type
    mean = reduction == "mean"
    if mean:  # divided by dtype(n): numpy 1.x would promote a float32 scalar over a Python int to float64
        total = dt(total) / dt(n)
    out = np.asarray(total, logp.dtype)
    if not need:
        return _make(out)  # nothing recorded: no log-softmax tensor, no coefficients
    logp_t = record(logp, LogSoftmaxBackward0, (input,), _saved(input), dim=1)
    return record(out, NllLossBackward0, (logp_t,), (_make(coef),), denom=dt(n) if mean else None,
                  shown=(logp_t, target._data, None, -100, reduction, None), graph_args=(target, None))


# the compiled steps (``_kernels/compiled/cross_entropy.py``) for rows of up to this many classes, any number of
# rows (else up to 4096 logits in all): they save numpy's per-call cost (32x27 float32: 9.4 against 16.9 us) and
# the passes between numpy's exp and log (1024x65, the char model's logits, with a gradient: 344 against 575 us;
# 4096x100: 1.77 against 2.65 ms; 1 thread, AMD EPYC Zen 3, calls interleaved); numpy's vectorised loops are
# faster over long rows (16x1000: 27 against 44 us)
_COMPILED_ROW = 128


def _compiled_pass(fast, x, t, need: bool, n: int, c: int):
    """(the loss's sum, the log-probs or the shifted logits, the coefficients or None) by the compiled steps
    around numpy's exp and log, the same floats as the numpy steps below; None where they hand the case back
    (a target out of range, a row's max not finite)."""
    shifted = np.empty((n, c), x.dtype)
    if fast.shift_rows(x, t, shifted):
        return None
    token = quiet()
    try:
        sums = np.empty((n, 1), x.dtype)
        fast.row_sums(np.exp(shifted), sums)
        lse = np.log(sums)
    finally:
        loud(token)
    coef = np.zeros((n, c), x.dtype) if need else _NO_COEF[x.dtype]
    total = fast.finish(shifted, lse, t, need, coef, _level_bits(n))
    return total, shifted, coef if need else None


_cross_entropy_ref = paths.reference("F.cross_entropy")


@paths.forward("F.cross_entropy", when="C-contiguous float32/float64 (N, C) logits, int64 class indices in range, "
               "no weight, ignore_index outside [0, C), mean or sum, no label smoothing or legacy arguments; "
               "every row's max finite where the loss is not", why="speed: one pass over the arrays")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    if weight is None and size_average is None and reduce is None and label_smoothing == 0.0:
        out = _one_pass(input, target, ignore_index, reduction)
        if out is not None:
            return out
    return _cross_entropy_ref(input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
