"""nll_loss's two sums in the order of PyTorch's CPU kernel (``nll_loss_out_frame`` and
``nll_loss2d_forward_out_frame``): the reduced loss and the total weight print PyTorch's bits.

The kernel walks the targets in the order of the target tensor's elements and keeps 8 partial sums (a cascade).
Each target it does not ignore is taken into level 0 (``p[0] -= log_prob * weight`` for the loss, ``p[0] +=
weight`` for the total weight); then, while the target's position ``i`` is a multiple of 16, 256, 4096, ...
(the level step is 16 below 2**40 targets), level j is added into level j + 1 and set to 0, one level after
the other. An ignored target adds nothing and moves nothing. At the end the 8 levels are added from 0 up. Every
step rounds in the dtype; no multiply-add is fused (the file is compiled for the baseline CPU). The total weight
without class weights is the count of targets not ignored, in the dtype.

numpy follows that order level by level: the values arriving at a level, in order, split into runs that end
at each position where the level hands its sum up; each run is summed in order from 0 (``ufunc.accumulate``
along the rows of a padded grid, which adds in sequence), and the sums of the closed runs arrive at the next
level at their closing positions. What stays at a level is the sum of its last, open run."""
from __future__ import annotations

import numpy as np

from .._ops._core import paths
from .._ops.nn import loss_nll

_LEVELS = 8  # the kernel's cascade_sum_num_levels
_EXACT = (np.dtype(np.float32), np.dtype(np.float64))
_PAD = {np.subtract: 0.0, np.add: -0.0}  # what leaves a running value unchanged, -0 and +0 included


def _level_bits(n: int) -> int:
    """log2 of the level step: max(4, ceil(log2 n) // 8)."""
    return max(4, (n - 1).bit_length() // _LEVELS if n > 1 else 0)


def _runs(values: np.ndarray, closes: np.ndarray, op) -> tuple:
    """(the in-order sums of the runs of ``values`` that end where ``closes`` is set, the sum of the open run
    after the last of them), each run's sum starting from +0 and taking its values with ``op`` (np.subtract:
    the loss's ``-=``; np.add: ``+=``)."""
    ends = np.flatnonzero(closes)
    starts = np.concatenate(([0], ends + 1))
    lengths = np.diff(starts, append=len(values))
    grid = np.full((len(starts), int(lengths.max()) + 1), _PAD[op], values.dtype)
    grid[:, 0] = 0.0
    run = np.repeat(np.arange(len(starts)), lengths)
    grid[run, np.arange(len(values)) - starts[run] + 1] = values
    sums = op.accumulate(grid, axis=1)[:, -1]
    return sums[:-1], sums[-1]


def _every_position(values: np.ndarray, bits: int) -> list:
    """The levels' sums (level 0 first, the top level's last) when a value arrives at every position, each taken
    in with ``+=``. The value at position 0 closes every level at once and reaches the top alone; after it, level
    j holds the runs between multiples of 16**(j+1), whose closed sums arrive at level j + 1 at consecutive
    positions again: each level is a reshape and one in-order sum along its rows."""
    step = 1 << bits
    first, rest = values[0], values[1:]
    levels = []
    for _ in range(_LEVELS - 1):
        k = len(rest) // step
        tail = rest[k * step:]
        levels.append(np.add.accumulate(tail)[-1] if len(tail) else values.dtype.type(0))
        if not k:
            return levels + [first]
        rest = np.add.accumulate(rest[:k * step].reshape(k, step), axis=1)[:, -1]
    return levels + [np.add.accumulate(np.concatenate((values[:1], rest)))[-1]]  # the top level never hands up


def cascade(values: np.ndarray, positions: np.ndarray | None, n: int, op) -> np.ndarray:
    """The kernel's sum of ``values`` (taken into level 0 with ``op``) arriving at target ``positions``
    (ascending; None: every position 0..n-1) out of ``n``, as a 0-d array of the values' dtype."""
    bits = _level_bits(n)
    dt = values.dtype.type
    if positions is None and len(values):
        levels = _every_position(values, bits)
        if op is np.subtract:  # 0 - a - b ... is -(a + b + ...), but for a NaN's sign: then the steps themselves
            levels = [-v for v in levels]
        total = dt(0)
        for v in levels:
            total = total + v
        if total == total:
            return np.asarray(total)
        positions = np.arange(n)
    if positions is None:
        positions = np.arange(n)
    levels = np.zeros(_LEVELS + 1, values.dtype)  # the +0 the final sum starts from, then the levels
    for j in range(_LEVELS):
        if not len(values):
            break
        closes = ((positions & ((1 << (bits * (j + 1))) - 1)) == 0 if j + 1 < _LEVELS
                  else np.zeros(len(values), bool))
        if closes.all():  # each value is a run of its own: 0 op value, handed up at once
            values, levels[j + 1] = op(dt(0), values), 0.0
        else:
            values, levels[j + 1] = _runs(values, closes, op)
            positions = positions[closes]
        op = np.add  # a level above 0 adds what arrives
    return np.add.accumulate(levels)[-1:].reshape(())


_loss_sum_ref = paths.reference_kernel(loss_nll, "_loss_sum")
_weight_sum_ref = paths.reference_kernel(loss_nll, "_weight_sum")


@paths.kernel(loss_nll, "_loss_sum", ulps=64, scale="max", when="float32 or float64 log-probs",
              why="PyTorch's bits: its kernel's cascade of partial sums")
def loss_sum(picked, wt, ignored, weighted):
    if picked.dtype not in _EXACT:
        return _loss_sum_ref(picked, wt, ignored, weighted)
    flat, ignored = picked.reshape(-1), ignored.reshape(-1)
    every = not ignored.any()
    data = flat if every else flat[~ignored]
    if weighted:
        data = data * (wt.reshape(-1) if every else wt.reshape(-1)[~ignored])
    return cascade(data, None if every else np.flatnonzero(~ignored), flat.size, np.subtract)


@paths.kernel(loss_nll, "_weight_sum", ulps=64, scale="max", when="float32 or float64 log-probs",
              why="PyTorch's bits: the count of targets, or its kernel's cascade of the weights")
def weight_sum(wt, ignored, weighted):
    if wt.dtype not in _EXACT:
        return _weight_sum_ref(wt, ignored, weighted)
    ignored = ignored.reshape(-1)
    if not weighted:
        return np.asarray(ignored.size - np.count_nonzero(ignored), wt.dtype)
    if not ignored.any():
        return cascade(wt.reshape(-1), None, ignored.size, np.add)
    return cascade(wt.reshape(-1)[~ignored], np.flatnonzero(~ignored), ignored.size, np.add)
