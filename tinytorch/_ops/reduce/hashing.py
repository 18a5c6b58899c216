"""hash_tensor: an XOR of every element's 64-bit pattern along the reduced dims (PyTorch's mode 0). Each
element is widened to its 64-bit equivalent first (a float to float64, an integer or bool to int64) and
its bits read as uint64; the result is uint64 and has no gradient."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor, _make
from .._core.record import legacy_name
from .._core.registry import op
from .._core.util import as_array, normalize_dims

# the element types PyTorch's xor_sum kernel has no loop for
_NO_XOR = frozenset(np.dtype(t) for t in (np.complex64, np.complex128, np.uint16, np.uint32, np.uint64))


@op(variants="function method out", no_batch="hash_tensor's reduction has no batching rule")
def hash_tensor(input: Tensor, dim=None, keepdim: bool = False, *, mode: int = 0) -> Tensor:
    """The XOR of the elements' uint64 bit patterns over ``dim`` (all dims when None or empty)."""
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    x = input._data
    if x.size == 0 and dim is None:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    dims = normalize_dims(dim, x.ndim)
    for d in dims:
        if x.shape[d] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    if x.dtype in _NO_XOR and x.size:  # (an empty result never reaches the kernel)
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{legacy_name(x.dtype)}'")
    if x.dtype in _NO_XOR:
        wide = np.zeros(x.shape, np.int64)  # (empty here: nothing to widen)
    elif x.dtype.kind == "f" or x.dtype.name == "bfloat16":
        wide = x.astype(np.float64)
    else:
        wide = x.astype(np.int64)
    bits = wide.view(np.uint64)
    out = np.bitwise_xor.reduce(bits, axis=dims, keepdims=keepdim) if dims else bits.copy()
    return _make(as_array(out, dtype=np.uint64))
