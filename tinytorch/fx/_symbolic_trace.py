"""``symbolic_trace`` and ``Tracer``: run a module's ``forward`` (or a function) once on proxies and keep the graph.

``Tracer.trace`` makes one placeholder per parameter of ``forward``, then, for the length of the call, stands in
for three things, as PyTorch's tracer does:

- ``Module.__call__``: a submodule call goes to ``Tracer.call_module``, which records one ``call_module`` node
  for a leaf module (the ``torch.nn`` layers, by default) and traces through any other.
- ``Module.__getattr__``: reading a parameter (``self.weight`` in a traced ``forward``) gives a ``get_attr``
  proxy.
- the functions declared leaves with ``wrap`` (and ``math``'s, by default): a call with a proxy among its
  arguments is recorded as one ``call_function`` node instead of being run.

These stand-ins are class and module attributes, so they are seen by every thread; each checks that it runs in
the tracing thread and otherwise calls what it replaced."""
from __future__ import annotations

import builtins
import collections
import copy
import functools
import inspect
import math
import threading
import warnings
from itertools import chain
from types import FunctionType
from typing import Any, Callable

from .. import _checks
from ..nn.modules.container import Sequential
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from ..utils import _pytree as pytree
from ._pytorch_names import _torch_module
from .graph import Graph, _PyTreeCodeGen, _PyTreeInfo
from .graph_module import GraphModule
from .node import Argument, map_aggregate
from .proxy import ParameterProxy, Proxy, Scope, ScopeContextManager, TracerBase, base_types

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH", "PHBase", "PHWithMeta", "is_fx_tracing", "ProxyableClassMeta"]

_orig_module_call = Module.__call__
_orig_module_getattr = Module.__getattr__
_HAS_VARSTUFF = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
_is_fx_tracing_flag = False
_proxyable_classes: dict = {}  # the classes made with ProxyableClassMeta (a dict as an ordered set)


def is_fx_tracing() -> bool:
    """Whether a symbolic trace is running."""
    return _is_fx_tracing_flag


class ProxyableClassMeta(type):
    """The metaclass of a class whose construction from traced values is recorded: ``Pair(x, y)`` with proxies
    among the arguments becomes one ``call_function`` node of ``Pair``; an instance met as a constant is stored
    on the root and fetched with ``get_attr``."""

    def __init__(cls, name, bases, attrs):
        _proxyable_classes.setdefault(cls)
        super().__init__(name, bases, attrs)

    def __call__(cls, *args, **kwargs):
        if is_fx_tracing():
            proxy = _find_proxy(args, kwargs)
            if proxy is not None:
                return proxy.tracer.create_proxy("call_function", cls, args, kwargs)
        instance = cls.__new__(cls)
        cls.__init__(instance, *args, **kwargs)
        return instance


class PHBase:
    """A placeholder inside structured ``concrete_args``: that leaf stays an input of the traced graph."""

    def __repr__(self) -> str:
        return "PH"


PH = PHBase()


class PHWithMeta(PHBase):
    """A ``PH`` whose attributes are copied onto its placeholder node."""

    def __init__(self, ph_key: str | None = None) -> None:
        super().__init__()
        self.ph_key = ph_key


def _transfer_attrs(fr, to) -> None:
    for name in dir(fr):
        value = getattr(fr, name)
        if not callable(value) and not name.startswith("__") and not hasattr(to, name):
            setattr(to, name, value)


def _patch_function(fn: FunctionType, nargs: int) -> FunctionType:
    """``fn`` with ``*args``/``**kwargs`` (and keyword-only parameters) turned into ``nargs`` plain positional
    parameters, so the tracer can hand it one proxy for each."""
    co = fn.__code__
    code = co.replace(co_argcount=nargs, co_posonlyargcount=0, co_kwonlyargcount=0,
                      co_flags=co.co_flags & ~_HAS_VARSTUFF)
    return FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


