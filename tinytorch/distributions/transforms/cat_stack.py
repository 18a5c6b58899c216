"""Transforms applied slice by slice: ``CatTransform`` (blocks along a dim, as ``torch.cat``) and
``StackTransform`` (slices along a dim, as ``torch.stack``)."""
from __future__ import annotations

import tinytorch as torch

from .. import constraints
from ..utils import _sum_rightmost, lazy_property
from .base import Transform

__all__ = ["CatTransform", "StackTransform"]


class _Slices(Transform):
    """Shared by ``CatTransform`` and ``StackTransform``: one transform per slice along ``dim``."""

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return self._constraint([t.domain for t in self.transforms])

    @constraints.dependent_property
    def codomain(self):
        return self._constraint([t.codomain for t in self.transforms])


class CatTransform(_Slices):
    """Applies ``tseq[i]`` to the i-th block (of ``lengths[i]``) along ``dim``, as ``torch.cat``."""

    def __init__(self, tseq, dim: int = 0, lengths=None, cache_size: int = 0) -> None:
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        self.dim = dim

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _constraint(self, cseq):
        return constraints.cat(cseq, self.dim, self.lengths)

    def _map(self, value, fn):
        out, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            out.append(fn(trans, value.narrow(self.dim, start, length)))
            start = start + length
        return torch.cat(out, dim=self.dim)

    def _call(self, x):
        return self._map(x, lambda t, v: t(v))

    def _inverse(self, y):
        return self._map(y, lambda t, v: t.inv(v))

    def log_abs_det_jacobian(self, x, y):
        terms, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            term = trans.log_abs_det_jacobian(x.narrow(self.dim, start, length), y.narrow(self.dim, start, length))
            if trans.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - trans.event_dim)
            terms.append(term)
            start = start + length
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim = dim + self.event_dim
        return torch.cat(terms, dim=dim) if dim < 0 else sum(terms)


class StackTransform(_Slices):
    """Applies ``tseq[i]`` to the i-th slice along ``dim``, as ``torch.stack``."""

    def __init__(self, tseq, dim: int = 0, cache_size: int = 0) -> None:
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _constraint(self, cseq):
        return constraints.stack(cseq, self.dim)

    def _slices(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        return torch.stack([t(v) for v, t in zip(self._slices(x), self.transforms)], dim=self.dim)

    def _inverse(self, y):
        return torch.stack([t.inv(v) for v, t in zip(self._slices(y), self.transforms)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        return torch.stack([t.log_abs_det_jacobian(a, b) for a, b, t in
                            zip(self._slices(x), self._slices(y), self.transforms)], dim=self.dim)
