"""PyTorch's CPU sum and mean of floating arrays with the compiled kernels (``[fast]``), and rows added at indices:

- sum and mean: PyTorch's floats (ATen's cascade sum, ``_kernels/compiled/cascade_sum.py``) for float32 arrays
  large enough that the kernel costs no more than numpy's sum (the other dtypes cost it 1.1-1.5x numpy's: numpy
  sums them; the kernel's float16/bfloat16 load folding waits for the day it pays), C-contiguous, summed over one
  block of adjacent dims: the whole array, its last
  dims (rows), its leading dims (columns) or dims between (columns of each slab). How PyTorch cuts such a sum
  across its threads changes the floats, so the cut is made here as PyTorch's TensorIterator makes it, for
  tinytorch's thread count (PyTorch's default, or what ``set_num_threads`` set): a sum to one value of 32768
  elements or more is cut into one part per thread (divided as ``at::parallel_for`` divides, each part's sum
  stored in the dtype, then those summed); a sum of columns is cut into runs of columns at multiples of 128
  bytes, each run summed as a whole. The vector width is 32 bytes on each of PyTorch's x86 paths: the sum kernel
  is registered for DEFAULT and AVX2 only (``REGISTER_DISPATCH``), so its AVX-512 path runs the AVX2 kernel.
  Sums smaller than the kernel pays for (``_MIN_ELEMENTS``, ``_MIN_ROW``, ``_MIN_COLUMN``: decided by the shape
  alone, before numba is imported), other layouts, other CPUs, or no numba: the op's numpy steps run, numpy's
  pairwise sums, within a few ulps of PyTorch's (emulating the cascade in numpy passes would cost several times
  the plain sum).
  A mean is the sum divided by the count in the sum's dtype (float32 for half and bfloat16, then rounded), as
  PyTorch's CPU mean computes it.
- rows added at indices (an embedding's weight gradient, the backward of ``t[idx]``): each table row 0 +
  rows[i0] + rows[i1] + ... in the order of the indices, as ``np.add.at`` adds them element by element and the
  reference's sort-and-pad reduction reproduces for larger gradients."""
from __future__ import annotations

import math
import platform

import numpy as np

from .._dtype import BF16_NP
from .._ops._core import paths
from .._ops._kernels import compiled as _compiled, parallel
from .._ops.reduce import reduce as _reduce
from .._ops.shape import _adjoint

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_F32 = np.dtype(np.float32)
# float16 and bfloat16: summed in float32, loaded two vectors' worth at a time (cascade_sum.py's ``lowp``)
_LOWP = frozenset(d for d in (np.dtype(np.float16), BF16_NP and np.dtype(BF16_NP)) if d)
_SUMMED = frozenset(_FLOATS) | _LOWP
# PyTorch's float sum kernel on x86-64 runs 32-byte vectors on every capability; on other CPUs its vectors differ
_X86 = platform.machine().lower() in ("x86_64", "amd64")
_GRAIN = parallel.GRAIN  # at::internal::GRAIN_SIZE: below it a reduction runs on one thread
# Where the kernel runs: below these sizes it is slower than numpy's sum (measured at one thread, float32: a
# call costs ~0.6 us more than numpy's and each row ~0.1-0.3 us, so rows of 8-1024 elements took 1.2-12x numpy's
# time and rows of 4096 0.9x; a full sum 1.1x at 4096 elements, 0.97x at 16384, 0.85x at 32768; columns down 32,
# 64, 128, 256 rows 1.4, 1.2, 1.08, 0.98x), and numba's import (~1.5 s) would be paid by a program's first small
# sum. Below them the sum is numpy's (the numpy path's bound).
_MIN_ELEMENTS = 32768
_MIN_ROW = 4096
_MIN_COLUMN = 256
_reference_sum = paths.reference_kernel(_reduce, "_sum_array")
_numpy_mean = paths.reference_kernel(_reduce, "_mean_array")
_numpy_rows_at = paths.reference_kernel(_adjoint, "_add_rows_at")


def _blocks(shape: tuple, dims: tuple):
    """(A, B, C): ``shape`` seen as (kept before, summed, kept after) where ``dims`` are adjacent, else None."""
    lo, hi = min(dims), max(dims)
    if hi - lo + 1 != len(dims):  # (dims are distinct)
        return None
    return math.prod(shape[:lo]), math.prod(shape[lo:hi + 1]), math.prod(shape[hi + 1:])


