"""The ``*_copy`` ops: each view op's result as a new tensor that shares nothing with its input
(PyTorch's functionalization spellings, ``torch.view_copy`` ...). Each is its view op followed by
``_fresh`` (a contiguous clone: PyTorch's copies are C-ordered whatever the view's strides), so the gradient is
the view's, through the same tinytorch ops."""
from __future__ import annotations

from ...tensor import Tensor
from .._core.batching import composite
from .._core.registry import op
from .join import split, unbind
from .shape import diagonal, permute, squeeze, t, transpose, unsqueeze
from .conversions import contiguous_format
from .strided import as_strided, unfold


def _fresh(view: Tensor) -> Tensor:
    return view.clone(memory_format=contiguous_format)


@op(variants="function out", batch=composite)
def alias_copy(input: Tensor) -> Tensor:
    """A copy of ``input`` (what ``torch.alias`` would return, not sharing storage)."""
    return _fresh(input)


@op(variants="function out")
def as_strided_copy(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    return _fresh(as_strided(input, size, stride, storage_offset))


@op(variants="function out", batch=composite)
def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _fresh(diagonal(input, offset, dim1, dim2))


@op(variants="function out")
def expand_copy(input: Tensor, size, *, implicit: bool = False) -> Tensor:
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"expand_copy(): argument 'size' (position 2) must be tuple of ints, not {type(size).__name__}")
    return _fresh(input.expand(size))


@op(variants="function method out", batch=composite)
def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    return _fresh(input.narrow(dim, start, length))


@op(variants="function out", batch=composite)
def permute_copy(input: Tensor, dims) -> Tensor:
    return _fresh(permute(input, dims))


@op(variants="function out")
def split_with_sizes_copy(input: Tensor, split_sizes, dim: int = 0):
    return [_fresh(p) for p in split(input, list(split_sizes), dim)]


@op(variants="function out", batch=composite)
def squeeze_copy(input: Tensor, dim=None) -> Tensor:
    return _fresh(squeeze(input, dim))


@op(variants="function out", batch=composite)
def t_copy(input: Tensor) -> Tensor:
    return _fresh(t(input))


@op(variants="function out", batch=composite)
def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return _fresh(transpose(input, dim0, dim1))


@op(variants="function out")
def unbind_copy(input: Tensor, dim: int = 0):
    return tuple(_fresh(p) for p in unbind(input, dim))


@op(variants="function out")
def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return _fresh(unfold(input, dimension, size, step))


@op(variants="function out", batch=composite)
def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    return _fresh(unsqueeze(input, dim))


@op(variants="function out")
def view_copy(input: Tensor, size) -> Tensor:
    """``input.view(size)`` (or ``.view(dtype)``) as a new tensor."""
    return _fresh(input.view(size))
