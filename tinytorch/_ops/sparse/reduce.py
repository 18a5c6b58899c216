"""Sums of sparse tensors: ``torch.sparse.sum`` (a dense scalar, dense over every sparse dim, else sparse) and
``Tensor.sum`` on a sparse tensor, with PyTorch's nodes."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ...autograd.grad_mode import no_grad
from ...autograd.node import Node
from ...tensor import Tensor, _make, _wrap_dim
from .._core.record import record
from .._core.registry import op
from .arrays import _coalesced_parts, _coo_of, _plain, coalesce_arrays
from .construct import coalesce, values
from .tensor import is_coo, is_csr, is_sparse_tensor, make_coo


class _SumToPattern(Node):
    """A sum of a sparse tensor: the output gradient spread back over its pattern."""

    def backward(self, g):
        (s,) = self._unpacked_saved
        ci, _ = _coalesced_parts(s)
        sd = ci.shape[0]
        gd = g._data if not is_sparse_tensor(g) else g.to_dense()._data
        keep = [d for d in range(sd) if d not in self.dims]
        dense_dims = [d for d in range(sd, len(s._sz)) if d not in self.dims]
        # the gradient at each stored element: g at its kept sparse coordinates, broadcast over the dense dims
        if keep:
            at = gd[tuple(ci[keep])]
        else:
            at = np.broadcast_to(gd, (ci.shape[1],) + gd.shape)
        dense_shape = s._sz[sd:]
        shape = [ci.shape[1]] + [s._sz[d] if d in dense_dims else 1 for d in range(sd, len(s._sz))]
        at = np.broadcast_to(at.reshape(shape), (ci.shape[1],) + tuple(dense_shape))
        return (make_coo(_plain(ci), _plain(np.ascontiguousarray(at)), s._sz, coalesced=s._coal),)

class SumBackward0(Node):
    """The sum of every element of a sparse tensor: the gradient expanded to its (dense) shape."""

    def backward(self, g):
        return (g.expand(self.shape),)

class SumBackward1(Node):
    """Tensor.sum(dim) of a sparse tensor: PyTorch's formula expands a sparse gradient, which it refuses."""

    def backward(self, g):
        raise RuntimeError("expand is unsupported for Sparse tensors")

class SparseSumBackward0(_SumToPattern):
    pass

def _sum_sparse(input, dim, dtype, node_cls):
    ci, cv = _coalesced_parts(input) if is_coo(input) else coalesce_arrays(*_coo_of(input)[:2])
    sd = ci.shape[0]
    nd = len(input._sz)
    vt = _make(cv)
    if dtype is not None:
        vt = vt.to(dtype)
    elif vt.dtype.is_floating_point is False and not vt.is_complex():
        vt = vt.to(_dtype.int64)
    if dim is None:
        dims = tuple(range(nd))
    else:
        dims = tuple(sorted({_wrap_dim(d, nd) for d in ((dim,) if isinstance(dim, int) else dim)}))
    with no_grad():
        dense_axes = [d - sd + 1 for d in dims if d >= sd]
        sparse_red = [d for d in dims if d < sd]
        if len(sparse_red) == sd:  # every sparse dim summed: a dense result
            out = vt.sum(dim=[0] + dense_axes) if vt._data.shape[0] else _make(
                np.zeros(tuple(input._sz[d] for d in range(sd, nd) if d not in dims), dtype=vt._data.dtype))
            result = out
        else:
            keep = [d for d in range(sd) if d not in dims]
            v = vt.sum(dim=dense_axes) if dense_axes else vt
            ki, kv = coalesce_arrays(np.ascontiguousarray(ci[keep]), v._data)
            size = tuple(input._sz[d] for d in range(nd) if d not in dims)
            result = make_coo(_plain(ki), _plain(kv), size, coalesced=True)
    if node_cls is SumBackward0:
        return record(result, SumBackward0, (input,), shape=input._sz)
    if node_cls is SumBackward1:
        return record(result, SumBackward1, (input,))
    return record(result, node_cls, (input,), (input,), dims=dims)

@op("sparse.sum", variants="function")
def sparse_sum(input: Tensor, dim=None, dtype=None) -> Tensor:
    """The sum over ``dim`` (every dim: a dense scalar; every sparse dim: dense; else sparse)."""
    if not is_sparse_tensor(input):
        return input.sum() if dim is None else input.sum(dim)
    if dim is None:  # PyTorch's composite: the coalesced values summed
        vals = values(coalesce(input) if is_coo(input) else input)
        return vals.sum() if dtype is None else vals.sum(dtype=dtype)
    return _sum_sparse(input, dim, dtype, SparseSumBackward0)

def handle_sum(input, dim=None, keepdim=False, *, dtype=None):
    if is_csr(input) and dim is not None:
        raise RuntimeError("reduction operations on CSR tensors with keepdim=False is unsupported")
    if keepdim:
        raise RuntimeError("tinytorch: sum(keepdim=True) of a sparse tensor is not supported")
    return _sum_sparse(input, dim, dtype, SumBackward0 if dim is None else SumBackward1)
