"""The op registry: every op is declared once, and all its spellings come from that declaration.

PyTorch writes an op's schema once (``native_functions.yaml``) and generates from it the function
``torch.X``, the method ``Tensor.X``, the in-place ``Tensor.X_`` and the ``out=`` overload; JAX
registers a primitive's batching and jvp rules beside its implementation. Here a decorator does the
same at import time::

    @op(method=True, inplace=True, out=True, aliases=("arctan",), batch=pointwise)
    def atan(input: Tensor) -> Tensor:
        ...                                   # the numpy forward, recording AtanBackward0

The declaration names the op (``"linalg.norm"`` for a name outside ``torch``), which spellings PyTorch
has, the aliases, the batching rule vmap uses (or the reason there is none) and the op's CPU autocast
policy (``autocast="lower"`` / ``"fp32"`` / ``"promote"``, read by ``amp/_autocast_lists.py``). The
ONNX exporter's rule for the op is attached to the declaration too, by ``bind_export`` when
``tinytorch.onnx`` loads (this module does not import the exporter). The backward formula
per input and the forward-mode rule (``jvp``) live on the op's graph node class, beside the forward.

What the declaration produces:
  - ``Tensor.X``: the implementation itself (no wrapper: methods and operators are the hot path), or where it
    has ``dim``/``keepdim``, which PyTorch's parser also takes as numpy's ``axis``/``keepdims``
    (``x.sum(axis=1)``), a function made from its signature on its first call, that calls it as it was called
    (``arguments.parsed_method``);
  - ``Tensor.X_`` (and ``torch.X_``): the out-of-place op written back into ``self`` by
    ``inplace.apply_inplace``, unless the declaration gives its own in-place function;
  - ``torch.X`` / ``torch.nn.functional.X`` / ``torch.<namespace>.X``: a thin public function that
    takes ``out=`` when PyTorch does, hands the call to a profile recording in this thread
    (``tinytorch/profiler``), to vmap when a vmap level of this thread has a batched argument, and to a
    Tensor subclass's ``__torch_function__`` when one is among the arguments (``torch_function.py``). The decorator returns this function, so library code calling an op by name
    is vmapped too.
  - ``BatchedTensor.X``: the batching rule (see ``_core/batching.py``).
The namespaces are filled from ``REGISTRY`` by the package ``__init__`` files, and
``tests/ops/_core/test_core_registry.py`` compares every declared spelling with PyTorch's own namespaces."""
from __future__ import annotations

import functools
import sys
import inspect
import types
import warnings

import numpy as np

from ..._dtype import FROM_NP
from ..._oom import reraise_as_runtime_error
from ...autograd.grad_mode import _Active, _State, no_grad, version_counter
from ...tensor import Tensor, register_attribute
from . import overlap as overlap_rules  # (``op``'s keyword is named ``overlap``)
from .arguments import parsed_method, renamed, respell, respell_method
from .torch_function import subclass_among

__all__ = ["op", "OpDecl", "REGISTRY", "ATEN_ONLY", "aten_only", "namespace", "bind_export", "bind_rule",
           "scalar_formula", "view_inverse", "AUTOCAST_POLICIES"]

REGISTRY: dict = {}   # qualified name ("add", "linalg.norm", "nn.functional.gelu") -> OpDecl
_METHOD_OWNERS: dict = {}  # method name -> the declaration that owns it (one owner per spelling)
# ATen operators PyTorch has only as ``torch.ops.aten.X`` (no torch.X, Tensor.X or nn.functional.X: aten.slice,
# native_dropout_backward, the pooling backwards, the CUDA attention kernels): name -> function
ATEN_ONLY: dict = {}


def aten_only(name: str, recorded: bool = False, scalar=None, view_inverse=None):
    """Declare the decorated function as ``torch.ops.aten.<name>`` (every overload calls it), and nothing else.

    ``recorded``: a graph capture (make_fx) writes a call of it down as the one ATen node ``aten.<name>.default``,
    the ops it runs inside unseen, as PyTorch's tracers see a backward formula's own operator
    (``threshold_backward``, ``nll_loss_backward``...); the function returned is then a wrapper that checks for a
    capture (a flag test), called by name from the nodes' backward formulas.
    ``scalar``: its formula on one element, as ``op(scalar=)`` takes it (``scalar_formula`` reads it).
    ``view_inverse``: how a write into its view reaches the base, as ``op(view_inverse=)`` takes it."""
    def declare(fn):
        if name in ATEN_ONLY:
            raise RuntimeError(f"aten op {name!r} is declared twice")
        if recorded:
            def aten_op(*args, **kwargs):
                capture = CAPTURE[0]
                if capture is not None and capture.hook is not None:
                    return capture.aten(name, fn, args, kwargs)
                return fn(*args, **kwargs)
            functools.update_wrapper(aten_op, fn)
        declared = aten_op if recorded else fn
        if scalar is not None:
            declared.scalar = scalar  # (no OpDecl: the function is all there is of the declaration)
        if view_inverse is not None:
            declared.view_inverse = view_inverse
        ATEN_ONLY[name] = declared
        return declared
    return declare