class Tracer(TracerBase):
    """``Tracer().trace(root)`` is ``symbolic_trace(root)``'s graph; subclass it to change what is a leaf
    (``is_leaf_module``), how submodules, attributes and arguments are recorded (``call_module``, ``getattr``,
    ``create_arg``) or what nodes are made (``create_node``, ``create_proxy``)."""

    # one counter per constant prefix (``_tensor_constant``), shared by every tracer, as PyTorch's is
    _qualname_counter: dict = collections.defaultdict(int)

    def __init__(self, autowrap_modules: tuple = (math,), autowrap_functions: tuple = (),
                 param_shapes_constant: bool = False) -> None:
        super().__init__()
        # the functions of these modules, and these functions, are recorded as leaves wherever they are called
        self._autowrap_function_ids = {id(v) for name, v in chain.from_iterable(m.__dict__.items()
                                                                                for m in autowrap_modules)
                                       if not name.startswith("_") and callable(v)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict | None = None
        self.root_module_name = ""
        self.scope = Scope("", None)
        self.module_stack = collections.OrderedDict()
        self.num_calls: dict = {}
        self.node_name_to_scope: dict = {}

    def get_fresh_qualname(self, prefix: str) -> str:
        """``prefix0``, or the next ``prefix<i>`` not yet an attribute of the root."""
        qualname = f"{prefix}0"
        if not hasattr(self.root, qualname):
            self._qualname_counter[prefix] = 0
            return qualname
        i = self._qualname_counter[prefix]
        while True:
            qualname = f"{prefix}{i}"
            i += 1
            if not hasattr(self.root, qualname):
                break
        self._qualname_counter[prefix] = i
        return qualname

    def create_arg(self, a: Any) -> Argument:
        """As ``TracerBase.create_arg``, and: the root's parameters, buffers and submodules become ``get_attr``
        nodes, and any other tensor is stored on the root as ``_tensor_constant<i>`` and fetched from there."""
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Tensor):
            for n, b in self.root.named_buffers():
                if a is b:
                    return self.create_node("get_attr", n, (), {})
        elif isinstance(a, Module):
            for n, m in self.root.named_modules():
                if a is m:
                    return self.create_node("get_attr", n, (), {})
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return self.create_node("call_function", a.__class__, tuple(self.create_arg(e) for e in a), {})
        if isinstance(a, Tensor):
            qualname = self.tensor_attrs.get(a)
            if not qualname:
                qualname = self.get_fresh_qualname("_tensor_constant")
                self.tensor_attrs[a] = qualname
                setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        if type(a) in _proxyable_classes:
            qualname = self.get_fresh_qualname(f"_{a.__class__.__name__}_constant_")
            setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """Whether a call of ``m`` is recorded as one node: by default the torch.nn layers (tinytorch's are
        their mirror), except ``Sequential``, which is traced through."""
        module = _torch_module(type(m).__module__)
        return (module.startswith("torch.nn") or module.startswith("torch.ao.nn")) and not isinstance(m, Sequential)

    def path_of_module(self, mod: Module) -> str:
        """The dotted path of ``mod`` inside the root (``layer1.0.conv1``)."""
        if self.submodule_paths:
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m: Module, forward: Callable, args: tuple, kwargs: dict) -> Any:
        """A submodule called during tracing: one ``call_module`` node for a leaf, else its ``forward`` traced."""
        path = self.path_of_module(m)
        with ScopeContextManager(self.scope, Scope(path, type(m))) as scope:
            calls = self.num_calls.get(path, 0)
            key = f"{scope.module_path}@{calls}" if calls > 0 else scope.module_path
            self.module_stack[key] = (path, scope.module_type)
            self.num_calls[path] = calls + 1
            if not self.is_leaf_module(m, path):
                result = forward(*args, **kwargs)
            else:
                result = self.create_proxy("call_module", path, args, kwargs)
            popped, _ = self.module_stack.popitem(last=True)
            if popped != key:
                raise AssertionError(f"Unexpected key {popped}, expected {key}")
        return result

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict) -> Any:
        """A module attribute read during tracing: a parameter of the root (and, with ``proxy_buffer_attributes``,
        a buffer) becomes a ``get_attr`` proxy, made once per name; anything else is returned as it is."""
        def proxy_for(collection) -> Proxy | None:
            for n, p in collection:
                if attr_val is p:
                    if n not in parameter_proxy_cache:
                        factory = None
                        if self.param_shapes_constant:
                            factory = lambda node, n=n: ParameterProxy(self, node, n, attr_val)  # noqa: E731
                        parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {}, proxy_factory_fn=factory)
                    return parameter_proxy_cache[n]
            return None

        if isinstance(attr_val, Parameter):
            found = proxy_for(self.root.named_parameters())
            if found is not None:
                return found
        if self.proxy_buffer_attributes and isinstance(attr_val, Tensor):
            found = proxy_for(self.root.named_buffers())
            if found is not None:
                return found
        return attr_val

    def create_args_for_root(self, root_fn: Callable, is_module: bool, concrete_args=None) -> tuple:
        """One placeholder per parameter of ``root_fn`` (or the value ``concrete_args`` gives it); returns the
        function to call (flattening structured inputs when ``concrete_args`` has them) and its arguments."""
        fn = inspect.unwrap(root_fn)
        co = fn.__code__
        total_args = co.co_argcount + co.co_kwonlyargcount
        orig_args = list(co.co_varnames)
        names = iter(co.co_varnames)
        args: list = []
        skip = 0
        if is_module:
            if total_args == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip = 1
            next(names)  # self
            args.append(self.root)
        sig = inspect.signature(fn)
        if isinstance(concrete_args, tuple) and len(concrete_args) > 0 and co.co_flags & _HAS_VARSTUFF \
                and total_args == 1:
            for i, concrete in enumerate(concrete_args):  # f(*args) called with a tuple: input_0, input_1, ...
                out = self.create_proxy("placeholder", f"input_{i}", (), {})
                if isinstance(concrete, PHBase) and concrete is not PH:
                    _transfer_attrs(fr=concrete, to=out.node)
                args.append(out)
            return root_fn, args
        arg_names = [next(names) for _ in range(skip, total_args)]
        if isinstance(concrete_args, tuple):
            if len(arg_names) != len(concrete_args):
                raise RuntimeError(f"Tracing expected {len(arg_names)} arguments but got {len(concrete_args)} "
                                   "concrete arguments")
            concrete_args = dict(zip(arg_names, concrete_args))
        args.extend(self._proxy_placeholder(n, concrete_args, sig, fn) for n in arg_names)
        if co.co_kwonlyargcount > 0 or co.co_flags & _HAS_VARSTUFF:
            if co.co_flags & inspect.CO_VARARGS:
                args.append(self._proxy_placeholder("*" + next(names), concrete_args, sig, fn))
            if co.co_flags & inspect.CO_VARKEYWORDS:
                args.append(self._proxy_placeholder("**" + next(names), concrete_args, sig, fn))
            root_fn = _patch_function(root_fn, len(args))

        flat_args, in_spec = pytree.tree_flatten(tuple(args))
        if all(child.is_leaf() for child in in_spec.children_specs):
            return root_fn, args
        # structured inputs: the graph takes their leaves, and the generated forward flattens and rebuilds
        self.graph._codegen = _PyTreeCodeGen(_PyTreeInfo(orig_args[:total_args], in_spec, None))

        def flatten_fn(*leaves):
            out_leaves, out_spec = pytree.tree_flatten(root_fn(*pytree.tree_unflatten(list(leaves), in_spec)))
            self.graph._codegen.pytree_info = self.graph._codegen.pytree_info._replace(out_spec=out_spec)
            return out_leaves

        return flatten_fn, flat_args

    def _proxy_placeholder(self, name: str, concrete_args: dict | None, sig: inspect.Signature, fn: Callable) -> Any:
        if concrete_args is not None and name in concrete_args:
            count = 0
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)

            def replace_ph(x):
                # each leaf gets a placeholder; a concrete one is checked at run time against the traced value
                nonlocal count
                count += 1
                out = self.create_proxy("placeholder", f"{name}_{count}", default, {})
                if isinstance(x, PHBase):
                    if x is not PH:
                        _transfer_attrs(fr=x, to=out.node)
                    return out
                if type(x) is bool or type(x) in base_types and type(x) is not Tensor:
                    _checks._assert(out == x, f"{name} has been specialized to have value {x} but got another value")
                elif x is None:
                    message = f"{name} has been specialized to have value None but got another value"
                    self.create_proxy("call_function", _assert_is_none, (out, message), {})
                else:
                    warnings.warn(f"Was not able to add assertion to guarantee correct input {name} to specialized "
                                  "function. It is up to the user to make sure that your inputs match the inputs you "
                                  "specialized the function with.")
                return x

            return pytree.tree_map(replace_ph, concrete_args[name])
        if name[0] == "*":
            default = ()
        else:
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)
        return self.create_proxy("placeholder", name, default, {}, type_expr=fn.__annotations__.get(name, None))

    def trace(self, root: Module | Callable, concrete_args: dict | tuple | None = None) -> Graph:
        """The graph of ``root``'s ``forward`` (or of the function ``root``); see the module docstring.
        For a function, ``self.root`` becomes a fresh Module that holds its constants."""
        global _is_fx_tracing_flag
        was_tracing, _is_fx_tracing_flag = _is_fx_tracing_flag, True
        try:
            if isinstance(root, Module):
                self.root = root
                if not hasattr(type(root), self.traced_func_name):
                    raise AssertionError(f"traced_func_name={self.traced_func_name} doesn't exist in "
                                         f"{type(root).__name__}")
                fn = getattr(type(root), self.traced_func_name)
                self.root_module_name = root._get_name()
                self.submodule_paths = {mod: name for name, mod in root.named_modules()}
            else:
                self.root = Module()
                fn = root
            self.graph = Graph(tracer_cls=getattr(self, "__class__", None))
            if hasattr(fn, "__code__"):
                code = fn.__code__
                self.graph._co_fields = {"co_name": code.co_name, "co_filename": code.co_filename,
                                         "co_firstlineno": code.co_firstlineno}
            self.tensor_attrs: dict = {}
            _collect_tensor_attrs(self.root, [], self.tensor_attrs)
            if not isinstance(fn, FunctionType):
                raise AssertionError(f"Expected FunctionType, got {type(fn)}")
            fn_globals = fn.__globals__  # before create_args_for_root may patch fn
            fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
            with _Patcher() as patcher:
                self._patch_module_class(patcher)
                _patch_wrapped_functions(patcher)
                _autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
                for module in self._autowrap_search:
                    _autowrap_check(patcher, module.__dict__, self._autowrap_function_ids)
                result = fn(*args)
                self.create_node("output", "output", (self.create_arg(result),), {},
                                 type_expr=inspect.get_annotations(inspect.unwrap(fn)).get("return", None))
            self.submodule_paths = None
        finally:
            _is_fx_tracing_flag = was_tracing
        return self.graph

    def _patch_module_class(self, patcher: _Patcher) -> None:
        """Route ``Module.__call__`` and ``Module.__getattr__`` to this tracer, in this thread."""
        thread = threading.get_ident()
        parameter_proxy_cache: dict = {}  # one get_attr node per parameter

        @functools.wraps(_orig_module_getattr)
        def module_getattr_wrapper(mod, attr):
            value = _orig_module_getattr(mod, attr)
            if threading.get_ident() != thread:
                return value
            return self.getattr(attr, value, parameter_proxy_cache)

        @functools.wraps(_orig_module_call)
        def module_call_wrapper(mod, *args, **kwargs):
            if threading.get_ident() != thread:
                return _orig_module_call(mod, *args, **kwargs)

            def forward(*args, **kwargs):
                return _orig_module_call(mod, *args, **kwargs)

            _autowrap_check(patcher, getattr(getattr(mod, "forward", mod), "__globals__", {}),
                            self._autowrap_function_ids)
            return self.call_module(mod, forward, args, kwargs)

        patcher.patch_method(Module, "__getattr__", module_getattr_wrapper, deduplicate=False)
        patcher.patch_method(Module, "__call__", module_call_wrapper, deduplicate=False)

    def __deepcopy__(self, memo: dict) -> Tracer:
        new = Tracer.__new__(Tracer)
        for k, v in self.__dict__.items():
            new.__dict__[k] = list(v) if k == "_autowrap_search" else copy.deepcopy(v, memo)
        return new


