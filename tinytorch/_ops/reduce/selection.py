"""Which index PyTorch reports among equal values: the selections its CPU kernels run, line by line.

No formula on the sorted line gives these indices. kthvalue copies the line with its indices and runs a
median-of-three quickselect (the Numerical Recipes ``select``; NaN counts as greater than everything) that swaps
values and indices together, and reports what lands at position k; topk runs the C++ library's selections
(libstdc++'s ``std::partial_sort``, or ``std::nth_element`` then ``std::sort``). None of these partitions is
stable, so among ties the index depends on every swap they make: a stable sort, numpy's ``argpartition`` or the
last-of-equals rule each give another index on most tied lines. These functions are those algorithms step for
step, in plain Python on one line, and they are what ``sort.py``'s references run. (``tinytorch/_cpu/select.py``
answers the lines without a tie at the answer by a numpy sort, which has only one answer there.)"""
from __future__ import annotations


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


# -- topk: libstdc++'s std::partial_sort, or std::nth_element then std::sort of the first k - 1 ---------------
def _lg2(n: int) -> int:
    return n.bit_length() - 1


def _nth_element(a: list, nth: int, before) -> None:
    """libstdc++'s introselect on ``a`` in place: median-of-three partitions while more than 3 elements remain,
    then an insertion sort; after 2 log2(n) partitions, a heap selection of the first nth + 1 instead."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    depth = 2 * _lg2(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, before)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
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
    """libstdc++'s introsort: partitions while more than 16 remain (the right part first; a heap sort of the part
    left after 2 log2(n) partitions), then one insertion sort over the whole range."""
    def loop(first: int, last: int, depth: int) -> None:
        while last - first > 16:
            if depth == 0:
                _heap_select(a, first, last, last, before)
                _sort_heap(a, first, last, before)
                return
            depth -= 1
            cut = _partition_pivot(a, first, last, before)
            loop(cut, last, depth)
            last = cut
    if last - first > 1:
        loop(first, last, 2 * _lg2(last - first))
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


def _heap_select(a: list, first: int, middle: int, last: int, before) -> None:
    """libstdc++'s __heap_select: a heap of a[first:middle], each later element that goes before its top
    replacing it (the top moved to where that element was)."""
    length = middle - first
    if length == 0:
        return
    for parent in range((length - 2) // 2, -1, -1):
        _adjust_heap(a, first, parent, length, a[first + parent], before)
    for i in range(middle, last):
        if before(a[i], a[first]):
            value, a[i] = a[i], a[first]
            _adjust_heap(a, first, 0, length, value, before)


def _sort_heap(a: list, first: int, last: int, before) -> None:
    """libstdc++'s __sort_heap: the top moved to the end, the heap shortened by one, until one is left."""
    while last - first > 1:
        last -= 1
        value, a[last] = a[last], a[first]
        _adjust_heap(a, first, 0, last - first, value, before)


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
    if k * 64 <= len(pairs):  # std::partial_sort
        _heap_select(pairs, 0, k, len(pairs), before)
        _sort_heap(pairs, 0, k, before)
    else:
        _nth_element(pairs, k - 1, before)
        if sort:
            _std_sort(pairs, 0, k - 1, before)
    return [i for _, i in pairs[:k]]


__all__ = ["quickselect_index", "topk_line"]