def scalar_formula(fn):
    """The formula on one element declared for the op ``fn`` runs (``op(scalar=)``, ``aten_only(scalar=)``), or
    None where it declares none. An in-place spelling (``neg_``) has none: it writes its input, which no formula
    says."""
    if getattr(fn, "_decl", None) is None:
        return getattr(fn, "scalar", None)
    decl = declaration_of(fn)
    return None if decl is None else decl.rules.get("scalar")


def view_inverse(fn):
    """The inverse declared for the view op ``fn`` (``op(view_inverse=)``, ``aten_only(view_inverse=)``): a function,
    a string saying why the view has none, or None where ``fn`` is no view op that declares one."""
    decl = declaration_of(fn)
    return getattr(fn, "view_inverse", None) if decl is None else decl.rules.get("view_inverse")


# registered by _batching.py, which needs this module (``bind_transform``): what a call with an active
# transform goes to, and how a new declaration's methods reach BatchedTensor
_transform_hooks = {"dispatch": None, "bind_batched": None}
# registered by inplace.py, which needs this module (``bind_inplace``): how ``Tensor.X_`` writes the op's
# result into ``self``, and the check that an out= array may be written (an expanded one may not)
_apply_inplace = None
_writeable = None


# registered by tinytorch/_meta.py (above every op): what a public function does once a meta-device tensor
# exists (``META_ON``), and what a factory (a function taking ``device=``) does with ``device="meta"``;
# until then the one cost is a flag test
def _plain_call(decl, fn, args, kwargs):
    return fn(*args, **kwargs)


_meta_hooks = {"op": _plain_call, "factory": _plain_call}
META_ON = [False]


def bind_meta(op_hook, factory_hook) -> None:
    _meta_hooks["op"], _meta_hooks["factory"] = op_hook, factory_hook


# registered by tinytorch/profiler (above every op): ``hook(public, decl, args, kwargs)`` records the call
# while a profile records in this thread; until one starts, the one cost is a flag test
_profiler_hook = [None]


def bind_profiler(hook) -> None:
    _profiler_hook[0] = hook


# set by tinytorch/fx/experimental/_capture.py while a graph capture (make_fx, export) runs in some thread:
# its per-thread state, whose ``hook(public, decl, args, kwargs)`` records the call as graph nodes (None in other
# threads, and while a recorded op runs); until a capture starts, the one cost is a flag test
CAPTURE = [None]


def capturing() -> bool:
    """Whether a graph capture records the ops called in this thread now (not inside an op it is recording):
    where a node's backward or a spelling shows PyTorch's operator for its graph."""
    capture = CAPTURE[0]
    return capture is not None and capture.hook is not None


def _takes_device(fn) -> bool:
    """Whether ``fn`` has a ``device`` parameter (a factory): read off its code object, as
    ``inspect.signature`` would find it but without its cost (~40 us an op at import)."""
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        try:
            return "device" in inspect.signature(fn).parameters
        except (TypeError, ValueError):
            return False
    return "device" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]


def bind_transform(dispatch, bind_batched) -> None:
    _transform_hooks["dispatch"] = dispatch
    _transform_hooks["bind_batched"] = bind_batched


def bind_inplace(apply_inplace, writeable) -> None:
    global _apply_inplace, _writeable
    _apply_inplace, _writeable = apply_inplace, writeable


AUTOCAST_POLICIES = (None, "lower", "fp32", "promote")
META_RULES = (None, "random", "data_dependent", "no_kernel", "reads_value", "cpu_args", "tensor_bounds", "resizes")


def bind_export(key: str, rule) -> None:
    """Attach the ONNX exporter's rule ``rule(tracer, out, *args, **kwargs)`` to the declaration ``key``
    (a ``REGISTRY`` key: ``"mul"``, ``"F.linear"``, ``"Tensor.view"``). The exporter (``tinytorch.onnx``,
    above this module) calls it as it loads; an unknown key or a second rule for one op is an error."""
    decl = REGISTRY.get(key)
    if decl is None:
        raise KeyError(f"no op {key!r} is declared, so it has no ONNX rule to take")
    if decl.onnx is not None and decl.onnx is not rule:
        raise RuntimeError(f"op {key!r} has an ONNX rule already ({decl.onnx!r})")
    decl.onnx = rule


def bind_rule(kind: str, key: str, rule) -> None:
    """Attach a transformation's rule for the op ``key`` (a ``REGISTRY`` key) to its declaration, as
    ``decl.rules[kind]``: a package above the ops (fx's ATen recorder: ``kind`` "aten") registers its rules as it
    loads, as ``bind_export`` does ONNX's; an unknown key or a second rule of one kind for one op is an error."""
    decl = REGISTRY.get(key)
    if decl is None:
        raise KeyError(f"no op {key!r} is declared, so it has no {kind} rule to take")
    if decl.rules.get(kind, rule) is not rule:
        raise RuntimeError(f"op {key!r} has a {kind} rule already ({decl.rules[kind]!r})")
    decl.rules[kind] = rule


