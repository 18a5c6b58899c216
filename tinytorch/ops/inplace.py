"""In-place ops (``add_``, ``mul_``, ``zero_``, ...): PyTorch's leaf rules and version counters.

With no graph involved the op writes straight into the storage. When autograd is involved, the op
runs out of place on a copy of the old value and the result is written back: the tensor keeps its
storage, its ``grad_fn`` becomes the new node, and its version counter moves on, so any backward
that saved the old value fails loudly instead of computing a wrong gradient."""
from __future__ import annotations

import numpy as np

from .._dtype import FROM_NP
from ..autograd.grad_mode import _State, check_inference_inplace
from ..autograd.node import Node
from ..tensor import Tensor, _new
from ._util import broadcast_shapes, sum_to, unpack


def check_inplace(t: Tensor) -> None:
    """PyTorch's refusal to modify (a view of) a leaf that requires grad while recording."""
    check_inference_inplace(t)
    if not _State.enabled:
        return
    if t._requires_grad and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and base._requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def unsupported_view_inplace():
    raise RuntimeError(
        "tinytorch does not support in-place operations on a view of a tensor while autograd records "
        "the graph; apply the operation to the base tensor, or use an out-of-place operation")


def _cast_check(result_dtype: np.dtype, out_dtype: np.dtype) -> None:
    if FROM_NP[result_dtype]._category > FROM_NP[out_dtype]._category:
        raise RuntimeError(f"result type {FROM_NP[result_dtype]._legacy[:-6]} can't be cast to the desired "
                           f"output type {FROM_NP[out_dtype]._legacy[:-6]}")


def apply_inplace(self: Tensor, op, *args, **kwargs) -> Tensor:
    """Run out-of-place ``op(self, *args)`` and store its result in ``self``'s storage."""
    check_inplace(self)
    grad_needed = _State.enabled and (self._requires_grad or any(
        isinstance(a, Tensor) and a._requires_grad for a in args))
    if not grad_needed:
        res = op(self, *args, **kwargs)
        _write(self, res._data)
        return self
    if self._base is not None:
        unsupported_view_inplace()
    old = _new(Tensor)
    old._data = self._data.copy()
    old._vc = [0]
    old.grad_fn = self.grad_fn
    old._output_nr = self._output_nr
    old._requires_grad = self._requires_grad
    res = op(old, *args, **kwargs)
    _write(self, res._data)
    if res.grad_fn is not None:
        self.grad_fn = res.grad_fn
        self._output_nr = res._output_nr
        self._requires_grad = True
    return self


def _write(self: Tensor, data: np.ndarray) -> None:
    out = self._data
    if data.shape != out.shape:
        if np.broadcast_shapes(data.shape, out.shape) != out.shape:
            raise RuntimeError(f"output with shape [{', '.join(map(str, out.shape))}] doesn't match the broadcast "
                               f"shape [{', '.join(map(str, np.broadcast_shapes(data.shape, out.shape)))}]")
    _cast_check(data.dtype, out.dtype)
    if not out.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    np.copyto(out, data, casting="unsafe")
    self._vc[0] += 1


# -- the ops ------------------------------------------------------------------------------------
def add_(self, other, *, alpha=1):
    from .arith import add
    return apply_inplace(self, add, other, alpha=alpha)


def sub_(self, other, *, alpha=1):
    from .arith import sub
    return apply_inplace(self, sub, other, alpha=alpha)


def mul_(self, other):
    from .arith import mul
    return apply_inplace(self, mul, other)


def div_(self, other, *, rounding_mode=None):
    from .arith import div
    return apply_inplace(self, div, other, rounding_mode=rounding_mode)


def pow_(self, exponent):
    from .arith import pow
    return apply_inplace(self, pow, exponent)


def scatter_(self, dim, index, src=None, *, value=None):
    from .join import scatter
    return apply_inplace(self, scatter, dim, index, src, value=value)


def clamp_(self, min=None, max=None):
    from .unary import clamp
    return apply_inplace(self, clamp, min, max)


def _unary_inplace(name):
    def op_(self):
        from . import unary
        return apply_inplace(self, getattr(unary, name))
    op_.__name__ = name + "_"
    return op_


relu_ = _unary_inplace("relu")
exp_ = _unary_inplace("exp")
log_ = _unary_inplace("log")
sqrt_ = _unary_inplace("sqrt")
neg_ = _unary_inplace("neg")
abs_ = _unary_inplace("abs")
sigmoid_ = _unary_inplace("sigmoid")
tanh_ = _unary_inplace("tanh")


class ZeroBackward0(Node):
    def backward(self, g):
        return (g * 0,)


class FillBackward2(ZeroBackward0):
    """fill_ with a number."""


class FillBackward3(ZeroBackward0):
    """fill_ with a 0-d tensor: its gradient is the sum of the incoming one (see ``_FillFromTensor``)."""


def _constant(self: Tensor, value, node_cls) -> Tensor:
    check_inplace(self)
    tv, vd = unpack(value)
    if tv is not None and tv._data.ndim != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{tv._data.ndim} dimensions.")
    if _State.enabled and (self._requires_grad or (tv is not None and tv._requires_grad)):
        if self._base is not None:
            unsupported_view_inplace()
        if tv is not None and tv._requires_grad:
            from .shape import expand
            return _copy(self, expand(tv, self._data.shape), _FillFromTensor)
        self._data[...] = vd
        if tv is not None and node_cls is FillBackward2:
            node_cls = FillBackward3
        self.grad_fn = node_cls((self._edge(),))
        self._output_nr = 0
        self._vc[0] += 1
        return self
    self._data[...] = vd
    self._vc[0] += 1
    return self


def zero_(self):
    return _constant(self, 0, ZeroBackward0)


def fill_(self, value):
    return _constant(self, value, FillBackward2)


class CopyBackwards(Node):
    def backward(self, g):
        gsrc = None
        if self.src_meta is not None:
            shape, dt = self.src_meta
            gsrc = sum_to(g, shape) if g._data.shape != shape else g
            if gsrc._data.dtype != dt:
                gsrc = gsrc.to(dt)
        return g * 0, gsrc


_FillFromTensor = type("FillBackward3", (CopyBackwards,), {})


def copy_(self, src, non_blocking: bool = False):
    """Copy ``src``'s values into this tensor (broadcast and cast as needed); gradients flow to ``src``."""
    return _copy(self, src, CopyBackwards)


def _copy(self, src, node_cls):
    check_inplace(self)
    ts, sd = unpack(src)
    sd = np.asarray(sd)
    full = broadcast_shapes(self._data.shape, sd.shape)  # PyTorch's text when they do not broadcast
    if full != self._data.shape:
        raise RuntimeError(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
                           f"broadcast shape [{', '.join(map(str, full))}]")
    grad_needed = _State.enabled and (self._requires_grad or (ts is not None and ts._requires_grad))
    if grad_needed and self._base is not None:
        unsupported_view_inplace()
    np.copyto(self._data, sd, casting="unsafe")
    self._vc[0] += 1
    if grad_needed:
        node = node_cls((self._edge(), (None, 0) if ts is None else ts._edge()))
        node.src_meta = (sd.shape, sd.dtype) if ts is not None and ts._requires_grad else None
        self.grad_fn = node
        self._output_nr = 0
        self._requires_grad = True
    return self


# the random fills draw PyTorch's streams; they live with the generator
from .._random.tensor_ops import (bernoulli_, exponential_, geometric_, normal_, random_,  # noqa: E402,F401
                                  uniform_)
