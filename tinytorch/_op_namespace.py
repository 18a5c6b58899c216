"""``tinytorch.ops`` (PyTorch's ``torch.ops``): the operators registered through ``tinytorch.library``, by
namespace: ``torch.ops.mylib.foo(x)``, ``torch.ops.mylib.foo.default``, ``torch.ops.aten.add``.

An operator is a schema (``"foo(Tensor x, float s=1.) -> Tensor"``) plus kernels by dispatch key.
A call runs, in PyTorch's order for a CPU tensor: the ``AutocastCPU`` kernel while CPU autocast is on
(unless an ``_ExcludeDispatchKeyGuard`` hides it), the autograd formula of ``register_autograd`` when
grad mode is on and a tensor argument requires grad (the kernel then runs below autograd, as a node
whose backward is the registered one), an ``Autograd``/``AutogradCPU`` kernel, then the backend kernel
(``CPU``, ``CompositeExplicitAutograd``, or a ``CompositeImplicitAutograd`` one, which runs above
autograd: its own ops record the graph). On meta or fake tensors (``tinytorch/_meta.py``,
``tinytorch/_subclasses/fake_tensor.py``) the ``Meta`` kernel or the fake implementation (``register_fake``)
runs instead of the backend kernel. While make_fx or export captures, a call is recorded as one node
(``torch.ops.ns.op.default``) whose kernel runs below the capture.

``torch.ops.aten.X`` is tinytorch's own op ``X`` where one exists under that name (``tinytorch.X``,
``tinytorch.nn.functional.X`` or the method ``Tensor.X``), or one declared with ``aten_only`` (the ATen
operators with no other spelling: ``aten.slice``, ``native_dropout_backward``...); every overload name
(``.default``, ``.Tensor``, ``.Scalar``...) calls it.

``torch.ops.load_library(path)`` loads a shared library with ctypes, as PyTorch does; an operator
library built against PyTorch's C++ (libtorch) cannot load into tinytorch and raises OSError, which
torchvision's loader tolerates. The one exception is torchvision's own extensions (``_C``,
``_C_stable``, ``image``, ``image_stable`` inside a ``torchvision`` folder): tinytorch has those
operators in Python (``tinytorch/_vision_ops.py``, named in ``_PROVIDERS``), and "loading" such a
library registers them."""
from __future__ import annotations

import os
import re
import threading
import types

from . import _dtype, _meta_data
from ._size import device as _device
from .amp import autocast_mode as _autocast_mode
from .autograd.function import Function
from .autograd.grad_mode import _State
from ._ops._core.registry import ATEN_ONLY as _ATEN_ONLY, CAPTURE as _CAPTURE, aten_only as _aten_only, \
    method_at_call as _method_at_call, namespace as _namespace
from .tensor import Tensor
from . import sparse as _sparse
from ._ops.nn import activation_smooth as _activation_smooth
from ._ops.pointwise.inplace import apply_inplace as _apply_inplace

__all__ = ["ops", "OpOverload", "OpOverloadPacket", "FunctionSchema", "parse_schema", "excluded_keys"]


# -- schemas -------------------------------------------------------------------------------------------
class Argument:
    __slots__ = ("name", "type", "default", "has_default", "kwarg_only")

    def __init__(self, name, type_, default, has_default, kwarg_only):
        self.name, self.type, self.default, self.has_default, self.kwarg_only = \
            name, type_, default, has_default, kwarg_only

    def __repr__(self) -> str:
        d = f"={self.default!r}" if self.has_default else ""
        return f"{self.type} {self.name}{d}"


