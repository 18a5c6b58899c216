"""PyTorch's CPU selections, reproduced step for step so that among equal values the indices it
reports are PyTorch's: the k-th smallest element of a line (kthvalue) and the k largest or smallest
(topk, where it runs the C++ library's nth_element and sort).

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


# -- topk: libstdc++'s std::nth_element, then std::sort of the first k - 1 --------------------------
def _nth_element(a: list, nth: int, before) -> None:
    """libstdc++'s introselect on ``a`` in place: median-of-three partitions while more than 3
    elements remain, then an insertion sort (its heap fallback, after 2 log2(n) rounds, is not
    reproduced: the lines op_db and users pass never reach it)."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    while last - first > 3:
        cut = _partition_pivot(a, first, last, before)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, before)


def _partition_pivot(a: list, first: int, last: int, before) -> int:
    mid = first + (last - first) // 2
    x, y, z = first + 1, mid, last - 1
    if before(a[x], a[y]):
        m = y if before(a[y], a[z]) else (z if before(a[x], a[z]) else x)
    else:
        m = x if before(a[x], a[z]) else (z if before(a[y], a[z]) else y)
    a[first], a[m] = a[m], a[first]
    pivot, lo, hi = a[first], first + 1, last
    while True:
        while before(a[lo], pivot):
            lo += 1
        hi -= 1
        while before(pivot, a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _insertion_sort(a: list, first: int, last: int, before) -> None:
    """Stable, as libstdc++'s: an element moves left only past elements it goes strictly before."""
    for i in range(first + 1, last):
        val = a[i]
        j = i
        while j > first and before(val, a[j - 1]):
            a[j] = a[j - 1]
            j -= 1
        a[j] = val


def _std_sort(a: list, first: int, last: int, before) -> None:
    """libstdc++'s introsort: partitions while more than 16 remain (the right part first), then one
    insertion sort over the whole range (its heap sort after 2 log2(n) rounds is not reproduced)."""
    def loop(first: int, last: int) -> None:
        while last - first > 16:
            cut = _partition_pivot(a, first, last, before)
            loop(cut, last)
            last = cut
    if last - first > 1:
        loop(first, last)
        _insertion_sort(a, first, last, before)


def _adjust_heap(a: list, first: int, hole: int, length: int, value, before) -> None:
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if before(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and before(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _partial_sort(a: list, middle: int, before) -> None:
    """libstdc++'s std::partial_sort of a[:middle] from all of a: a heap of the first ``middle``,
    each later element that goes before its top replacing it, then the heap sorted."""
    if middle < 2:
        if middle == 1:  # a heap of one: each element that goes before it takes its place
            for i in range(1, len(a)):
                if before(a[i], a[0]):
                    a[0], a[i] = a[i], a[0]
        return
    for parent in range((middle - 2) // 2, -1, -1):
        _adjust_heap(a, 0, parent, middle, a[parent], before)
    for i in range(middle, len(a)):
        if before(a[i], a[0]):
            value, a[i] = a[i], a[0]
            _adjust_heap(a, 0, 0, middle, value, before)
    for last in range(middle - 1, 0, -1):
        value, a[last] = a[last], a[0]
        _adjust_heap(a, 0, 0, last, value, before)


def topk_line(values: list, k: int, largest: bool, sort: bool) -> list:
    """The indices of PyTorch's topk of one line: the (value, index) pairs partially sorted
    (std::partial_sort) when k * 64 <= n, else partitioned around position k - 1 (std::nth_element)
    and, when sorted, the first k - 1 sorted (std::sort)."""
    if largest:
        def before(p, q):
            return (p[0] != p[0] and q[0] == q[0]) or p[0] > q[0]
    else:
        def before(p, q):
            return (p[0] == p[0] and q[0] != q[0]) or p[0] < q[0]
    pairs = [(v, i) for i, v in enumerate(values)]
    if k * 64 <= len(pairs):
        _partial_sort(pairs, k, before)
    else:
        _nth_element(pairs, k - 1, before)
        if sort:
            _std_sort(pairs, 0, k - 1, before)
    return [i for _, i in pairs[:k]]


def topk_indices(x: np.ndarray, order: np.ndarray, k: int, d: int, largest: bool, sort: bool) -> np.ndarray:
    """The first k of ``order`` (a stable sort along ``d``, largest first when ``largest``), with
    PyTorch's answer on the lines where it can differ: where two of the first k + 1 sorted values
    are equal, or on every line when unsorted."""
    n = x.shape[d]
    idx = np.take(order, np.arange(k), axis=d)
    if k == 0:
        return idx
    if sort or k * 64 <= n:  # partial_sort's result is sorted whatever ``sort`` says
        head = np.take_along_axis(x, np.take(order, np.arange(min(k + 1, n)), axis=d), d)
        m = head.shape[d]
        a, b = np.take(head, np.arange(m - 1), axis=d), np.take(head, np.arange(1, m), axis=d)
        tie = (a == b) | ((a != a) & (b != b)) if x.dtype.kind in "fc" else a == b
        redo = tie.any(axis=d)
    else:
        redo = np.ones(tuple(s for i, s in enumerate(x.shape) if i != d), dtype=bool)
    if not redo.any():
        return idx
    lines, out = np.moveaxis(x, d, -1), np.moveaxis(idx, d, -1)  # out is a view: writing it writes idx
    for pos in map(tuple, np.argwhere(redo)):
        out[pos] = topk_line([v.item() for v in lines[pos]], k, largest, sort)
    return idx


__all__ = ["quickselect_index", "kth_indices", "topk_line", "topk_indices"]
