"""Vector and matrix norms: ``linalg.vector_norm`` (the one primitive, LinalgVectorNormBackward0),
``Tensor.norm`` / ``torch.norm`` / ``linalg.norm`` / ``linalg.matrix_norm`` built on it."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.node import Node, u64
from ...tensor import Tensor
from .._core.batching import logical_dims, per_sample
from .._core.record import OUT, legacy_name, record
from .._core.registry import op
from .._core.util import c_order, lowp_round, normalize_dims
from ..reduce.reduce import _keepdim
from .decompositions import svdvals
from ..._dtype import LOWP_NP, NARROW_NP, FLOATING_NP, INEXACT_NP, to_np
from .._core import narrow_dtypes


def _batch_vector_norm(op, x, ord=2, dim=None, keepdim=False, *, dtype=None, **kwargs):
    dims = logical_dims(x, dim)
    if dims == ():  # 0-d samples: a size-1 dim after the batch instead
        return x._wrap(op(x._phys.unsqueeze(1), ord, 1, False, dtype=dtype, **kwargs))
    return x._wrap(op(x._phys, ord, dims, keepdim, dtype=dtype, **kwargs))


def _unsqueeze_reduced(t: Tensor, dims: tuple, keepdim: bool, ndim: int) -> Tensor:
    """A reduced result with its reduced dims put back as size 1 (one unsqueeze per dim, in order)."""
    if keepdim or not dims:
        return t
    for d in sorted(dims):
        t = t.unsqueeze(d)
    return t


def norm_backward(g: Tensor, x: Tensor, y: Tensor, p: float, dims: tuple, keepdim: bool):
    """The gradient of ``y = vector_norm(x, p, dims, keepdim)`` for the incoming ``g`` (PyTorch's
    ``norm_backward``, operation for operation: the same roundings); None for the 0-"norm", whose gradient
    PyTorch leaves undefined. The in-place steps write only temporaries of this formula."""
    n = x._data.ndim
    g = _unsqueeze_reduced(g, dims, keepdim, n)
    y = _unsqueeze_reduced(y, dims, keepdim, n)
    if p == 0:
        return None
    if p == 1:
        return x.sgn() * g
    if p == 2:
        return g * (x / y).masked_fill_(y == 0, 0)
    # (each product's right operand computed first, in the order PyTorch's compiled C++ formula runs them)
    if math.isinf(p):
        # signed zeros included: sgn(x) * ((g / count) * mask), NaNs counted as hits
        ax = x.abs()
        hit = (ax == y).logical_or(ax.isnan())
        count = hit.sum(dim=dims, keepdim=True) if dims else hit.sum()
        share = (g / count) * hit
        return x.sgn() * share
    if p < 1:  # |x|^(p-1) is infinite at 0: PyTorch's subgradient there is 0
        power = x.abs().pow_(p - 1).masked_fill_(x == 0, 0)
        scaled = x.sgn() * power
        rest = y.pow(1 - p)
        return scaled * g * rest
    if p < 2:
        power = x.abs().pow_(p - 1)
        scaled = x.sgn() * power
    else:
        scaled = x * x.abs().pow_(p - 2)
    scale = g / y.pow(p - 1)
    scale.masked_fill_(y == 0, 0)
    return scaled * scale


def _dim_arg(dim):
    """A ``dim`` argument as PyTorch's node keeps it: None, or a tuple read back unsigned."""
    return None if dim is None else u64((dim,) if isinstance(dim, int) else tuple(dim))


class LinalgVectorNormBackward0(Node):
    saved_fields = (("self", 0), ("ord", "ord_arg"), ("dim", "dim_arg"), ("keepdim", "keepdim"), ("result", 1))

    def backward(self, g):
        x, y = self._unpacked_saved
        return (norm_backward(g, x, y, self.ord, self.dims, self.keepdim),)


# at::norm's node (F.normalize, pairwise_distance and the margin losses call it with a wrapped dim and a float p)
NormBackward1 = type("NormBackward1", (LinalgVectorNormBackward0,), {"saved_fields": (
    ("self", 0), ("p", lambda n: float(n.ord)), ("dim", lambda n: tuple(n.dims)), ("keepdim", "keepdim"),
    ("result", 1))})