class FunctionSchema:
    """A parsed operator schema: ``ns::name.overload(args) -> returns``."""

    def __init__(self, text: str, namespace: str | None = None):
        self.text = text
        m = re.match(r"^\s*(?:([\w]+)::)?([\w]+)(?:\.([\w]+))?\s*\((.*)\)\s*->\s*(.*?)\s*$", text, re.S)
        if m is None:
            raise RuntimeError(f"Unknown schema format: {text!r}")
        ns, self.op_name, overload, args, rets = m.groups()
        self.namespace = ns or namespace
        self.overload_name = overload or ""
        self.arguments = []
        kwarg_only = False
        for part in _split_top(args):
            part = part.strip()
            if not part:
                continue
            if part == "*":
                kwarg_only = True
                continue
            decl, eq, default = part.partition("=")
            pieces = decl.strip().rsplit(None, 1)
            if len(pieces) != 2:
                raise RuntimeError(f"schema {text!r}: argument {part!r} needs a type and a name")
            type_, name = pieces
            self.arguments.append(Argument(name, type_, _parse_default(default.strip(), type_) if eq else None,
                                           bool(eq), kwarg_only))
        rets = rets.strip()
        self._returns_text = ", ".join(r.strip() for r in _split_top(rets))
        if rets.startswith("(") and rets.endswith(")"):
            rets = rets[1:-1]
        self.returns = [r.strip() for r in _split_top(rets) if r.strip()]

    @property
    def name(self) -> str:
        return f"{self.namespace}::{self.op_name}"

    def normalize(self, args, kwargs) -> tuple:
        """(positional, keyword-only) arguments as PyTorch hands them to a kernel: every argument given, defaults
        filled in, the keyword-only ones as keywords."""
        bound = self.bind(args, kwargs)
        n = sum(1 for a in self.arguments if not a.kwarg_only)
        return bound[:n], {a.name: v for a, v in zip(self.arguments[n:], bound[n:])}

    def bind(self, args, kwargs) -> tuple:
        """Every argument, in schema order, from a call's positional and keyword arguments (defaults filled)."""
        out = list(args)
        if len(out) > len(self.arguments):
            raise TypeError(f"{self.name}() expected at most {len(self.arguments)} argument(s) but received "
                            f"{len(out)} argument(s). Declaration: {self.text}")
        kwargs = dict(kwargs)
        for a in self.arguments[len(out):]:
            if a.name in kwargs:
                out.append(kwargs.pop(a.name))
            elif a.has_default:
                out.append(a.default)
            else:
                raise TypeError(f"{self.name}() is missing value for argument '{a.name}'. Declaration: {self.text}")
        if kwargs:
            raise TypeError(f"{self.name}() got an unexpected keyword argument '{next(iter(kwargs))}'. "
                            f"Declaration: {self.text}")
        return tuple(out)

    def __str__(self) -> str:
        """PyTorch's canonical text: ``ns::name.overload(Tensor x, float s=2.) -> Tensor``, the defaults printed
        as PyTorch prints their values (``float s=2.0`` as ``s=2.``, ``ScalarType d=float16`` as ``d=5``)."""
        parts, star = [], False
        for a in self.arguments:
            if a.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(f"{a.type} {a.name}" + (f"={_default_text(a.default, a.type)}" if a.has_default else ""))
        overload = f".{self.overload_name}" if self.overload_name else ""
        return f"{self.name}{overload}({', '.join(parts)}) -> {self._returns_text}"

    __repr__ = __str__


def _split_top(text: str) -> list:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _parse_default(text: str, type_: str):
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text.startswith("[") and text.endswith("]"):
        inner = [p.strip() for p in text[1:-1].split(",") if p.strip()]
        return [_parse_default(p, type_.rstrip("[]?0123456789")) for p in inner]
    if text[:1] in "\"'":
        return text[1:-1]
    try:
        value = int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text  # an enum-like name (contiguous_format, Mean...): kept as written
    m = re.match(r"^(int|SymInt)\[(\d+)\]", type_)
    if m:  # "int[2] stride=1" means [1, 1]
        return [value] * int(m.group(2))
    return float(value) if type_.rstrip("?") == "float" else value


# PyTorch prints a ScalarType default as its number in c10's ScalarType enum
_SCALAR_TYPE_CODES = {"uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5, "float32": 6,
                      "float64": 7, "complex32": 8, "complex64": 9, "complex128": 10, "bool": 11, "bfloat16": 15}
_ENUM_CODES = {"strided": 0, "sparse_coo": 1, "contiguous_format": 0, "preserve_format": 1, "channels_last": 2,
               "channels_last_3d": 3}