_WORDS = frozenset({"function", "method", "inplace", "torch_inplace", "out", "functional"})


def _variants(text: str) -> frozenset:
    words = frozenset(text.replace(",", " ").split())
    unknown = words - _WORDS
    if unknown:
        raise ValueError(f"unknown variants {sorted(unknown)}; known: {sorted(_WORDS)}")
    return words


class OpDecl:
    """One op's declaration: what ``op(...)`` was told, plus the functions made from it."""

    __slots__ = ("name", "namespace", "impl", "public", "variants", "method", "inplace", "functional",
                 "dunders", "rdunders", "idunders", "batch", "no_batch", "extra", "own_out", "autocast", "onnx",
                 "torch_inplace", "python_method", "python_function", "overlap", "rules", "functional_apart", "meta",
                 "__weakref__")

    def __init__(self, name, namespace, impl, variants, method, inplace, functional, dunders, rdunders, idunders,
                 batch, no_batch, extra, autocast=None):
        self.name, self.namespace, self.impl, self.variants = name, namespace, impl, variants
        self.method, self.inplace, self.functional = method, inplace, functional
        self.dunders, self.rdunders, self.idunders = dunders, rdunders, idunders
        self.batch, self.no_batch, self.extra = batch, no_batch, extra
        self.autocast = autocast  # CPU autocast's policy: None, "lower", "fp32" or "promote"
        self.onnx = None          # the ONNX exporter's rule, attached by ``bind_export``
        self.public = None
        self.torch_inplace = {}  # name -> torch.X_, made by namespace()
        self.python_method = False  # PyTorch writes Tensor.X in Python: no parser reads its arguments
        self.python_function = False  # and torch.X (torch/functional.py), whose keywords no parser reads either
        self.overlap = None  # what its writes refuse (``overlap.RULES``); None: its family's default
        self.functional_apart = False  # PyTorch's nn.functional.X is a Python function of its own, not torch.X
        self.meta = None  # how it runs on the meta device, where that differs (``META_RULES``)
        self.rules = {}  # a transformation's rule for the op, by the transformation ("aten": fx's), ``bind_rule``

    @property
    def qualname(self) -> str:
        if self.namespace == "":  # no torch.X: a method or operator, or an nn.functional op
            functional = any("functional" in words for words in self.variants.values())
            return ("nn.functional." if functional else "Tensor.") + (self.dunders or (self.name,))[0]
        return self.name if self.namespace == "torch" else f"{self.namespace}.{self.name}"

    def names(self) -> tuple:
        return tuple(self.variants)

    def spellings(self) -> set:
        """Every public spelling this declaration produces, as PyTorch would write it."""
        out = set()
        ns = "torch" if self.namespace in ("torch", "") else f"torch.{self.namespace}"
        for n, words in self.variants.items():
            if "function" in words:
                out.add(f"{ns}.{n}")
            if "out" in words:
                out.add(f"{ns}.{n}(out=)")
            if "torch_inplace" in words:
                out.add(f"torch.{n}_")
            if "method" in words:
                out.add(f"Tensor.{n}")
            if "inplace" in words:
                out.add(f"Tensor.{n}_")
            if "functional" in words:
                out.add(f"torch.nn.functional.{n}")
        out.update(f"torch.{q}" for q in self.extra)
        out.update(f"Tensor.{d}" for d in self.dunders + self.rdunders + self.idunders)
        return out


