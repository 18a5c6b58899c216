"""What the binary arithmetic families (arith.py, division.py, power.py, compare.py) share: the node
base that remembers each input's shape and dtype, the spellings they are declared under, and the
half/bfloat16 operand check, and alpha's check. A module of its own so that those families need not import
each other."""
from __future__ import annotations

import numpy as np

from ..._dtype import LOWP_NP
from ...autograd.grad_mode import _Active, _State
from ...autograd.node import Node
from ...tensor import Tensor
from .record import record
from .registry import CAPTURE
from .torch_function import subclass_among

_ARITH = "function method inplace out"  # the spellings of PyTorch's binary arithmetic


class _BinaryNode(Node):
    """Remembers each input's shape/dtype only when it differs from the result's (``a_meta``/``b_meta``,
    ``util.meta``'s, given to ``record``)."""

    a_meta = None
    b_meta = None
    _instance_attrs = ("a_meta", "b_meta", "alpha")


def _lowp(ad, bd):
    """The half/bfloat16 dtype of an operand array (after binary_operands), else None."""
    for x in (ad, bd):
        if type(x) is np.ndarray and x.itemsize == 2 and x.dtype in LOWP_NP:  # itemsize first: cheap
            return x.dtype
    return None


def _checked_alpha(ad, bd, alpha):
    """alpha as PyTorch's alpha_check admits it for the result dtype (its errors otherwise); a bool
    result reads alpha as a bool (a + b or a, PyTorch's bool kernel)."""
    if isinstance(alpha, (Tensor, np.generic)):  # a Python number, as PyTorch's Scalar reads it
        alpha = alpha.item()
    dt = ad.dtype if type(ad) is np.ndarray else np.asarray(bd).dtype
    kind = dt.kind
    if kind == "b":
        return bool(alpha)
    if isinstance(alpha, bool):
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if kind in "iu" and isinstance(alpha, (float, complex)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if kind != "c" and isinstance(alpha, complex):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    return alpha


def alpha_in(bd, alpha):
    """alpha as a 0-d array of ``bd``'s dtype where ``bd`` is 0-d or a numpy scalar (numpy 1.x promoted
    those times a Python int by value: int32 to int64), else alpha itself."""
    if isinstance(bd, np.generic) or (type(bd) is np.ndarray and not bd.ndim):
        return np.asarray(alpha).astype(bd.dtype)
    return alpha


def scalar_overload(public, node_cls, t: Tensor, number, **attrs) -> Tensor:
    """``public(t, number)`` recorded as PyTorch's ``.Scalar`` overload of the op records it: a ``node_cls``
    node (``MulBackward1``...) with one edge, ``attrs`` set on it. PyTorch's derivative formulas are C++, where
    ``tensor * 2.0`` calls ``mul.Scalar``; Python's ``tensor * 2.0`` wraps the number in a tensor and calls
    ``mul.Tensor`` (``MulBackward0``, a second edge for the number). A formula that multiplies by a number
    as PyTorch's does calls this, so that its double-backward graph shows PyTorch's nodes. The values are the
    public op's own: it computes them, unrecorded. Under a transform, a graph capture, the profiler, a
    subclass or meta tensors the public op runs as it is (its own node)."""
    if (not (_State.enabled and t._requires_grad) or type(t._data) is not np.ndarray
            or (CAPTURE[0] is not None and CAPTURE[0].hook is not None)
            or (_Active.transforms and _State.transforms) or (_Active.profiler and _State.recorder is not None)
            or (_Active.subclasses and subclass_among((t,)) is not None)):
        return public(t, number)
    _State.enabled = False
    try:
        out = public(t, number)
    finally:
        _State.enabled = True
    return record(out._data, node_cls, (t,), **attrs)
