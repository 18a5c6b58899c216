"""``tinytorch.library`` (PyTorch's ``torch.library``): define operators and register their kernels, which
``torch.ops.<namespace>.<op>`` then dispatches (see ``tinytorch/_op_namespace.py``).

``Library(ns, "DEF" | "FRAGMENT" | "IMPL", dispatch_key)``, ``.define(schema)``, ``.impl(op, fn, key)``,
``define``/``impl`` as functions and decorators, ``custom_op`` (schema inferred from type hints),
``register_kernel``, ``register_autograd`` (a real autograd formula: the op's outputs get a node whose
backward is the one given; a custom op without one gets a node whose backward raises PyTorch's error),
``register_fake``/``impl_abstract`` (the implementation that runs on meta and fake tensors:
``tinytorch/_subclasses/fake_tensor.py``), ``get_ctx`` (inside a fake implementation) and ``opcheck``
(``tinytorch/_opcheck.py``: PyTorch's four checks of an operator's registrations)."""
from __future__ import annotations

import collections.abc
import inspect
import sys
import types
import typing
import weakref

import numpy as np

from ._C import DispatchKeySet
from ._dtype import dtype as _dtype_cls
from ._op_namespace import FunctionSchema, OpOverload, OpOverloadPacket, fake_impl_ctx, lookup, ops
from ._opcheck import opcheck  # (with it fake tensors and make_fx, which opcheck runs)
from ._size import device as _device_cls
from .tensor import Tensor

__all__ = ["Library", "define", "impl", "fallthrough_kernel", "custom_op", "register_kernel", "register_autograd",
           "register_fake", "impl_abstract", "get_ctx", "infer_schema", "CustomOpDef", "opcheck"]

_DEF_NAMESPACES: dict = {}  # namespace -> weakref of the Library that holds its DEF


