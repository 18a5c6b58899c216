"""One helper for the ops added by family (scan, sort, masked, tri, special, ...): wrap a numpy result
and, when autograd is recording and an input requires grad, attach a node with PyTorch's name."""
from __future__ import annotations

import numpy as np

from ...autograd.grad_mode import _State
from ...tensor import Tensor, _make, _view_of
from .util import edge
from ..._dtype import FLOATING_NP, FROM_NP, get_default_dtype

OUT = object()  # stands for the op's own result in ``saved``


def record(out: np.ndarray, node_cls, inputs, saved=(), view_of: Tensor | None = None, **attrs) -> Tensor:
    """``out`` as a tensor; a ``node_cls`` node over ``inputs`` (None for non-differentiable ones)
    saving ``saved`` (``OUT`` for the result) when any input requires grad; a view of ``view_of``
    when given."""
    out = out if type(out) is np.ndarray else np.asarray(out)
    node = None
    if _State.enabled and any(t is not None and t._requires_grad for t in inputs):
        node = node_cls(tuple(edge(t) for t in inputs))
        for k, v in attrs.items():
            setattr(node, k, v)
    res = _make(out, node) if view_of is None else _view_of(view_of, out, node)
    if node is not None and saved:
        node.save_for_backward(*(res if s is OUT else s for s in saved))
    return res


def float_dtype(x: np.ndarray) -> np.ndarray:
    """Ints and bools compute in the default float dtype, as PyTorch's float-only functions do."""
    if x.dtype in FLOATING_NP:
        return x
    return x.astype(get_default_dtype().np)


def legacy_name(dt: np.dtype) -> str:
    """PyTorch's scalar type name in error texts: Float, Long, Bool, ..."""
    return FROM_NP[dt]._legacy[:-len("Tensor")]
