"""Tensor-level odds PyTorch declares as ops: ``is_nonzero``, ``_assert_async``, ``Tensor.fill_diagonal_`` and
``poisson``."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._random.scalar_draws import _each, _poisson_one
from ...autograd.node import Node
from ...tensor import Tensor
from .._core.record import record
from .._core.registry import op


@op(variants="function method", meta="data_dependent")
def is_nonzero(input: Tensor) -> bool:
    """The truth of a one-element tensor (PyTorch's errors for more or fewer elements)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_nonzero(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    n = input._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(()).item() != 0)


@op(variants="function", no_batch="a data-dependent check")
def _assert_async(input: Tensor, assert_msg: str | None = None) -> None:
    """PyTorch's asynchronous assert (kornia's augmentations call it): on the CPU a check at once that the
    one-element ``input`` is nonzero, with ``is_nonzero``'s errors for more or fewer elements."""
    if not isinstance(input, Tensor):
        raise TypeError(f"_assert_async(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if assert_msg is not None and not isinstance(assert_msg, str):
        raise TypeError("_assert_async(): argument 'assert_msg' (position 2) must be str, not "
                        f"{type(assert_msg).__name__}")
    if not is_nonzero(input):
        raise RuntimeError(assert_msg if assert_msg is not None else
                           "Expected Tensor with single nonzero value, but got zero")


@op(variants="method", no_batch="an in-place fill of a strided slice")
def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (all dimensions equal for more than two); ``wrap`` continues a tall
    matrix's diagonal below every ``ncols + 1`` rows. Written through strided views and ``fill_``, so
    autograd records it as PyTorch does (CopySlices)."""
    shape = self._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = shape[0], shape[1]
    if len(shape) > 2 and any(s != height for s in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(shape)
    step = sum(self.stride())
    self.as_strided((n,), (step,), self.storage_offset()).fill_(fill_value)
    if wrap and len(shape) == 2 and height > width + 1:
        self.view(-1)[width * (width + 1)::width + 1].fill_(fill_value)
    return self


class PoissonBackward0(Node):
    """A sample's gradient with respect to its rate is zero (PyTorch's formula)."""

    def backward(self, g):
        return (g * 0,)


@op(variants="function", no_batch="randomness")
def poisson(input: Tensor, generator=None) -> Tensor:
    """One Poisson draw per rate, element by element in memory order with PyTorch's CPU algorithm
    (products of uniforms below rate 10, Hoermann's transformed rejection above), so a seed gives
    PyTorch's values. A Python loop over the elements: slow for large tensors."""
    npd = input._data.dtype
    if npd not in _dtype.FLOATING_NP:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{_dtype.FROM_NP[npd]._scalar}'")
    rates = np.ascontiguousarray(input._data)
    if (rates < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    out = _each(_poisson_one, rates.astype(np.float64).ravel().tolist(), generator=generator)
    return record(out.astype(npd).reshape(rates.shape), PoissonBackward0, (input,))