def op(name: str | None = None, variants: str = "function", *, method=None, inplace=None, functional=None,
       aliases: tuple = (), dunders: tuple = (), rdunders: tuple = (), idunders: tuple = (), batch=None,
       no_batch: str | None = None, extra: tuple = (), own_out: bool = False, autocast: str | None = None,
       python_method: bool = False, python_function=False, overlap=None, functional_apart: bool = False,
       meta: str | None = None, scalar=None, view_inverse=None):
    """Declare the decorated function as an op and bind every spelling PyTorch has for it.

    name        ``"add"``; ``"linalg.norm"`` / ``"special.erfcx"`` for another namespace; default the
                function's name.
    variants    which spellings PyTorch has, as in ``native_functions.yaml``: "function" (``torch.X``),
                "method" (``Tensor.X``), "inplace" (``Tensor.X_``), "torch_inplace" (``torch.X_``),
                "out" (``torch.X(..., out=t)``), "functional" (``torch.nn.functional.X``).
    method      an adapter bound as ``Tensor.X`` instead of the function (arguments in another order,
                e.g. ``Tensor.where(condition, other)``); it must call the op by its public name.
    inplace     the in-place function ``Tensor.X_``; by default ``apply_inplace`` derives it.
    functional  ``nn.functional.X`` when its signature differs from ``torch.X`` (``F.relu(inplace=)``).
    aliases     other names: ``"subtract"`` with the same variants, ``"absolute: function method
                inplace out"`` with its own.
    dunders / rdunders / idunders  ``Tensor.__add__`` (the function) / ``Tensor.__radd__`` (arguments
                swapped) / ``Tensor.__iadd__`` (the in-place method).
    batch       the vmap rule ``rule(op, *args, **kwargs)`` (``_batching.pointwise`` and friends);
                None runs the op once per sample (PyTorch's fallback).
    no_batch    instead of a rule: why vmap cannot batch this op (its error says so).
    extra       more qualified names for the same public function (``"special.expit"``).
    own_out     the function takes ``out=`` itself (factories, which resize ``out`` their own way).
    autocast    CPU autocast's policy for the op, as PyTorch's ``autocast_mode.cpp`` lists it: "lower"
                (runs in the autocast dtype), "fp32" (runs in float32), "promote" (runs in the widest
                floating type of its inputs); None: autocast leaves the op alone.
    python_method  PyTorch writes ``Tensor.X`` in Python (``torch/_tensor.py``: split, norm, unique...): no
                argument parser reads its keywords, so they have no other spellings, and Python's errors name
                it ``Tensor.X``.
    python_function  PyTorch writes ``torch.X`` in Python too (``torch/functional.py``: split, norm, unique):
                ``torch.norm(x, axis=1)`` is refused as there (the ops of its parser take ``axis``). Or a function
                ``(args, kwargs) -> name``: PyTorch's ``torch.X`` is ``boolean_dispatch``'s, which calls one of
                several Python functions by a flag argument, so Python's argument errors name that one
                (``_return_output() got an unexpected keyword argument``); ``arguments.respell`` renames them.
    functional_apart  PyTorch writes ``nn.functional.X`` in Python, apart from ``torch.X`` (``F.max_pool2d`` is not
                ``torch.max_pool2d``, and torch.fx records a call of it by that function): ``nn.functional`` gives it
                a spelling of its own (``spelling_of``).
    meta        how the op runs on meta tensors where that is not by its inputs' shapes alone (``tinytorch/_meta.py``):
                "random" (a random factory: on the meta device it draws nothing, the generator stays where it was),
                "data_dependent" (its result's shape depends on the values: PyTorch's meta kernels refuse it),
                "data_dependent:<aten op>" (the same, where PyTorch's composite first reaches that op, which its
                error names: ``cov`` reaches ``equal``), "reads_value" (its result is a value read from the tensors,
                which PyTorch's composite reads with ``item()``: meta tensors refuse that), "no_kernel" (PyTorch
                registers no meta kernel for it, whatever the shapes: refused with the same error),
                "cpu_args" (it takes CPU indices, masks, 0-d values or a copy's source beside meta tensors),
                "tensor_bounds" (a factory whose bounds may be tensors, as PyTorch's tensor overloads of linspace:
                a meta bound makes its result meta whatever ``device`` says, and no value is read), "resizes" (an
                in-place op that changes its meta tensor's shape, ``resize_``: it runs, where another in-place op on
                meta tensors only checks).
    overlap     what the op's writes (``out=``, ``Tensor.X_``) refuse of an input sharing the written memory, as
                ATen's kernel checks (``_core/overlap.py``): "any" (index writes, joins), "partial" (TensorIterator's
                check), "unchecked", or an in-place rule ``rule(self, args)``; None: partial for an elementwise
                op's out= and every in-place write, nothing for another op's out=.
    scalar      the op's formula on one element (``operator.mul``, ``lambda x: np.where(x < 0, 0, x)``), tensor
                operands as elements of their dtype, Python numbers as given (cast to that dtype, as the op casts
                them): exact IEEE arithmetic, comparisons and selections only, rounding where the op's array forward
                rounds. A compiler fusing elementwise ops writes the op's line from it (``_dynamo/pointwise.py``);
                ops computed by libm (exp, tanh) declare none: compilers' and numpy's floats differ there.
    view_inverse  a view op's inverse, as PyTorch's functionalisation writes a write into the view back into its
                base (its ``FunctionalInverses``): ``rule(call, base, value, src, *args)``, the view being
                ``X(base, *args)`` in ATen's spelling, returns the base with that view's elements replaced by
                ``src``, made by ``call(overload, *args)`` (an ATen call recorded: ``call("slice_scatter.default",
                base, src, *args)``); ``value`` is the base's value, for its shape. Or a string: why the view has
                no inverse (a write into it stays in place), though functionalisation makes it again from its base
                (``expand``). Read by ``export``'s ``run_decompositions`` (``export/_decompose.py``)."""
    if autocast not in AUTOCAST_POLICIES:
        raise ValueError(f"unknown autocast policy {autocast!r}; known: {AUTOCAST_POLICIES}")
    if (meta.partition(":")[0] if meta else meta) not in META_RULES:
        raise ValueError(f"unknown meta rule {meta!r}; known: {META_RULES}")
    if overlap is not None and overlap not in overlap_rules.RULES and not callable(overlap):
        raise ValueError(f"unknown overlap rule {overlap!r}; known: {overlap_rules.RULES}")
    if view_inverse is not None and not (callable(view_inverse) or isinstance(view_inverse, str)):
        raise ValueError(f"view_inverse is a function or the reason a view has none, not {view_inverse!r}")

    def declare(fn):
        qual = name or fn.__name__
        namespace, _, short = qual.rpartition(".")
        words = _variants(variants)
        table = {short: words}
        for a in aliases:
            alias, _, own = a.partition(":")
            table[alias.strip()] = _variants(own) if own else words
        if namespace == "" and "function" not in words:
            namespace = ""  # no torch.X: a method-only or nn.functional-only op
        elif namespace == "":
            namespace = "torch"
        decl = OpDecl(short, namespace, fn, table, method, inplace, functional, tuple(dunders), tuple(rdunders),
                      tuple(idunders), batch, no_batch, tuple(extra), autocast)
        decl.own_out = own_out
        decl.python_method = python_method
        decl.python_function = python_function
        decl.overlap = overlap
        decl.functional_apart = functional_apart
        decl.meta = meta
        if scalar is not None:
            decl.rules["scalar"] = scalar
        if view_inverse is not None:
            decl.rules["view_inverse"] = view_inverse
        if overlap is not None:
            overlap_rules.INPLACE[fn.__name__] = overlap
        key = qual if namespace else ("F." if "functional" in words else "Tensor.") + short
        if key in REGISTRY:
            raise RuntimeError(f"op {key!r} is declared twice ({REGISTRY[key].impl.__module__} and "
                               f"{fn.__module__})")
        REGISTRY[key] = decl
        decl.public = _public_function(decl)
        if decl.functional is not None:
            decl.functional = _routing(decl.functional, decl)
        _bind_methods(decl)
        bind = _transform_hooks["bind_batched"]
        if bind is not None:
            bind(decl)
        return decl.public
    return declare


