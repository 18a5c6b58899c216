"""dropout's CPU path: a large keep mask cast and scaled in runs of elements across threads (each element the
same two steps as the reference's: the same floats)."""
from __future__ import annotations

import numpy as np

from .._ops._core import paths
from .._ops._kernels import parallel
from .._ops.nn import dropout

_reference = paths.reference_kernel(dropout, "_keep_scaled")


def _scaled(keep: np.ndarray, out: np.ndarray, scale) -> None:
    """keep.astype(out.dtype) / scale, into ``out`` (one part of a split)."""
    np.copyto(out, keep, casting="unsafe")
    np.divide(out, scale, out=out)


@paths.kernel(dropout, "_keep_scaled", when=f"masks of {parallel.SPLIT_FROM} elements or more, several threads",
              why="speed: the mask's cast and scaling across threads")
def keep_scaled(keep, shape, dtype, scale):
    if keep.size >= parallel.SPLIT_FROM:
        return parallel.elementwise(_scaled, np.empty(shape, dtype), keep.reshape(shape), scale=scale)
    return _reference(keep, shape, dtype, scale)
