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

from ..ops import _registry
from ..ops._batching import level as _vmap_level
from ..tensor import Tensor
from ._pytree import tree_flatten, tree_unflatten
from ._batched import _at, BatchedTensor, _binary_fn, _elementwise, _fmod, _level_of, _Levels, _orig, _unsupported
from ._vmap_rules import (_class_loss, _expand, _flatten, _getitem, _join, _linear,
                          _permute, _pointwise_loss, _softmax_like, _squeeze, _t,
                          _transpose, _unflatten, _unsqueeze, _view_like)


# -- the tables ------------------------------------------------------------------------------------
_UNARY_NAMES = ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "log1p", "expm1", "rsqrt",
                "reciprocal", "sign", "floor", "ceil", "round", "trunc", "log2", "log10", "square", "isnan",
                "isinf", "isfinite", "clamp", "clip", "abs", "neg", "negative", "contiguous", "clone", "detach",
                "float", "double", "half", "long", "int", "bool", "to", "type_as", "requires_grad_")
_BINARY_NAMES = ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
                 "remainder", "floor_divide", "subtract", "multiply", "divide", "true_divide", "logical_and",
                 "logical_or")


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


_TT_RULES: dict = {}
_F_RULES: dict = {}
for _n in _UNARY_NAMES[:29]:
    _TT_RULES[_n] = functools.partial(lambda name, x, *a, **k: _method_unary(name)(x, *a, **k), _n)
for _n in _BINARY_NAMES:
    _TT_RULES[_n] = _binary_fn(_n)
_TT_RULES.update({
    "where": _where,
    "reshape": lambda x, shape: _view_like("reshape")(x, shape), "flatten": _flatten, "unflatten": _unflatten,
    "squeeze": _squeeze, "unsqueeze": _unsqueeze, "transpose": _transpose, "swapaxes": _transpose,
    "swapdims": _transpose, "permute": lambda x, dims: _permute(x, dims), "t": _t,
    "cat": _join("cat"), "concat": _join("cat"), "concatenate": _join("cat"),
    "stack": _join("stack"), "zeros_like": _like("zeros_like"), "ones_like": _like("ones_like"),
    "full_like": _like("full_like"), "empty_like": _like("empty_like"), "rand_like": None, "randn_like": None,
    "broadcast_to": lambda x, size: _expand(x, size),
})
_F_NAMES = ("relu", "relu6", "leaky_relu", "gelu", "silu", "elu", "softplus", "hardtanh", "sigmoid", "tanh",
            "dropout")
for _n in _F_NAMES:
    _F_RULES[_n] = _f_elementwise(_n)
_F_RULES.update({
    "linear": _linear,
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
            if orig is None or hasattr(orig, "_decl"):
                continue  # a declared op: its public function dispatches to vmap itself
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
    """Batched methods of the ops not yet declared in the registry (declared ones get theirs there)."""
    B = _Undeclared
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
    B.where = lambda self, condition, other: _where(condition, self, other)
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
                 "backward", "gather", "scatter", "split", "chunk", "unbind", "select", "narrow",
                 "repeat", "register_hook", "retain_grad", "stride", "data_ptr", "__iter__"):
        setattr(B, name, _refuse(name))


class _Undeclared:
    """Collects the table's methods; those of declared ops are dropped before they reach BatchedTensor."""


_install_methods()
for _name, _fn in list(vars(_Undeclared).items()):
    if not _name.startswith("__") or _name in ("__neg__", "__abs__", "__pos__", "__getitem__", "__setitem__",
                                               "__iter__", "__iadd__", "__isub__", "__imul__", "__itruediv__",
                                               "__ipow__", "__matmul__", "__rmatmul__") or _name[2:-2] in (
            "add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod pow rpow and rand or ror xor "
            "rxor eq ne lt le gt ge").split():
        if _name in _registry._METHOD_OWNERS:
            continue
        setattr(BatchedTensor, _name, _fn)


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
        with _vmap_level() as level:
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
