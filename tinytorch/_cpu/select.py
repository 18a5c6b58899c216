"""topk's and kthvalue's selections answered by a numpy sort where they have one answer (``_ops/reduce/sort.py``'s
steps ``_topk_indices`` and ``_kth_indices`` run PyTorch's selection on every line in Python,
``_ops/reduce/selection.py``):

- kthvalue: a line whose k-th smallest value occurs once has one answer, the k-th index of a sort;
- topk: a line whose first k + 1 values in sorted order are all different has one answer too, the first k of a
  sort (of the k + 1 a partition puts first), in sorted order, which PyTorch's selection leaves sorted when asked
  to, or when it runs ``std::partial_sort`` (k * 64 <= n). Unsorted with larger k, ``std::nth_element`` leaves
  the first k in an order of its own: every line runs the step.

The other lines (ties at the answer, NaNs counted equal) run the step itself. The same indices, so the same values
and gradients."""
from __future__ import annotations

import numpy as np

from .._ops._core import paths
from .._ops.reduce import sort

_topk_reference = paths.reference_kernel(sort, "_topk_indices")
_kth_reference = paths.reference_kernel(sort, "_kth_indices")


def _equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a == b) | ((a != a) & (b != b)) if a.dtype.kind in "fc" else a == b  # two NaNs tie too


@paths.kernel(sort, "_topk_indices", when="lines whose first k + 1 values in sorted order differ, where the result "
              "comes sorted (sorted=True, or k * 64 <= n): a numpy sort; the other lines run the step",
              why="speed: one sort for the lines the selection cannot order otherwise")
def topk_indices(x, k, d, largest, sorted):
    n = x.shape[d]
    if k == 0 or not (sorted or k * 64 <= n):
        return _topk_reference(x, k, d, largest, sorted)
    m = min(k + 1, n)
    if m < n:  # the first k + 1 in sorted order, found by a partition (NaN sorts last: the largest), then sorted
        cut = np.argpartition(x, n - m if largest else m - 1, axis=d)
        cand = np.take(cut, np.arange(n - m, n) if largest else np.arange(m), axis=d)
        within = np.argsort(np.take_along_axis(x, cand, d), axis=d, kind="stable")
        order = np.take_along_axis(cand, np.flip(within, d) if largest else within, d)
    else:
        order = sort._argsort(x, d, largest)
    idx = np.take(order, np.arange(k), axis=d)
    head = np.take_along_axis(x, np.take(order, np.arange(m), axis=d), d)
    tied = _equal(np.take(head, np.arange(m - 1), axis=d), np.take(head, np.arange(1, m), axis=d)).any(axis=d)
    if tied.any():
        out = np.moveaxis(idx, d, -1)  # a view: writing it writes idx
        out[tied] = _topk_reference(np.moveaxis(x, d, -1)[tied], k, -1, largest, sorted)
    return idx


@paths.kernel(sort, "_kth_indices", when="lines whose k-th smallest value occurs once: a numpy sort; the other lines "
              "run the step", why="speed: one sort for the lines with one answer")
def kth_indices(x, k, d):
    picked = np.take(np.argsort(x, axis=d, kind="stable"), [k], axis=d)
    tied = _equal(x, np.take_along_axis(x, picked, d)).sum(axis=d) > 1
    if tied.any():
        out = np.moveaxis(picked, d, -1)  # a view: writing it writes picked
        out[tied] = _kth_reference(np.moveaxis(x, d, -1)[tied], k, -1)
    return picked
