"""How PyTorch's CPU TensorIterator walks a pointwise op: the order of the dims, the inner loop each call of
the kernel's loop gets, and where ``at::parallel_for`` cuts the elements between threads.

A kernel that replays PyTorch's bits needs this where the compiled loop rounds differently in different
places of one call (``muladd.twice_rounded``: the scalar tail of ``add`` with alpha). The facts, from
``TensorIterator.cpp``, ``TensorIteratorInternal.h`` and ``ParallelOpenMP.h``:

- dim order (``reorder_dimensions``): an insertion sort, fastest dim first, starting from the reversed
  dims; a pair of dims is ordered by the first operand (output first, unless it is to be allocated) whose
  strides there are both non-zero: the smaller stride goes first, and for equal strides the smaller dim;
  an operand with a zero stride at either dim tells nothing. A new output is laid out in that order.
- coalescing: neighbouring dims (in that order) merge where every operand's stride at the outer one is its
  stride at the inner one times the inner size, and size-1 dims merge with anything. The first merged dim
  is the inner loop: each call of the kernel's loop covers one row of it (or part of one, below).
- threads: an op of ``numel`` elements runs on one thread unless ``numel > GRAIN`` (32768) and more than one
  thread is set; then ``min(threads, ceil(numel / GRAIN))`` parts of ``ceil(numel / parts)`` elements of the
  walk, each walked alone: a part that starts or ends inside a row makes a shorter call for that row."""
from __future__ import annotations

GRAIN = 32768  # at::internal::GRAIN_SIZE

__all__ = ["GRAIN", "dim_order", "inner_loop", "row_calls"]


def dim_order(shape, operands) -> list:
    """The dims of ``shape``, fastest first, as TensorIterator orders them; ``operands``: each operand's
    strides (any unit, 0 where broadcast), in TensorIterator's operand order, allocated outputs left out."""
    def should_swap(d0: int, d1: int) -> int:
        for st in operands:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def inner_loop(shape, perm, operands) -> tuple:
    """``(size, strides)``: the inner loop after coalescing: its length and each operand's stride there."""
    size, strides = 1, [0] * len(operands)
    for d in perm:
        n = shape[d]
        if n == 1:
            continue
        if size == 1:
            size, strides = n, [st[d] for st in operands]
        elif all(st[d] == s * size for st, s in zip(operands, strides)):
            size *= n
        else:
            break
    return size, strides


def row_calls(numel: int, size: int, threads: int) -> list:
    """The calls of the inner loop, as ``(start, length, count)``: ``count`` calls of ``length`` elements,
    the first starting at element ``start`` of the walk, each the next ``length`` elements on."""
    if numel > GRAIN and threads > 1:
        parts = min(threads, -(-numel // GRAIN))
        chunk = -(-numel // parts)
        bounds = [(c, min(numel, c + chunk)) for c in range(0, numel, chunk)]
    else:
        bounds = [(0, numel)]
    calls = []
    for lo, hi in bounds:
        head = min(hi, lo - lo % size + size) if lo % size else lo  # a part starting inside a row
        if head > lo:
            calls.append((lo, head - lo, 1))
        rows = (hi - head) // size
        if rows:
            calls.append((head, size, rows))
        tail = head + rows * size
        if tail < hi:
            calls.append((tail, hi - tail, 1))
    return calls