def _default_text(value, type_: str) -> str:
    """A default as PyTorch prints it in a schema (c10's IValue printing)."""
    base = type_.split("(")[0].rstrip("?")
    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, list):
        fixed = re.match(r"^\w+\[(\d+)\]", base)
        if fixed and value and all(v == value[0] for v in value):  # int[2] stride=[1, 1] prints stride=1
            return _default_text(value[0], base.split("[")[0])
        return "[" + ", ".join(_default_text(v, base.split("[")[0]) for v in value) + "]"
    if base == "ScalarType":
        return str(_SCALAR_TYPE_CODES.get(str(value).rpartition(".")[2], value))
    if base in ("Layout", "MemoryFormat"):
        return str(_ENUM_CODES.get(str(value), value))
    if base == "Device":
        return str(value)
    if base == "str":
        return f'"{value}"'
    if isinstance(value, float):
        text = "%.17g" % value
        return text + "." if text.lstrip("-").isdigit() else text  # 2.0 prints as "2."
    return str(value)


def parse_schema(text: str) -> FunctionSchema:
    return FunctionSchema(text)


# -- dispatch keys excluded by _C._ExcludeDispatchKeyGuard, per thread ---------------------------------------
class _Excluded(threading.local):
    def __init__(self):
        self.keys = frozenset()


_excluded = _Excluded()


def excluded_keys():
    return _excluded


_AUTOGRAD_KEYS = ("AutogradCPU", "Autograd", "CompositeImplicitAutograd")
_BACKEND_KEYS = ("CPU", "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional")


class OpOverload:
    """One overload of an operator: ``torch.ops.ns.op.default``. Calling it dispatches (see the module)."""

    def __init__(self, packet: "OpOverloadPacket", overload_name: str, schema: FunctionSchema):
        self._packet = packet
        self._overloadname = overload_name or "default"
        self._schema = schema
        self.kernels = {}          # dispatch key -> callable
        self.autograd = None       # (backward, setup_context) from register_autograd
        self.fake = None           # the fake implementation (register_fake): runs on meta and fake tensors
        self._custom = None        # the CustomOpDef that defined it (custom_op)
        self.__name__ = f"{packet._name}.{self._overloadname}"
        self.__qualname__ = self.__name__
        self.__module__ = f"torch.ops.{packet._namespace}"

    @property
    def namespace(self) -> str:
        return self._packet._namespace

    @property
    def overloadpacket(self) -> "OpOverloadPacket":
        return self._packet

    @property
    def op(self):
        return self

    def name(self) -> str:
        suffix = "" if self._overloadname == "default" else f".{self._overloadname}"
        return f"{self._packet._namespace}::{self._packet._name}{suffix}"

    def __repr__(self) -> str:
        return f"{self._packet._namespace}.{self._packet._name}.{self._overloadname}"

    def has_kernel_for_dispatch_key(self, key) -> bool:
        return str(getattr(key, "name", key)) in self.kernels

    def __call__(self, *args, **kwargs):
        capture = _CAPTURE[0]
        if capture is not None and capture.hook is not None:  # make_fx / export: the call is one node
            return capture.op(self, args, kwargs)
        kernels = self.kernels
        excluded = _excluded.keys
        if "AutocastCPU" in kernels and "AutocastCPU" not in excluded and _autocast_mode.is_autocast_enabled("cpu"):
            return kernels["AutocastCPU"](*args, **kwargs)
        if self.autograd is not None and _State.enabled and _any_requires_grad(args, kwargs):
            return _autograd_call(self, args, kwargs)
        if _any_meta(args, kwargs):
            return self._meta_call(args, kwargs)
        for key in _AUTOGRAD_KEYS:
            if key in kernels and key not in excluded:
                return kernels[key](*args, **kwargs)
        for key in _BACKEND_KEYS:
            if key in kernels:
                # as PyTorch's autograd fallback for Python kernels: the kernel's own ops record the graph
                return kernels[key](*args, **kwargs)
        raise NotImplementedError(
            f"Could not run '{self.name()}' with arguments from the 'CPU' backend. This could be because the "
            "operator doesn't exist for this backend, or was omitted during the selective/custom build process "
            f"(if using custom build). '{self.name()}' is only available for these backends: "
            f"[{', '.join(sorted(kernels)) or 'none'}].")

    def _meta_call(self, args, kwargs):
        """On meta or fake tensors: the ``Meta`` kernel, else the fake implementation, else (an operator
        ``Library.define`` made) a composite kernel, which runs the meta machinery through its own ops."""
        kernel = self.kernels.get("Meta")
        if kernel is not None:
            return kernel(*args, **kwargs)
        if self.fake is not None:
            with _FakeImplCtx(self):
                return self.fake(*args, **kwargs)
        if self._custom is not None:
            if not self._schema.returns and any("!" in a.type for a in self._schema.arguments):
                return None  # PyTorch's trivial fake implementation: an op that mutates and returns nothing
            custom = self._custom
            raise RuntimeError(f"There was no fake impl registered for {custom!r}. This is necessary for "
                               "torch.compile/export/fx tracing to work. Please use "
                               f"`{custom._init_fn.__name__}.register_fake` to add an fake impl.")
        for key in ("CompositeImplicitAutograd", "CompositeExplicitAutograd"):
            if key in self.kernels:
                return self.kernels[key](*args, **kwargs)
        fake = _meta_data.fake_hook()  # (bound once fake tensors exist: their module's UnsupportedOperatorException)
        if fake is not None and any(getattr(t, "fake_mode", None) is not None
                                    for t in _flat_tensors((args, kwargs), [])):
            raise fake[2](repr(self))
        raise NotImplementedError(
            f"Could not run '{self.name()}' with arguments from the 'Meta' backend. This could be because the "
            "operator doesn't exist for this backend, or was omitted during the selective/custom build process "
            f"(if using custom build). '{self.name()}' is only available for these backends: "
            f"[{', '.join(sorted(self.kernels)) or 'none'}].")

    def redispatch(self, keyset, *args, **kwargs):
        return self(*args, **kwargs)

    def decompose(self, *args, **kwargs):
        if "CompositeImplicitAutograd" in self.kernels:
            return self.kernels["CompositeImplicitAutograd"](*args, **kwargs)
        return NotImplemented


