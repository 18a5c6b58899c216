"""vmap's side of the op registry: ``BatchedTensor``, the generic batching rules, and the dispatch
that sends an op call with a batched argument to its rule.

A ``BatchedTensor`` is one sample's view of a batch: its physical tensor carries the batch as
dimension 0 while it reports the logical (per-sample) shape. Its methods are the registry's batched
methods, so ``x.exp()`` on a batched ``x`` goes to the rule of ``exp``; a function call
(``tinytorch.exp(x)``, ``F.relu(x)``) reaches the same rule through the op's public function, which
looks at this thread's vmap state (``_State.transforms``). A plain tensor's method given a batched argument
(``neg_one.pow(k)`` with ``k`` batched) is the one call that reaches neither: it reads the batch's raw array,
and vmap runs the function once more with Tensor's method spellings wrapped to send such calls to the rules
(``plain_methods``). Nothing else is rebound while vmap runs, and the wrappers look at the calling thread's
state, so two threads can vmap at once.

A rule has the op's signature with the public function first: ``rule(op, *args, **kwargs)``. It runs
``op`` once on the physical tensors (with dims shifted past the batch) and wraps the result. An op
declared without a rule runs once per sample and the results are stacked (PyTorch's slow fallback);
an op declared with ``no_batch=reason`` raises vmap's error with that reason."""
from __future__ import annotations

from ...autograd.grad_mode import _Active, _State, version_counter
from ..._size import Size
from ...tensor import Tensor, _wrap_dim
from . import registry as _registry
from .pytree import tree_flatten, tree_unflatten


def unsupported(what: str) -> RuntimeError:
    return RuntimeError(f"vmap: {what} is not supported inside tinytorch.func.vmap; rewrite the function with "
                        "supported ops or call it outside vmap.")


def needs_per_sample(what: str) -> RuntimeError:
    """``unsupported``, where PyTorch's vmap runs the function and tinytorch's batching cannot follow it (a func
    transform inside nested vmap, or over a batched tensor the function closed over). vmap then runs the function
    once per sample instead (``per_sample_fallback`` is set on the error)."""
    error = unsupported(what)
    error.per_sample_fallback = True
    return error


class BatchedTensor(Tensor):
    """One sample's view of a batch: reports the logical shape, keeps the batch as physical dim 0."""

    # a Tensor subclass so that ``tensor + batched`` tries the batched reflected operator first
    __slots__ = ()

    def __init__(self, physical, batch_size: int, level: int | None = None):
        object.__setattr__(self, "_phys", physical)
        object.__setattr__(self, "_bsz", batch_size)
        object.__setattr__(self, "_level", _State.transforms if level is None else level)

    # -- what autograd and the rest of tinytorch may not see -------------------------------------
    @property
    def _data(self):
        error = unsupported("this op (it reads the raw array)")
        error.plain_method_retry = True  # perhaps a plain tensor's method given this batch: vmap tries once more
        raise error

    @property
    def _vc(self):
        return version_counter(self._phys)  # its own list: an in-place op on the batched tensor bumps it

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
        raise unsupported("this op")

    # the methods no op declares
    def requires_grad_(self, requires_grad=True):
        self._phys.requires_grad_(requires_grad)
        return self

    def _refuse(name):
        def fn(self, *args, **kwargs):
            raise unsupported(f"Tensor.{name}")
        return fn

    backward, register_hook, retain_grad = _refuse("backward"), _refuse("register_hook"), _refuse("retain_grad")
    stride, data_ptr, __iter__ = _refuse("stride"), _refuse("data_ptr"), _refuse("__iter__")
    del _refuse

    def __repr__(self) -> str:
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{self._phys!r}\n)"

    # -- logical metadata ------------------------------------------------------------------------
    @property
    def shape(self):
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
        raise unsupported(".tolist()")

    def numpy(self, *, force: bool = False):
        raise unsupported(".numpy()")

    def __hash__(self) -> int:
        return id(self)

    def _ld(self, dim: int) -> int:
        """A logical dim as the physical one."""
        return _wrap_dim(dim, self.dim()) + 1

    def _wrap(self, phys):
        return BatchedTensor(phys, self._bsz, self._level)


# -- finding and aligning the batched operands -----------------------------------------------------
def level_of(args) -> BatchedTensor | None:
    """The innermost BatchedTensor among ``args`` (the level that must handle the op)."""
    best = None
    for a in args:
        if isinstance(a, BatchedTensor):
            if best is None or a._level > best._level:
                best = a
        elif isinstance(a, (list, tuple)):
            b = level_of(a)
            if b is not None and (best is None or b._level > best._level):
                best = b
    return best


