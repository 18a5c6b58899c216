"""The recorder: while ``export`` runs the forward, the op calls of the exporting thread become ONNX
nodes. Values are keyed by the identity of the tinytorch tensor that holds them.

Nothing is patched. The export enters one transform level of its thread (as vmap does), so the public
functions (``torch.X``, ``F.X``) hand their calls to the registry's dispatch, which gives them to this
thread's ``Tracer``. Methods and operators (``x.view(...)``, ``x + y``) are the plain implementations
on ``Tensor``; the recorded values are therefore of the subclass ``Traced``, whose method spellings go
to the same dispatch (``BatchedTensor`` does the same for vmap), and a module's parameters and buffers
read during the export are ``Traced`` aliases of them (``Module.__getattr__`` asks the tracer). Another
thread sees plain tensors, plain methods, and records nothing."""
from __future__ import annotations

import numpy as np
from ._errors import OnnxExporterError
from ..autograd.grad_mode import _State, version_counter
from ..nn.parameter import Parameter
from .._ops._core import batching as _batching, registry as _registry
from ..tensor import Tensor, _new


def active():
    """The tracer recording in this thread, or None."""
    return _State.tracer


class Traced(Tensor):
    """A tensor whose value the export has recorded: its method spellings are recorded too."""


class TracedParameter(Parameter, Traced):
    """A parameter read by the forward during an export (still an ``nn.Parameter`` to the forward)."""


def _call(decl, args, kwargs):
    tracer = _State.tracer
    if tracer is None:  # a traced tensor kept past its export, or used by another thread
        return decl.impl(*args, **kwargs)
    return tracer.dispatch(decl, args, kwargs, None)


def _traced_method(decl, name: str, fn):
    if name in decl.rdunders:
        def method(self, other):
            return _call(decl, (other, self), {})
    elif _in_place(name) and name not in decl.idunders:
        def method(self, *args, **kwargs):
            tracer = _State.tracer
            if tracer is None or tracer.depth:
                return fn(self, *args, **kwargs)
            return tracer.inplace(decl, name, fn, self, args, kwargs)
    elif name in decl.dunders or (name in decl.variants and decl.method is None):
        def method(self, *args, **kwargs):
            return _call(decl, (self,) + args, kwargs)
    elif name in decl.variants:
        return fn  # an adapter: it calls the public function, which dispatches
    else:  # an in-place spelling: recorded as the op, the tensor then holds the op's value
        def method(self, *args, **kwargs):
            tracer = _State.tracer
            if tracer is None or tracer.depth:
                return fn(self, *args, **kwargs)
            return tracer.inplace(decl, name, fn, self, args, kwargs)
    method.__name__ = name
    return method


def _in_place(name: str) -> bool:
    return name.endswith("_") and not name.endswith("__")


_bound: set = set()  # the declarations whose spellings Traced has


def bind_methods() -> None:
    """Give ``Traced`` the method spellings of every declared op (done before an export starts)."""
    for key, decl in list(_registry.REGISTRY.items()):
        if key in _bound:
            continue
        for name, fn in _registry.method_table(decl).items():
            setattr(Traced, name, _traced_method(decl, name, fn))
        _bound.add(key)


def mark(x) -> None:
    """Make the plain tensors of an op's result ``Traced`` (they are fresh objects the op made)."""
    if type(x) is Tensor:
        x.__class__ = Traced
    elif isinstance(x, (tuple, list)):
        for i in x:
            mark(i)