def _any_requires_grad(args, kwargs) -> bool:
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            if a.requires_grad:
                return True
        elif isinstance(a, (list, tuple)):
            if any(isinstance(b, Tensor) and b.requires_grad for b in a):
                return True
    return False


def _flat_tensors(x, out: list) -> list:
    if isinstance(x, Tensor):
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _flat_tensors(v, out)
    elif isinstance(x, dict):
        for v in x.values():
            _flat_tensors(v, out)
    return out


def _any_meta(args, kwargs) -> bool:
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            if a._meta:
                return True
        elif isinstance(a, (list, tuple)):
            if any(isinstance(b, Tensor) and b._meta for b in a):
                return True
    return False


class _FakeCtxState(threading.local):
    ctx = None


_fake_ctx = _FakeCtxState()


class _FakeImplCtx:
    """What ``torch.library.get_ctx()`` answers inside a fake implementation."""

    def __init__(self, overload):
        self._op = overload

    def __enter__(self):
        self._prev, _fake_ctx.ctx = _fake_ctx.ctx, self
        return self

    def __exit__(self, *exc):
        _fake_ctx.ctx = self._prev
        return False

    def new_dynamic_size(self, *, min: int = 0, max=None):
        raise NotImplementedError("get_ctx().new_dynamic_size(): tinytorch has no symbolic sizes, so an operator "
                                  "whose output shape depends on its input's values cannot run on fake tensors")

    create_unbacked_symint = new_dynamic_size


def fake_impl_ctx():
    """The context of the fake implementation running in this thread, or None."""
    return _fake_ctx.ctx


def _autograd_call(overload: OpOverload, args, kwargs):
    """The kernel under a node whose backward is ``register_autograd``'s: setup_context(ctx, inputs, output)
    runs after the forward, as in PyTorch."""

    backward, setup_context = overload.autograd
    inputs, kwonly = overload._schema.normalize(args, kwargs)
    fn = overload.__dict__.get("_autograd_function")
    if fn is None:
        def forward(ctx, *inputs):
            kwonly = inputs[-1]
            inputs = inputs[:-1]
            with _exclude(("AutogradCPU", "Autograd")):
                out = overload(*inputs, **kwonly)
            if setup_context is not None:
                if kwonly:
                    setup_context(ctx=ctx, inputs=inputs, keyword_only_inputs=kwonly, output=out)
                else:
                    setup_context(ctx=ctx, inputs=inputs, output=out)
            return out

        def backward_(ctx, *grads):
            grads_in = backward(ctx, *grads)
            if not isinstance(grads_in, tuple):
                grads_in = (grads_in,)
            return (*grads_in, None)  # and none for the keyword-only arguments' slot

        # PyTorch's name: GeneratedBackwardFor_<ns>_<op>_<overload>, whose node prints with "Backward" added
        name = f"GeneratedBackwardFor_{overload.namespace}_{overload._packet._name}_{overload._overloadname}"
        fn = type(name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward_)})
        overload._autograd_function = fn
    return fn.apply(*inputs, kwonly)


