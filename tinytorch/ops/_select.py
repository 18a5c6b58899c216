"""PyTorch's CPU selection of the k-th smallest element of a line (kthvalue), reproduced step for step,
so that among equal values the index it reports is PyTorch's.

PyTorch copies the line with its indices and runs a median-of-three quickselect (the Numerical
Recipes ``select``: NaN counts as greater than everything) that swaps values and indices together;
the answer is what lands at position k. Its partitioning is not stable, so with ties the index
depends on the exact swaps. Lines without a tie at the answer have one answer, found by a sort; only
the lines with ties run this loop."""
from __future__ import annotations


import numpy as np


def _gt_or_nan(a, b) -> bool:
    return (a != a and b == b) or a > b  # a NaN is greater than any number


def quickselect_index(values: list, k: int) -> int:
    """The original index that PyTorch's quickselect leaves at position ``k`` (0-based) of ``values``."""
    arr = list(values)
    idx = list(range(len(arr)))

    def swap(i: int, j: int) -> None:
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            return idx[k]
        if hi == lo + 1:
            if _gt_or_nan(arr[lo], arr[hi]):
                swap(lo, hi)
            return idx[k]
        mid = lo + (hi - lo) // 2
        swap(mid, lo + 1)
        if _gt_or_nan(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if _gt_or_nan(arr[lo], arr[hi]):
            swap(lo, hi)
        if _gt_or_nan(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j = lo + 1, hi
        pivot = arr[lo]
        while True:
            i += 1
            while _gt_or_nan(pivot, arr[i]):
                i += 1
            j -= 1
            while _gt_or_nan(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1


def kth_indices(x: np.ndarray, order: np.ndarray, k: int, d: int) -> np.ndarray:
    """The index PyTorch's kthvalue reports along axis ``d`` (kept, size 1), given ``order``, the
    stable argsort of ``x`` along ``d``: the sort's answer, replaced by the quickselect's on the lines
    where the k-th value occurs more than once."""
    picked = np.take(order, [k], axis=d)
    kth = np.take_along_axis(x, picked, d)
    same = (x == kth) | ((x != x) & (kth != kth)) if x.dtype.kind in "fc" else x == kth
    ties = same.sum(axis=d, keepdims=True) > 1
    if ties.any():
        lines = np.moveaxis(x, d, -1)
        out = np.moveaxis(picked, d, -1)  # a view: writing it writes ``picked``
        for pos in map(tuple, np.argwhere(np.moveaxis(ties, d, -1)[..., 0])):
            row = [v.item() for v in lines[pos]]
            out[pos + (0,)] = quickselect_index(row, k)
    return picked


__all__ = ["quickselect_index", "kth_indices"]