class Tracer:
    def __init__(self, helper, numpy_helper, opset: int, params: dict) -> None:
        self.helper, self.numpy_helper, self.opset = helper, numpy_helper, opset
        self.params = params            # id(tensor) -> state_dict name
        self.values: dict = {}          # id(tensor) -> ONNX value name
        self.keep: list = []            # the traced tensors stay alive, so ids are not reused
        self.aliases: dict = {}         # id(parameter or buffer) -> its Traced alias
        self.unrecorded: dict = {}      # id(tensor) -> the op without converter that made it from recorded values
        self.nodes: list = []
        self.initializers: dict = {}    # name -> numpy array
        self.depth = 0                  # > 0 inside a recorded op: its inner ops are its own business
        self.scope: list = []           # qualified names of the modules being called
        self._count: dict = {}

    # -- the calls --------------------------------------------------------------------------
    def dispatch(self, decl, args, kwargs, out):
        """A public op or a method of a traced tensor, called in the exporting thread."""
        if self.depth or out is not None or not self.involved(args, kwargs):
            return _batching.dispatch_batched(decl, args, kwargs, out)
        if _in_place(decl.name) and args and isinstance(args[0], Tensor):  # torch.relu_(x), F.relu(x, inplace=True)
            return self.inplace(decl, decl.name, decl.impl, args[0], args[1:], kwargs)
        converter = decl.onnx  # the rule registered onto the declaration (onnx/_rule.py)
        if converter is None:
            result = _batching.dispatch_batched(decl, args, kwargs, out)
            self._unrecorded(result, decl)
            return result
        self.depth += 1
        try:
            result = _batching.dispatch_batched(decl, args, kwargs, None)
        finally:
            self.depth -= 1
        converter(self, result, *args, **kwargs)
        mark(result)
        return result

    def inplace(self, decl, name, fn, tensor, args, kwargs):
        """``tensor.name(*args)``: recorded as the out-of-place op, whose node the tensor then holds."""
        converter = decl.onnx
        if converter is None and _in_place(decl.name):  # an in-place op declared on its own (relu_)
            plain = _registry.REGISTRY.get(decl.name[:-1])
            converter = plain.onnx if plain is not None else None
        if converter is None:
            raise OnnxExporterError(f"tinytorch.onnx.export cannot record the in-place Tensor.{name}; write the "
                                    "forward with its out-of-place spelling")
        old = self.value(tensor)
        self.depth += 1
        try:
            before = tensor.detach().clone()  # the operand as the converter reads it (shape, dtype)
            result = fn(tensor, *args, **kwargs)
        finally:
            self.depth -= 1
        self.bind(before, old)
        converter(self, tensor, before, *args, **kwargs)  # the node rebinds the tensor to its result
        return result

    def _unrecorded(self, x, decl) -> None:
        # a result computed from recorded values by an op with no converter: it must not become a
        # constant (one that requires grad is refused by ``value`` already; this covers bool/int ones)
        if isinstance(x, Tensor):
            self.unrecorded[id(x)] = decl.qualname
            self.keep.append(x)
        elif isinstance(x, (tuple, list)):
            for i in x:
                self._unrecorded(i, decl)

    def involved(self, args, kwargs) -> bool:
        def any_known(x) -> bool:
            if isinstance(x, Tensor):
                return id(x) in self.values or id(x) in self.params or x.requires_grad
            if isinstance(x, (list, tuple)):
                return any(any_known(i) for i in x)
            return False
        return any_known(args) or any_known(tuple(kwargs.values()))

    def alias(self, t):
        """What ``module.name`` gives the forward for a parameter or buffer: a traced alias of it."""
        if t is None or id(t) not in self.params:
            return t
        a = self.aliases.get(id(t))
        if a is None:
            a = _new(TracedParameter if isinstance(t, Parameter) else Traced)
            a._data, a._vc, a._requires_grad = t._data, version_counter(t), t._requires_grad
            self.params[id(a)] = self.params[id(t)]
            self.aliases[id(t)] = a
            self.keep += [t, a]
        return a

    # -- names ------------------------------------------------------------------------------
    def _unique(self, base: str) -> str:
        n = self._count.get(base, 0)
        self._count[base] = n + 1
        return base if n == 0 else f"{base}_{n}"

    def _prefix(self) -> str:
        return "/" + "/".join(self.scope[-1].split(".")) + "/" if self.scope and self.scope[-1] else "/"

    def knows(self, t) -> bool:
        return id(t) in self.values or id(t) in self.params

    # -- inputs of a node -------------------------------------------------------------------
    def value(self, t) -> str:
        """The ONNX name holding tensor ``t``: recorded, a weight (an initializer), or a constant."""
        key = id(t)
        if key in self.values:
            return self.values[key]
        if key in self.params:
            name = self.params[key]
            self.initializers[name] = np.ascontiguousarray(t.detach().numpy())
            self.values[key] = name
            self.keep.append(t)
            return name
        if t.requires_grad or key in self.unrecorded:  # computed from the inputs by an op that was not recorded
            fn = (type(t.grad_fn).__name__ if t.grad_fn is not None else
                  self.unrecorded.get(key, "an unrecorded op"))
            raise OnnxExporterError(f"tinytorch.onnx.export cannot record the operation behind {fn} "
                                    f"(a tensor of shape {tuple(t.shape)} computed from the model's inputs); "
                                    "see tinytorch.onnx's docstring for what is supported")
        name = self.const(t.numpy(), "onnx::Constant")  # made in forward from no input: a constant
        self.values[key] = name
        self.keep.append(t)
        return name

    def const(self, array, base: str = "onnx::Constant") -> str:
        name = self._unique(base)
        self.initializers[name] = np.asarray(array)
        return name

    def ints(self, values, base: str = "onnx::Shape") -> str:
        return self.const(np.asarray(list(values), dtype=np.int64), base)

    def scalar(self, v, like_dtype) -> str:
        return self.const(np.asarray(v, dtype=like_dtype))

    # -- nodes ------------------------------------------------------------------------------
    def node(self, op_type: str, inputs: list, out=None, n_out: int = 1, **attrs):
        """Add one node; with ``out`` (a tensor) its first output becomes that tensor's value."""
        node_name = self._unique(self._prefix() + op_type)
        outputs = [f"{node_name}_output_{i}" for i in range(n_out)]
        self.nodes.append(self.helper.make_node(op_type, inputs, outputs, name=node_name, **attrs))
        if out is not None:
            self.bind(out, outputs[0])
        return outputs[0] if n_out == 1 else outputs

    def bind(self, t, name: str) -> None:
        self.values[id(t)] = name
        self.keep.append(t)