class _exclude:
    """Hide dispatch keys for the calls inside (``_C._ExcludeDispatchKeyGuard``)."""

    def __init__(self, keys):
        self._keys = frozenset(keys)

    def __enter__(self):
        self._prev = _excluded.keys
        _excluded.keys = self._prev | self._keys
        return self

    def __exit__(self, *exc):
        _excluded.keys = self._prev
        return False


class OpOverloadPacket:
    """An operator by name, all its overloads: ``torch.ops.ns.op``; calling it calls the overload the
    arguments select (the ``default`` one, or the only one)."""

    def __init__(self, namespace: str, name: str):
        self._namespace = namespace
        self._name = name
        self._overloads = {}  # overload name ("default" for "") -> OpOverload
        self.__name__ = name
        self.__qualname__ = name
        self.__module__ = f"torch.ops.{namespace}"

    @property
    def _qualified_op_name(self) -> str:
        return f"{self._namespace}::{self._name}"

    def overloads(self) -> list:
        return list(self._overloads)

    def __getattr__(self, name):
        overloads = self.__dict__.get("_overloads", {})
        if name in overloads:
            return overloads[name]
        raise AttributeError(f"The underlying op of '{self._namespace}.{self._name}' has no overload name '{name}'")

    def __repr__(self) -> str:
        return f"{self._namespace}.{self._name}"

    def __call__(self, *args, **kwargs):
        ov = self._overloads.get("default")
        if ov is None:
            if len(self._overloads) != 1:
                raise RuntimeError(f"{self._qualified_op_name}: several overloads ({', '.join(self._overloads)}); "
                                   "call one of them (torch.ops.ns.op.overload)")
            ov = next(iter(self._overloads.values()))
        return ov(*args, **kwargs)


class _OpNamespace(types.ModuleType):
    """``torch.ops.<namespace>``: its operators as attributes."""

    def __init__(self, name: str):
        super().__init__("torch.ops." + name)
        self.name = name
        self._packets = {}

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        packets = self.__dict__["_packets"]
        if op_name in packets:
            return packets[op_name]
        raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")

    def __iter__(self):
        return iter(self._packets)

    def __dir__(self):
        return sorted(self._packets)


class _AtenNamespace(_OpNamespace):
    """``torch.ops.aten``: tinytorch's own ops under their ATen names."""

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        packets = self.__dict__["_packets"]
        if op_name in packets:
            return packets[op_name]
        fn = _aten_function(op_name)
        if fn is None:
            raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{op_name}'")
        packet = _AtenPacket("aten", op_name, fn)
        packets[op_name] = packet
        return packet


def _aten_function(name: str):
    """tinytorch's op named ``name`` (or without a leading underscore): one PyTorch has only under
    ``torch.ops.aten``, its torch-level function, its nn.functional one, or the Tensor method."""
    if name in _ATEN_ONLY:
        return _ATEN_ONLY[name]
    space, _, rest = name.partition("_")
    if space in ("linalg", "special", "fft") and rest:  # aten.linalg_vector_norm is torch.linalg.vector_norm
        fn = _namespace(space).get(rest)
        if fn is not None:
            return fn
    base = name[1:] if name.startswith("_") and not name.startswith("__") else name
    for candidate in (name, base):
        for which in ("torch", "nn.functional"):
            fn = _namespace(which).get(candidate)
            if fn is not None:
                return fn
        method = getattr(Tensor, candidate, None)
        if callable(method) and not isinstance(method, type):  # (aten.add_: as the method is at each call, so a
            return _method_at_call(candidate, method)          # capture's wrapper of Tensor.add_ sees it)
    return None




# ATen operators with no torch-level spelling that tensor-subclass libraries name (PyG's Index and EdgeIndex
# register handlers keyed by them at import): each one a composition of tinytorch's public ops
@_aten_only("alias", view_inverse=lambda call, base, value, src: src)  # (all of the base: src is its new value)
def _alias(self):
    """A view of all of ``self`` (``AliasBackward0``)."""
    return self.as_subclass(Tensor)


