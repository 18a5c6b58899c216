"""PyTorch's CPU sum of floating arrays (ATen's ``cascade_sum``, ``aten/src/ATen/native/cpu/SumKernel.cpp``), bit
for bit, for a vector width of ``w`` lanes: 8 float32 lanes on PyTorch's DEFAULT and AVX2 paths, 16 on AVX-512
(float64: 4 and 8). The floats depend on that width, never on a fused multiply-add (a sum has none).

The kernel's pieces, as ATen has them:

- the cascade (``multi_row_sum``): a few running sums side by side, each over its own sequence of values, every
  sum kept on 4 levels. Values go into level 0; after each run of ``step`` values (``step`` = 16, or
  2**(ceil(log2 size) // 4) for the longest sums) level 0 is added into level 1 and cleared, and while the count
  of values so far is a multiple of step**2 (step**3), level 1 (2) moves up the same way. The leftover values
  after the last whole run go into level 0, and the result is level 0 + level 1 + level 2 + level 3.
- ``row_sum``: one sequence summed by 4 such sums at once (value i into sum i % 4, each over size // 4 values),
  the leftover values added into sum 0, then sum 0 + sum 1 + sum 2 + sum 3.
- a contiguous row (the reduced dim innermost): ``row_sum`` over vectors of ``w`` lanes, lane by lane; the
  elements after the last whole vector are summed from 0 one after another, then the ``w`` lanes are added to
  that in order. A float16 or bfloat16 row is loaded ``2w`` elements at a time and each load folded to ``w``
  float32 lanes first, its two halves added: lane l = x[l] + x[l + w]. A row shorter than one load is a scalar
  ``row_sum``.
- columns (the reduced dim outside the contiguous one): ``4w`` columns at a time, each one cascade down the
  rows; then ``w`` at a time, each a ``row_sum`` down the rows; the last columns one at a time, a ``row_sum``
  each. With fewer columns than one load (``w``, or ``2w`` elements of float16/bfloat16), groups of 4 columns
  each one cascade, and the last ones a ``row_sum`` each.

Every sum is stored as 0 + value (a negative zero becomes +0). The split across threads (a long sum's parts
summed apart, then their partial sums; columns cut at multiples of 128 bytes) is the caller's
(``tinytorch/_cpu/reduce.py``): each part is one call here. float16 and bfloat16 come widened to float32 (exact),
``lowp`` set."""
from __future__ import annotations

import numpy as np
from numba import float32, float64, int64, njit, types

from ._common import jit, like, readonly

_LEVELS = 4  # ATen's num_levels
_ILP = 4  # row_sum's running sums, and the columns of one multi_row_sum in a columns' sum


