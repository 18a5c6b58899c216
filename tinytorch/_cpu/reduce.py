"""sum's CPU path: a C-contiguous float32/float64 array summed over its leading dims (a bias's gradient,
``g.sum(0)``; a compiled step's ``aten.sum(g, [0], True)``) in one compiled pass (``_kernels/compiled/reduce.py``)
where numba is already in use. numpy runs that reduction as one inner-loop call per row, each adding the row
into the running sums (about 15 ns a row before any arithmetic); the kernel adds the rows in the same order in
one loop, so the same floats. A sum keeping a single element is left to numpy (it sums that column pairwise)."""
from __future__ import annotations

import math

import numpy as np

from .._ops._core import paths
from .._ops._kernels import compiled as _compiled
from .._ops.reduce import reduce as _reduce

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_numpy_sum = paths.reference_kernel(_reduce, "_sum_array")


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
