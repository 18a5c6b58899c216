"""``Proxy``: the stand-in for a value while a function is traced. Every operation on it adds a node to the graph
and gives back a new Proxy for the result, so running the function once on proxies records what it does.

A Proxy reaches the graph in three ways, as in PyTorch:

- ``torch.*``, ``torch.nn.functional.*`` and the other public functions: they look for a class with
  ``__torch_function__`` among their arguments (``tinytorch/_ops/_core/torch_function.py``) and hand it the
  call; ``Proxy.__torch_function__`` records ``call_function`` of that function.
- Tensor methods: ``proxy.view(...)`` reads the attribute ``view`` (an ``Attribute`` proxy) and calls it, which
  records ``call_method``; an attribute that is only read (``proxy.shape``) records ``getattr``.
- Operators: ``proxy + 1`` records ``call_function`` of ``operator.add``."""
from __future__ import annotations

import collections
import copy
import dataclasses
import dis
import enum
import inspect
import operator
from typing import Any, Callable

from .. import device as _device, dtype as _dtype, layout as _layout, memory_format as _memory_format
from .._ops._core.torch_function import add_routed
from ..tensor import Tensor
from ._codegen import magic_methods, reflectable_magic_methods
from ._pytorch_names import forwarded_call
from .graph import Graph
from .node import Argument, Node, Target, map_aggregate, map_arg

__all__ = ["TracerBase", "GraphAppendingTracer", "TraceError", "Proxy", "Attribute", "ParameterProxy", "Scope",
           "ScopeContextManager"]


# leaves a node's arguments may hold as they are
base_types = (str, int, float, bool, complex, _dtype, Tensor, _device, _memory_format, _layout)


class Scope:
    """The module whose ``forward`` is being traced: its dotted path and its class."""

    def __init__(self, module_path: str, module_type: Any) -> None:
        self.module_path = module_path
        self.module_type = module_type


class ScopeContextManager:
    """Makes ``scope`` the given one inside the ``with`` block, and puts the previous one back after."""

    def __init__(self, scope: Scope, current_scope: Scope) -> None:
        self._prev = Scope(scope.module_path, scope.module_type)
        self._scope = scope
        scope.module_path, scope.module_type = current_scope.module_path, current_scope.module_type

    def __enter__(self) -> Scope:
        return self._scope

    def __exit__(self, *args) -> None:
        self._scope.module_path, self._scope.module_type = self._prev.module_path, self._prev.module_type


class TraceError(ValueError):
    pass


class TracerBase:
    """What makes nodes from calls on proxies: ``create_proxy`` turns a call's arguments into node arguments
    (``create_arg``) and adds the node; the rest say what to do when a proxy meets Python's control flow."""

    graph: Graph
    record_stack_traces = False
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"
    scope: Scope
    module_stack: collections.OrderedDict
    node_name_to_scope: dict

    def create_node(self, kind: str, target: Target, args: tuple, kwargs: dict, name: str | None = None,
                    type_expr: Any = None) -> Node:
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        self.node_name_to_scope[node.name] = (self.scope.module_path, self.scope.module_type)
        if self.module_stack:  # the modules being traced through, outermost first
            node.meta["nn_module_stack"] = copy.copy(self.module_stack)
        return node

    def proxy(self, node: Node) -> Proxy:
        return Proxy(node, self)

    def create_proxy(self, kind: str, target: Target, args: tuple, kwargs: dict, name: str | None = None,
                     type_expr: Any = None, proxy_factory_fn: Callable[[Node], Proxy] | None = None) -> Proxy:
        """A node for ``target`` called on ``args``/``kwargs`` (proxies among them become their nodes), wrapped
        in a Proxy (or whatever ``proxy_factory_fn`` makes of it)."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return proxy_factory_fn(node) if proxy_factory_fn else self.proxy(node)

    def create_arg(self, a: Any) -> Argument:
        """``a`` as a node argument: proxies become their nodes, containers are converted element by element,
        the leaves a graph can hold stay as they are."""
        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        if isinstance(a, tuple):
            items = [self.create_arg(e) for e in a]
            return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)
        if isinstance(a, list):
            return [self.create_arg(e) for e in a]
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                if not isinstance(k, str):  # a key may be any hashable, but no node
                    k = self.create_arg(k)
                    map_arg(k, _no_nodes_error)
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if dataclasses.is_dataclass(a) and not isinstance(a, type):
            kwargs = {f.name: self.create_arg(getattr(a, f.name)) for f in dataclasses.fields(a)}
            return self.create_node("call_function", a.__class__, (), kwargs)
        if isinstance(a, base_types + (enum.Enum,)) or a is None or a is ...:
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj: Proxy) -> bool:
        """``bool(proxy)`` (an ``if`` on a traced value): its value is unknown, so by default this refuses."""
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj: Proxy):
        """``iter(proxy)`` other than unpacking into names: refused by default (the length is unknown)."""
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or "
                         "as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a more "
                         "detailed explanation of what types of control flow can be traced, and check out the Proxy "
                         "docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj: Proxy) -> Proxy:
        """``proxy.keys()`` (as ``**proxy`` calls it): a method call."""
        return Attribute(obj, "keys")()


def _no_nodes_error(arg):
    raise RuntimeError(f"Keys for dictionaries used as an argument cannot contain a Node. Got key: {arg}")


class GraphAppendingTracer(TracerBase):
    """The tracer of a Proxy made around an existing node: it appends to that node's graph."""

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        self.graph = graph
        self.scope = Scope("", None)
        self.module_stack = collections.OrderedDict()
        self.node_name_to_scope = {}


