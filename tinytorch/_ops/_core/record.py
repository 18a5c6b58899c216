"""How every op records itself: wrap the numpy result as a tensor and, when autograd is recording and an
input requires grad, attach a node with PyTorch's name (``record``). ``_make(out, node)`` (tensor.py) is
the constructor underneath; ops call ``record``."""
from __future__ import annotations

import numpy as np

from ...autograd.grad_mode import _State
from ...tensor import Tensor, _make, _view_of
from .util import _NONE_EDGE
from ..._dtype import FLOATING_NP, FROM_NP, get_default_dtype

OUT = object()  # stands for the op's own result in ``saved``


def wants_grad(inputs) -> bool:
    """Whether autograd records a node over ``inputs`` (tensors, or None for non-differentiable ones)."""
    if not _State.enabled:
        return False
    for t in inputs:
        if t is not None and t._requires_grad:
            return True
    return False


def record(out: np.ndarray, node_cls, inputs, saved=(), view_of: Tensor | None = None, **attrs) -> Tensor:
    """The one way an op wraps its result: ``out`` as a tensor (a view of ``view_of`` when given) and,
    when autograd records and an input requires grad, a ``node_cls`` node over ``inputs`` (None for
    non-differentiable ones) with ``attrs`` set on it, saving ``saved`` (``OUT`` for the result).
    The node is the result's ``grad_fn``."""
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    if _State.enabled:
        for t in inputs:
            if t is not None and t._requires_grad:
                break
        else:
            return _make(out) if view_of is None else _view_of(view_of, out, None)
    else:
        return _make(out) if view_of is None else _view_of(view_of, out, None)
    if len(inputs) == 1:
        node = node_cls((inputs[0]._edge(),))
    else:
        node = node_cls(tuple([_NONE_EDGE if t is None else t._edge() for t in inputs]))
    for k, v in attrs.items():  # setattr keeps the class's shared key table (no dict per node)
        setattr(node, k, v)
    res = _make(out, node) if view_of is None else _view_of(view_of, out, node)
    if saved:
        if len(saved) == 1 and saved[0] is OUT:
            node._save_own_output(res)
        elif OUT in saved:
            node.save_for_backward(*[res if s is OUT else s for s in saved])
        else:
            node._save_inputs(*saved)
    return res


def float_dtype(x: np.ndarray) -> np.ndarray:
    """Ints and bools compute in the default float dtype, as PyTorch's float-only functions do."""
    if x.dtype in FLOATING_NP:
        return x
    return x.astype(get_default_dtype().np)


def legacy_name(dt: np.dtype) -> str:
    """PyTorch's scalar type name in error texts: Float, Long, Bool, ..."""
    return FROM_NP[dt]._legacy[:-len("Tensor")]
