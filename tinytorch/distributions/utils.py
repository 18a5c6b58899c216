"""Helpers shared by the distributions (``torch.distributions.utils``)."""
from __future__ import annotations

import functools
from numbers import Number

import numpy as np

import tinytorch as torch
import tinytorch.nn.functional as F

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]


def _eps(dtype) -> float:
    return float(np.finfo(torch.empty(0, dtype=dtype).numpy().dtype).eps)


def _tiny(dtype) -> float:
    return float(np.finfo(torch.empty(0, dtype=dtype).numpy().dtype).tiny)


def broadcast_shapes(*shapes) -> torch.Size:
    return torch.Size(np.broadcast_shapes(*(tuple(s) for s in shapes)))


def broadcast_tensors(*tensors):
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


def broadcast_all(*values):
    """Broadcasts tensors and numbers together; numbers take the first tensor's dtype (else the
    default dtype)."""
    if not all(isinstance(v, (torch.Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, torch.Tensor) for v in values):
        dtype = torch.get_default_dtype()
        for v in values:
            if isinstance(v, torch.Tensor):
                dtype = v.dtype
                break
        values = [v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=dtype) for v in values]
    return broadcast_tensors(*values)


def _standard_normal(shape, dtype, device=None):
    return torch.empty(tuple(shape), dtype=dtype).normal_()


def _sum_rightmost(value, dim: int):
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary: bool = False):
    if is_binary:
        return torch.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = _eps(probs.dtype)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(ps_clamped) - torch.log1p(-ps_clamped)
    return torch.log(ps_clamped)


class lazy_property:
    """Computes an attribute on first access (with grad enabled) and stores it on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _tril_mask(n: int, diag: int):
    arange = torch.arange(n)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag: int = 0):
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec, diag: int = 0):
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > _eps(vec.dtype):
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mask = _tril_mask(n, diag)
    # scatter the entries into the masked positions through an index map, so gradients flow
    index = torch.tensor(np.flatnonzero(mask.numpy().ravel()))
    flat = vec.new_zeros(tuple(vec.shape[:-1]) + (n * n,))
    flat = flat.index_add(-1, index, vec) if hasattr(flat, "index_add") else _scatter(flat, index, vec)
    return flat.reshape(tuple(vec.shape[:-1]) + (n, n))


def _scatter(flat, index, vec):
    return flat.scatter(-1, index.expand(tuple(vec.shape)), vec)