@_aten_only("index")
def _index(self, indices):
    """``self[indices]``, a None among ``indices`` taking its whole dimension."""
    return self[tuple(slice(None) if i is None else i for i in indices)]


@_aten_only("_local_scalar_dense")
def _local_scalar_dense(self):
    """``self.item()``: the core ATen operator an exported ``item`` is lowered to."""
    return self.item()


@_aten_only("_assert_scalar")
def _assert_scalar(self, assert_msg):
    """An exported program's runtime check on an unbacked value (``u0 >= 0`` for a size read by ``.item()``)."""
    if not self:
        raise RuntimeError(assert_msg)


@_aten_only("_assert_tensor_metadata")
def _assert_tensor_metadata(a, size=None, stride=None, dtype=None, *, device=None, layout=None):
    """An exported program's check, before each ``to``, that ``a`` has the size, strides, dtype, device and layout
    the export saw (each one given), raising PyTorch's mismatch error."""
    checks = (("sizes", size, lambda: list(a.shape), str), ("strides", stride, lambda: list(a.stride()), str),
              ("dtype", dtype, lambda: a.dtype, lambda d: d._scalar if d is dtype else _dtype.cpp_name(d)),
              ("device", None if device is None else _device(device), lambda: a.device, lambda d: str(d)),
              ("layout", layout, lambda: a.layout, _layout_name))
    for what, expected, actual, shown in checks:
        if expected is not None:
            got = actual()
            if (list(expected) if what in ("sizes", "strides") else expected) != got:
                raise RuntimeError(f"Tensor {what} mismatch! Expected: {shown(expected)}, Got: {shown(got)}")


def _layout_name(layout) -> str:
    """c10's name of a layout in its error texts: Strided, Sparse (COO), SparseCsr..."""
    name = str(layout).rpartition(".")[2]
    return "Sparse" if name == "sparse_coo" else name.title().replace("_", "")


@_aten_only("_sparse_addmm")
def _sparse_addmm(self, mat1, mat2, *, beta=1, alpha=1):
    """``beta * self + alpha * (mat1 @ mat2)`` with ``mat1`` sparse: ``torch.sparse.addmm``."""
    return _sparse.addmm(self, mat1, mat2, beta=beta, alpha=alpha)


# ATen operators a captured graph calls (make_fx's decompositions: tinytorch/fx/experimental/_aten_rules.py) whose
# ATen arguments differ from tinytorch's spelling of the op
@_aten_only("_softmax")
def _softmax(self, dim, half_to_float):
    return self.softmax(dim)


@_aten_only("_log_softmax")
def _log_softmax(self, dim, half_to_float):
    return self.log_softmax(dim)


_PUBLIC: dict = {}  # (namespace, name) -> the public function: a namespace's table is built at each call


def _public(which: str, name: str):
    """``torch.<name>`` or ``torch.nn.functional.<name>``'s function (looked up once)."""
    fn = _PUBLIC.get((which, name))
    if fn is None:
        fn = _PUBLIC[which, name] = _namespace(which)[name]
    return fn


@_aten_only("convolution")
def _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    nd = weight.dim() - 2
    if transposed:
        fn = _public("nn.functional", f"conv_transpose{nd}d")
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return _public("nn.functional", f"conv{nd}d")(input, weight, bias, stride, padding, dilation, groups)


@_aten_only("_native_batch_norm_legit_no_training")
def _batch_norm_no_training(input, weight, bias, running_mean, running_var, momentum, eps):
    out = _public("torch", "batch_norm")(input, weight, bias, running_mean, running_var, False, momentum, eps, False)
    return out, input.new_empty(0), input.new_empty(0)


@_aten_only("elu", recorded=True)
def _elu(self, alpha=1, scale=1, input_scale=1):
    """ELU with PyTorch's scale and input scale (``selu`` is this operator in PyTorch's graphs):
    scale * x where x > 0, else scale * alpha * (exp(input_scale * x) - 1)."""
    return _activation_smooth._elu(self, alpha, scale, input_scale)


@_aten_only("elu_", recorded=True)
def _elu_(self, alpha=1, scale=1, input_scale=1):
    """``elu`` written into ``self`` (``F.elu_``, ``F.selu_``: ``EluBackward1``, which saves the result)."""
    return _apply_inplace(self, _activation_smooth._elu, alpha, scale, input_scale,
                          _node=_activation_smooth.EluBackward1)