def at(x, lead: BatchedTensor) -> bool:
    return isinstance(x, BatchedTensor) and x._level == lead._level


def logical_ndim(x, lead) -> int:
    if at(x, lead):
        return x.dim()
    return x.dim() if isinstance(x, Tensor) else 0


def align(x, lead, n: int):
    """The physical operand for a pointwise op whose operands have at most ``n`` logical dims."""
    if not at(x, lead):
        return x
    p = x._phys
    k = x.dim()
    if k < n:
        p = p.reshape((x._bsz,) + (1,) * (n - k) + tuple(x.shape))
    return p


def phys_of(x, lead):
    return x._phys if at(x, lead) else x


def expanded(x, lead, n: int | None = None):
    """A full physical batch for ``x``: aligned when batched at this level, else repeated ``bsz`` times."""
    if at(x, lead):
        return align(x, lead, x.dim() if n is None else n)
    if isinstance(x, Tensor):
        return x.unsqueeze(0).expand((lead._bsz,) + tuple(x.shape))
    return x


def logical_dims(x: BatchedTensor, dim):
    """Physical dims for a logical ``dim`` argument (None or () means every logical dim)."""
    n = x.dim()
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(1, n + 1))
    if isinstance(dim, (tuple, list)):
        return tuple(x._ld(d) for d in dim)
    return x._ld(dim)


# -- generic rules ---------------------------------------------------------------------------------
def pointwise(op, *args, **kwargs):
    """Elementwise ops of any arity: operands aligned behind the batch dim, one call."""
    lead = level_of(args)
    if lead is None:
        lead = level_of(tuple(kwargs.values()))
    n = max([logical_ndim(a, lead) for a in args] + [logical_ndim(v, lead) for v in kwargs.values()])
    return lead._wrap(op(*[align(a, lead, n) for a in args], **{k: align(v, lead, n) for k, v in kwargs.items()}))


def first_only(op, input, *args, **kwargs):
    """Ops batched through their first argument alone, the others passed as they are (dtype casts,
    ``clone``, ``contiguous``, ``*_like``)."""
    if level_of(args) is not None or level_of(tuple(kwargs.values())) is not None:
        raise unsupported(f"{op.__name__} with a batched argument other than the first")
    return input._wrap(op(input._phys, *args, **kwargs))


def composite(op, *args, **kwargs):
    """A composite made of other ops: run it as it is, its inner ops dispatch themselves."""
    return op.__wrapped__(*args, **kwargs)


def per_sample(op, lead: BatchedTensor, args, kwargs):
    """PyTorch's fallback for an op without a rule: the op once per sample, results stacked."""
    def pick(x, i):
        return x._phys[i] if at(x, lead) else x

    leaves, spec = tree_flatten((list(args), dict(kwargs)))
    outs = []
    for i in range(lead._bsz):
        a, k = tree_unflatten([pick(x, i) for x in leaves], spec)
        outs.append(op(*a, **k))
    flat0, out_spec = tree_flatten(outs[0])
    columns = [tree_flatten(o)[0] for o in outs]
    stack = _registry.REGISTRY["stack"].public  # declared above this module; nested levels dispatch
    result = []
    for j, first in enumerate(flat0):
        if isinstance(first, Tensor):
            result.append(lead._wrap(stack([c[j] for c in columns])))
        else:
            if any(c[j] != first for c in columns):
                raise unsupported(f"{op.__name__} returning a non-tensor that differs between samples")
            result.append(first)
    return tree_unflatten(result, out_spec)


# -- the dispatch ----------------------------------------------------------------------------------
def dispatch(decl, args, kwargs, out):
    """A public op called while this thread has a transform level active: vmap, or an ONNX export
    (``tinytorch.onnx``), which records the call and runs it through ``dispatch_batched``."""
    tracer = _State.tracer
    if tracer is not None:
        return tracer.dispatch(decl, args, kwargs, out)
    return dispatch_batched(decl, args, kwargs, out)


def dispatch_batched(decl, args, kwargs, out):
    """A public op called while this thread has vmap levels active."""
    lead = level_of(args)
    if lead is None:
        lead = level_of(tuple(kwargs.values()))
    if lead is None:
        if out is None:
            return decl.impl(*args, **kwargs)
        return _registry.write_out(decl.impl, out, args, kwargs)
    if out is not None:
        raise unsupported(f"{decl.qualname} with out=")
    if decl.no_batch is not None:
        raise RuntimeError(f"vmap: {decl.qualname} is not supported inside tinytorch.func.vmap: {decl.no_batch}")
    if decl.batch is None:
        return per_sample(decl.public, lead, args, kwargs)
    return decl.batch(decl.public, *args, **kwargs)


