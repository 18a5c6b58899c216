"""``BatchedTensor``: a tensor whose physical data carries vmap's batch as dimension 0, and the
helpers every batching rule uses to align operands behind that dimension."""
from __future__ import annotations

from ..tensor import Tensor, _wrap_dim


def _unsupported(what: str):
    return RuntimeError(f"vmap: {what} is not supported inside tinytorch.func.vmap (it is not in vmap's table of "
                        "batched ops); rewrite the function with supported ops or call it outside vmap.")


class BatchedTensor(Tensor):
    """One sample's view of a batch: reports the logical shape, keeps the batch as physical dim 0."""

    # a Tensor subclass so that ``tensor + batched`` tries the batched reflected operator first
    __slots__ = ()

    def __init__(self, physical, batch_size: int, level: int | None = None):
        object.__setattr__(self, "_phys", physical)
        object.__setattr__(self, "_bsz", batch_size)
        object.__setattr__(self, "_level", _Levels.depth if level is None else level)

    # -- what autograd and the rest of tinytorch may not see ---------------------------------------
    @property
    def _data(self):
        raise _unsupported("this op (it reads the raw array)")

    @property
    def _vc(self):
        return self._phys._vc

    def _physical(self):
        return self._phys

    @property
    def batch_size(self) -> int:
        return self._bsz

    @property
    def _requires_grad(self):
        return self._phys.requires_grad

    @property
    def requires_grad(self):
        return self._phys.requires_grad

    @property
    def grad_fn(self):
        return self._phys.grad_fn

    def _edge(self):
        raise _unsupported("this op")

    def __repr__(self) -> str:
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{self._phys!r}\n)"

    # -- logical metadata ----------------------------------------------------------------------
    @property
    def shape(self):
        from .._size import Size
        return Size(tuple(self._phys.shape)[1:])

    def size(self, dim=None):
        s = self.shape
        return s if dim is None else s[_wrap_dim(dim, len(s))]

    def dim(self) -> int:
        return self._phys.dim() - 1

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self.dim()

    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def dtype(self):
        return self._phys.dtype

    def is_floating_point(self) -> bool:
        return self._phys.is_floating_point()

    def __len__(self) -> int:
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def item(self):
        raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
                           "calling .item() on a Tensor, please try to rewrite what you're doing with other "
                           "operations. If error is occurring somewhere inside PyTorch internals, please file a "
                           "bug report.")

    def __bool__(self):
        raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
                           "flow. We don't support that yet, please shout over at "
                           "https://github.com/pytorch/functorch/issues/257 .")

    def tolist(self):
        raise _unsupported(".tolist()")

    def numpy(self, *, force: bool = False):
        raise _unsupported(".numpy()")

    def __hash__(self) -> int:
        return id(self)

    def _ld(self, dim: int) -> int:
        """A logical dim as the physical one."""
        return _wrap_dim(dim, self.dim()) + 1

    def _wrap(self, phys):
        return BatchedTensor(phys, self._bsz, self._level)


class _Levels:
    depth = 0          # nested vmap calls in progress
    saved = None       # the rebound module attributes while depth > 0


def _level_of(args) -> BatchedTensor | None:
    """The innermost BatchedTensor among ``args`` (the level that must handle the op)."""
    best = None
    for a in args:
        if isinstance(a, BatchedTensor) and (best is None or a._level > best._level):
            best = a
        elif isinstance(a, (list, tuple)):
            b = _level_of(a)
            if b is not None and (best is None or b._level > best._level):
                best = b
    return best


def _at(x, lead: BatchedTensor):
    return isinstance(x, BatchedTensor) and x._level == lead._level


def _logical_ndim(x, lead) -> int:
    if _at(x, lead):
        return x.dim()
    return x.dim() if isinstance(x, Tensor) else 0


def _align(x, lead, n: int):
    """The physical operand for an elementwise op whose operands have at most ``n`` logical dims."""
    if not _at(x, lead):
        return x
    p = x._phys
    k = x.dim()
    if k < n:
        p = p.reshape((x._bsz,) + (1,) * (n - k) + tuple(x.shape))
    return p


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