def _collect_tensor_attrs(m: Module, prefix: list, out: dict) -> None:
    """Tensors kept as plain attributes of ``m`` and its children: a constant met while tracing is fetched from
    where it already lives."""
    for k, v in m.__dict__.items():
        if isinstance(v, Tensor):
            out[v] = ".".join(prefix + [k])
    for k, child in m.named_children():
        _collect_tensor_attrs(child, prefix + [k], out)


# -- leaf functions --------------------------------------------------------------------------------------------
# (id of a module's globals, function name) -> those globals: the functions ``wrap`` declared leaves
_wrapped_fns_to_patch: dict = {}


def _find_proxy(*objects) -> Proxy | None:
    found = None

    def look(x):
        nonlocal found
        if isinstance(x, Proxy):
            found = x

    map_aggregate(objects, look)
    return found


def _create_wrapped_func(orig_fn: Callable) -> Callable:
    """``orig_fn`` recorded as one ``call_function`` node when a proxy is among its arguments, else called."""
    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            result = proxy.tracer.create_proxy("call_function", orig_fn, args, kwargs)
            result.node.meta["is_wrapped"] = True
            return result
        return orig_fn(*args, **kwargs)

    return wrapped


class _Patcher:
    """Replaces globals and class attributes until the ``with`` block ends, then puts every one back."""

    def __init__(self) -> None:
        self._undo: list = []
        self._visited: set = set()

    def patch(self, frame_dict: dict, name: str, new_fn: Callable, deduplicate: bool = True) -> None:
        new_fn.__fx_already_patched = deduplicate
        if name not in frame_dict and hasattr(builtins, name):  # a builtin (``len``): shadow it with a global
            frame_dict[name] = new_fn
            self._undo.append(lambda: frame_dict.pop(name))
        elif getattr(frame_dict[name], "__fx_already_patched", False):
            return
        else:
            old = frame_dict[name]
            frame_dict[name] = new_fn
            self._undo.append(lambda: frame_dict.__setitem__(name, old))

    def patch_method(self, cls: type, name: str, new_fn: Callable, deduplicate: bool = True) -> None:
        new_fn.__fx_already_patched = deduplicate
        old = getattr(cls, name)
        if getattr(old, "__fx_already_patched", False):
            return
        setattr(cls, name, new_fn)
        self._undo.append(lambda: setattr(cls, name, old))

    def visit_once(self, thing) -> bool:
        """True the first time ``thing`` is seen."""
        if id(thing) in self._visited:
            return False
        self._visited.add(id(thing))
        return True

    def __enter__(self) -> _Patcher:
        return self

    def __exit__(self, *exc) -> None:
        while self._undo:
            self._undo.pop()()
        self._visited.clear()