def _rows(fast, x: np.ndarray, rows: int, n: int, low, threads: int) -> np.ndarray:
    """PyTorch's sums (0 + each) of ``rows`` contiguous rows of ``n`` elements of flat ``x``, in its accumulation
    dtype (``low``: the float16/bfloat16 dtype the float32 ``x`` holds, or None). A single row of ``_GRAIN``
    elements or more on several threads is cut as TensorIterator's two-pass reduction cuts it: ``at::parallel_for``'s parts (as many as threads, at most one per ``_GRAIN``
    elements, of ceil(n / parts) each), each part's sum stored in the dtype, the per-thread buffer (unused
    slots 0) then summed as a row of its own."""
    lanes, lowp = 32 // x.itemsize, int(low is not None)
    out = np.empty(rows, x.dtype)
    if rows > 1 or n < _GRAIN or threads == 1:
        fast.rows_into(x, rows, n, n, lanes, lowp, out)
        return out
    parts = min(threads, -(-n // _GRAIN)) if n > _GRAIN else 1
    size = -(-n // parts)
    buffer = np.zeros(threads, x.dtype)
    one = np.empty(1, x.dtype)
    for t in range(parts):
        lo = t * size
        if lo < n:
            fast.rows_into(x[lo:min(n, lo + size)], 1, min(n, lo + size) - lo, 0, lanes, lowp, one)
            buffer[t] = one[0]
    if lowp:  # the parts are stored in the half/bfloat16 buffer
        buffer = _store(buffer, low).astype(_F32)
    fast.rows_into(buffer, 1, threads, 0, lanes, lowp, out)
    return out


def _columns(fast, x: np.ndarray, slabs: int, rows: int, cols: int, low, threads: int, elsize: int):
    """PyTorch's sums (0 + each) down the columns of ``slabs`` C-contiguous (rows, cols) slabs of flat ``x``, as
    (slabs * cols,). On several threads with ``_GRAIN`` elements or more, TensorIterator cuts the outermost kept
    dim that has as many entries as threads (the slabs, else the columns; with neither, the longer): cut
    columns go in runs that start and end at multiples of 128 bytes (``elsize``: the input's element size)."""
    lanes = 32 // x.itemsize
    load = lanes if low is None else 2 * lanes
    out = np.empty(slabs * cols, x.dtype)
    cuts = [(0, cols)]
    if threads > 1 and slabs * rows * cols >= _GRAIN and not (slabs >= threads or (cols < threads and cols <= slabs)):
        parts, per = min(threads, cols), 128 // elsize
        size = -(-cols // parts)
        cuts = []
        for t in range(parts):
            lo, hi = t * size, min(cols, t * size + size)
            if lo >= cols:
                continue
            lo -= lo % per
            if hi != cols:
                hi -= hi % per
            if lo != hi:
                cuts.append((lo, hi))
    for s in range(slabs):
        slab = x[s * rows * cols:(s + 1) * rows * cols]
        for lo, hi in cuts:
            fast.columns_into(slab, rows, cols, lo, hi, lanes, load, out[s * cols:(s + 1) * cols])
    return out


def _store(v: np.ndarray, dt: np.dtype) -> np.ndarray:
    """float32 sums stored into a half/bfloat16 output that holds 0 (ATen's ``*out += sum``: the sum rounded,
    then added to +0, so -0 becomes +0)."""
    return (v.astype(dt).astype(_F32) + np.float32(0)).astype(dt)


def _blocks_to_sum(shape: tuple, dims: tuple):
    """(A, B, C) where the cascade kernel takes ``x.sum(dims)`` of this shape (``_blocks``), else None: adjacent
    dims, and sizes where it is measured no slower than numpy's sum (its fixed cost per call and per row, against
    numpy's, measured on float32 at one thread): ``_MIN_ELEMENTS`` elements or more, rows of ``_MIN_ROW`` or
    more, columns of ``_MIN_COLUMN`` rows or more. Decided from the shape alone, before numba is imported: a
    small sum (an accuracy count, a loss's mean) never imports it, and the same shape always sums the same way."""
    nd = len(shape)
    if len(dims) == nd:  # (the common cases first: every dim, the last one)
        blocks = (1, math.prod(shape), 1)
    elif dims == (nd - 1,):
        blocks = (math.prod(shape[:-1]), shape[-1], 1)
    else:
        blocks = _blocks(shape, dims)
        if blocks is None:
            return None
    a, b, c = blocks
    if a * b * c < _MIN_ELEMENTS or b < (_MIN_ROW if c == 1 else _MIN_COLUMN):
        return None
    return blocks


def _pytorch_sum(fast, x: np.ndarray, blocks: tuple, dims: tuple):
    """PyTorch's CPU sum of ``x`` over ``dims`` (not kept, seen as ``blocks``) in ``x``'s dtype by the compiled
    family ``fast``, or None where this path does not apply (another layout or dtype)."""
    if not (type(x) is np.ndarray and x.dtype in _SUMMED and x.flags.c_contiguous):
        return None
    nd = x.ndim
    low = x.dtype if x.dtype in _LOWP else None
    flat = x.reshape(-1) if low is None else x.reshape(-1).astype(_F32)  # (exact)
    threads = parallel.get_num_threads()
    a, b, c = blocks
    if c == 1:
        out = _rows(fast, flat, a, b, low, threads)
    else:
        out = _columns(fast, flat, a, b, c, low, threads, x.itemsize)
    out = out if low is None else _store(out, low)
    return out.reshape(() if len(dims) == nd else tuple(n for i, n in enumerate(x.shape) if i not in dims))


def _kernels(sdt):
    """The compiled family of the cascade where it runs PyTorch's sum for dtype ``sdt``, else None (without numba,
    or on a CPU whose PyTorch vectors are not x86's: then numpy sums, as the op's steps say)."""
    return _compiled.family("cascade_sum") if _X86 and sdt == _F32 else None


def _kept(out: np.ndarray, shape: tuple, dims: tuple) -> np.ndarray:
    return out.reshape(tuple(1 if i in dims else n for i, n in enumerate(shape)))


def _cast(x, sdt):
    """``x`` as PyTorch sums it in ``sdt``: cast to it first (a float or an integer array summed with ``dtype=``
    a float), or None for what this path leaves to numpy."""
    if sdt == x.dtype:
        return x
    if type(x) is np.ndarray and (x.dtype in _SUMMED or x.dtype.kind in "biu"):
        return x.astype(sdt)
    return None


def _numpy_sum(x, dims, keepdim, sdt):
    """numpy's sum (the reference's), a large array of another dtype than half and bfloat16 summed in its own cut
    over kept dims across threads (each output summed as on one thread)."""
    if sdt == x.dtype and x.dtype not in _LOWP and x.size >= parallel.SPLIT_FROM and dims:
        return parallel.reduce(np.add.reduce, x, dims, keepdim)
    return _reference_sum(x, dims, keepdim, sdt)


# (the bounds to numpy's sums: measured over tests/house/path_programs/reduce.py, values over six orders of
# magnitude: 17 ulps of the program's largest magnitude for a float32 sum that cancels, 0.25 for a mean)
@paths.kernel(_reduce, "_sum_array", ulps=32, scale="program",
              when="float32 (or an array summed with dtype=float32: cast first; float64, float16 and bfloat16 sums "
              "cost the kernel 1.1-1.5x numpy's there, so they stay numpy's), "
              "C-contiguous, over adjacent dims, on x86-64 with the compiled kernels ([fast]), the array of "
              f"{_MIN_ELEMENTS} elements or more and each sum of {_MIN_ROW} or more along a row, or of "
              f"{_MIN_COLUMN} rows or more down columns (smaller sums: numpy's, without importing numba); numpy's "
              f"sums of {parallel.SPLIT_FROM} elements or more cut over kept dims across threads",
              why="PyTorch's bits: ATen's cascade sum (its lanes, levels and cut across threads); speed")
def sum_array(x, dims, keepdim, sdt):
    # (an array of its own: a meta tensor's stand-in has no elements to sum, and must not load the kernels; a small
    # one is numpy's without looking further, as _blocks_to_sum would decide)
    blocks = (_blocks_to_sum(x.shape, dims) if dims and type(x) is np.ndarray and x.size >= _MIN_ELEMENTS
              else None)
    fast = _kernels(sdt) if blocks is not None else None
    if fast is not None:
        y = _cast(x, sdt)
        out = _pytorch_sum(fast, y, blocks, dims) if y is not None else None
        if out is not None:
            return _kept(out, x.shape, dims) if keepdim else out
    return _numpy_sum(x, dims, keepdim, sdt)


@paths.kernel(_reduce, "_mean_array", ulps=4, scale="program",
              when="as the sum's path (the same sizes): float32",
              why="PyTorch's bits: its CPU mean is the cascade sum divided by the count")
def mean_array(x, dims, keepdim):
    blocks = (_blocks_to_sum(x.shape, dims) if dims and type(x) is np.ndarray and x.size >= _MIN_ELEMENTS
              else None)
    fast = _kernels(x.dtype) if blocks is not None else None
    total = None
    if fast is not None:
        total = _pytorch_sum(fast, x.astype(_F32) if x.dtype in _LOWP else x, blocks, dims)
    if total is None:
        return _numpy_mean(x, dims, keepdim)
    count = math.prod(x.shape[d] for d in dims)
    out = np.asarray(total / total.dtype.type(count))
    if x.dtype in _LOWP:
        out = out.astype(x.dtype)
    return _kept(out, x.shape, dims) if keepdim else out


@paths.kernel(_adjoint, "_add_rows_at", when="float32/float64 rows into a table of their dtype, both C-contiguous, "
              "the indices in range, where numba is in use (another family of kernels loaded)",
              why="speed: the rows added in index order in one compiled loop, where numpy takes add.at's "
              "element-by-element loop (a few thousand elements or fewer) or a sort and a padded reduction")
def add_rows_at(out, idx, rows):
    if (type(out) is np.ndarray and type(rows) is np.ndarray and out.dtype in _FLOATS and rows.dtype == out.dtype
            and out.ndim >= 2 and out.flags.c_contiguous and rows.flags.c_contiguous):
        fast = _compiled.loaded_family("reduce")
        n = out.shape[0]
        if fast is not None and -n <= idx.min() and idx.max() < n:
            fast.add_rows_at(out.reshape(n, -1), np.ascontiguousarray(idx, dtype=np.int64),
                             rows.reshape(rows.shape[0], -1))
            return True
    return _numpy_rows_at(out, idx, rows)