@njit(cache=True, nogil=True, inline="always")
def _level_power(size):
    """log2 of the cascade's step for ``size`` values per running sum: max(4, ceil(log2 size) // 4)."""
    bits = 1
    if size > 2:
        bits = 0
        m = size - 1
        while m:
            bits += 1
            m >>= 1
    return max(4, bits // _LEVELS)


@njit(cache=True, nogil=True, inline="always")
def _cascade(x, base, row_stride, group_stride, w, size, acc, out):
    """``multi_row_sum`` of 4 vectors of ``w`` lanes: out[k * w + l] = the cascade of x[base + i * row_stride +
    k * group_stride + l] over i < size, for k < 4 and l < w (``acc``: scratch of (4, 4w))."""
    lanes = _ILP * w
    a0, a1, a2, a3 = acc[0], acc[1], acc[2], acc[3]
    for m in range(lanes):
        a0[m] = 0.0
        a1[m] = 0.0
        a2[m] = 0.0
        a3[m] = 0.0
    power = _level_power(size)
    step = np.int64(1) << power
    mask = step - 1
    i = 0
    while i < size:
        run = step if i + step <= size else size - i  # a whole run of ``step`` values, or the leftovers
        # (p is never negative: saying so lets LLVM drop numba's wraparound of negative indices and run the
        # lanes as vector adds, 20x faster)
        if group_stride == w:  # the 4 vectors side by side: 4w lanes in a row
            for _ in range(run):
                p = base + i * row_stride
                if p < 0:
                    return
                for m in range(lanes):
                    a0[m] += x[p + m]
                i += 1
        else:
            for _ in range(run):
                p = base + i * row_stride
                if p < 0:
                    return
                for k in range(_ILP):
                    q = p + k * group_stride
                    o = k * w
                    for lane in range(w):
                        a0[o + lane] += x[q + lane]
                i += 1
        if run < step:
            break
        for m in range(lanes):  # level 0 into level 1
            a1[m] += a0[m]
            a0[m] = 0.0
        if i & (mask << power):
            continue
        for m in range(lanes):
            a2[m] += a1[m]
            a1[m] = 0.0
        if i & (mask << (2 * power)):
            continue
        for m in range(lanes):
            a3[m] += a2[m]
            a2[m] = 0.0
    for m in range(lanes):
        out[m] = ((a0[m] + a1[m]) + a2[m]) + a3[m]


@njit(cache=True, nogil=True, inline="always")
def _row_sum(x, base, stride, size, w, acc, part, out):
    """``row_sum`` of ``size`` vectors of ``w`` lanes, vector i at x[base + i * stride], lane l at + l: out[l]
    (``acc``: scratch of (4, 4w); ``part``: of 4w)."""
    quarter = size // _ILP
    _cascade(x, base, _ILP * stride, stride, w, quarter, acc, part)
    for i in range(quarter * _ILP, size):
        p = base + i * stride
        for lane in range(w):
            part[lane] += x[p + lane]
    for lane in range(w):
        out[lane] = ((part[lane] + part[w + lane]) + part[2 * w + lane]) + part[3 * w + lane]


@njit(cache=True, nogil=True, inline="always")
def _fold(x, base, vectors, w, y):
    """y[i * w + l]: lane l of the i-th load of 2w float16/bfloat16 elements from x[base]: its two halves widened
    and added, x[l] + x[l + w]."""
    for i in range(vectors):
        p = base + 2 * w * i
        if p < 0:
            return
        for lane in range(w):
            y[i * w + lane] = x[p + lane] + x[p + lane + w]


def _rows_sig(t):
    return types.void(readonly(t, 1), int64, int64, int64, int64, int64, t[::1])


@jit([_rows_sig(float32), _rows_sig(float64)])
def rows_into(x, rows, n, row_stride, w, lowp, out):
    """out[r] = 0 + PyTorch's sum of the contiguous row x[r * row_stride : r * row_stride + n], r < rows."""
    load = w if lowp == 0 else 2 * w
    acc = np.empty((_LEVELS, _ILP * w), x.dtype)
    part = np.empty(_ILP * w, x.dtype)
    lanes = np.empty(w, x.dtype)
    one = np.empty(1, x.dtype)
    vectors = n // load if n >= load else 0
    y = np.empty(vectors * w if lowp else 0, x.dtype)
    zero = like(x[0], 0.0) if x.size else like(out[0], 0.0)
    for r in range(rows):
        base = r * row_stride
        if vectors == 0:  # scalar_inner_sum: row_sum of single elements
            _row_sum(x, base, 1, n, 1, acc, part, one)
            out[r] = zero + one[0]
            continue
        if lowp:
            _fold(x, base, vectors, w, y)
            _row_sum(y, 0, w, vectors, w, acc, part, lanes)
        else:
            _row_sum(x, base, w, vectors, w, acc, part, lanes)
        total = zero
        for k in range(vectors * load, n):
            total += x[base + k]
        for lane in range(w):
            total += lanes[lane]
        out[r] = zero + total


def _columns_sig(t):
    return types.void(readonly(t, 1), int64, int64, int64, int64, int64, int64, t[::1])


@jit([_columns_sig(float32), _columns_sig(float64)])
def columns_into(x, rows, cols, begin, end, w, load, out):
    """out[j] = 0 + PyTorch's sum down column j of the C-contiguous (rows, cols) array x, for begin <= j < end:
    one part of the columns as one thread of PyTorch's takes it (``load``: elements of one vector load, w or 2w).
    """
    acc = np.empty((_LEVELS, _ILP * w), x.dtype)
    part = np.empty(_ILP * w, x.dtype)
    res = np.empty(_ILP * w, x.dtype)
    zero = like(x[0], 0.0) if x.size else like(out[0], 0.0)
    j = begin
    if end - begin >= load:  # vectorized_outer_sum
        # its groups of 4w columns, each one cascade down the rows, all on the same schedule: walked together, row
        # after row through memory (the same additions, lane by lane)
        wide = (end - begin) // (_ILP * w) * w
        if wide:
            many = np.empty((_LEVELS, _ILP * wide), x.dtype)
            sums = np.empty(_ILP * wide, x.dtype)
            _cascade(x, j, cols, wide, wide, rows, many, sums)
            for m in range(_ILP * wide):
                out[j + m] = zero + sums[m]
            j += _ILP * wide
        while j + w <= end:
            _row_sum(x, j, cols, rows, w, acc, part, res)
            for m in range(w):
                out[j + m] = zero + res[m]
            j += w
    else:  # scalar_outer_sum
        while j + _ILP <= end:
            _cascade(x, j, cols, 1, 1, rows, acc, res)
            for m in range(_ILP):
                out[j + m] = zero + res[m]
            j += _ILP
    while j < end:
        _row_sum(x, j, cols, rows, 1, acc, part, res)
        out[j] = zero + res[0]
        j += 1
