"""Memory formats and the strides a new tensor gets from one (PyTorch's MemoryFormat and its stride rules).

A copy (``clone``, ``contiguous``, ``to``) and a ``*_like`` factory lay their result out as ``memory_format``
asks: ``contiguous_format`` in C order, ``channels_last(_3d)`` with the channels innermost, and
``preserve_format`` (the default) like the input: a non-overlapping and dense input's strides kept as they are
(a size-1 dim's too), any other (a gapped slice, an expanded dim) given dense strides that order its dims as
its own strides do. One test of density serves these copies and the overlap checks (``overlap.dense``)."""
from __future__ import annotations

import functools

import numpy as np

from ..._meta_array import MetaArray, c_strides
from ..._dtype import named_constants
from ...autograd.node import elem_strides, non_overlapping_and_dense


memory_format = named_constants("memory_format", "A memory layout (``tinytorch.contiguous_format``, "
    "``channels_last``, ...): how clone and contiguous order a copy's elements in storage; the values never change.")

contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

_CHANNELS_LAST_RANK = {channels_last: 4, channels_last_3d: 5}


def preserved_strides(shape: tuple, strides: tuple) -> tuple:
    """The strides (in elements) of a copy under ``preserve_format``: ``strides`` themselves where they are
    non-overlapping and dense, else ``dense_strides`` in their order."""
    return tuple(strides) if non_overlapping_and_dense(shape, strides) else dense_strides(shape, strides)


def dense_strides(shape: tuple, strides: tuple) -> tuple:
    """Dense strides for ``shape`` that order its dims as ``strides`` do (PyTorch's ``infer_dense_strides``, the
    order its TensorIterator gives a result). The dims are sorted innermost first by an insertion sort over the
    dims listed last-to-first: a dim moves inward past one of larger stride (or of equal stride and larger
    size); it stops at one of smaller stride; a 0 stride (an expanded dim) on either side decides nothing, so
    the dim is compared with the next one further in without having moved."""
    nd = len(shape)
    if nd < 2:
        return (1,) * nd
    perm = list(range(nd - 1, -1, -1))  # innermost first: the last dim, then the one before...
    for i in range(1, nd):
        at = i  # where the dim being placed is now
        for j in range(i - 1, -1, -1):
            a, b = perm[j], perm[at]
            sa, sb = strides[a], strides[b]
            if sa == 0 or sb == 0:
                continue
            if sa > sb or (sa == sb and shape[a] > shape[b]):
                perm[j], perm[at] = b, a
                at = j
            elif sa < sb:
                break
    out = [0] * nd
    step = 1
    for d in perm:
        out[d] = step
        step *= max(shape[d], 1)
    return tuple(out)


def channels_last_strides(shape: tuple) -> tuple:
    """The strides (in elements) of ``channels_last`` (4-d) or ``channels_last_3d`` (5-d): channels innermost,
    then the spatial dims last to first, the batch outermost (a 0 size counted as 0, as PyTorch's)."""
    strides = [0] * len(shape)
    step = 1
    for d in (1,) + tuple(range(len(shape) - 1, 1, -1)) + (0,):
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def suggested_format(shape: tuple, strides: tuple):
    """PyTorch's ``suggest_memory_format`` of element ``strides``: ``channels_last`` (4-d) or ``channels_last_3d``
    (5-d) where they order the dims as that format does, else None (contiguous). As PyTorch's heuristic: the
    channels first, then the spatial dims last to first, then the batch, each stride at least the block of the
    ones before (a size-1 dim adds nothing); an empty dim, a 0 channel stride, or a batch stride equal to the
    channels' (``(N, 1, 1, 1)`` either way) read as contiguous."""
    fmt = {4: channels_last, 5: channels_last_3d}.get(len(shape))
    if fmt is None or strides[1] == 0:
        return None
    least = 0
    for d in (1,) + tuple(range(len(shape) - 1, 1, -1)) + (0,):
        if shape[d] == 0 or strides[d] < least or (d == 0 and least == strides[1]):
            return None
        least = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return fmt


def format_strides(shape: tuple, fmt) -> tuple:
    """The strides (in elements) ``at::empty(shape, memory_format=fmt)`` gives (None: C order)."""
    return channels_last_strides(shape) if fmt is not None else c_strides(shape, 1)


def in_format(shape: tuple, strides: tuple, fmt) -> bool:
    """``is_contiguous(memory_format=fmt)`` of element ``strides`` (None: contiguous_format): dense in that
    format's order, size-1 dims left out."""
    nd = len(shape)
    order = range(nd - 1, -1, -1) if fmt is None else (1,) + tuple(range(nd - 1, 1, -1)) + (0,)
    expected = 1
    for d in order:
        if shape[d] != 1:
            if shape[d] == 0:
                return True
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def kept_or_format_strides(shape: tuple, strides: tuple, fmt) -> tuple:
    """The strides of a tensor ``t.contiguous(memory_format=fmt)``: its own where it already is (a size-1 dim's
    stride kept), else ``format_strides``."""
    return tuple(strides) if in_format(shape, strides, fmt) else format_strides(shape, fmt)


def arranged(a, strides: tuple | None):
    """``a`` (a numpy array) with element ``strides``, copied only where it has others; a meta array and
    None strides (no layout asked) pass through. The values are the same numbers, laid out anew."""
    if strides is None or type(a) is not np.ndarray or a.ndim < 2 or a.size == 0:
        return a
    if elem_strides(a.shape, a.strides, a.itemsize, True) == tuple(strides):
        return a
    return laid_out(a, tuple(strides))