def _patch_wrapped_functions(patcher: _Patcher) -> None:
    for (_, name), frame_dict in _wrapped_fns_to_patch.copy().items():
        orig = getattr(builtins, name) if name not in frame_dict and hasattr(builtins, name) else frame_dict[name]
        patcher.patch(frame_dict, name, _create_wrapped_func(orig))


def _autowrap_check(patcher: _Patcher, frame_dict: dict, function_ids: set) -> None:
    """Wrap the autowrapped functions (``math.sqrt``...) that the globals ``frame_dict`` hold."""
    if patcher.visit_once(frame_dict):
        for name, value in frame_dict.items():
            if not name.startswith("_") and callable(value) and id(value) in function_ids:
                patcher.patch(frame_dict, name, _create_wrapped_func(value))


def wrap(fn_or_name: str | Callable):
    """Declare a module-level function (or the name of a global function, ``"len"``) a leaf of tracing: its
    calls on proxies become one ``call_function`` node. Called at the top level of the module that calls it."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    name = fn_or_name.__name__ if callable(fn_or_name) else fn_or_name
    caller = inspect.currentframe().f_back
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(caller.f_globals), name)] = caller.f_globals
    return fn_or_name


def symbolic_trace(root: Module | Callable, concrete_args: dict | None = None) -> GraphModule:
    """The ``GraphModule`` of ``root`` (a module or a function), traced by ``Tracer``; ``concrete_args`` fixes
    some inputs to values (``{"b": False}``: the branch on ``b`` is resolved, and a check added)."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


@wrap
def _assert_is_none(value, msg: str) -> None:
    if value is not None:
        raise AssertionError(msg)
