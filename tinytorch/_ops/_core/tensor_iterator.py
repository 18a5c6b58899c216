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

from math import prod

from numpy import dtype as dtype_of, empty, empty_like, ndarray
from numpy.lib.stride_tricks import as_strided

from ...autograd.node import elem_strides
from .layout import arranged, c_ordered as _c_ordered

from ..._meta_array import MetaArray, iterator_dim_order as dim_order, iterator_order

GRAIN = 32768  # at::internal::GRAIN_SIZE

__all__ = ["GRAIN", "dim_order", "elementwise_empty", "elementwise_layout", "inner_loop", "kernel_laid_out",
           "row_calls"]


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


def _operand_strides(operands) -> list:
    """``iterator_order``'s operands: (shape, element strides) of each array, ``((), ())`` for a number."""
    return [(a.shape, elem_strides(a.shape, a.strides, a.itemsize)) if type(a) is ndarray and a.ndim else ((), ())
            for a in operands]


def elementwise_empty(like, *operands, shape: tuple | None = None, dtype=None):
    """A new, unfilled result laid out as ``elementwise_layout`` lays out the result over ``operands``: for a path
    that writes a result into an array it allocates (a large op cut across threads, a fused kernel), which then
    needs no copy into PyTorch's order. Of ``like``'s shape and dtype unless ``shape`` / ``dtype`` say otherwise; a
    meta ``like`` gives a data-less meta array laid out as a ufunc lays out a meta result (PyTorch's meta rule:
    ``iterator_order(meta=True)``, numbers left out)."""
    shape = like.shape if shape is None else tuple(shape)
    if type(like) is MetaArray and len(shape) > 1 and 0 not in shape:
        dt = like.dtype if dtype is None else dtype_of(dtype)
        strides = iterator_order(shape, [(a.shape, elem_strides(a.shape, a.strides, a.itemsize))
                                         for a in operands if type(a) is MetaArray or type(a) is ndarray], meta=True)
        return MetaArray(shape, dt, None if strides is None else tuple(s * dt.itemsize for s in strides))
    if (type(like) is not ndarray or len(shape) < 2
            or all(type(a) is not ndarray or _c_ordered(a) for a in operands)):
        return empty_like(like, dtype=dtype, order="C", shape=shape)
    strides = iterator_order(shape, _operand_strides(operands))
    dt = like.dtype if dtype is None else dtype_of(dtype)
    if strides is None:
        return empty(shape, dt)
    return as_strided(empty(prod(shape), dt), shape, tuple(s * dt.itemsize for s in strides), writeable=True)


def elementwise_layout(out, *operands):
    """``out`` (a new elementwise result, numpy's) laid out as PyTorch's TensorIterator lays out the same result
    over ``operands`` (arrays and numbers, in the op's operand order: a number is a 0-d operand, as PyTorch wraps
    it). numpy orders a result its own way where the operands' layouts differ (C order where they conflict;
    PyTorch: the first operand's order) or a dim has size 1; the result is then copied into PyTorch's order (the
    same numbers). Nothing to do, and nothing done, when every operand is C-ordered and no dim has size 1 (the
    common case), or every operand of rank >= 1 has the result's strides."""
    if type(out) is not ndarray or out.ndim < 2:
        return out
    shape = out.shape
    if _c_ordered(out):
        # C-ordered operands, broadcast or not: C order. (numpy's flag says nothing of a size-1 dim's stride,
        # which orders a result in PyTorch: where a size-1 dim is, the operands' strides must be C order's own:
        # then no operand orders an outer dim before an inner one, and the result is C-ordered, as numpy's.)
        for a in operands:
            if type(a) is ndarray and not _c_ordered(a):
                break
        else:
            return out
    st = out.strides
    for a in operands:  # operands with the result's strides order it as numpy did
        if type(a) is ndarray and a.strides != st and a.ndim:
            break
    else:
        return out
    return arranged(out, iterator_order(shape, _operand_strides(operands)))


def kernel_laid_out(result, *operands):
    """``result`` (a fresh elementwise result of ``operands``) with its array laid out as PyTorch's TensorIterator
    lays out its kernel's result over ``operands``, in the kernel's order (``softplus_backward(grad_output,
    self)``: the gradient first): the same numbers, moved where the formula's own steps ordered them otherwise."""
    d = result._data
    laid = elementwise_layout(d, *(t._data for t in operands))
    if laid is not d:
        result._data = laid  # (a fresh result: nothing views it yet; its node, if any, stays)
    return result