# PyTorch's composites: they check their arguments before they reach the op that records (reshape's size
# before its view), so a forbidden view's error does not come first there
CHECKS_BEFORE_EDGES = frozenset({"reshape", "reshape_as", "flatten", "unflatten"})


def _stale_view_first(args) -> None:
    """An op that failed on a forbidden view (made under no_grad, its base since modified in place): PyTorch
    collects its inputs' graph edges before it runs the op, so that view's error comes first."""
    if not _State.enabled:
        return
    for a in args:
        if isinstance(a, Tensor) and a._stale is not None and a._requires_grad:
            a._edge()  # raises the view's error


# -- the public function ---------------------------------------------------------------------------
def _public_function(decl: OpDecl):
    impl = decl.impl
    dispatch_key = decl
    meta_on = META_ON
    capture = CAPTURE
    factory = _takes_device(impl)
    meta_key = "factory" if factory else "op"
    edges_first = decl.name not in CHECKS_BEFORE_EDGES and not decl.name.endswith("_")  # (in-place: checked first)

    # a TypeError from the implementation: PyTorch's other spellings of its keywords (arguments.respell), then
    # the call again; the common call pays nothing for it
    if any("out" in words for words in decl.variants.values()) and not decl.own_out:
        # the check PyTorch makes between out= and the inputs (an elementwise op: the pointwise batching rule)
        elementwise = getattr(decl.batch, "__name__", None) == "pointwise"
        _OUT_OVERLAP[impl] = overlap_rules.out_rule(decl.overlap, elementwise)

        def public(*args, out=None, **kwargs):
            try:
                if capture[0] is not None and capture[0].hook is not None:
                    return capture[0].hook(public, decl, args, kwargs if out is None else {**kwargs, "out": out})
                if _Active.profiler and _State.recorder is not None:
                    return _profiler_hook[0](public, decl, args, kwargs if out is None else {**kwargs, "out": out})
                if _Active.transforms and _State.transforms:
                    return _transform_hooks["dispatch"](dispatch_key, args, kwargs, out)
                if _Active.subclasses:
                    cls = subclass_among(args)
                    if cls is not None:
                        given = kwargs if out is None else {**kwargs, "out": out}
                        return cls.__torch_function__(public, (cls,), args, given)
                if meta_on[0] or (factory and "device" in kwargs):
                    return _meta_hooks[meta_key](dispatch_key, impl if out is None else _writing_out(impl, out),
                                                 args, kwargs)
                if out is None:
                    try:
                        return impl(*args, **kwargs)
                    except (RuntimeError, IndexError):
                        if edges_first:
                            _stale_view_first(args)
                        raise
                return write_out(impl, out, args, kwargs)
            except TypeError as e:
                again = respell(decl, args, kwargs, e)
                if again is None:
                    raise
                return public(*again[0], out=out, **again[1])
            except MemoryError as e:  # numpy's, as PyTorch's RuntimeError naming the bytes
                reraise_as_runtime_error(e)
    else:
        def public(*args, **kwargs):
            try:
                if capture[0] is not None and capture[0].hook is not None:
                    return capture[0].hook(public, decl, args, kwargs)
                if _Active.profiler and _State.recorder is not None:
                    return _profiler_hook[0](public, decl, args, kwargs)
                if _Active.transforms and _State.transforms:
                    return _transform_hooks["dispatch"](dispatch_key, args, kwargs, None)
                if _Active.subclasses:
                    cls = subclass_among(args)
                    if cls is not None:
                        return cls.__torch_function__(public, (cls,), args, kwargs)
                if meta_on[0] or (factory and "device" in kwargs):
                    return _meta_hooks[meta_key](dispatch_key, impl, args, kwargs)
                try:
                    return impl(*args, **kwargs)
                except (RuntimeError, IndexError):
                    if edges_first:
                        _stale_view_first(args)
                    raise
            except TypeError as e:
                again = respell(decl, args, kwargs, e)
                if again is None:
                    raise
                return public(*again[0], **again[1])
            except MemoryError as e:
                reraise_as_runtime_error(e)
    functools.update_wrapper(public, impl)
    public.__wrapped__ = impl
    public._decl = decl
    return public