def fallthrough_kernel():
    """A kernel that falls through to the next dispatch key: registering it registers nothing."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def _overload_of(op, namespace: str | None = None) -> OpOverload:
    if isinstance(op, OpOverload):
        return op
    if isinstance(op, OpOverloadPacket):
        return op._overloads.get("default") or next(iter(op._overloads.values()))
    if isinstance(op, CustomOpDef):
        return op._opoverload
    if not isinstance(op, str):
        raise TypeError(f"expected an operator name or OpOverload, got {type(op).__name__}")
    name = op if "::" in op else f"{namespace}::{op}"
    found = lookup(name)
    if found is None:
        raise RuntimeError(f"operator {name} does not exist")
    return found


def _register(overload: OpOverload, fn, key: str) -> None:
    if fn is fallthrough_kernel:
        return
    overload.kernels[key] = fn


class Library:
    """A set of registrations in one namespace: ``kind`` "DEF" (it defines the namespace's operators; one
    per namespace), "FRAGMENT" (defines more of them) or "IMPL" (registers kernels only, for
    ``dispatch_key`` unless ``impl`` names another)."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = ""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in ("prim",) and kind in ("DEF",):
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library with another name.")
        if kind == "DEF":
            holder = _DEF_NAMESPACES.get(ns)
            if holder is not None and holder() is not None and not holder()._destroyed:
                raise RuntimeError(f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please "
                                   "put all of your definitions in a single TORCH_LIBRARY block.")
            _DEF_NAMESPACES[ns] = weakref.ref(self)
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._op_defs = set()
        self._registrations = []  # (overload, key)
        self._destroyed = False

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        """Define the operator ``schema`` in this namespace; returns its name (``"foo"`` or ``"foo.overload"``)."""
        if self.kind == "IMPL":
            raise RuntimeError(f"define() cannot be called on a Library of kind IMPL ({self.ns})")
        parsed = FunctionSchema(schema, self.ns)
        if parsed.namespace != self.ns:
            raise RuntimeError(f"Explicitly provided namespace ({parsed.namespace}) in schema string does not match "
                               f"namespace of enclosing TORCH_LIBRARY ({self.ns}).")
        packet = ops._packet(self.ns, parsed.op_name, create=True)
        overload = parsed.overload_name or "default"
        if overload in packet._overloads:
            full = parsed.name + (f".{parsed.overload_name}" if parsed.overload_name else "")
            raise RuntimeError(f"Tried to register an operator ({full}) with the same name and overload name "
                               "multiple times.")
        packet._overloads[overload] = OpOverload(packet, parsed.overload_name, parsed)
        qualname = parsed.op_name + (f".{parsed.overload_name}" if parsed.overload_name else "")
        self._op_defs.add(qualname)
        return qualname

    def impl(self, op_name, fn, dispatch_key: str = "", *, with_keyset: bool = False, allow_override: bool = False):
        """Register ``fn`` as the kernel of ``op_name`` for ``dispatch_key`` (this library's, or
        CompositeImplicitAutograd when neither names one)."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        overload = _overload_of(op_name, self.ns)
        if overload.namespace != self.ns and not isinstance(op_name, str):
            pass  # PyTorch allows impl of another namespace's op object; so does this
        if with_keyset:
            inner = fn

            def fn(*args, **kwargs):  # noqa: F811 - the keyset argument PyTorch passes first
                return inner(DispatchKeySet(key), *args, **kwargs)
        _register(overload, fn, key)
        self._registrations.append((overload, key))

    def fallback(self, fn, dispatch_key: str = "", *, with_keyset: bool = False):
        raise NotImplementedError("tinytorch.library.Library.fallback: tinytorch has no boxed fallback kernels "
                                  "(its dispatch has no per-key fallthrough chain)")

    def _register_fake(self, op_name, fn, _stacklevel=1, *, allow_override=False):
        _overload_of(op_name, self.ns).fake = fn

    def _destroy(self) -> None:
        for overload, key in self._registrations:
            overload.kernels.pop(key, None)
        for qualname in self._op_defs:
            name, _, overload = qualname.partition(".")
            packet = ops._packet(self.ns, name)
            if packet is not None:
                packet._overloads.pop(overload or "default", None)
                if not packet._overloads:
                    getattr(ops, self.ns)._packets.pop(name, None)
        self._registrations.clear()
        self._op_defs.clear()
        self._destroyed = True


def _fragment(ns: str) -> Library:
    lib = _FRAGMENTS.get(ns)
    if lib is None:
        lib = _FRAGMENTS[ns] = Library(ns, "FRAGMENT")
    return lib


_FRAGMENTS: dict = {}


def define(qualname: str, schema: str, *, lib: Library | None = None, tags=()):
    """``define("mylib::foo", "(Tensor x) -> Tensor")``: a new operator."""
    ns, _, name = qualname.partition("::")
    lib = lib or _fragment(ns)
    lib.define(name + schema, tags=tags)


def impl(qualname, types="CompositeImplicitAutograd", func=None, *, lib: Library | None = None):
    """``impl("mylib::foo", "cpu", fn)`` (or as a decorator): register a kernel for a device type or dispatch key."""
    keys = [types] if isinstance(types, str) else list(types)
    keys = [{"cpu": "CPU", "cuda": "CUDA", "default": "CompositeExplicitAutograd", "meta": "Meta",
             "mps": "MPS", "xpu": "XPU"}.get(k, k) for k in keys]

    def register(fn):
        overload = _overload_of(qualname)
        for key in keys:
            if lib is not None:
                lib.impl(overload, fn, key)
            else:
                _register(overload, fn, key)
        return fn

    return register if func is None else register(func)


def register_kernel(op, device_types, func=None, *, lib=None):
    """A kernel of ``op`` for ``device_types`` ("cpu", None for every device)."""
    if isinstance(op, CustomOpDef):
        return op.register_kernel(device_types, func)
    if device_types is None:
        device_types = "CompositeExplicitAutograd"
    return impl(op, device_types, func, lib=lib)


def register_fake(op, func=None, /, *, lib=None, _stacklevel: int = 1, allow_override: bool = False):
    """Register the fake implementation of ``op``: what runs on meta and fake tensors (it makes results of the
    right shapes with ``empty``/``new_empty``). ``op`` must be defined (RuntimeError otherwise, as PyTorch)."""
    if isinstance(op, CustomOpDef):
        return op.register_fake(func) if func is not None else op.register_fake

    def register(fn):
        _overload_of(op).fake = fn
        return fn

    return register if func is None else register(func)


impl_abstract = register_fake


def register_autograd(op, backward, /, *, setup_context=None, lib=None) -> None:
    """Make ``op`` differentiable: ``setup_context(ctx, inputs, output)`` runs after its forward, and
    ``backward(ctx, *grads)`` returns one gradient (or None) per input."""
    overload = _overload_of(op)
    overload.autograd = (backward, setup_context)
    overload.__dict__.pop("_autograd_function", None)  # the node class made for the previous formula


def get_ctx():
    """The context of the fake implementation that is running (``new_dynamic_size``); None outside one."""
    return fake_impl_ctx()


# -- custom_op ----------------------------------------------------------------------------------------------
# PyTorch's parameter types, as in its torch/_library/infer_schema.py: (Python type, schema type, whether a list of
# it is allowed (T[]), a list of optional ones (T?[]), an optional list (T[]?)); every type may also be optional
_Number = int | float | bool  # torch.types.Number
_PARAM_TYPES = ((Tensor, "Tensor", True, True, False), (int, "SymInt", True, False, True),
                (float, "float", True, False, True), (bool, "bool", True, False, True),
                (str, "str", False, False, False), (_Number, "Scalar", True, False, False),
                (_dtype_cls, "ScalarType", False, False, False), (_device_cls, "Device", False, False, False))
_RETURN_TYPES = ((Tensor, "Tensor"), (typing.List[Tensor], "Tensor[]"), (list[Tensor], "Tensor[]"),  # noqa: UP006
                 (int, "SymInt"), (float, "float"), (bool, "bool"), (_Number, "Scalar"))
_SEQUENCES = (list, typing.List, typing.Sequence, collections.abc.Sequence)  # noqa: UP006


def _optional_of(ann):
    """``X`` for ``Optional[X]``, ``X | None`` and ``Union[X, None]`` (of several types: their Union), else None."""
    if typing.get_origin(ann) in (typing.Union, types.UnionType):
        args = typing.get_args(ann)
        if type(None) in args:
            rest = tuple(a for a in args if a is not type(None))
            return rest[0] if len(rest) == 1 else typing.Union[rest]
    return None


def _sequence_of(ann):
    """``X`` for ``list[X]``, ``List[X]``, ``Sequence[X]`` and ``collections.abc.Sequence[X]``, else None."""
    if typing.get_origin(ann) in _SEQUENCES and len(typing.get_args(ann)) == 1:
        return typing.get_args(ann)[0]
    return None


def _param_schema_type(ann) -> str | None:
    """The schema type PyTorch gives a parameter annotation, or None where it has none."""
    inner = _optional_of(ann)
    if inner is not None:
        if _sequence_of(inner) is not None:  # Optional[list[int]]
            for py, name, _, _, optional_list in _PARAM_TYPES:
                if optional_list and _sequence_of(inner) == py:
                    return f"{name}[]?"
            return None
        base = _param_schema_type_plain(inner)
        return None if base is None else base + "?"
    return _param_schema_type_plain(ann)


def _param_schema_type_plain(ann) -> str | None:
    """The schema type of an annotation that is not ``Optional``: a base type or a list of one."""
    element = _sequence_of(ann)
    if element is not None:
        optional = _optional_of(element)
        for py, name, listed, optional_listed, _ in _PARAM_TYPES:
            if optional is not None and optional_listed and optional == py:
                return f"{name}?[]"
            if optional is None and listed and element == py:
                return f"{name}[]"
        return None
    for py, name, _, _, _ in _PARAM_TYPES:
        if ann == py:  # (``int | float | bool`` equals ``typing.Union[int, float, bool]``)
            return name
    return None


def _valid_types() -> str:
    """PyTorch's list of the accepted annotations, as its errors print it."""
    names = []
    for py, _, listed, optional_listed, optional_list in _PARAM_TYPES:
        names += [py, typing.Optional[py]]
        sequences = (typing.Sequence, typing.List, collections.abc.Sequence, list)  # noqa: UP006
        if listed:
            names += [s[py] for s in sequences]
        if optional_listed:
            names += [s[typing.Optional[py]] for s in sequences]
        if optional_list:
            names += [typing.Optional[s[py]] for s in sequences]
    return "dict_keys([" + ", ".join(map(repr, names)) + "])"


