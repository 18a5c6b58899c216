"""``vmap``: run a function written for one sample once on a whole batch, vectorised in numpy.

The batched arguments become ``BatchedTensor``s: a tensor whose physical data carries the batch as
dimension 0 while it reports the logical (per-sample) shape. Each op in the table below knows that
dimension: elementwise ops align their operands' logical dimensions behind it, reductions and shape
ops shift their ``dim`` arguments past it, matmul puts the batch where numpy's broadcasting keeps it.
The op then runs once on the physical arrays; there is no loop over the samples. Ops outside the
table raise a RuntimeError naming vmap rather than silently mixing samples (a BatchedTensor's raw
``_data`` is never reachable).

Covered: operators ``+ - * / ** @ // %``, unary ``-``, ``abs()``, comparisons; elementwise methods and
``tinytorch.*`` functions (exp log sin cos tanh sigmoid relu sqrt ... clamp pow maximum minimum
where); reductions with ``dim``/``keepdim`` (sum mean var std amax amin max min argmax argmin
logsumexp softmax log_softmax all any); shape ops (view reshape flatten unflatten squeeze unsqueeze
transpose permute t T mT expand contiguous clone detach to/float/double, ``x[...]`` with basic
indices); matmul/mm/bmm/dot; cat and stack; ``zeros_like``/``ones_like``/``*_like``; and
``nn.functional`` linear, the activations, softmax/log_softmax/softmin, mse_loss, l1_loss,
smooth_l1_loss, huber_loss, cross_entropy and nll_loss (class-index targets, no weights),
binary_cross_entropy(_with_logits) without weights. The func transforms (grad, vjp, jvp, jacrev,
jacfwd) work inside vmap, which gives per-sample gradients.

Function-style calls (``tinytorch.exp(x)``, ``F.relu(x)``) find the batched rules because vmap
rebinds those names in ``tinytorch`` and ``tinytorch.nn.functional`` for the duration of the call
(restored afterwards); a function imported by name before the call (``from tinytorch import exp``)
bypasses that and raises the vmap error. vmap is therefore not thread-safe."""
from __future__ import annotations

import functools
import operator

from ..tensor import Tensor, _wrap_dim
from ._pytree import tree_flatten, tree_unflatten


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


# -- reductions ------------------------------------------------------------------------------------
def _dims(x, dim):
    """Physical dims for a logical ``dim`` argument (None or () means all logical dims)."""
    n = x.dim()
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(1, n + 1))
    if isinstance(dim, (tuple, list)):
        return tuple(x._ld(d) for d in dim)
    return x._ld(dim)


def _reduction(name):
    def rule(input, dim=None, keepdim=False, **kwargs):
        dims = _dims(input, dim)
        if dims == ():
            return input._wrap(input._phys.clone())
        return input._wrap(getattr(input._phys, name)(dims, keepdim=keepdim, **kwargs))
    return rule


def _var_like(name):
    def rule(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):  # var(unbiased) spelling
            dim, unbiased = None, dim
        kw = {"keepdim": keepdim}
        if unbiased is not None:
            kw["unbiased"] = unbiased
        if correction is not None:
            kw["correction"] = correction
        return input._wrap(getattr(input._phys, name)(_dims(input, dim), **kw))
    return rule


def _max_min(name):
    def rule(input, dim=None, keepdim=False, **kwargs):
        if "other" in kwargs or isinstance(dim, Tensor):
            other = kwargs.get("other", dim)
            return _binary_fn("maximum" if name == "max" else "minimum")(input, other)
        if dim is None:
            return input._wrap(getattr(input._phys, "amax" if name == "max" else "amin")(_dims(input, None)))
        res = getattr(input._phys, name)(input._ld(dim), keepdim)
        from ..ops.reduce import _return_type
        return _return_type(name)(input._wrap(res.values), input._wrap(res.indices))
    return rule


def _arg_extreme(name):
    def rule(input, dim=None, keepdim=False):
        if dim is None:
            flat = input._phys.reshape(input._bsz, -1)
            return input._wrap(getattr(flat, name)(1))
        return input._wrap(getattr(input._phys, name)(input._ld(dim), keepdim))
    return rule