def _routing(fn, decl: OpDecl):
    """``fn`` (a spelling with its own signature: ``F.relu(input, inplace)``, ``torch.relu_``) behind the
    same subclass check as the public function."""
    def spelling(*args, **kwargs):
        if _Active.subclasses:
            cls = subclass_among(args)
            if cls is not None:
                return cls.__torch_function__(spelling, (cls,), args, kwargs)
        if META_ON[0]:  # the spelling's own checks may read values: a meta tensor takes the meta path first
            return _meta_hooks["op"](decl, fn, args, kwargs)
        return fn(*args, **kwargs)
    functools.update_wrapper(spelling, fn)
    spelling._decl = decl
    return spelling


def spelling_of(public):
    """One more spelling of the public function ``public``, routed as it is, for a namespace where PyTorch
    holds an object of its own for the op (its nn.functional.max_pool2d is not torch.max_pool2d)."""
    return _routing(public, public._decl)


def _writing_out(impl, out):
    def call(*args, **kwargs):
        return write_out(impl, out, args, kwargs)
    return call


def _any_requires_grad(args) -> bool:
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
        if isinstance(a, (list, tuple)) and _any_requires_grad(a):
            return True
    return False


_OUT_OVERLAP: dict = {}  # an op's impl -> its out= overlap rule (overlap_rules.out_rule)