def _batched_method(decl, name: str, table_fn):
    if name in decl.dunders or (name in decl.variants and decl.method is None):
        def method(self, *args, **kwargs):
            return dispatch(decl, (self,) + args, kwargs, None)
    elif name in decl.rdunders:
        def method(self, other):
            return dispatch(decl, (other, self), {}, None)
    elif name in decl.variants:
        return table_fn  # an adapter: it calls the public function, which dispatches
    elif decl.inplace is None and decl.no_batch is None:  # an in-place spelling derived from the op
        def method(self, *args, **kwargs):
            return _batched_inplace(decl, name, self, args, kwargs)
    else:  # an in-place op of its own
        def method(self, *args, **kwargs):
            raise unsupported(f"the in-place Tensor.{name}")
    method.__name__ = name
    return method


def _batched_inplace(decl, name: str, self, args, kwargs):
    """``batched.op_(...)``: the op's batching rule out of place, its result written into the batch's
    physical tensor (which an in-place op on a stacked buffer, BatchNorm's running statistics inside a
    vmapped ensemble, updates for every sample). An unbatched ``self`` with a batched argument cannot hold
    the result, as in PyTorch."""
    lead = level_of((self,) + tuple(args) + tuple(kwargs.values()))
    if lead is None or not (isinstance(self, BatchedTensor) and self._level == lead._level):
        raise RuntimeError(f"vmap: {name}(self, *extra_args) is not possible because there exists a Tensor `other` "
                           "in extra_args that has more elements than `self`. This happened due to `other` being "
                           "vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place "
                           f"operators instead of {name}.")
    res = dispatch(decl, (self,) + tuple(args), kwargs, None)
    phys = res._phys if isinstance(res, BatchedTensor) and res._level == self._level else \
        res.unsqueeze(0).expand((self._bsz,) + tuple(res.shape))
    self._phys.copy_(phys)
    return self


def bind_batched(decl) -> None:
    """Give BatchedTensor every method spelling of ``decl``."""
    for name, fn in _registry.method_table(decl).items():
        setattr(BatchedTensor, name, _batched_method(decl, name, fn))


_registry.bind_transform(dispatch, bind_batched)
for _decl in list(_registry.REGISTRY.values()):  # ops declared before this module was imported
    bind_batched(_decl)


# -- a plain tensor's method with a batched argument -------------------------------------------------
def _plain_method(decl, name: str, fn):
    """``Tensor.name`` while vmap levels are open: a call with a batched argument goes to the batching rule
    (for an in-place spelling, PyTorch's error: an unbatched ``self`` cannot hold a batch), any other to ``fn``."""
    inplace = name not in decl.variants and name not in decl.dunders

    def method(self, *args, **kwargs):
        if _State.transforms and (level_of(args) is not None or level_of(tuple(kwargs.values())) is not None):
            if inplace:
                return _batched_inplace(decl, name, self, args, kwargs)
            return dispatch_batched(decl, (self,) + args, kwargs, None)
        return fn(self, *args, **kwargs)

    method.__name__, method.__qualname__, method.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    method.__wrapped__ = fn
    return method


def _plain_wrapper(decl, name: str, current):
    """Tensor's own method spellings (calling the op's implementation directly: an adapter goes through the public
    function, which dispatches already); not its operators: for ``plain * batched`` Python asks the BatchedTensor's
    reflected operator first, and rebinding a class's operators updates every subclass's slots (milliseconds)."""
    if decl.method is not None or name.startswith("__"):
        return None
    return _plain_method(decl, name, current)


_methods = _registry.MethodSwap(_plain_wrapper)
_wrapping = [0]  # vmapped calls running with the wrappers, in all threads


class plain_methods:
    """While a vmapped call runs again after a plain tensor's method read a batched argument (vmap catches
    the error that ``BatchedTensor._data`` raises, marked ``plain_method_retry``): Tensor's methods wrapped
    to dispatch such calls. Rebinding ~500 methods costs about a millisecond (and the type caches), so only
    the calls that need it pay."""

    def __enter__(self):
        with _Active._lock:
            _wrapping[0] += 1
            if _wrapping[0] == 1:
                _methods.on()

    def __exit__(self, *exc) -> None:
        with _Active._lock:
            _wrapping[0] -= 1
            if not _wrapping[0]:
                _methods.off()


def wrapped_now() -> bool:
    return _wrapping[0] > 0


class level:
    """One vmap level of this thread, entered for the duration of the vmapped call."""

    def __enter__(self) -> int:
        if not _State.transforms:
            _Active.count("transforms", 1)
        _State.transforms += 1
        return _State.transforms

    def __exit__(self, *exc) -> None:
        _State.transforms -= 1
        if not _State.transforms:
            _Active.count("transforms", -1)