def _softmax_like(name):
    def rule(input, dim=None, *args, **kwargs):
        if dim is None:
            raise _unsupported(f"{name} without an explicit dim")
        return input._wrap(getattr(input._phys, name)(input._ld(dim), **{k: v for k, v in kwargs.items()
                                                                          if k == "dtype"}))
    return rule


# -- shapes ----------------------------------------------------------------------------------------
def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _view_like(name):
    def rule(input, *shape):
        return input._wrap(getattr(input._phys, name)((input._bsz,) + _shape_arg(shape)))
    return rule


def _flatten(input, start_dim=0, end_dim=-1):
    n = input.dim()
    if n == 0:
        return input._wrap(input._phys.reshape(input._bsz, 1))
    return input._wrap(input._phys.flatten(input._ld(start_dim), input._ld(end_dim)))


def _unflatten(input, dim, sizes):
    return input._wrap(input._phys.unflatten(input._ld(dim), sizes))


def _unsqueeze(input, dim):
    return input._wrap(input._phys.unsqueeze(_wrap_dim(dim, input.dim() + 1) + 1))


def _squeeze(input, dim=None):
    if dim is None:
        dims = tuple(i + 1 for i, s in enumerate(input.shape) if s == 1)
        return input._wrap(input._phys.reshape((input._bsz,) + tuple(s for s in input.shape if s != 1))) \
            if dims else input._wrap(input._phys)
    if isinstance(dim, (tuple, list)):
        return input._wrap(input._phys.squeeze(tuple(input._ld(d) for d in dim)))
    return input._wrap(input._phys.squeeze(input._ld(dim)))


def _transpose(input, dim0, dim1):
    return input._wrap(input._phys.transpose(input._ld(dim0), input._ld(dim1)))


def _permute(input, *dims):
    dims = _shape_arg(dims)
    return input._wrap(input._phys.permute((0,) + tuple(input._ld(d) for d in dims)))


def _t(input):
    if input.dim() < 2:
        return input._wrap(input._phys)
    return _transpose(input, 0, 1)


def _expand(input, *sizes):
    sizes = _shape_arg(sizes)
    k = input.dim()
    p = input._phys
    if len(sizes) > k:
        p = p.reshape((input._bsz,) + (1,) * (len(sizes) - k) + tuple(input.shape))
    return input._wrap(p.expand((input._bsz,) + sizes))


def _getitem(input, idx):
    if not isinstance(idx, tuple):
        idx = (idx,)
    for i in idx:
        if isinstance(i, Tensor) or isinstance(i, (list,)):
            raise _unsupported("indexing with tensors or lists")
    return input._wrap(input._phys[(slice(None),) + idx])


# -- matmul ----------------------------------------------------------------------------------------
def _matmul(a, b):
    lead = _level_of((a, b))
    ba, bb = _at(a, lead), _at(b, lead)
    na, nb = a.dim(), b.dim()
    pa, pb = _phys_of(a, lead), _phys_of(b, lead)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    if ba and bb:
        if na == 1 and nb == 1:
            return lead._wrap((pa * pb).sum(-1))
        if na == 1:
            return lead._wrap((pa.unsqueeze(-2) @ _pad_batch(pb, nb, 2)).squeeze(-2).reshape(
                _mm_shape(a, b, lead)))
        if nb == 1:
            return lead._wrap((pa @ pb.unsqueeze(-1)).squeeze(-1))
        n = max(na, nb)
        return lead._wrap(_pad_batch(pa, na, n) @ _pad_batch(pb, nb, n))
    if ba:  # batched @ plain
        if nb == 1 or na >= 2 or nb == 2:
            if na == 1 and nb >= 3:
                return lead._wrap((pa.reshape((lead._bsz,) + (1,) * (nb - 2) + (1, a.shape[0])) @ pb).squeeze(-2))
            if na >= 2 and nb > na:
                return lead._wrap(_pad_batch(pa, na, nb) @ pb)
            return lead._wrap(pa @ pb)
    # plain @ batched
    if nb == 1:
        if na == 1:
            return lead._wrap(pb @ pa)
        # (.., k, n) @ (B, n) -> (B, .., k): put the batch in the columns
        return lead._wrap((pa @ pb.t()).permute((pa.dim() - 1,) + tuple(range(pa.dim() - 1))))
    n = max(na, nb)
    if na == 1:
        return lead._wrap((pa.unsqueeze(0) @ pb).squeeze(-2))
    return lead._wrap(pa @ pb if na <= nb else pa @ _pad_batch(pb, nb, n))


