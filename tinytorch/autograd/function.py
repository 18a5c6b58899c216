"""Custom differentiable functions: subclass ``Function`` with static ``forward`` and ``backward``.

As in PyTorch, ``ctx`` is the graph node itself (its class is named ``<YourFunction>Backward``):
``forward`` receives tensors, runs without recording, and ``backward`` gets one gradient per
output and returns one per input, checked against the input's shape."""
from __future__ import annotations

import functools
import warnings

from .._dtype import FLOATING_NP
from ..tensor import Tensor, _make, _view_of
from .grad_mode import _State, no_grad
from .node import Node, sum_to


class BackwardCFunction(Node):
    """The node of a custom Function; also the ``ctx`` its forward and backward receive."""

    _forward_cls = None
    _user_backward = True
    _dir_keeps = frozenset({"saved_tensors"})  # a custom Function's node shows it, as PyTorch's does
    _materialize = True
    _non_differentiable = ()
    _dirty = ()
    _tensor_pos = None  # positions of the tensor arguments, when some arguments are not tensors
    # a Python class in PyTorch too, printed with its module: <torch.autograd.function.XBackward object at ...>
    __repr__ = object.__repr__

    def save_for_backward(self, *tensors) -> None:
        Node.save_for_backward(self, *tensors)

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable = tuple(id(t) for t in tensors)

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tuple(id(t) for t in tensors)

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)

    # forward AD: tensors the Function's jvp reads back through ctx.saved_tensors
    _fwd_saved = None
    _in_jvp = False

    def save_for_forward(self, *tensors) -> None:
        self._fwd_saved = tensors

    @property
    def saved_tensors(self) -> tuple:
        if self._in_jvp and self._fwd_saved is not None:
            return self._fwd_saved
        return Node._unpacked_saved.fget(self)

    def backward(self, *grads):
        import numpy as np

        if self._materialize:
            grads = tuple(g if g is not None else _make(np.zeros(s, dtype=d))
                          for g, (s, d) in zip(grads, self._out_meta))
        out = self._forward_cls.backward(self, *grads)
        if not isinstance(out, tuple):
            out = (out,)
        fixed = self._validate(out)
        # next_functions has an edge per tensor argument only (as PyTorch's), not per argument
        return fixed if self._tensor_pos is None else tuple(fixed[i] for i in self._tensor_pos)

    def _validate(self, out):
        n_in = len(self._in_meta)
        if len(out) < n_in or (len(out) > n_in and any(g is not None for g in out[n_in:])):
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {n_in}, got {len(out)})")
        fixed = []
        for i, (g, m) in enumerate(zip(out, self._in_meta)):
            if g is None or m is None:
                fixed.append(None)
                continue
            if not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            shape, dt = m
            if g._data.shape != shape:
                try:
                    import numpy as np
                    # the input's shape must broadcast to the gradient's, which is then summed back
                    expandable = np.broadcast_shapes(shape, g._data.shape) == g._data.shape
                except ValueError:
                    expandable = False
                if not expandable:
                    got = "[" + ", ".join(map(str, g._data.shape)) + "]"
                    want = "[" + ", ".join(map(str, shape)) + "]"
                    raise RuntimeError(f"Function {self.name()} returned an invalid gradient at index {i} - got "
                                       f"{got} but expected shape compatible with {want}")
                g = sum_to(g, shape)
            if g._data.dtype != dt:
                g = g.to(dt)
            fixed.append(g)
        return tuple(fixed)

    @property
    def needs_input_grad(self) -> tuple:
        return self._needs_input_grad


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})


class Function(metaclass=_FunctionMeta):
    """Base class for custom autograd functions (``MyFn.apply(x)``)."""

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself. Instantiating an autograd function will raise "
                      "an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and, when any input requires grad, record one node for the outputs."""

        # (list comprehensions, one pass each: a compiled step calls this with every parameter as an argument)
        is_tensor = [isinstance(a, Tensor) for a in args]
        requires = tuple([t and a._requires_grad for a, t in zip(args, is_tensor)])
        record = _State.enabled and True in requires
        ctx = cls._backward_cls(tuple([a._edge() for a, t in zip(args, is_tensor) if t]) if record else ())
        if record and False in is_tensor:
            ctx._tensor_pos = tuple([i for i, t in enumerate(is_tensor) if t])
        ctx._needs_input_grad = requires
        with no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        if not record:
            return out
        ctx._in_meta = [(a._data.shape, a._data.dtype) if r else None for a, r in zip(args, requires)]
        ctx._n_outputs = len(outs)
        ctx._out_meta = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), None) for o in outs]
        inputs = {id(a) for a in args}  # (a non-tensor argument returned is left as it is below)
        wrapped = []
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor) or id(o) in ctx._non_differentiable or o._data.dtype not in FLOATING_NP:
                wrapped.append(o)
                continue
            if id(o) in inputs and id(o) not in ctx._dirty:
                # returning an input unchanged still gives a new node output, as a view of it
                o = _view_of(o, o._data)
            o.grad_fn = ctx
            o._requires_grad = True
            o._output_nr = i
            if o._base is not None:
                o._creation = "custom"  # PyTorch forbids in-place ops on it (_ops/shape/views.py)
            wrapped.append(o)
        if ctx._saved:
            ctx._pack_outputs()  # outputs saved in forward had no grad_fn yet
        return wrapped[0] if single else tuple(wrapped)


class FunctionCtx(BackwardCFunction):
    """The type of ``ctx`` (exported for annotations)."""


class InplaceFunction(Function):
    pass


class Error(Node):
    """Stands for a backward that must not be differentiated: running it raises."""

    def backward(self, *grads):
        raise RuntimeError(self.msg)


def once_differentiable(fn):
    """Decorate a custom ``backward`` that cannot itself be differentiated (it may use numpy).

    It runs without recording; when its incoming gradients require grad, its results do too, through
    an ``Error`` node that raises if a second derivative ever reaches it."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not (_State.enabled and any(isinstance(a, Tensor) and a._requires_grad for a in args)):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        edges = tuple(a._edge() for a in args if isinstance(a, Tensor) and a._requires_grad)
        node = Error(edges)
        node.msg = "trying to differentiate twice a function that was marked with @once_differentiable"
        node._n_outputs = len(outs)
        wrapped = []
        for i, o in enumerate(outs):
            if isinstance(o, Tensor) and o._data.dtype in FLOATING_NP:
                o = o.detach()
                o.grad_fn, o._requires_grad, o._output_nr = node, True, i
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper
