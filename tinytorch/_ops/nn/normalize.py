"""``nn.functional.normalize`` and the two pieces it is made of in PyTorch, which the distance losses
share: the p-norm along dims (``NormBackward1``, a 0 gradient at a 0 norm) and ``clamp_min``
(``ClampMinBackward0``)."""
from __future__ import annotations

import numpy as np

from ..._dtype import FLOATING_NP
from ...autograd.grad_mode import no_grad
from ...autograd.node import Node
from ...tensor import Tensor
from .._core.registry import op
from .._core.record import record
from .activation import cast, mask
from ..pointwise.compare import where


# -- clamp_min (the node PyTorch's losses and normalize record) ------------------------------------
class ClampMinBackward0(Node):
    saved_fields = (("min", "lo"), ("self", 0))

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (where(mask(x._data >= self.lo), g, 0.0),)


def clamp_min(input: Tensor, min: float) -> Tensor:
    """max(x, min); the gradient passes where x >= min."""
    x = input._data
    out = np.maximum(x, np.asarray(min).astype(x.dtype))
    return record(cast(out, x), ClampMinBackward0, (input,), (input,), lo=min)


# -- the p-norm along dims -------------------------------------------------------------------------
def _result(node):
    """The norm PyTorch's node keeps: recomputed from the saved input (not kept, so the result may be
    modified in place)."""
    x = node._slot_value(0)
    if x is None:
        return None
    with no_grad():
        return vector_norm(x, node.p, node.dims, node.keepdim)


class NormBackward1(Node):
    saved_fields = (("self", 0), ("p", lambda n: float(n.p)), ("dim", lambda n: tuple(n.dims)),
                    ("keepdim", "keepdim"), ("result", _result))

    def backward(self, g):
        (x,) = self._unpacked_saved
        # recomputed from x with this same op, so the second derivative sees its dependence on x
        norm = vector_norm(x, self.p, self.dims, True)
        if not self.keepdim:
            for d in self.dims:
                g = g.unsqueeze(d)
        zero = mask(norm._data == 0)
        p = self.p
        if p == 0:
            return (x * 0 * g,)
        if p == 1:
            return (x.sign() * g,)
        safe = where(zero, 1.0, norm)
        if p == 2:
            return (where(zero, 0.0, x / safe * g),)
        scaled = x * x.abs() ** (p - 2) / safe ** (p - 1)
        return (where(zero, 0.0, scaled * g),)


def vector_norm(input: Tensor, p: float, dim, keepdim: bool) -> Tensor:
    """(sum |x|^p)^(1/p) along ``dim`` (an int or tuple); p = 0 counts the nonzero elements."""
    x = input._data
    if x.dtype.kind == "c":
        return vector_norm(input.abs(), p, dim, keepdim)  # the magnitudes' norm, differentiated through abs
    if x.dtype not in FLOATING_NP:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input.dtype._scalar}")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    rank = max(x.ndim, 1)  # a 0-d tensor takes dim 0 / -1, meaning its one element
    for d in dims:
        if not -rank <= d < rank:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {d})")
    dims = () if x.ndim == 0 else tuple(sorted(d + x.ndim if d < 0 else d for d in dims))
    if p == 2:
        out = np.sqrt(np.sum(x * x, axis=dims, keepdims=True))
    elif p == 1:
        out = np.sum(np.abs(x), axis=dims, keepdims=True)
    elif p == 0:
        out = np.sum(x != 0, axis=dims, keepdims=True)
    else:
        t = x.dtype.type  # the exponents in x's dtype on numpy 1.x too (a 0-d x promoted them to float64)
        out = np.sum(np.abs(x) ** t(p), axis=dims, keepdims=True) ** t(1.0 / p)
    out = cast(out, x)
    if not keepdim:
        out = np.squeeze(out, axis=dims)
    return record(out, NormBackward1, (input,), (input,), p=p, dims=dims, keepdim=keepdim)


def _batch_normalize(op, input, p=2.0, dim=1, eps=1e-12, out=None):
    """vmap: the norm along the logical dim's physical place."""
    if out is not None:
        raise RuntimeError("vmap: normalize(out=) is not supported inside tinytorch.func.vmap")
    return input._wrap(op(input._phys, p, input._ld(dim), eps))


@op(variants="functional", batch=_batch_normalize)
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """input / max(||input||_p, eps) along ``dim``."""
    denom = clamp_min(vector_norm(input, p, dim, True), eps).expand_as(input)
    result = input / denom
    return result if out is None else out.copy_(result)