def _pad_batch(p, k: int, n: int):
    """Insert size-1 logical dims after the batch so a k-dim logical operand has n dims."""
    if k >= n:
        return p
    s = tuple(p.shape)
    return p.reshape(s[:1] + (1,) * (n - k) + s[1:])


def _mm_shape(a, b, lead):
    import numpy as np
    return (lead._bsz,) + tuple(np.broadcast_shapes(tuple(b.shape[:-2]))) + (b.shape[-1],)


def _dot(a, b):
    return _matmul(a, b)


def _mm(a, b):
    if a.dim() != 2 or b.dim() != 2:
        raise RuntimeError("self must be a matrix" if a.dim() != 2 else "mat2 must be a matrix")
    return _matmul(a, b)


def _bmm(a, b):
    return _matmul(a, b)


def _linear(input, weight, bias=None):
    out = _matmul_any(input, weight.t() if not isinstance(weight, BatchedTensor) else _t(weight))
    return out if bias is None else out + bias


def _matmul_any(a, b):
    if isinstance(a, BatchedTensor) or isinstance(b, BatchedTensor):
        return _matmul(a, b)
    return a @ b


# -- joining ---------------------------------------------------------------------------------------
def _join(name):
    def rule(tensors, dim=0, **kwargs):
        lead = _level_of(tuple(tensors))
        parts = []
        for t in tensors:
            if _at(t, lead):
                parts.append(t._phys)
            else:
                parts.append(t.unsqueeze(0).expand((lead._bsz,) + tuple(t.shape)))
        nd = next(t.dim() for t in tensors) + (1 if name == "stack" else 0)
        return lead._wrap(_orig("tinytorch", name)(parts, _wrap_dim(dim, nd) + 1))
    return rule


# -- losses ----------------------------------------------------------------------------------------
def _reduce_loss(lead, errors, reduction):
    if reduction == "none":
        return errors
    if errors.dim() == 0:
        return errors
    return errors.mean() if reduction == "mean" else errors.sum()


def _pointwise_loss(name):
    def rule(input, target, size_average=None, reduce=None, reduction="mean", **kwargs):
        lead = _level_of((input, target))
        F = _fmod()
        n = max(_logical_ndim(input, lead), _logical_ndim(target, lead))
        errs = getattr(F, name)(_bcast(input, lead, n), _bcast(target, lead, n), reduction="none", **kwargs)
        return _reduce_loss(lead, lead._wrap(errs), reduction)
    return rule


def _bcast(x, lead, n):
    """A full physical batch for x (expanded when x is not batched at this level)."""
    if _at(x, lead):
        return _align(x, lead, n)
    return x.unsqueeze(0).expand((lead._bsz,) + tuple(x.shape)) if isinstance(x, Tensor) else x


def _class_loss(name):
    def rule(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
             label_smoothing=0.0):
        if weight is not None:
            raise _unsupported(f"nn.functional.{name} with weight")
        lead = _level_of((input, target))
        F = _fmod()
        x = _bcast(input, lead, input.dim())
        t = _bcast(target, lead, target.dim())
        B = lead._bsz
        logical_x = tuple(input.shape)
        if len(logical_x) == 1:      # one sample of C classes: the batch becomes the loss's N
            kw = {"label_smoothing": label_smoothing} if name == "cross_entropy" else {}
            errs = getattr(F, name)(x, t, ignore_index=ignore_index, reduction="none", **kw)
            return lead._wrap(errs)
        # (N, C, ...) per sample: fold the batch into N, then mean per sample over non-ignored targets
        xs = x.reshape((B * logical_x[0],) + logical_x[1:])
        ts = t.reshape((B * logical_x[0],) + tuple(target.shape)[1:])
        kw = {"label_smoothing": label_smoothing} if name == "cross_entropy" else {}
        errs = getattr(F, name)(xs, ts, ignore_index=ignore_index, reduction="none", **kw)
        errs = errs.reshape((B,) + tuple(target.shape))
        if reduction == "none":
            return lead._wrap(errs)
        total = errs.reshape(B, -1).sum(1)
        if reduction == "sum":
            return lead._wrap(total)
        count = (t != ignore_index).reshape(B, -1).sum(1).to(errs.dtype)
        return lead._wrap(total / count)
    return rule


