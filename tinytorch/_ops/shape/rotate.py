"""``rot90``: rotate a tensor by 90 degrees ``k`` times in the plane of two dims (a copy, as PyTorch's)."""
from __future__ import annotations

import numpy as np

from ...autograd.node import Node, u64
from ...tensor import Tensor, _wrap_dim
from .._core.record import record
from .._core.registry import op
from .._core.layout import laid_out, like_strides
from .._core.util import c_order


class Rot90Backward0(Node):
    """The rotation undone: rot90 of the gradient by -k in the same plane."""
    saved_fields = (("dims", lambda n: u64(n.rot_dims)), ("k", lambda n: u64(n.k)))

    def backward(self, g):
        return (rot90(g, -self.k, self.rot_dims),)


@op(variants="function method")
def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times, from the first of ``dims`` towards the second."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = _wrap_dim(dims[0], input.dim()), _wrap_dim(dims[1], input.dim())
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    # PyTorch's layout: flip's (laid out as empty_like(input): a dense input's strides kept), with the two dims
    # then swapped (k odd); no turn at all is a C-ordered clone
    x, turns = input._data, k % 4
    flips = {0: (), 1: (d1,), 2: (d0, d1), 3: (d0,)}[turns]
    out = laid_out(np.flip(x, flips), like_strides(x)) if flips else c_order(x.copy())  # (a meta input: meta)
    if turns % 2:
        out = out.swapaxes(d0, d1)
    return record(out, Rot90Backward0, (input,), k=k, rot_dims=dims)