def write_out(impl, out, args, kwargs):
    """``impl(*args, **kwargs)`` written into ``out`` (resized with PyTorch's warning when it has
    another shape); refused when autograd would have to see through it, as PyTorch refuses."""
    if isinstance(out, (tuple, list)):
        return _write_many(impl, out, args, kwargs)
    if _State.enabled and (_any_requires_grad(args) or _any_requires_grad(kwargs.values()) or out._requires_grad):
        raise RuntimeError(f"{impl.__name__}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    rule = _OUT_OVERLAP.get(impl)
    if rule is not None and isinstance(out, Tensor):
        overlap_rules.check_out(rule, out, args, kwargs)
    with no_grad():
        res = impl(*args, **kwargs)
    _copy_into(out, res._data)
    return out


def _write_many(impl, outs, args, kwargs):
    """``out=(values, indices)`` for the ops that return several tensors (max(dim), sort, ...)."""
    if _State.enabled and (_any_requires_grad(args) or _any_requires_grad(kwargs.values())):
        raise RuntimeError(f"{impl.__name__}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    rule = _OUT_OVERLAP.get(impl)
    for o in outs:
        if rule is not None and isinstance(o, Tensor):
            overlap_rules.check_out(rule, o, args, kwargs)
    with no_grad():
        res = impl(*args, **kwargs)
    for o, r in zip(outs, res):
        _copy_into(o, r._data)
    return type(res)(*outs) if hasattr(res, "_fields") else tuple(outs)


def _cast_check(result_dtype: np.dtype, out_dtype: np.dtype) -> None:
    if FROM_NP[result_dtype]._category > FROM_NP[out_dtype]._category:
        raise RuntimeError(f"result type {FROM_NP[result_dtype]._scalar} can't be cast to the desired "
                           f"output type {FROM_NP[out_dtype]._scalar}")


def _copy_into(out: Tensor, data: np.ndarray) -> None:
    _cast_check(data.dtype, out._data.dtype)
    if out._data.shape != data.shape:
        if out._data.size:
            old = ", ".join(map(str, out._data.shape))
            new = ", ".join(map(str, data.shape))
            warnings.warn(f"An output with one or more elements was resized since it had shape [{old}], which does "
                          f"not match the required output shape [{new}]. This behavior is deprecated, and in a "
                          "future PyTorch release outputs will not be resized unless they have zero elements. You "
                          "can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                          "t.resize_(0).", UserWarning, stacklevel=4)
        out._data = np.empty(data.shape, dtype=out._data.dtype)
    np.copyto(_writeable(out._data), data, casting="unsafe")  # an expanded out= is refused as PyTorch does
    version_counter(out)[0] += 1


# -- methods ---------------------------------------------------------------------------------------
def _inplace_of(impl, name: str):
    def method(self, *args, **kwargs):
        try:
            return _apply_inplace(self, impl, *args, **kwargs)
        except TypeError as error:  # PyTorch's other spellings of a keyword (nothing was written yet)
            again = respell_method(impl, name + "_", (self,) + args, kwargs, error)
            if again is None:
                raise
            return _apply_inplace(self, impl, *again[0][1:], **again[1])
    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"In-place version of :meth:`{name}`."
    return method


_COMMUTATIVE = frozenset({"add", "mul"})


def _reflected(fn):
    def method(self, other):
        return fn(other, self)
    return method


def _claim(attr: str, decl: OpDecl) -> None:
    owner = _METHOD_OWNERS.get(attr)
    if owner is not None and owner is not decl:
        raise RuntimeError(f"Tensor.{attr} is declared by both {owner.qualname} and {decl.qualname}")
    _METHOD_OWNERS[attr] = decl


def method_table(decl: OpDecl) -> dict:
    """{Tensor attribute name: function} for every method spelling of ``decl``."""
    table = {}
    impl = decl.impl
    method = decl.method or impl
    for n, words in decl.variants.items():
        # a method takes the keywords' other spellings as PyTorch's parser does (arguments.parsed_method)
        if "method" in words:
            table[n] = renamed(_named(method, n), f"Tensor.{n}") if decl.python_method else \
                parsed_method(_named(method, n), n)
        if "inplace" in words or "torch_inplace" in words:
            table[n + "_"] = parsed_method(_named(decl.inplace, n + "_"), n + "_") if decl.inplace else \
                _inplace_of(impl, n)
    for d in decl.dunders:
        table[d] = impl
    for d in decl.rdunders:
        # 2 * t is t.__rmul__(2): PyTorch calls mul(t, 2), so the graph's edges come in (t, scalar) order
        table[d] = impl if decl.name in _COMMUTATIVE else _reflected(impl)
    for d in decl.idunders:
        table[d] = decl.inplace or _inplace_of(impl, decl.name)
    return table


class MethodSwap:
    """Tensor's op spellings (``x.mul(y)``, ``x * y``) call the ops' implementations with nothing to ask, so a mode
    that must see them (a profile, a graph capture, a vmapped call's second run) puts a wrapper in their place while
    it runs: ``wrap(decl, attribute, current)`` gives the wrapper, or None to leave that spelling. ``on()`` puts the
    wrappers in (made once per spelling and reused while the spelling stays the same), ``off()`` puts the
    originals back, except where another swap has wrapped the spelling since: that one puts back its own."""

    def __init__(self, wrap):
        self.wrap = wrap
        self.made: dict = {}   # attribute -> (original, wrapper)
        self.swapped: list = []

    def on(self) -> None:
        for decl in list(REGISTRY.values()):
            for attr in method_table(decl):
                current = vars(Tensor).get(attr)
                if not callable(current) or isinstance(current, type):
                    continue
                made = self.made.get(attr)
                if made is None or made[0] is not current:
                    if made is not None and made[1] is current:
                        continue  # ours already
                    wrapper = self.wrap(decl, attr, current)
                    if wrapper is None:
                        continue
                    made = self.made[attr] = (current, wrapper)
                self.swapped.append((attr,) + made)
                register_attribute(attr, made[1])

    def off(self) -> None:
        while self.swapped:
            attr, original, wrapper = self.swapped.pop()
            if vars(Tensor).get(attr) is wrapper:
                register_attribute(attr, original)


def _bind_methods(decl: OpDecl) -> None:
    methods = method_table(decl)
    for n, words in decl.variants.items():
        if "torch_inplace" in words and "inplace" not in words:
            del methods[n + "_"]  # only the function spelling torch.X_
    for attr, fn in methods.items():
        _claim(attr, decl)
        register_attribute(attr, fn)


# -- namespaces ------------------------------------------------------------------------------------
def namespace(which: str) -> dict:
    """{name: public function} of every op in ``which``: "torch", "nn.functional", "linalg", ..."""
    table = {}
    for decl in REGISTRY.values():
        for n, words in decl.variants.items():
            if which == "nn.functional":
                if "functional" in words:
                    table[n] = decl.functional or (decl.public if n == decl.name else _alias_public(decl, which, n))
            elif decl.namespace == which and "function" in words:
                table[n] = decl.public if n == decl.name else _alias_public(decl, which, n)
                if n == decl.name and which == "torch":
                    decl.public.__name__ = n  # (the implementation's name may differ: _matrix_exp)
                elif n == decl.name and which in _PREFIXED:
                    decl.public.__name__ = f"{which}_{n}"
            if which == "torch" and "torch_inplace" in words:
                table[n + "_"] = _torch_inplace(decl, n)
        for q in decl.extra:
            ns, _, n = q.rpartition(".")
            if ns == which:
                table[n] = _alias_public(decl, which, n)
    home = "tinytorch" if which == "torch" else f"tinytorch.{which}"
    for n, fn in table.items():
        _findable(fn, home, n)
    return table


# PyTorch's C++ submodules name their functions with the namespace first (torch.special.expit is special_expit)
_PREFIXED = frozenset({"special", "linalg", "fft"})
_ALIASES: dict = {}    # (decl, namespace, name) -> the public function of that other spelling
_SPELLINGS: dict = {}  # (function, name) -> the same function under that name


def _alias_public(decl: OpDecl, which: str, name: str):
    """The public function of another spelling of ``decl`` (``torch.arctan`` of ``atan``, ``torch.special.expit``
    of ``sigmoid``): in PyTorch each spelling is its own callable with its own ``__name__``, and fx names a call by
    its callable. A public function of its own (the same code, so a call costs what the op's own spelling costs),
    made once."""
    key = (decl, which, name)
    fn = _ALIASES.get(key)
    if fn is None:
        fn = _ALIASES[key] = _public_function(decl)
        fn.__name__ = fn.__qualname__ = f"{which}_{name}" if which in _PREFIXED else name
    return fn


def _named(fn, name: str):
    """``fn`` as a function object of its own named ``name`` (a method's other spelling: ``Tensor.arctan`` of
    ``atan``), sharing its code, made once; ``fn`` itself where it has that name or is no plain function."""
    if type(fn) is not types.FunctionType or fn.__name__ == name:
        return fn
    copy = _SPELLINGS.get((fn, name))
    if copy is None:
        copy = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
        copy.__kwdefaults__ = fn.__kwdefaults__
        copy.__dict__.update(fn.__dict__)
        copy.__doc__, copy.__module__, copy.__qualname__ = fn.__doc__, fn.__module__, name
        copy._spelling_of = fn  # (where the function is declared: tests/_tensor_stub.py names that one)
        _SPELLINGS[(fn, name)] = copy
    return copy


def declaration_of(func):
    """The declaration ``func`` is a spelling of (a tensor subclass's ``__torch_function__`` finds its rule there): a
    public function's or spelling's ``_decl``, else the declaration owning the Tensor method of its name (``getitem``:
    ``__getitem__``'s), unless it is that op's in-place form; None for anything else."""
    name = getattr(func, "__name__", None) or ""
    decl = getattr(func, "_decl", None) or _METHOD_OWNERS.get(name) or _METHOD_OWNERS.get(f"__{name}__")
    if decl is None or (name.endswith("_") and not name.endswith("__") and not decl.name.endswith("_")) \
            or f"__{name}__" in decl.idunders:
        return None
    return decl


def own_name(func) -> str:
    """The ``__name__`` of the op's own spelling for any of its spellings (``spmm`` for ``torch.dsmm``, ``atan``
    for ``Tensor.arctan``): a table of ops keyed by name (a tensor subclass's kernels) finds every spelling."""
    first = getattr(func, "_spelling_of", None)
    if first is not None:
        return first.__name__
    decl = getattr(func, "_decl", None)
    if decl is not None and getattr(decl, "public", None) is not None:
        return decl.public.__name__
    return getattr(func, "__name__", "") or ""


def _findable(fn, home: str, name: str) -> None:
    """pickle saves a function as its module and qualified name, and refuses one not found there (a public
    function made by a factory, or a wrapper whose module holds the undecorated op): such a function takes
    the namespace that exposes it, as ``torch.sigmoid`` is ``torch``'s."""
    found = sys.modules.get(fn.__module__)
    for part in fn.__qualname__.split("."):
        found = getattr(found, part, None)
    if found is not fn:
        fn.__module__, fn.__qualname__ = home, name


def _torch_inplace(decl: OpDecl, n: str):
    """``torch.X_``: the in-place method as a function, made once per declaration. It calls ``Tensor.X_`` as it is
    at the call, so that a mode that puts its wrapper there (a graph capture, a profile) sees this spelling too
    (an export of ``torch.exp_(y)`` would otherwise lose the write)."""
    made = decl.torch_inplace
    if n not in made:
        made[n] = _routing(method_at_call(n + "_", method_table(decl)[n + "_"]), decl)
    return made[n]


def method_at_call(name: str, like):
    """A function calling ``Tensor.<name>`` as it is at each call (not as it was when the function was made): a mode
    that must see the method's calls (a graph capture, a profile) puts its wrapper there while it runs
    (``MethodSwap``), and a call of the method found earlier would go around it. ``like`` lends its name and
    docstring."""
    def call(*args, **kwargs):
        return getattr(Tensor, name)(*args, **kwargs)
    return functools.update_wrapper(call, like)