# -- the tables ------------------------------------------------------------------------------------
_UNARY_NAMES = ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "log1p", "expm1", "rsqrt",
                "reciprocal", "sign", "floor", "ceil", "round", "trunc", "log2", "log10", "square", "isnan",
                "isinf", "isfinite", "clamp", "clip", "abs", "neg", "negative", "contiguous", "clone", "detach",
                "float", "double", "half", "long", "int", "bool", "to", "type_as", "requires_grad_")
_BINARY_NAMES = ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
                 "remainder", "floor_divide", "subtract", "multiply", "divide", "true_divide", "logical_and",
                 "logical_or")


def _binary_fn(name):
    def rule(a, b, **kwargs):
        return _elementwise(lambda x, y, **kw: _orig_or_method(x, y, name)(x, y, **kw), a, b,
                            **kwargs)
    return rule


def _orig_or_method(x, y, name):
    import tinytorch
    return getattr(tinytorch, name)


def _where(cond, a, b=None):
    if b is None:
        raise _unsupported("where(condition) with one argument")
    import tinytorch
    return _elementwise(lambda c, x, y: tinytorch.where(c, x, y), cond, a, b)


def _method_unary(name):
    def rule(self, *args, **kwargs):
        import tinytorch
        args = tuple(a._phys if _at(a, self) else a for a in args)
        if name in ("to", "type_as") and args and isinstance(args[0], BatchedTensor):
            args = (args[0].dtype,) + args[1:]
        if name in ("float", "double", "half", "long", "int", "bool", "detach", "contiguous", "clone", "to",
                    "type_as", "requires_grad_"):
            res = getattr(self._phys, name)(*args, **kwargs)
            return self if name == "requires_grad_" else self._wrap(res)
        return self._wrap(getattr(tinytorch, name)(self._phys, *args, **kwargs))
    return rule


def _like(name):
    def rule(input, *args, **kwargs):
        return input._wrap(_orig("tinytorch", name)(input._phys, *args, **kwargs))
    return rule


def _f_elementwise(name):
    def rule(input, *args, **kwargs):
        if kwargs.get("inplace") or (name == "dropout" and (kwargs.get("training", True) if len(args) < 2 else
                                                            args[1])):
            raise _unsupported(f"nn.functional.{name} with inplace=True or in training mode")
        return input._wrap(getattr(_fmod(), name)(input._phys, *args, **kwargs))
    return rule


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


_TT_RULES: dict = {}
_F_RULES: dict = {}
for _n in _UNARY_NAMES[:29]:
    _TT_RULES[_n] = functools.partial(lambda name, x, *a, **k: _method_unary(name)(x, *a, **k), _n)
for _n in _BINARY_NAMES:
    _TT_RULES[_n] = _binary_fn(_n)
_TT_RULES.update({
    "where": _where, "sum": _reduction("sum"), "mean": _reduction("mean"), "amax": _reduction("amax"),
    "amin": _reduction("amin"), "logsumexp": lambda x, dim, keepdim=False: x._wrap(
        x._phys.logsumexp(_dims(x, dim), keepdim=keepdim)),
    "all": _reduction("all"), "any": _reduction("any"), "var": _var_like("var"), "std": _var_like("std"),
    "max": _max_min("max"), "min": _max_min("min"), "argmax": _arg_extreme("argmax"),
    "argmin": _arg_extreme("argmin"), "softmax": _softmax_like("softmax"), "log_softmax": _softmax_like("log_softmax"),
    "reshape": lambda x, shape: _view_like("reshape")(x, shape), "flatten": _flatten, "unflatten": _unflatten,
    "squeeze": _squeeze, "unsqueeze": _unsqueeze, "transpose": _transpose, "swapaxes": _transpose,
    "swapdims": _transpose, "permute": lambda x, dims: _permute(x, dims), "t": _t, "matmul": _matmul, "mm": _mm,
    "bmm": _bmm, "dot": _dot, "cat": _join("cat"), "concat": _join("cat"), "concatenate": _join("cat"),
    "stack": _join("stack"), "zeros_like": _like("zeros_like"), "ones_like": _like("ones_like"),
    "full_like": _like("full_like"), "empty_like": _like("empty_like"), "rand_like": None, "randn_like": None,
    "broadcast_to": lambda x, size: _expand(x, size),
})
_F_NAMES = ("relu", "relu6", "leaky_relu", "gelu", "silu", "elu", "softplus", "hardtanh", "sigmoid", "tanh",
            "dropout")
