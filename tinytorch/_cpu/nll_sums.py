"""nll_loss's two sums in the order of PyTorch's CPU kernel (``nll_loss_out_frame`` and
``nll_loss2d_forward_out_frame``): the reduced loss and the total weight print PyTorch's bits.

The kernel walks the targets in the order of the target tensor's elements and keeps 8 partial sums (a cascade).
Each target it does not ignore is taken into level 0 (``p[0] -= log_prob * weight`` for the loss, ``p[0] +=
weight`` for the total weight); then, while the target's position ``i`` is a multiple of 16, 256, 4096, ...
(the level step is 16 below 2**40 targets), level j is added into level j + 1 and set to 0, one level after
the other. An ignored target adds nothing and moves nothing. At the end the 8 levels are added from 0 up. Every
step rounds in the dtype; no multiply-add is fused (the file is compiled for the baseline CPU). The total weight
without class weights is the count of targets not ignored, in the dtype.

Where every target counts (none ignored: the training case), numpy follows that order at the cost of its plain sum:
the value at position 0 reaches the top alone, and after it level j holds the runs between multiples of
16**(j + 1), each one in-order sum along the rows of a reshape. Ignored targets move every later hand-up, and
following that in numpy passes (runs of uneven lengths, level by level) cost 1.3-2x the plain formula: there, and
for a sum that comes out NaN (whose sign bit follows the kernel's own steps), the compiled kernel
(``_kernels/compiled/cross_entropy.py``'s ``cascade_kept``, the ``[fast]`` extra) walks the targets as PyTorch's
kernel does, and without it numpy's sum runs (the reference's, within a bound of PyTorch's:
``tests/nn/test_nn_nll_sums.py``)."""
from __future__ import annotations

import numpy as np

from .._ops._core import paths
from .._ops._kernels import compiled as _compiled
from .._ops.nn import loss_nll

_LEVELS = 8  # the kernel's cascade_sum_num_levels
_EXACT = (np.dtype(np.float32), np.dtype(np.float64))


def _level_bits(n: int) -> int:
    """log2 of the level step: max(4, ceil(log2 n) // 8)."""
    return max(4, (n - 1).bit_length() // _LEVELS if n > 1 else 0)


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


def cascade(values: np.ndarray, op):
    """The kernel's sum of ``values``, one arriving at every position (no target ignored), each taken into level 0
    with ``op`` (np.subtract: the loss's ``-=``; np.add: ``+=``), as a 0-d array of the values' dtype; None where
    the sum is NaN (the caller takes the kernel's own steps, or numpy's sum)."""
    dt = values.dtype.type
    if not len(values):
        return np.asarray(dt(0))
    if len(values) == 1:  # (a batch of one) the value reaches the top level alone; the empty levels below it add
        total = op(dt(0), values[0])  # 0 + -0 (or 0 + 0), which is 0: the steps below give exactly 0 - v (0 + v)
        return np.asarray(total) if total == total else None
    levels = _every_position(values, _level_bits(len(values)))
    if op is np.subtract:  # 0 - a - b ... is -(a + b + ...), but for a NaN's sign (then None)
        levels = [-v for v in levels]
    total = dt(0)
    for v in levels:
        total = total + v
    return np.asarray(total) if total == total else None


def _kept(values: np.ndarray, ignored: np.ndarray, subtract: bool, reference):
    """The kernel's sum of ``values`` skipping the ``ignored`` ones, by the compiled kernel (``[fast]``); without it
    ``reference()``, numpy's sum."""
    fast = _compiled.family("cross_entropy")
    if fast is None:
        return reference()
    return np.asarray(fast.cascade_kept(values, ignored, _level_bits(values.size), subtract), values.dtype)


_loss_sum_ref = paths.reference_kernel(loss_nll, "_loss_sum")
_weight_sum_ref = paths.reference_kernel(loss_nll, "_weight_sum")


@paths.kernel(loss_nll, "_loss_sum", ulps=64, scale="max", when="float32 or float64 log-probs; with an ignored "
              "target, or a NaN sum, only with the compiled kernels ([fast])",
              why="PyTorch's bits: its kernel's cascade of partial sums")
def loss_sum(picked, wt, ignored, weighted):
    if picked.dtype not in _EXACT:
        return _loss_sum_ref(picked, wt, ignored, weighted)
    flat, skip = picked.reshape(-1), ignored.reshape(-1)
    values = flat * wt.reshape(-1) if weighted else flat  # (PyTorch's input * weight, then -=)
    if not skip.any():
        total = cascade(values, np.subtract)
        if total is not None:
            return total
    return _kept(values, skip, True, lambda: _loss_sum_ref(picked, wt, ignored, weighted))


@paths.kernel(loss_nll, "_weight_sum", ulps=64, scale="max", when="float32 or float64 log-probs; class weights with "
              "an ignored target only with the compiled kernels ([fast])",
              why="PyTorch's bits: the count of targets, or its kernel's cascade of the weights")
def weight_sum(wt, ignored, weighted):
    if wt.dtype not in _EXACT:
        return _weight_sum_ref(wt, ignored, weighted)
    skip = ignored.reshape(-1)
    if not weighted:
        return np.asarray(skip.size - np.count_nonzero(skip), wt.dtype)
    flat = wt.reshape(-1)
    if not skip.any():
        total = cascade(flat, np.add)
        if total is not None:
            return total
    return _kept(flat, skip, False, lambda: _weight_sum_ref(wt, ignored, weighted))
