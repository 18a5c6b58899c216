"""cross_entropy's training case (``_cpu/softmax.py``'s one pass: (N, C) logits, class indices, mean or sum)
around numpy's own exp and log: the steps between them in three loops instead of a dozen numpy calls, each
about a microsecond on a batch's logits.

    shift_rows   the targets' range checked, each row's max, logits - max      (numpy: maximum.reduceat, subtract)
    row_sums     each row's sum of exp(logits - max), numpy's pairwise order  (numpy: add.reduce along the rows)
    finish       log-probs = shifted - log(sum); the targets' entries summed in PyTorch's cascade of eight
                 partial sums (``_cpu/nll_sums.py``); the gradient's coefficients (-1 at each target)

A row whose max is not finite is handed back to the numpy path, as is a target out of range (the reference
raises PyTorch's error).

    cascade_kept nll_loss's two sums (the loss, the total weight) in the same cascade where some targets are
                 ignored: they add nothing and hand nothing up, which moves every later hand-up (the numpy
                 path follows the cascade only where every target counts, and takes numpy's sum otherwise:
                 its emulation cost 1.3-2x the plain formula)"""
from __future__ import annotations

import numpy as np
from numba import boolean, float32, float64, int64, njit, types

from ._common import jit, like, readonly, row_max, row_sum

_LEVELS = 8  # PyTorch's cascade_sum_num_levels


@njit(cache=True, nogil=True, inline="always")
def _carry(levels, i, bits):
    """After the ``i``-th value went into level 0: while ``i`` is a multiple of 2**(bits * (k + 1)), level k is
    added into level k + 1 and cleared (PyTorch's cascade of partial sums)."""
    k = 0
    while k < _LEVELS - 1 and (i & ((1 << (bits * (k + 1))) - 1)) == 0:
        levels[k + 1] = levels[k + 1] + levels[k]
        levels[k] = 0.0
        k += 1


@njit(cache=True, nogil=True, inline="always")
def _total(levels):
    """The cascade's result: its levels added from 0 up."""
    total = like(levels[0], 0.0)
    for k in range(_LEVELS):
        total = total + levels[k]
    return total


def _shift_sig(t):
    return int64(readonly(t, 2), readonly(int64, 1, "A"), t[:, ::1])


@jit([_shift_sig(float32), _shift_sig(float64)])
def shift_rows(x, target, out):
    """out = x - (each row's max), for targets all in [0, C); 1 where a target is out of range, 2 where a row holds
    a NaN or its max is not finite (nothing then written that the caller keeps), else 0. (Where a row's max is a
    zero of either sign, the max found may have the other sign than numpy's: the shifted zeros then differ in
    sign, but nothing computed from them does: exp gives 1 for both, and a log-prob is a zero minus a log-sum-exp
    that is positive or +0.)"""
    n, c = x.shape
    for i in range(n):
        if target[i] < 0 or target[i] >= c:
            return 1
    for i in range(n):
        row = x[i]
        m, nan = row_max(row, c)
        if nan or not (m - m == 0):  # inf (inf - inf is NaN)
            return 2
        dst = out[i]
        for j in range(c):
            dst[j] = row[j] - m
    return 0


def _sums_sig(t):
    return types.void(readonly(t, 2), t[:, ::1])


@jit([_sums_sig(float32), _sums_sig(float64)])
def row_sums(e, out):
    """out[i, 0] = np.add.reduce(e[i]) for a C-contiguous (N, C) ``e``: its pairwise sum from +0."""
    n, c = e.shape
    flat = e.reshape(n * c)
    for i in range(n):
        out[i, 0] = row_sum(flat, i * c, c, 1)


def _finish_sig(t):
    return t(t[:, ::1], readonly(t, 2), readonly(int64, 1, "A"), boolean, t[:, ::1], int64)


@jit([_finish_sig(float32), _finish_sig(float64)])
def finish(shifted, lse, target, whole, coef, bits):
    """The loss's sum (PyTorch's kernel's order: each target's -log-prob taken into level 0, level j handed up
    into j + 1 at positions that are multiples of 2**(bits * (j + 1)), the levels added from 0 up). With
    ``whole`` every row of ``shifted`` becomes its log-probs (kept for the backward) and ``coef`` (zeros) gets
    -1 at each target; else only the targets' entries are computed (the same subtraction)."""
    n, c = shifted.shape
    levels = np.zeros(_LEVELS, shifted.dtype)
    for i in range(n):
        t = target[i]
        lo = lse[i, 0]
        if whole:
            for j in range(c):
                shifted[i, j] = shifted[i, j] - lo
            v = shifted[i, t]
            coef[i, t] = -1.0
        else:
            v = shifted[i, t] - lo
        levels[0] = levels[0] - v
        _carry(levels, i, bits)
    return _total(levels)


def _kept_sig(t):
    return t(readonly(t, 1, "A"), readonly(boolean, 1, "A"), int64, boolean)


@jit([_kept_sig(float32), _kept_sig(float64)])
def cascade_kept(values, ignored, bits, subtract):
    """nll_loss's sum of ``values`` (one per target, in the order of the target tensor's elements) as its kernel
    takes it: where ``ignored`` is set nothing; else the value into level 0 (``-=`` where ``subtract``: the loss;
    ``+=``: the total weight), then, while the target's position is a multiple of 2**(bits * (j + 1)), level j
    added into level j + 1 and cleared; at the end the levels added from 0 up."""
    levels = np.zeros(_LEVELS, values.dtype)
    for i in range(values.size):
        if ignored[i]:
            continue
        if subtract:
            levels[0] = levels[0] - values[i]
        else:
            levels[0] = levels[0] + values[i]
        _carry(levels, i, bits)
    return _total(levels)