for _n in _F_NAMES:
    _F_RULES[_n] = _f_elementwise(_n)
_F_RULES.update({
    "linear": _linear, "softmax": _softmax_like("softmax"), "log_softmax": _softmax_like("log_softmax"),
    "softmin": lambda x, dim=None, *a, **k: _softmax_like("softmax")(-x, dim),
    "mse_loss": _pointwise_loss("mse_loss"), "l1_loss": _pointwise_loss("l1_loss"),
    "smooth_l1_loss": _pointwise_loss("smooth_l1_loss"), "huber_loss": _pointwise_loss("huber_loss"),
    "binary_cross_entropy": _pointwise_loss("binary_cross_entropy"),
    "binary_cross_entropy_with_logits": _pointwise_loss("binary_cross_entropy_with_logits"),
    "cross_entropy": _class_loss("cross_entropy"), "nll_loss": _class_loss("nll_loss"),
})


def _dispatcher(module_name: str, name: str, orig, rule):
    @functools.wraps(orig)
    def fn(*args, **kwargs):
        if _level_of(args) is None and _level_of(tuple(kwargs.values())) is None:
            return orig(*args, **kwargs)
        if rule is None:
            raise _unsupported(f"{module_name}.{name} (randomness)")
        return rule(*args, **kwargs)
    return fn


def _rebind() -> dict:
    """Point every tinytorch module's name for a tabled function at its batched dispatcher.

    Modules import ops by name (``nn.Linear`` calls ``ops.linalg.linear`` directly), so the public
    namespaces alone are not enough: every loaded ``tinytorch`` module's globals that are one of the
    tabled functions (by identity) are rebound too, and all are restored when vmap returns."""
    by_id = _dispatchers()
    saved = {}
    for mod_name, mod, name in _locations(by_id):
        obj = vars(mod).get(name)
        fn = by_id.get(id(obj))
        if fn is not None:
            saved[(mod_name, name)] = (mod, obj)
            setattr(mod, name, fn)
    return saved


def _dispatchers() -> dict:
    """id(original function) -> its dispatcher; built once (the originals are module constants)."""
    if _SCAN["by_id"] is not None:
        return _SCAN["by_id"]
    import tinytorch
    from ..nn import functional as F

    by_id = {}
    for mod, mod_name, rules in ((tinytorch, "tinytorch", _TT_RULES), (F, "tinytorch.nn.functional", _F_RULES)):
        for name, rule in rules.items():
            orig = getattr(mod, name, None)
            if orig is None:
                continue
            by_id.setdefault(id(orig), _dispatcher(mod_name, name, orig, rule))
            # the undecorated op behind a public wrapper (``tinytorch.add`` wraps ``ops.arith.add`` for out=)
            inner = getattr(orig, "__wrapped__", None)
            if inner is not None:
                by_id.setdefault(id(inner), _dispatcher(mod_name, name, inner, rule))
    # the dispatchers keep their originals alive, so these ids stay valid
    _SCAN["by_id"] = by_id
    return by_id


_SCAN = {"modules": None, "found": (), "by_id": None}


def _locations(by_id):
    """(module name, module, global name) of every tabled function; rescanned only when modules were added."""
    import sys

    n = len(sys.modules)
    if _SCAN["modules"] != n:
        found = []
        for mod_name, mod in list(sys.modules.items()):
            if mod is None or not (mod_name == "tinytorch" or mod_name.startswith("tinytorch.")):
                continue
            if mod_name.startswith("tinytorch.func"):
                continue
            for name, obj in list(vars(mod).items()):
                if id(obj) in by_id and callable(obj):
                    found.append((mod_name, mod, name))
        _SCAN["modules"], _SCAN["found"] = n, tuple(found)
    return _SCAN["found"]


