"""Two sums numpy makes one call per row for, in one compiled pass each (``_kernels/compiled/reduce.py``) where
numba is already in use, in numpy's order, so the same floats:

- sum over leading dims: a C-contiguous float32/float64 array summed over its leading dims (a bias's gradient,
  ``g.sum(0)``; a compiled step's ``aten.sum(g, [0], True)``). numpy runs that reduction as one inner-loop call
  per row, each adding the row into the running sums (about 15 ns a row before any arithmetic); the kernel adds
  the rows in the same order in one loop. A sum keeping a single element is left to numpy (it sums that column
  pairwise).
- rows added at indices (an embedding's weight gradient, the backward of ``t[idx]``): each table row 0 +
  rows[i0] + rows[i1] + ... in the order of the indices, as ``np.add.at`` adds them element by element and the
  reference's sort-and-pad reduction reproduces for larger gradients."""
from __future__ import annotations

import math

import numpy as np

from .._ops._core import paths
from .._ops._kernels import compiled as _compiled
from .._ops.reduce import reduce as _reduce
from .._ops.shape import _adjoint

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_numpy_sum = paths.reference_kernel(_reduce, "_sum_array")
_numpy_rows_at = paths.reference_kernel(_adjoint, "_add_rows_at")


@paths.kernel(_reduce, "_sum_array", when="a C-contiguous float32/float64 array summed in its own dtype over its "
              "leading dims, two or more elements kept, where numba is in use (another family of kernels loaded)",
              why="speed: numpy's order (each kept element summed down the rows, one after another, from +0.0) in one "
              "compiled pass instead of one numpy inner loop per row")
def sum_array(x, dims, keepdim, sdt):
    k = len(dims)
    if (type(x) is np.ndarray and x.dtype in _FLOATS and sdt == x.dtype and 0 < k < x.ndim and x.size
            and sorted(dims) == list(range(k)) and x.flags.c_contiguous):
        rows = math.prod(x.shape[:k])
        n = x.size // rows
        # (only where another family has imported numba: a sum saves less than numba's import costs, and a
        # program with no other kernel, the quickstart MLP's bias gradients, never imports it)
        fast = _compiled.loaded_family("reduce") if n > 1 else None
        if fast is not None:
            out = np.empty(x.shape[k:], x.dtype)
            fast.leading_sum_into(x.reshape(rows, n), out.reshape(n))
            return out.reshape((1,) * k + x.shape[k:]) if keepdim else out
    return _numpy_sum(x, dims, keepdim, sdt)


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