class Proxy:
    """A node in disguise; see the module docstring. ``Proxy(node)`` around a node of an existing graph appends
    what is done with it to that graph."""

    def __init__(self, node: Node, tracer: TracerBase | None = None) -> None:
        self.tracer = tracer if tracer is not None else GraphAppendingTracer(node.graph)
        self.node = node

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        add_routed(cls)  # a subclass (Attribute, a user's) is handed calls too

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> Attribute:
        # no node yet: if the attribute is called next, the call becomes one call_method node
        return Attribute(self, k)

    def __getstate__(self) -> dict:
        return self.__dict__

    def __setstate__(self, d: dict) -> None:
        self.__dict__ = d

    def __deepcopy__(self, memo: dict) -> Proxy:
        # explicit, or deepcopy would look up __deepcopy__ through __getattr__ and get an Attribute
        new = Proxy.__new__(type(self))
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            try:
                new.__dict__[k] = copy.deepcopy(v, memo)
            except Exception:
                new.__dict__[k] = copy.copy(v)
        return new

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        # ``a, b = proxy`` unpacks a known number of values: the caller's bytecode says how many
        frame = inspect.currentframe().f_back
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti:
                if inst.opname == "UNPACK_SEQUENCE":
                    return (self[i] for i in range(inst.argval))
                break
        return self.tracer.iter(self)

    def __abs__(self) -> Proxy:
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def keys(self) -> Proxy:
        return self.tracer.keys(self)

    def __len__(self) -> int:
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    @classmethod
    def __torch_function__(cls, orig_method: Callable, types: tuple, args: tuple = (), kwargs: dict | None = None):
        """A public function called with a proxy among its arguments: one ``call_function`` node of it (or
        ``call_method``, for a Tensor method), in the tracer that made the proxies."""
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers: dict = {}

        def find_tracer(a):
            if isinstance(a, cls):
                tracers[a.tracer] = None

        map_aggregate((args, kwargs), find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers.keys())} while trying to trace "
                               f"operations {orig_method}")
        tracer = next(iter(tracers))
        if getattr(Tensor, getattr(orig_method, "__name__", ""), None) is orig_method:
            return tracer.create_proxy("call_method", orig_method.__name__, args, kwargs)
        args, kwargs = forwarded_call(orig_method, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs,
                                   name=tracer.graph._target_to_str(orig_method))


add_routed(Proxy)  # from now on torch.X(proxy) is handed to Proxy.__torch_function__


class Attribute(Proxy):
    """``proxy.name``: a method call when called (``call_method``), else a ``getattr`` node made on first use."""

    def __init__(self, root: Proxy, attr: str) -> None:
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node: Node | None = None

    @property
    def node(self) -> Node:
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A parameter's proxy whose shape questions are answered from the parameter itself (with
    ``Tracer(param_shapes_constant=True)``), so code that branches on a weight's shape can be traced."""

    def __init__(self, tracer: TracerBase, node: Node, name: str, param) -> None:
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self) -> str:
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self):
        return self.param.size()

    def dim(self) -> int:
        return self.param.dim()

    @property
    def ndim(self) -> int:
        return self.param.ndim

    def numel(self) -> int:
        return self.param.numel()

    def nelement(self) -> int:
        return self.param.nelement()


def _magic(name: str):
    def method(*args, **kwargs):  # (the operator is looked up per call: there is no operator.div to find)
        return args[0].tracer.create_proxy("call_function", getattr(operator, name), args, kwargs)

    method.__name__ = name
    return method


def _reflected(name: str):
    def method(self, rhs):
        return self.tracer.create_proxy("call_function", getattr(operator, name), (rhs, self), {})

    method.__name__ = method.__qualname__ = f"__r{name.strip('_')}__"
    return method


def _install_operators() -> None:
    """``proxy + 1`` and friends; set after the class is made, so that ``__eq__`` leaves ``__hash__`` alone."""
    for name in magic_methods:
        setattr(Proxy, f"__{name.strip('_')}__", _magic(name))
    for name in reflectable_magic_methods:
        setattr(Proxy, f"__r{name.strip('_')}__", _reflected(name))


_install_operators()