def _restore(saved: dict) -> None:
    for (_, name), (mod, orig) in saved.items():
        setattr(mod, name, orig)


# -- methods and operators of BatchedTensor ---------------------------------------------------------
def _install_methods() -> None:
    B = BatchedTensor
    for name in _UNARY_NAMES:
        setattr(B, name, _method_unary(name))
    B.__neg__ = _method_unary("neg")
    B.__abs__ = _method_unary("abs")
    B.__pos__ = lambda self: self
    ops = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
           "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "and": operator.and_,
           "or": operator.or_, "xor": operator.xor}
    for name, op in ops.items():
        setattr(B, f"__{name}__", functools.partialmethod(lambda self, other, op: _elementwise(op, self, other), op=op))
        setattr(B, f"__r{name}__", functools.partialmethod(lambda self, other, op: _elementwise(
            lambda x, y: op(y, x), self, other), op=op))
    for name, op in {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
                     "gt": operator.gt, "ge": operator.ge}.items():
        setattr(B, f"__{name}__", functools.partialmethod(lambda self, other, op: _elementwise(op, self, other), op=op))
        setattr(B, name, getattr(B, f"__{name}__"))
    for name in ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "remainder", "floor_divide",
                 "subtract", "multiply", "divide", "true_divide", "logical_and", "logical_or"):
        setattr(B, name, _binary_fn(name))
    B.__matmul__ = B.matmul = _matmul
    B.__rmatmul__ = lambda self, other: _matmul(other, self)
    B.mm, B.bmm, B.dot = _mm, _bmm, _dot
    B.where = lambda self, condition, other: _where(condition, self, other)
    for name in ("sum", "mean", "amax", "amin", "all", "any"):
        setattr(B, name, _reduction(name))
    B.logsumexp = _TT_RULES["logsumexp"]
    B.var, B.std = _var_like("var"), _var_like("std")
    B.max, B.min = _max_min("max"), _max_min("min")
    B.argmax, B.argmin = _arg_extreme("argmax"), _arg_extreme("argmin")
    B.softmax, B.log_softmax = _softmax_like("softmax"), _softmax_like("log_softmax")
    B.view, B.reshape = _view_like("reshape"), _view_like("reshape")
    B.view_as = lambda self, other: _view_like("reshape")(self, tuple(other.shape))
    B.reshape_as = B.view_as
    B.expand = _expand
    B.expand_as = lambda self, other: _expand(self, tuple(other.shape))
    B.broadcast_to = lambda self, size: _expand(self, size)
    B.flatten, B.unflatten = _flatten, _unflatten
    B.squeeze, B.unsqueeze = _squeeze, _unsqueeze
    B.transpose = B.swapaxes = B.swapdims = _transpose
    B.permute = _permute
    B.t = _t
    B.T = property(lambda self: self._wrap(self._phys.permute((0,) + tuple(range(self.dim(), 0, -1)))))
    B.mT = property(lambda self: _transpose(self, -2, -1))
    B.__getitem__ = _getitem
    B.new_zeros = lambda self, *size, **kw: self._phys.new_zeros(*size, **kw)
    B.new_ones = lambda self, *size, **kw: self._phys.new_ones(*size, **kw)
    B.new_tensor = lambda self, data, **kw: self._phys.new_tensor(data, **kw)

    def _refuse(name):
        def fn(self, *args, **kwargs):
            raise _unsupported(f"Tensor.{name}")
        return fn

    for name in ("__setitem__", "add_", "sub_", "mul_", "div_", "pow_", "clamp_", "relu_", "exp_", "log_", "sqrt_",
                 "neg_", "abs_", "sigmoid_", "tanh_", "zero_", "scatter_", "fill_", "copy_", "uniform_", "normal_",
                 "bernoulli_", "random_", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ipow__",
                 "backward", "gather", "scatter", "split", "chunk", "unbind", "select", "narrow", "nonzero",
                 "repeat", "register_hook", "retain_grad", "stride", "data_ptr", "__iter__"):
        setattr(B, name, _refuse(name))


_install_methods()


# -- vmap itself -----------------------------------------------------------------------------------
def _fn_name(func) -> str:
    return getattr(func, "__name__", repr(func))


