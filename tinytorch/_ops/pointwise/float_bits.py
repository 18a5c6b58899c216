"""Pointwise ops on a number's representation and on integers: ``frexp``/``ldexp`` (mantissa and
exponent), ``nextafter``, ``heaviside``, ``gcd``/``lcm``, and the tests ``isposinf``, ``isneginf``,
``isreal``. Only ``ldexp`` and ``frexp``'s mantissa have a derivative in PyTorch (both are products
with a power of two, written here as such)."""
from __future__ import annotations

import numpy as np

from ..._dtype import FLOATING_NP, LOWP_NP
from ...autograd.grad_mode import no_grad
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.batching import composite, pointwise
from .._core.return_types import _named
from .._core.record import legacy_name, record
from .._core.registry import op
from .._core.util import as_array, binary_operands, fit_grad, meta, require_tensors
from .._core.record import NotImplementedBackward


frexp_result = _named("frexp", ("mantissa", "exponent"))


def _not_for(x: np.ndarray, kinds: str, name: str) -> None:
    if x.dtype.kind in kinds:
        raise NotImplementedError(f"\"{name}\" not implemented for '{legacy_name(x.dtype)}'")


@op(variants="function method inplace out", batch=pointwise)
def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """0 where ``input`` < 0, ``values`` where it is 0, 1 where it is > 0 (NaN counts as < 0)."""
    require_tensors("heaviside", input, values, "values")
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    _, _, x, v = binary_operands(input, values)
    out = as_array(np.where(x == 0, v, (x > 0).astype(x.dtype)), dtype=x.dtype)
    return record(out, NotImplementedBackward, (input, values), op="heaviside")


class NextafterBackward0(Node):
    """PyTorch's formula: the step is ignored, so input's gradient passes and other's is zero."""
    saved_fields = (("self", 0), ("other", 1))

    def backward(self, g):
        return fit_grad(g, self.a_meta), fit_grad(g * 0, self.b_meta)


@op(variants="function method inplace out", batch=pointwise)
def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next floating-point value after ``input`` towards ``other``."""
    require_tensors("nextafter", input, other)
    _, _, x, y = binary_operands(input, other)
    _not_for(x, "biu", "nextafter_cpu")
    out = as_array(np.nextafter(x, y))
    return record(out, NextafterBackward0, (input, other), (input, other), a_meta=meta(input, out),
                  b_meta=meta(other, out))  # both kept, as PyTorch's node keeps them


@op(variants="function method inplace torch_inplace out", batch=composite)
def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """input * 2 ** other (a float result for integer inputs)."""
    require_tensors("ldexp", input, other)
    return input * (2.0 ** other)


@op(variants="function method out")
def frexp(input: Tensor):
    """(mantissa, exponent) with input = mantissa * 2 ** exponent, |mantissa| in [0.5, 1) (0, inf and
    NaN keep themselves with exponent 0); the exponent is int32."""
    if input._data.dtype not in FLOATING_NP:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    # numpy's frexp has no bfloat16 loop; float32 holds half and bfloat16 exactly, so the exponent is the same
    _, exponent = np.frexp(input._data.astype(np.float32) if input._data.dtype in LOWP_NP else input._data)
    exponent = _make(exponent.astype(np.int32))
    with no_grad():
        scale = _make(np.ldexp(np.ones((), input._data.dtype), -exponent._data).astype(input._data.dtype))
    return frexp_result(input * scale, exponent)


def _integer_binary(name: str, ufunc, input, other):
    require_tensors(name, input, other)
    _, _, a, b = binary_operands(input, other)
    _not_for(a, "fb", f"{name}_cpu")
    return _make(as_array(ufunc(a, b), dtype=a.dtype))


@op(variants="function method inplace torch_inplace out", batch=pointwise)
def gcd(input: Tensor, other: Tensor) -> Tensor:
    """The greatest common divisor of integer tensors (never negative; gcd(0, 0) = 0)."""
    return _integer_binary("gcd", np.gcd, input, other)


@op(variants="function method inplace torch_inplace out", batch=pointwise)
def lcm(input: Tensor, other: Tensor) -> Tensor:
    """The least common multiple of integer tensors (never negative; 0 when either is 0)."""
    return _integer_binary("lcm", np.lcm, input, other)


@op(variants="function method out", batch=pointwise)
def isposinf(input: Tensor) -> Tensor:
    x = input._data
    return _make(np.isposinf(x) if x.dtype in FLOATING_NP else np.zeros(x.shape, np.bool_))


@op(variants="function method out", batch=pointwise)
def isneginf(input: Tensor) -> Tensor:
    x = input._data
    return _make(np.isneginf(x) if x.dtype in FLOATING_NP else np.zeros(x.shape, np.bool_))


@op(variants="function method", batch=pointwise)
def isreal(input: Tensor) -> Tensor:
    """True where the imaginary part is 0 (everywhere for a real tensor)."""
    x = input._data
    return _make(as_array(x.imag == 0) if x.dtype.kind == "c" else np.ones_like(x, dtype=np.bool_))