def _default_repr(default, name: str, error) -> str:
    if default is None or isinstance(default, (int, float, bool)):
        return str(default)
    if isinstance(default, (str, _device_cls)):
        return f'"{default}"'
    if isinstance(default, _dtype_cls):
        return str(default).rpartition(".")[2]  # torch.float16 -> float16
    error(f"Parameter {name} has an unsupported default value type {type(default)}. Please file an issue on GitHub so "
          "we can prioritize this.")


def infer_schema(prototype_function, /, *, mutates_args, op_name: str | None = None, tags=()) -> str:
    """The schema string of a type-annotated function (PyTorch's ``torch.library.infer_schema``): ``Optional[X]``
    and ``X | None`` give ``X?``, ``list[X]``/``Sequence[X]`` give ``X[]``; a mutated Tensor argument is
    ``Tensor(a<i>!)``, ``i`` its position. ``tags`` is accepted; tinytorch has no ``torch.Tag`` to infer from."""
    sig = inspect.signature(prototype_function)

    def error(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    def resolve(ann):
        if isinstance(ann, str):  # ``from __future__ import annotations``: evaluated where the function lives
            try:
                return eval(ann, prototype_function.__globals__)
            except NameError as e:
                error(f"Unsupported type annotation {ann}. It is not a type. ({e}). If you are using 'from __future__ "
                      "import annotations', note that annotations are evaluated lazily as strings; make sure all types "
                      "referenced in annotations are importable at module scope, not only inside a local function.")
            except Exception as e:
                error(f"Unsupported type annotation {ann}. It is not a type. ({type(e).__name__}: {e})")
        return ann

    if not isinstance(mutates_args, str):
        mutates_args = tuple(mutates_args)
    elif mutates_args != "unknown":
        raise ValueError("mutates_args must either be a sequence of the names of the arguments that are mutated or "
                         "the string 'unknown'. ")
    params, seen, star = [], set(), False
    for idx, (name, p) in enumerate(sig.parameters.items()):
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            error("We do not support positional-only args, varargs, or varkwargs.")
        if p.kind == p.KEYWORD_ONLY and not star:
            params.append("*")
            star = True
        if p.annotation is inspect.Parameter.empty:
            error(f"Parameter {name} must have a type annotation.")
        ann = resolve(p.annotation)
        schema_type = _param_schema_type(ann)
        if schema_type is None:
            if typing.get_origin(ann) is tuple:
                args = typing.get_args(ann)
                as_list = list if not args else list[args[0] if len(args) == 1 or args[1:] == (...,) else
                                                    typing.Union[args]]
                example = f"For example, {as_list}.\n\n" if _param_schema_type(as_list) else "\n\n"
                error(f"Parameter {name} has unsupported type {p.annotation}. We do not support Tuple inputs in "
                      f"schema. As a workaround, please try to use List instead. {example}The valid types are: "
                      f"{_valid_types()}.")
            error(f"Parameter {name} has unsupported type {p.annotation}. The valid types are: {_valid_types()}.")
        if mutates_args == "unknown":  # every Tensor argument may be written
            mutated = schema_type.startswith("Tensor")
        else:
            mutated = name in mutates_args
        if mutated:
            if not schema_type.startswith("Tensor"):
                error(f"Parameter {name} is in mutable_args but only Tensors or collections of Tensors can be mutated")
            schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        seen.add(name)
        if p.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
        else:
            params.append(f"{schema_type} {name}={_default_repr(p.default, name, error)}")
    if mutates_args != "unknown" and set(mutates_args) - seen:
        error(f"{set(mutates_args) - seen} in mutates_args were not found in the custom op's signature. mutates_args "
              "should contain the names of all args that the custom op mutates, or just the string 'unknown' if you "
              "don't know.")
    ret = _return_schema(resolve(sig.return_annotation), error)
    return f"{op_name or ''}({', '.join(params)}) -> {ret}"


def _return_schema(ann, error) -> str:
    if ann is None:
        return "()"
    if ann is inspect.Parameter.empty:
        error("No return type annotation was provided. Please add one.")

    def one(a) -> str | None:
        return next((name for py, name in _RETURN_TYPES if a == py), None)

    valid = "{" + ", ".join(f"{py!r}: {name!r}" for py, name in _RETURN_TYPES) + "}"
    if typing.get_origin(ann) is not tuple:
        name = one(ann)
        if name is None:
            error(f"Return has unsupported type {ann}. The valid types are: {valid}.")
        return name
    names = [one(a) for a in typing.get_args(ann)]
    if None in names:
        error(f"Return has unsupported type {ann}. The valid types are: {valid}.")
    joined = ", ".join(names)
    return f"(({joined}))" if len(names) == 1 else f"({joined})"  # a one-element tuple, as PyTorch writes it


class CustomOpDef:
    """What ``custom_op`` returns: callable (it calls ``torch.ops.ns.name``), with ``register_kernel``,
    ``register_fake``, ``register_autograd``."""

    def __init__(self, namespace: str, name: str, schema: str, fn):
        self._namespace, self._name = namespace, name
        self._schema = schema  # the text given or inferred, without the name (as PyTorch's CustomOpDef keeps it)
        self._init_fn = fn
        self._lib = _library_allowing_overwrite(namespace, name)
        self._lib.define(name + schema)
        self._opoverload = lookup(f"{namespace}::{name}")
        self._opoverload.kernels["CompositeExplicitAutograd"] = self._checked(fn)
        # an earlier definition of this name (a notebook cell run again) calls this one from now on, as in PyTorch
        for old in _CUSTOM_OPS.get(self._opoverload.name(), ()):
            old._opoverload = self._opoverload
        _CUSTOM_OPS.setdefault(self._opoverload.name(), weakref.WeakSet()).add(self)
        self._opoverload._custom = self
        # as PyTorch's custom ops: differentiable only through register_autograd; until then a node whose
        # backward refuses
        self._opoverload.autograd = (self._no_autograd, None)
        self.__name__ = name
        self.__doc__ = fn.__doc__

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def _checked(self, kernel):
        """``kernel`` refusing, with PyTorch's error, a result that is (or views) an input or another result: a
        custom op's outputs are new tensors."""
        def run(*args, **kwargs):
            out = kernel(*args, **kwargs)
            outs = [t for t in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(t, Tensor)]
            if outs:
                ins = [t for t in (*args, *kwargs.values()) if isinstance(t, Tensor)]
                for i, t in enumerate(outs):
                    if any(_aliases(t, u) for u in ins + outs[:i]):
                        raise RuntimeError(_ALIASED_OUTPUT.format(self._name, _MODULE_TEXT))
            return out
        return run

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def register_kernel(self, device_types, fn=None):
        def register(f):
            keys = [device_types] if isinstance(device_types, str) or device_types is None else device_types
            for k in keys:
                key = "CompositeExplicitAutograd" if k is None else {"cpu": "CPU"}.get(k, k.upper())
                self._opoverload.kernels[key] = self._checked(f)
            return f

        return register if fn is None else register(fn)

    def register_fake(self, fn=None):
        def register(f):
            self._opoverload.fake = f
            return f

        return register if fn is None else register(fn)

    def _no_autograd(self, ctx, *grads):
        raise RuntimeError(f"Trying to backward through {self._opoverload!r} but no autograd formula was registered. "
                           "Please use register_autograd to add one.")

    def register_autograd(self, backward, *, setup_context=None) -> None:
        register_autograd(self._opoverload, backward, setup_context=setup_context)

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        raise NotImplementedError("tinytorch has no __torch_dispatch__ (no dispatcher modes)")

    def register_vmap(self, func=None, /):
        raise NotImplementedError("CustomOpDef.register_vmap: tinytorch's vmap batches declared ops only")

    def set_kernel_enabled(self, device_type, enabled: bool = True):
        import contextlib

        return contextlib.nullcontext()


CustomOpDef.__module__ = "tinytorch._library.custom_ops"  # PyTorch's module, which re-exports it


_CUSTOM_OPS: dict = {}  # "ns::name" -> the CustomOpDefs made under that name (weakly held)
_OP_LIBRARIES: dict = {}  # "ns::name" -> the Library that holds a custom op's definition
_MODULE_TEXT = repr(sys.modules[__name__])
_ALIASED_OUTPUT = (
    "{} (with implementation in {}): The output of this custom operator (1) must not also be an input to this custom "
    "operator and (2) may not alias any inputs to this custom operator or other returns. The most common way to "
    "trigger this error is if we have y = custom_op(x) and y and x are the same Tensor. Please instead return a clone "
    "of the offending output tensor(s) (e.g. return x.clone()) or refactor the custom operator to not return y.")


def _aliases(a: Tensor, b: Tensor) -> bool:
    if a is b:
        return True
    x, y = a._data, b._data
    return isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and np.may_share_memory(x, y)


def _library_allowing_overwrite(ns: str, name: str) -> Library:
    """A custom op's own library: defining the name again (a notebook cell run twice) drops the earlier definition
    with its kernels and fake implementation, as PyTorch does."""
    qualname = f"{ns}::{name}"
    old = _OP_LIBRARIES.pop(qualname, None)
    if old is not None:
        old._destroy()
    lib = _OP_LIBRARIES[qualname] = Library(ns, "FRAGMENT")
    return lib


def custom_op(name: str, fn=None, /, *, mutates_args, device_types=None, schema: str | None = None, tags=None):
    """``@custom_op("mylib::foo", mutates_args=())``: an operator from a type-annotated Python function, which
    becomes its kernel (for ``device_types``, every device when None)."""
    def inner(f):
        ns, sep, opname = name.partition("::")
        if not sep:
            raise ValueError(f"custom_op(name): expected 'namespace::name', got {name!r}")
        text = schema if schema is not None else infer_schema(f, mutates_args=mutates_args)
        op = CustomOpDef(ns, opname, text, f)
        if device_types is not None:
            del op._opoverload.kernels["CompositeExplicitAutograd"]
            op.register_kernel(device_types, f)
        return op

    return inner if fn is None else inner(fn)