@_aten_only("copy", recorded=True)
def _copy(self, src, non_blocking=False):
    """``self.copy_(src)`` as a new tensor (a functionalised graph's ``copy_`` and ``fill_`` of a tensor): ``src``
    broadcast to ``self``'s shape, in ``self``'s dtype and layout."""
    out = self.clone()
    out.copy_(src)
    return out


@_aten_only("lift_fresh_copy")
def _lift_fresh_copy(self):
    """A copy of a tensor the program made from Python values (a graph's constant, such as a list index)."""
    return self.clone()


@_aten_only("log_sigmoid")
def _log_sigmoid(self):
    return _public("nn.functional", "logsigmoid")(self)


@_aten_only("log_sigmoid_forward")
def _log_sigmoid_forward(self):
    """logsigmoid and PyTorch's buffer for its backward (tinytorch's node keeps what it needs: an empty one)."""
    return _public("nn.functional", "logsigmoid")(self), self.new_empty(0)


@_aten_only("feature_dropout")
def _feature_dropout(input, p, train):
    """Channel dropout of a batched input of 1, 2 or 3 spatial dims (one noise value per sample and channel)."""
    return _public("nn.functional", f"dropout{input.dim() - 2}d")(input, p, train)


def _upsample(mode: str, corners: bool):
    """``upsample_<mode>`` in either overload: ``.default`` (input, output_size, [align_corners,] *scales) or
    ``.vec`` (input, output_size, [align_corners,] scale_factors): F.interpolate with the scales where given
    (they set the sampling positions), else the size."""
    def run(input, output_size, *rest):
        align = None
        if corners:
            align, rest = rest[0], rest[1:]
        scales = rest[0] if len(rest) == 1 and (rest[0] is None or isinstance(rest[0], (list, tuple))) else rest
        interpolate = _public("nn.functional", "interpolate")
        if scales and all(s is not None for s in scales):
            return interpolate(input, scale_factor=list(scales), mode=mode, align_corners=align)
        return interpolate(input, size=list(output_size), mode=mode, align_corners=align)
    return run


for _nd in (1, 2, 3):
    _aten_only(f"upsample_nearest{_nd}d")(_upsample("nearest", False))
    _aten_only(f"_upsample_nearest_exact{_nd}d")(_upsample("nearest-exact", False))
_aten_only("upsample_linear1d")(_upsample("linear", True))
_aten_only("upsample_bilinear2d")(_upsample("bilinear", True))
_aten_only("upsample_bicubic2d")(_upsample("bicubic", True))
_aten_only("upsample_trilinear3d")(_upsample("trilinear", True))


def _padding(mode: str):
    def run(self, padding):
        return _public("nn.functional", "pad")(self, padding, mode)
    return run


for _nd in (1, 2, 3):
    _aten_only(f"reflection_pad{_nd}d")(_padding("reflect"))
    _aten_only(f"replication_pad{_nd}d")(_padding("replicate"))


@_aten_only("col2im")
def _col2im(self, output_size, kernel_size, dilation, padding, stride):
    return _public("nn.functional", "fold")(self, output_size, kernel_size, dilation, padding, stride)


@_aten_only("affine_grid_generator")
def _affine_grid_generator(theta, size, align_corners):
    return _public("nn.functional", "affine_grid")(theta, size, align_corners)


