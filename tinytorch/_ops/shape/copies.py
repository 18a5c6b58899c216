"""The ``*_copy`` ops: each view op's result as a new tensor that shares nothing with its input
(PyTorch's functionalization spellings, ``torch.view_copy`` ...). Each is its view op followed by
``clone``, so the gradient is the view's, through the same tinytorch ops."""
from __future__ import annotations

from ...tensor import Tensor
from .._core.batching import composite
from .._core.registry import op
from .join import split, unbind
from .shape import diagonal, permute, squeeze, t, transpose, unsqueeze
from .strided import as_strided, unfold


@op(variants="function out", batch=composite)
def alias_copy(input: Tensor) -> Tensor:
    """A copy of ``input`` (what ``torch.alias`` would return, not sharing storage)."""
    return input.clone()


@op(variants="function out")
def as_strided_copy(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    return as_strided(input, size, stride, storage_offset).clone()


@op(variants="function out", batch=composite)
def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return diagonal(input, offset, dim1, dim2).clone()


@op(variants="function out")
def expand_copy(input: Tensor, size, *, implicit: bool = False) -> Tensor:
    return input.expand(*size).clone()


@op(variants="function method out", batch=composite)
def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    return input.narrow(dim, start, length).clone()


@op(variants="function out", batch=composite)
def permute_copy(input: Tensor, dims) -> Tensor:
    return permute(input, dims).clone()


@op(variants="function out")
def split_with_sizes_copy(input: Tensor, split_sizes, dim: int = 0):
    return [p.clone() for p in split(input, list(split_sizes), dim)]


@op(variants="function out", batch=composite)
def squeeze_copy(input: Tensor, dim=None) -> Tensor:
    return squeeze(input, dim).clone()


@op(variants="function out", batch=composite)
def t_copy(input: Tensor) -> Tensor:
    return t(input).clone()


@op(variants="function out", batch=composite)
def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return transpose(input, dim0, dim1).clone()


@op(variants="function out")
def unbind_copy(input: Tensor, dim: int = 0):
    return tuple(p.clone() for p in unbind(input, dim))


@op(variants="function out")
def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return unfold(input, dimension, size, step).clone()


@op(variants="function out", batch=composite)
def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    return unsqueeze(input, dim).clone()


@op(variants="function out")
def view_copy(input: Tensor, size) -> Tensor:
    """``input.view(size)`` (or ``.view(dtype)``) as a new tensor."""
    return input.view(size).clone()
