"""How every op records itself: wrap the numpy result as a tensor and, when autograd is recording and an
input requires grad, attach a node with PyTorch's name (``record``). ``_make(out, node)`` (tensor.py) is
the constructor underneath; ops call ``record``."""
from __future__ import annotations

import numpy as np
from numpy import ndarray

from ...autograd import node as _nodes
from ...autograd.grad_mode import _State
from ...tensor import Tensor, _make, _view_of
from .util import _NONE_EDGE, as_array
from ..._dtype import FLOATING_NP, FROM_NP, INEXACT_NP, get_default_dtype


class _Out:
    """Stands for one of the op's own results in ``saved``: ``OUT`` for the result (the first of several),
    ``OUT[i]`` for result ``i`` of a node with several."""
    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    def __getitem__(self, i: int) -> "_Out":
        return _OUTS[i]

    def __repr__(self) -> str:
        return "OUT" if self.index == 0 else f"OUT[{self.index}]"


OUT = _Out(0)
_OUTS = (OUT,) + tuple(_Out(i) for i in range(1, 16))


class Edge:
    """Stands in ``record``'s ``inputs`` for an input known by its graph edge only, ``(node,
    output_nr)``: a parent node's edge in a double backward (the pooled input of a pooling's backward),
    or an edge through a node built for it (linear's ``W.t()``, PyTorch's ``TBackward0`` over W). It
    requires grad."""
    __slots__ = ("edge",)
    _requires_grad = True

    def __init__(self, edge: tuple):
        self.edge = edge

    def _edge(self) -> tuple:
        return self.edge


def wants_grad(inputs) -> bool:
    """Whether autograd records a node over ``inputs`` (tensors, or None for non-differentiable ones)."""
    if not _State.enabled:
        return False
    for t in inputs:
        if t is not None and t._requires_grad:
            return True
    return False


def record(out, node_cls, inputs, saved=(), view_of: Tensor | None = None, **attrs):
    """The one way an op wraps its result: ``out`` as a tensor (a view of ``view_of`` when given) and,
    when autograd records and an input requires grad, a ``node_cls`` node over ``inputs`` (None for
    non-differentiable ones) with ``attrs`` set on it, saving ``saved`` (``OUT`` for the result).
    The node is the result's ``grad_fn``. A tuple of arrays makes a node with several outputs: the
    result is a tuple of tensors (output ``i`` of the node, ``OUT[i]`` in ``saved``; an integer or bool
    output is not differentiable: a plain tensor, as PyTorch's). A result the op made as a tensor without
    history (a sparse tensor, whose parts are tensors of their own) gets the node as its ``grad_fn``."""
    if type(out) is not ndarray:
        if type(out) is tuple:
            return _record_outputs(out, node_cls, inputs, saved, view_of, attrs)
        if isinstance(out, Tensor):
            return _record_onto(out, node_cls, inputs, saved, attrs)
        out = as_array(out)
    if _State.enabled:
        if len(inputs) == 1:  # the common case inline: a one-input op costs about 0.25 us less than the loop
            a = inputs[0]
            if a is not None and a._requires_grad:
                return _finish(out, node_cls((a._edge(),)), saved, view_of, attrs)
        else:
            for t in inputs:
                if t is not None and t._requires_grad:
                    return _finish(out, _over(node_cls, inputs), saved, view_of, attrs)
    return _make(out) if view_of is None else _view_of(view_of, out, None)


def record_pair(out: ndarray, node_cls, a, b, sa=None, sb=None) -> Tensor:
    """``record`` for add/sub/mul's fast forward (``fast_forward`` in ``binary.py``): the ``EdgePair``
    node over ``a`` and ``b`` (None for a number operand) saving ``sa`` and ``sb`` when its class saves
    (``SavedPair``), without ``record``'s general dispatch. The caller has decided that autograd records.
    A micrograd step records thousands of these on 0-d tensors, where the recording is most of an op's
    cost; ``record`` gives the same node for the same arguments."""
    return _make(out, _nodes.binary_node(node_cls, a, b, sa, sb))


def _finish(out: ndarray, node, saved, view_of, attrs) -> Tensor:
    """The recorded result: ``attrs`` on ``node``, the result tensor, what the node saves."""
    if attrs:
        for k, v in attrs.items():  # setattr keeps the class's shared key table (no dict per node)
            setattr(node, k, v)
    res = _make(out, node) if view_of is None else _view_of(view_of, out, node)
    if saved:
        if saved[0] is OUT and len(saved) == 1:
            node._save_own_output(res)
        else:
            _save(node, saved, (res,))
    return res


def inplace_node(node_cls, inputs, **attrs):
    """``record``'s node for an in-place op, whose result is the tensor it writes into: the ``node_cls``
    node over ``inputs`` with ``attrs`` set, which becomes that tensor's history once it is written
    (``views.set_history``). The caller has decided that autograd records."""
    return _node(node_cls, inputs, attrs)


def _node(node_cls, inputs, attrs):
    node = _over(node_cls, inputs)
    if attrs:
        for k, v in attrs.items():  # setattr keeps the class's shared key table (no dict per node)
            setattr(node, k, v)
    return node


def _over(node_cls, inputs):
    """A ``node_cls`` node over the edges of ``inputs`` (None: no edge)."""
    return node_cls(tuple([_NONE_EDGE if t is None else t._edge() for t in inputs]))


def _record_onto(res: Tensor, node_cls, inputs, saved, attrs) -> Tensor:
    """``record`` for a result made as a tensor by the op (a sparse tensor): the node is attached to it."""
    if wants_grad(inputs):
        node = _node(node_cls, inputs, attrs)
        res.grad_fn = node
        res._requires_grad = True
        if saved:
            _save(node, saved, (res,))
    return res


def _save(node, saved, results) -> None:
    for s in saved:  # a loop: any() over a generator costs a resumption per entry
        if type(s) is _Out:
            node.save_for_backward(*[results[s.index] if type(s) is _Out else s for s in saved])
            return
    node._save_inputs(*saved)


def _record_outputs(outs, node_cls, inputs, saved, view_of, attrs) -> tuple:
    """``record`` for a node with several outputs, one tensor each (``_output_nr`` its place)."""
    outs = [as_array(o) for o in outs]
    if not wants_grad(inputs):
        if view_of is None:
            return tuple([_make(o) for o in outs])
        return tuple([_view_of(view_of, o, None) for o in outs])
    node = _node(node_cls, inputs, attrs)
    node._n_outputs = len(outs)
    results = []
    for i, o in enumerate(outs):
        fn = node if o.dtype in INEXACT_NP else None
        t = _make(o, fn) if view_of is None else _view_of(view_of, o, fn)
        if fn is not None:
            t._output_nr = i
        results.append(t)
    results = tuple(results)
    if saved:
        _save(node, saved, results)
    return results


class NotImplementedBackward(_nodes.Node):
    """PyTorch's node for a result it cannot differentiate (``scatter(reduce=)``, ``heaviside``,
    ``Tensor.set_``): backward raises."""

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def backward(self, g):
        raise RuntimeError(f"derivative for {self.op} is not implemented")


NotImplementedBackward.__name__ = NotImplementedBackward.__qualname__ = "NotImplemented"  # PyTorch's repr


def float_dtype(x: np.ndarray) -> np.ndarray:
    """Ints and bools compute in the default float dtype, as PyTorch's float-only functions do."""
    if x.dtype in FLOATING_NP:
        return x
    return x.astype(get_default_dtype().np)


def legacy_name(dt: np.dtype) -> str:
    """PyTorch's scalar type name in error texts: Float, Long, Bool, ..."""
    return FROM_NP[dt]._scalar