def input_format(x):
    """The memory format PyTorch's CPU kernels of NCHW ops (batch_norm, the 2-d poolings) allocate their results and
    their input's gradient in: a 4-d input's ``suggest_memory_format`` (None: contiguous; and for anything else:
    a meta array, another rank)."""
    return suggested_of(x) if getattr(x, "ndim", None) == 4 else None


def suggested_of(x):
    """``x``'s (a numpy array's) ``suggest_memory_format`` of any rank: ``channels_last`` for a 4-d input laid out
    so, ``channels_last_3d`` for a 5-d one, else None (contiguous; and for a meta array)."""
    if type(x) is not np.ndarray or x.ndim not in (4, 5):
        return None
    return suggested_format(x.shape, elem_strides(x.shape, x.strides, x.itemsize))


def laid_in_format(a, fmt):
    """``a`` (a fresh numpy result) laid out in memory format ``fmt``, None being contiguous (C order): what
    ``at::empty(..., fmt)`` gives a kernel that writes its result in ``suggest_memory_format(input)``."""
    if type(a) is not np.ndarray or a.ndim < 2 or a.size == 0:
        return a
    return arranged(a, format_strides(a.shape, fmt))


def as_format(a, fmt):
    """``a`` (a fresh numpy result) laid out in memory format ``fmt`` (None: left as it is)."""
    return a if fmt is None else arranged(a, format_strides(a.shape, fmt))


_c_strides = functools.lru_cache(maxsize=256)(c_strides)


def c_ordered(a) -> bool:
    """``a`` (a numpy or meta array) is C-ordered with C order's own strides at its size-1 dims too (numpy's flag
    says nothing of a size-1 dim's stride, which orders a result in PyTorch)."""
    return a.flags.c_contiguous and (1 not in a.shape or a.strides == _c_strides(a.shape, a.itemsize))


def strides_for(x, fmt) -> tuple | None:
    """The strides (in elements) of a new tensor laid out like ``x`` (a numpy or a meta array) as memory format
    ``fmt`` asks (None: preserve_format), or None where that is C order; PyTorch's errors for a format that
    is not one, or a channels-last format of the wrong rank."""
    if fmt is None or fmt is preserve_format:
        if x.size and c_ordered(x):
            return None  # the common case: C order is the layout kept
        meta = type(x) is MetaArray
        return preserved_strides(x.shape, elem_strides(x.shape, x.strides, x.itemsize, not meta))
    if fmt is contiguous_format:
        return None
    rank = _CHANNELS_LAST_RANK.get(fmt)
    if rank is None:
        raise TypeError(f"memory_format must be tinytorch.memory_format, not {type(fmt).__name__}")
    if x.ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
    return channels_last_strides(x.shape)


def meta_like_strides(x, fmt) -> tuple | None:
    """``strides_for`` as PyTorch's meta ``*_like`` factories give them (a Python decomposition: ``empty_permuted``
    in the order an elementwise result takes). Under preserve_format: C order for an input contiguous but for
    its size-1 dims, channels-last strides for a 4-d one channels-last but for them; one that is both or
    neither gets ``dense_strides`` in its order, even where its own strides are dense."""
    if not (fmt is None or fmt is preserve_format):
        return strides_for(x, fmt)
    shape, strides = x.shape, elem_strides(x.shape, x.strides, x.itemsize, False)
    if len(shape) < 2:
        return None

    def packed(order) -> bool:  # the dims in ``order``, innermost first, each right past the ones before
        expected = 1
        for d in order:
            if shape[d] != 1:
                if strides[d] != expected:
                    return False
                expected *= shape[d]
        return True

    rows = packed(range(len(shape) - 1, -1, -1))
    last = len(shape) == 4 and packed((1, 3, 2, 0))
    if rows != last:
        return None if rows else channels_last_strides(shape)
    return dense_strides(shape, strides)


def like_strides(x, fmt=None) -> tuple | None:
    """The strides (in elements) of ``empty_like(x, memory_format=fmt)`` (None: C order): ``strides_for``, and on a
    meta array its decomposition's rule (``meta_like_strides``). The ``*_like`` factories and the ops PyTorch
    allocates as ``empty_like`` of their input (sort, flip, nan_to_num) lay their results out so."""
    return meta_like_strides(x, fmt) if type(x) is MetaArray else strides_for(x, fmt)


def laid_like(out, x):
    """``out`` (a fresh result of ``x``'s shape, numpy or meta, never a view of another) laid out as
    ``empty_like(x)``: copied only where its strides are others."""
    strides = like_strides(x)
    if strides is None:
        return out if c_ordered(out) else laid_out(out, None)
    if elem_strides(out.shape, out.strides, out.itemsize, type(out) is not MetaArray) == strides:
        return out
    return laid_out(out, strides)


def laid_out(x, strides: tuple | None):
    """A copy of ``x`` (a numpy or a meta array) whose strides, in elements, are ``strides`` (a dense layout;
    None: C order)."""
    shape, item = x.shape, x.itemsize
    if type(x) is MetaArray:
        if strides is None:
            return x.copy()
        return MetaArray(shape, x.dtype, tuple(s * item for s in strides), value=x.value)
    if 0 in shape and len(shape) > 1:  # (numpy gives an empty copy strides of 0 only: the view keeps PyTorch's)
        return np.lib.stride_tricks.as_strided(np.empty(0, x.dtype), shape, tuple(
            s * item for s in (strides or c_strides(shape, 1))), writeable=True)
    if strides is None or strides == c_strides(shape, 1):
        return x.copy()
    out = np.lib.stride_tricks.as_strided(np.empty(x.size, x.dtype), shape, tuple(s * item for s in strides),
                                          writeable=True)
    out[...] = x
    return out
