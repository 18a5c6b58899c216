"""What the data package needs from the Tensor core, gathered in one place.

Batches are built with numpy and wrapped once at the end, so this module only has to know how to
wrap an array (``_make``: no copy, no checks) and how to tell the kinds of tensors apart."""
from __future__ import annotations

import numpy as np

from .._dtype import PROMOTE
from ..tensor import Tensor, _make

__all__ = ["Tensor", "wrap", "is_torch_tensor", "torch_to_numpy", "stack_arrays"]


def wrap(array: np.ndarray) -> Tensor:
    """A tensor over ``array`` (shared memory); 0-d results stay arrays, never numpy scalars."""
    return _make(array if type(array) is np.ndarray else np.asarray(array))


def is_torch_tensor(x) -> bool:
    """True for PyTorch's own tensors, recognised without importing torch."""
    cls = type(x)
    return (cls.__module__.partition(".")[0] == "torch" and hasattr(x, "detach")
            and hasattr(x, "numpy"))


def torch_to_numpy(x) -> np.ndarray:
    """A PyTorch tensor's values as a numpy array (a copy, so the batch owns its memory)."""
    return np.array(x.detach().cpu().numpy(), copy=True)


def stack_arrays(arrays: list) -> np.ndarray:
    """``np.stack`` under PyTorch's ``stack`` rules: equal shapes, dtypes promoted as torch does."""
    first = arrays[0]
    shape, dtype = first.shape, first.dtype
    for i, a in enumerate(arrays):
        if a.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} "
                               f"at entry 0 and {list(a.shape)} at entry {i}")
        if a.dtype != dtype:
            dtype = PROMOTE.get((dtype, a.dtype)) or np.promote_types(dtype, a.dtype)
    return np.stack(arrays, dtype=dtype, casting="unsafe")