def _flat_in_dims(in_dims, args, func):
    if isinstance(in_dims, int) or in_dims is None:
        return [in_dims] * len(tree_flatten(list(args))[0])
    if not isinstance(in_dims, tuple):
        raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(in_dims) != len(args):
        raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
                         "the structure of `inputs`. in_dims has structure "
                         f"{len(in_dims)} but inputs has structure {len(args)}.")
    out = []
    for d, a in zip(in_dims, args):
        n = len(tree_flatten(a)[0])
        if isinstance(d, int) or d is None:
            out.extend([d] * n)
        else:
            dl, _ = tree_flatten(d)
            if len(dl) != n:
                raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                                 "compatible with the structure of `inputs`.")
            out.extend(dl)
    return out


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """Vectorise ``func`` over dimension ``in_dims`` of its inputs, stacking results at ``out_dims``."""
    if randomness != "error" and randomness not in ("different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if not args:
            raise ValueError(f"vmap({_fn_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or "
                             "you are trying to vmap over a function with no inputs. The latter is unsupported.")
        leaves, spec = tree_flatten(list(args))
        dims = _flat_in_dims(in_dims, args, func)
        sizes = []
        for x, d in zip(leaves, dims):
            if d is None:
                continue
            if not isinstance(x, Tensor):
                raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an "
                                 f"input but the input is of type {type(x)}. We cannot vmap over non-Tensor "
                                 "arguments, please use None as the respective in_dim")
            if not -x.dim() <= d < x.dim() or x.dim() == 0:
                raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                                 f"input, but that input is a Tensor of dimensionality {x.dim()} so expected in_dim "
                                 f"to satisfy -{x.dim()} <= in_dim < {x.dim()}.")
            sizes.append(x.shape[d])
        if not sizes:
            raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least one input must be "
                             "batched (in_dims must not be None for every input).")
        if len(set(sizes)) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sizes} for the mapped dimension")
        bsz = sizes[0]
        _Levels.depth += 1
        level = _Levels.depth
        if level == 1:
            _Levels.saved = _rebind()
        try:
            batched = [x if d is None else BatchedTensor(_move_to_front(x, d), bsz, level)
                       for x, d in zip(leaves, dims)]
            out = func(*tree_unflatten(batched, spec), **kwargs)
        finally:
            if level == 1:
                _restore(_Levels.saved)
                _Levels.saved = None
            _Levels.depth -= 1
        return _unbatch(out, out_dims, bsz, level, func)

    return wrapper


def _move_to_front(x, d):
    d = d % x.dim()
    if d == 0:
        return x
    # on an outer level's BatchedTensor this permute is that level's rule, so nesting composes
    return x.permute((d,) + tuple(i for i in range(x.dim()) if i != d))


def _unbatch(out, out_dims, bsz, level, func):
    leaves, spec = tree_flatten(out)
    if isinstance(out_dims, int) or out_dims is None:
        dims = [out_dims] * len(leaves)
    else:
        dims, _ = tree_flatten(out_dims)
        if len(dims) != len(leaves):
            raise ValueError(f"vmap({_fn_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                             "with the structure of `outputs`.")
    res = []
    for x, d in zip(leaves, dims):
        if d is None:
            if isinstance(x, BatchedTensor) and x._level == level:
                raise ValueError(f"vmap({_fn_name(func)}, ..., out_dims=None)(<inputs>): Cannot return a batched "
                                 "output with out_dims=None.")
            res.append(x)
            continue
        if not isinstance(x, Tensor):
            raise ValueError(f"vmap({_fn_name(func)}, ...): `{_fn_name(func)}` must only return Tensors, got type "
                             f"{type(x)}. Did you mean to set out_dims= to None for output?")
        if isinstance(x, BatchedTensor) and x._level == level:
            p = x._phys
        else:  # a result that does not depend on the batch is repeated for every sample
            p = x.unsqueeze(0).expand((bsz,) + tuple(x.shape))
        n = p.dim()
        d = d % n
        if d:
            p = p.permute(tuple(range(1, d + 1)) + (0,) + tuple(range(d + 1, n)))
        res.append(p)
    return tree_unflatten(res, spec)
