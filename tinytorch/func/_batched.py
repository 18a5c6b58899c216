"""``BatchedTensor``: a tensor whose physical data carries vmap's batch as dimension 0, and the
helpers every batching rule uses to align operands behind that dimension."""
from __future__ import annotations

from ..tensor import Tensor, _wrap_dim


from ..ops._batching import BatchedTensor  # noqa: E402,F401
from ..ops._batching import align as _align, at as _at, level_of as _level_of  # noqa: E402,F401
from ..ops._batching import logical_ndim as _logical_ndim, unsupported as _unsupported  # noqa: E402,F401


class _Levels:
    saved = None       # the rebound module attributes while a level is active (ops not yet declared)


def _elementwise(fn, *args, **kwargs):
    lead = _level_of(args)
    n = max(_logical_ndim(a, lead) for a in args)
    return lead._wrap(fn(*[_align(a, lead, n) for a in args], **kwargs))


def _phys_of(x, lead):
    return x._phys if _at(x, lead) else x


def _unary(fn, x, *args, **kwargs):
    return x._wrap(fn(x._phys, *args, **kwargs))


def _binary_fn(name):
    def rule(a, b, **kwargs):
        return _elementwise(lambda x, y, **kw: _orig_or_method(x, y, name)(x, y, **kw), a, b,
                            **kwargs)
    return rule


def _orig_or_method(x, y, name):
    import tinytorch
    return getattr(tinytorch, name)


def _fmod():
    from ..nn import functional
    return functional


def _orig(module: str, name: str):
    """The function as it was before vmap rebound it."""
    key = (module, name)
    saved = _Levels.saved or {}
    if key in saved:
        return saved[key][1]
    import importlib
    return getattr(importlib.import_module(module), name)
