"""``tinytorch.autograd.variable``: ``Variable``, the spelling of a tensor from before tensors recorded gradients.

``Variable(t, requires_grad=True)`` is a new leaf over ``t``'s data (``t.detach()``, then ``requires_grad``), and
every tensor is an instance of ``Variable``; ``Variable()`` is an empty float tensor. ``volatile`` no longer does
anything (PyTorch warns so)."""
from __future__ import annotations

import operator
import warnings

from ..tensor import Tensor

__all__ = ["Variable"]

_ARGS = ("data", "requires_grad", "volatile", "_grad_fn", "name")


class VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    def __new__(cls, *args, **kwargs):
        if len(args) > len(_ARGS):
            raise TypeError(f"function takes at most {len(_ARGS)} arguments ({len(args)} given)")
        for key in kwargs:
            if key not in _ARGS:
                raise TypeError(f"'{key}' is an invalid keyword argument for this function")
        given = dict(zip(_ARGS, args), **kwargs)
        data, name, grad_fn = given.get("data"), given.get("name"), given.get("_grad_fn")
        requires_grad = bool(operator.index(given.get("requires_grad", False)))
        volatile = bool(operator.index(given.get("volatile", False)))
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if grad_fn is not None:  # PyTorch takes only its legacy Python Function objects here, which no longer exist
            raise TypeError(f"_grad_fn has to be a Function object or None, but got {type(grad_fn).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"argument 5 must be str or None, not {type(name).__name__}")
        if data is None:
            var = Tensor()  # an empty tensor of the default dtype
        elif isinstance(data, Tensor):
            var = data.detach()
        else:
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and not (var.dtype.is_floating_point or var.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        var.requires_grad_(requires_grad)
        if name is not None:
            var.name = name
        return var