@op("linalg.vector_norm", variants="function out", batch=_batch_vector_norm)
def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None, _node=None) -> Tensor:
    """(sum |x|^ord)^(1/ord) over ``dim`` (all dims when None); ord inf/-inf take max/min |x|, 0 counts."""
    a = x._data
    if (dtype is not None and (a.dtype.kind == "c") != dtype.is_complex
            and (a.dtype.kind == "c" or a.dtype in FLOATING_NP)):
        kind = "complex for complex" if a.dtype.kind == "c" else "real for real"
        raise RuntimeError(f"linalg.vector_norm: dtype should be {kind} inputs, but got {dtype._scalar}")
    if a.dtype.kind == "c" and dtype is not None:  # the norm of the input cast to that complex dtype: real
        return vector_norm(x.to(dtype), ord, dim, keepdim, _node=_node)
    if a.dtype.kind == "c" and dtype is None:
        # the norm of the magnitudes: |z|'s gradient (sgn) gives PyTorch's complex gradient
        return vector_norm(x.abs(), ord, dim, keepdim, _node=_node)
    if dtype is not None:
        a = a.astype(to_np(dtype))
    if a.dtype not in FLOATING_NP:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{legacy_name(a.dtype)}")
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord}")
    p = float(ord)
    dims = normalize_dims(dim, a.ndim)
    ab = np.abs(a)
    if a.dtype in LOWP_NP:  # half and bfloat16 accumulate in float32 (PyTorch's CPU norm kernels), one rounding
        ab = ab.astype(np.float32)
    with np.errstate(all="ignore"):
        if p == math.inf:
            r = ab.max(axis=dims, keepdims=keepdim) if ab.size else np.zeros(())
        elif p == -math.inf:
            r = ab.min(axis=dims, keepdims=keepdim)
        elif p == 0:
            r = (ab != 0).sum(axis=dims, keepdims=keepdim).astype(a.dtype)
        elif p == 1:
            r = ab.sum(axis=dims, keepdims=keepdim)
        elif p == 2:
            r = np.sqrt((ab * ab).sum(axis=dims, keepdims=keepdim))
        else:
            t = ab.dtype.type  # the exponents in ab's dtype on numpy 1.x too (0-d sums promoted them)
            r = (ab ** t(p)).sum(axis=dims, keepdims=keepdim) ** t(1.0 / p)
    src = x if dtype is None else x.to(dtype)
    return record(c_order(lowp_round(np.asarray(r, dtype=ab.dtype), a.dtype)), _node or LinalgVectorNormBackward0,
                  (src,), (src, OUT), dims=dims, keepdim=keepdim, ord=p, ord_arg=ord, dim_arg=_dim_arg(dim))


def _batch_matrix_norm(op, A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    if A.dim() < 2:  # the op's own error, from one sample
        return per_sample(op, A, (A, ord, dim, keepdim), {"dtype": dtype})
    return A._wrap(op(A._phys, ord, tuple(A._ld(d) for d in dim), keepdim, dtype=dtype))


@op("linalg.matrix_norm", variants="function out", batch=_batch_matrix_norm)
def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """Frobenius, nuclear, 1, -1, 2, -2, inf, -inf norms of the matrices in ``dim``."""
    a = A._data
    if not (ord in ("fro", "nuc") or (not isinstance(ord, str) and ord in (1, -1, 2, -2, math.inf, -math.inf))):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if a.dtype not in INEXACT_NP and dtype is None:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                           f"{legacy_name(a.dtype)}")
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " + " ".join(str(d) for d in dim))
    if dim[0] % a.ndim == dim[1] % a.ndim and -a.ndim <= min(dim) and max(dim) < a.ndim:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0] % a.ndim}, {dim[1] % a.ndim})")
    d0, d1 = normalize_dims(tuple(dim), a.ndim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if ord == "nuc" or ord in (2, -2):
        rest = [i for i in range(a.ndim) if i not in (d0, d1)]
        s = svdvals(A.permute(rest + [d0, d1]))
        if keepdim:
            s = s.unsqueeze(-2)
        r = s.sum(-1, keepdim=keepdim) if ord == "nuc" else (s.amax(-1, keepdim) if ord == 2 else s.amin(-1, keepdim))
        if keepdim:
            r = r.permute([(rest + [d0, d1]).index(i) for i in range(a.ndim)])
        return r
    if ord in (1, -1, math.inf, -math.inf):
        inner, outer = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = vector_norm(A, 1, inner, keepdim, dtype=dtype)
        if not keepdim and inner < outer:
            outer -= 1
        return s.amax(outer, keepdim) if ord > 0 else s.amin(outer, keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


@op("linalg.norm", variants="function out")
def linalg_norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """A vector norm or a matrix norm, as ``ord`` and ``dim`` say (torch.linalg.norm)."""
    n = A._data.ndim
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if n not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                               f"Got {n}D.")
        if n == 1 and not isinstance(ord, str):
            return vector_norm(A, ord, None, keepdim, dtype=dtype)  # dim stays None, as in PyTorch's node
        dim = tuple(range(n))
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord}")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def _batch_norm(op, input, p="fro", dim=None, keepdim=False, dtype=None, *, keepdims=None):
    keepdim = _keepdim(keepdim, keepdims, "norm")
    if p == "nuc" or input.dim() == 0:
        return per_sample(op, input, (input, p, dim, keepdim, dtype), {})
    return input._wrap(op(input._phys, p, logical_dims(input, dim), keepdim, dtype))


@op(variants="function method out", batch=_batch_norm, python_method=True, python_function=True)
def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None, *, keepdims=None) -> Tensor:
    """torch.norm / Tensor.norm: 'fro' and numbers are vector norms over ``dim``, 'nuc' the nuclear norm."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "norm_cpu", None)
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "norm")
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(p, str):
        # as PyTorch's torch.norm: 'fro' over at most two dims is the vector 2-norm; every other string
        # (and 'fro' over more dims) goes to matrix_norm over ``dim`` (all dims when None), which refuses
        # what is not a matrix norm
        if p == "fro" and (dim is None or len(dim) <= 2):
            p = 2
        else:
            return matrix_norm(input, p, tuple(range(input.dim())) if dim is None else dim, keepdim, dtype=dtype)
    if p is None:
        p = 2
    if input._data.dtype not in INEXACT_NP and dtype is None:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{legacy_name(input._data.dtype)}")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)
