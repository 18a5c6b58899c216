"""Pointwise ops of three tensors: ``addcmul`` (input + value * t1 * t2) and ``addcdiv``
(input + value * t1 / t2), the optimizers' update steps."""
from __future__ import annotations

import numpy as np

from ..._dtype import LOWP_NP, result_np_dtype
from ..._dtype_casts import OVERFLOW_NAMES
from ...autograd.node import Node
from ...tensor import Tensor
from .._core.batching import pointwise
from . import arith
from .._core.record import record
from .._core import deprecated as _deprecated
from .._core.registry import op
from .._core.tensor_iterator import elementwise_empty
from ..._quiet_fp import cast
from .._core.util import broadcast_shapes, fit_grad, holomorphic_backward, meta
from .arith import mul_scalar

_FMA_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))  # where PyTorch's CPU kernels fuse (FMA)


def _operands(input: Tensor, tensor1: Tensor, tensor2: Tensor):
    a, b, c = input._data, tensor1._data, tensor2._data
    broadcast_shapes(broadcast_shapes(a.shape, b.shape), c.shape)  # PyTorch's error, not numpy's
    inner = result_np_dtype(b, c)
    inner_like = np.empty((1,) * max(b.ndim, c.ndim), dtype=inner)
    dt = result_np_dtype(a, inner_like)
    return cast(a, dt, copy=False), cast(b, dt, copy=False), cast(c, dt, copy=False)


def _real_value(value, dt: np.dtype):
    """A complex value for a real result: its real part when the imaginary one is 0, else PyTorch's
    Scalar conversion error."""
    if isinstance(value, complex) and dt.kind != "c":
        if value.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {OVERFLOW_NAMES.get(dt.name, dt.name)} "
                               "without overflow")
        return value.real
    return value


def _ternary_args(out, input, tensor1, tensor2, value) -> dict:
    """``record``'s arguments for addcmul and addcdiv: three inputs, the two tensors saved."""
    return {"inputs": (input, tensor1, tensor2), "saved": (tensor1, tensor2), "value": value,
            "metas": (meta(input, out), meta(tensor1, out), meta(tensor2, out)),
            "needs": (input._requires_grad, tensor1._requires_grad, tensor2._requires_grad)}


class _TernaryNode(Node):
    def _fit(self, grads):
        return tuple(fit_grad(g, m) if need and g is not None else None
                     for g, m, need in zip(grads, self.metas, self.needs))


class AddcmulBackward0(_TernaryNode):
    """d/dinput = 1, d/dt1 = value * t2, d/dt2 = value * t1."""
    saved_fields = (("tensor2", 1), ("value", "value"), ("tensor1", 0))

    @holomorphic_backward
    def backward(self, g):
        t1, t2 = self._unpacked_saved
        v = self.value
        return self._fit((g, g * mul_scalar(t2, v) if self.needs[1] else None,
                          g * mul_scalar(t1, v) if self.needs[2] else None))


class AddcdivBackward0(_TernaryNode):
    """d/dinput = 1, d/dt1 = value / t2, d/dt2 = -value * t1 / t2^2."""
    saved_fields = (("tensor2", 1), ("value", "value"), ("tensor1", 0))

    @holomorphic_backward
    def backward(self, g):
        t1, t2 = self._unpacked_saved
        v = self.value
        return self._fit((g, g * v / t2 if self.needs[1] else None,
                          -g * v * t1 / (t2 * t2) if self.needs[2] else None))


@op(variants="function method inplace out", batch=pointwise)
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *legacy, value=1) -> Tensor:
    """input + value * tensor1 * tensor2, broadcast and type-promoted."""
    if legacy:  # addcmul(Number value, Tensor tensor1, Tensor tensor2), deprecated
        kw = {} if value == 1 else {"value": value}
        args, kw = _deprecated.modern("addcmul", (input, tensor1, tensor2) + legacy, kw)
        return addcmul(*args, **kw)
    a, b, c = _operands(input, tensor1, tensor2)
    value = _real_value(value, a.dtype)
    if a.dtype in _FMA_DTYPES and b.dtype == a.dtype and c.dtype == a.dtype and isinstance(value, (int, float)):
        # PyTorch's kernel: (value * tensor1) rounded, then times tensor2 plus input in one FMA
        out = elementwise_empty(a, a, b, c, shape=np.broadcast_shapes(a.shape, b.shape, c.shape))  # (meta a: meta)
        arith._muladd_into(out, a, b, c, value)
        return record(out, AddcmulBackward0, **_ternary_args(out, input, tensor1, tensor2, value))
    if a.dtype in LOWP_NP and b.dtype == a.dtype and c.dtype == a.dtype and isinstance(value, (int, float)):
        # half/bfloat16: the float32 kernel's roundings on the widened operands, rounded once to the dtype
        out = elementwise_empty(a, a, b, c, shape=np.broadcast_shapes(a.shape, b.shape, c.shape), dtype=np.float32)
        arith._muladd_into(out, a.astype(np.float32), b.astype(np.float32), c.astype(np.float32), value)
        out = out.astype(a.dtype)
        return record(out, AddcmulBackward0, **_ternary_args(out, input, tensor1, tensor2, value))
    with np.errstate(all="ignore"):
        out = np.asarray(a + a.dtype.type(value) * (b * c)) if value != 1 else np.asarray(a + b * c)
    out = out.astype(a.dtype, copy=False)
    return record(out, AddcmulBackward0, **_ternary_args(out, input, tensor1, tensor2, value))


@op(variants="function method inplace out", batch=pointwise)
def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *legacy, value=1) -> Tensor:
    """input + value * tensor1 / tensor2 (true division; integer tensors are refused, as PyTorch's)."""
    if legacy:  # addcdiv(Number value, Tensor tensor1, Tensor tensor2), deprecated
        kw = {} if value == 1 else {"value": value}
        args, kw = _deprecated.modern("addcdiv", (input, tensor1, tensor2) + legacy, kw)
        return addcdiv(*args, **kw)
    if tensor1._data.dtype.kind in "iub" and tensor2._data.dtype.kind in "iub":
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    a, b, c = _operands(input, tensor1, tensor2)
    value = _real_value(value, a.dtype)
    with np.errstate(all="ignore"):
        if a.dtype in _FMA_DTYPES:  # PyTorch's kernel: input + (value * tensor1) / tensor2, three roundings
            out = np.asarray(a + (a.dtype.type(value) * b) / c)
        elif a.dtype in LOWP_NP and b.dtype == a.dtype and c.dtype == a.dtype and isinstance(value, (int, float)):
            # half/bfloat16: the same order in float32, rounded once to the dtype
            f32 = np.float32
            out = (a.astype(f32) + (f32(value) * b.astype(f32)) / c.astype(f32)).astype(a.dtype)
        else:
            out = np.asarray(a + a.dtype.type(value) * (b / c))
    out = out.astype(a.dtype, copy=False)
    return record(out, AddcdivBackward0, **_ternary_args(out, input, tensor1, tensor2, value))
