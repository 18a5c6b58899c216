"""Stacking and splitting along the numpy-named axes: ``hstack``, ``vstack``, ``dstack``,
``column_stack``, ``atleast_1d/2d/3d``, ``tensor_split``, ``hsplit``/``vsplit``/``dsplit``, ``ravel``.

All are composites in PyTorch too (``cat`` of reshaped inputs, ``narrow`` slices, a ``view``), so
their graphs are made of the inner ops' nodes (CatBackward0, SliceBackward0, ViewBackward0 ...)."""
from __future__ import annotations

from ...tensor import Tensor
from .._core.batching import composite
from .._core.registry import op
from .join import cat


def _atleast(tensors, ndim: int, raise_dims):
    """One tensor or a tuple of them, each raised to ``ndim`` dims by ``raise_dims``."""
    if len(tensors) == 1:
        tensors = tensors[0]  # one tensor, or one list/tuple of them
        if isinstance(tensors, Tensor):
            return tensors if tensors.dim() >= ndim else raise_dims(tensors)
    return tuple(t if t.dim() >= ndim else raise_dims(t) for t in tensors)


@op(variants="function", batch=composite)
def atleast_1d(*tensors):
    """Each input with at least one dimension (a 0-d tensor becomes shape (1,))."""
    return _atleast(tensors, 1, lambda t: t.reshape(1))


@op(variants="function", batch=composite)
def atleast_2d(*tensors):
    """Each input with at least two dimensions: () -> (1, 1), (n,) -> (1, n)."""
    return _atleast(tensors, 2, lambda t: t.reshape(1, 1) if t.dim() == 0 else t.unsqueeze(0))


def _to_3d(t: Tensor) -> Tensor:
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1)


@op(variants="function", batch=composite)
def atleast_3d(*tensors):
    """Each input with at least three dimensions: () -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return _atleast(tensors, 3, _to_3d)


def _check_sequence(name: str, tensors):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


@op(variants="function out", batch=composite, overlap="any")
def hstack(tensors) -> Tensor:
    """Concatenate column-wise: along dim 1, or dim 0 when the inputs are 1-d."""
    _check_sequence("hstack", tensors)
    ts = atleast_1d(tuple(tensors))
    return cat(ts, 0 if ts[0].dim() == 1 else 1)


@op(variants="function out", batch=composite, overlap="any")
def vstack(tensors) -> Tensor:
    """Concatenate row-wise (dim 0) after raising each input to at least 2-d."""
    _check_sequence("vstack", tensors)
    return cat(atleast_2d(tuple(tensors)), 0)


@op(variants="function out", batch=composite, overlap="any")
def dstack(tensors) -> Tensor:
    """Concatenate depth-wise (dim 2) after raising each input to at least 3-d."""
    _check_sequence("dstack", tensors)
    return cat(atleast_3d(tuple(tensors)), 2)


@op(variants="function out", batch=composite, overlap="any")
def column_stack(tensors) -> Tensor:
    """Columns side by side: 0-d and 1-d inputs become columns (n, 1), then ``hstack``."""
    _check_sequence("column_stack", tensors)
    cols = tuple(t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors)
    return hstack(cols)


@op(variants="function method", batch=composite)
def tensor_split(input: Tensor, indices_or_sections=None, dim: int = 0, *, indices=None, sections=None,
                 tensor_indices_or_sections=None):
    """Views of ``input`` split along ``dim``: into n near-equal parts (the first ``size % n`` one
    longer), or at the given indices (PyTorch's overloads name them ``sections=``, ``indices=``,
    ``tensor_indices_or_sections=``)."""
    for alt in (indices, sections, tensor_indices_or_sections):
        if alt is not None:
            indices_or_sections = alt
    if input.dim() == 0:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with "
                           f"{input.dim()} dims")
    d = dim + input.dim() if dim < 0 else dim
    size = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        t = indices_or_sections
        if t.device.type != "cpu":  # its values are read on the host
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on "
                               f"{t.device.type}")
        if t.dtype.name != "int64":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{t.dtype._scalar}")
        if t.dim() > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {t.dim()} dims")
        indices_or_sections = t.item() if t.dim() == 0 else t.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        base, extra = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            length = base + (1 if i < extra else 0)
            bounds.append((start, start + length))
            start += length
    else:
        cuts = [0] + [max(0, min(size, i if i >= 0 else i + size)) for i in indices_or_sections] + [size]
        bounds = [(a, max(a, b)) for a, b in zip(cuts[:-1], cuts[1:])]
    return tuple(input.narrow(d, a, b - a) for a, b in bounds)


def _numpy_split(name: str, input: Tensor, indices_or_sections, dim: int, min_dims: int):
    if input.dim() < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {input.dim()} dimensions!")
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


@op(variants="function method", batch=composite)
def hsplit(input: Tensor, indices_or_sections):
    """Split along dim 1 (dim 0 for a 1-d tensor); an int must divide that dimension."""
    return _numpy_split("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


@op(variants="function method", batch=composite)
def vsplit(input: Tensor, indices_or_sections):
    """Split along dim 0 of an at least 2-d tensor; an int must divide that dimension."""
    return _numpy_split("vsplit", input, indices_or_sections, 0, 2)


@op(variants="function method", batch=composite)
def dsplit(input: Tensor, indices_or_sections):
    """Split along dim 2 of an at least 3-d tensor; an int must divide that dimension."""
    return _numpy_split("dsplit", input, indices_or_sections, 2, 3)


@op(variants="function method", batch=composite)
def ravel(input: Tensor) -> Tensor:
    """The elements as a 1-d tensor: a view when ``input`` is contiguous, else a contiguous copy's view."""
    return input.contiguous().view(-1)