class _AtenOverload:
    def __init__(self, packet, overload_name: str):
        self._packet = packet
        self._overloadname = overload_name
        self.__name__ = f"{packet._name}.{overload_name}"
        self.__qualname__ = self.__name__
        self.__module__ = "torch._ops.aten"  # fx writes it torch.ops.aten.<op>.<overload>, as PyTorch's

    def name(self) -> str:
        suffix = "" if self._overloadname == "default" else f".{self._overloadname}"
        return f"aten::{self._packet._name}{suffix}"

    @property
    def overloadpacket(self):
        return self._packet

    def __call__(self, *args, **kwargs):
        if self.__name__ == "to.dtype_layout":  # (Tensor.to takes no layout: tinytorch's tensors are all strided)
            kwargs = _strided_only(dict(kwargs), "to")
        return self._packet._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverload(op='aten.{self._packet._name}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"aten.{self._packet._name}.{self._overloadname}"


def _strided_only(kwargs: dict, name: str) -> dict:
    """``kwargs`` less a strided ``layout`` and a false ``pin_memory``, which every tinytorch tensor has; another
    layout is refused."""
    layout = kwargs.pop("layout", None)
    if layout is not None and str(layout).rpartition(".")[2] != "strided":
        raise NotImplementedError(f"aten.{name}: tinytorch converts to the strided layout only, not {layout}")
    if kwargs.pop("pin_memory", None):
        raise NotImplementedError(f"aten.{name}: tinytorch has no pinned memory")
    return kwargs


class _AtenPacket:
    def __init__(self, namespace, name, fn):
        self._namespace = namespace
        self._name = name
        self._fn = fn
        self.__name__ = name
        self._overloads = {}

    @property
    def _qualified_op_name(self) -> str:
        return f"aten::{self._name}"

    def overloads(self) -> list:
        return list(self._overloads) or ["default"]

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        ovs = self.__dict__["_overloads"]
        if overload not in ovs:
            ovs[overload] = _AtenOverload(self, overload)
        return ovs[overload]

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"aten.{self._name}"


# -- torch.ops ---------------------------------------------------------------------------------------------
class _Ops(types.ModuleType):
    """``torch.ops``: ``torch.ops.<namespace>.<op>``, ``load_library``, ``loaded_libraries``."""

    __file__ = "_ops.py"

    def __init__(self):
        super().__init__("torch.ops")
        self.loaded_libraries = set()
        self._namespaces = {"aten": _AtenNamespace("aten")}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        spaces = self.__dict__["_namespaces"]
        if name not in spaces:
            spaces[name] = _OpNamespace(name)  # as PyTorch: any namespace name answers, empty until registered
        return spaces[name]

    def __iter__(self):
        return iter(self._namespaces)

    def import_module(self, module):
        import importlib

        importlib.import_module(module)

    def load_library(self, path) -> None:
        """Load a shared library of operators. tinytorch cannot load a library built against libtorch (OSError,
        as PyTorch raises for a library that fails to load); torchvision's extensions register tinytorch's Python
        implementations of their operators instead (see the module)."""
        path = os.fspath(path)
        provider = _provided_library(path)
        if provider is not None:
            provider()
            self.loaded_libraries.add(path)
            return
        import ctypes

        try:
            ctypes.CDLL(path)
        except OSError as exc:
            raise OSError(f"Could not load this library: {path} ({exc}; tinytorch loads plain shared libraries "
                          "only: an operator library built against PyTorch's C++ (libtorch) cannot load)") from None
        self.loaded_libraries.add(path)

    # registration helpers used by tinytorch.library
    def _packet(self, namespace: str, name: str, create: bool = False):
        space = getattr(self, namespace)
        packet = space._packets.get(name)
        if packet is None and create:
            packet = space._packets[name] = OpOverloadPacket(namespace, name)
        return packet


# (package folder, library stem) -> (module, function) registering tinytorch's Python operators for that
# extension; the module is imported when such a library is loaded, not with tinytorch
_PROVIDERS = {("torchvision", stem): (f"{__package__}._vision_ops", "register_vision_ops")
              for stem in ("_C", "_C_stable")}
_PROVIDERS.update({("torchvision", stem): (f"{__package__}._vision_ops", "register_image_ops")
                   for stem in ("image", "image_stable")})


def _provided_library(path: str):
    """The registration function of an extension tinytorch implements in Python, for ``path``; else None."""
    import importlib

    folder, base = os.path.split(os.path.abspath(path))
    found = _PROVIDERS.get((os.path.basename(folder), base.split(".", 1)[0]))
    return None if found is None else getattr(importlib.import_module(found[0]), found[1])


ops = _Ops()


def lookup(qualname: str, create_from_schema: FunctionSchema | None = None):
    """The OpOverload named ``ns::name[.overload]``; None when it is not defined."""
    ns, sep, rest = qualname.partition("::")
    if not sep:
        raise ValueError(f"expected an operator name of the form 'namespace::name', got {qualname!r}")
    name, _, overload = rest.partition(".")
    packet = ops._packet(ns, name)
    if packet is None:
        return None
    return packet._overloads.get(overload or "default")
