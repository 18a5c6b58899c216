"""``export``: run the model once with the recorder on, then assemble and check the ONNX model.

The ops forward code calls are recorded by the rule on each op's declaration (``REGISTRY[key].onnx``,
registered with ``_rule.export_rule`` beside the converter, in ``_symbolic``, ``_shape_ops`` and
``_attention``); the standard modules recorded whole are keyed by their class here."""
from __future__ import annotations

import inspect

from . import _attention  # noqa: F401  (its rules register onto the declarations)
from . import _recurrent as R
from . import _shape_ops as S
from . import _symbolic as O
from . import _trace
from ._trace import Tracer
from .. import nn
import tinytorch
from ..tensor import Tensor
from ..autograd import enable_grad
from ..autograd.grad_mode import _State
from .._ops._core.batching import level


def _onnx():
    try:
        import onnx
        from onnx import helper, numpy_helper
    except ImportError as e:
        raise ImportError('tinytorch.onnx.export needs the onnx package: pip install onnx '
                          '(or pip install "tinytorch[onnx]")') from e
    return onnx, helper, numpy_helper


# -- the standard modules, recorded whole (their inner ops are not) ----------------------------
def _module_converters():

    def pool_args(m, *names):
        return [getattr(m, n) for n in names]

    table = {
        nn.Linear: lambda tr, m, out, x: O.linear(tr, out, x, m.weight, m.bias),
        nn.Conv1d: lambda tr, m, out, x: O.conv(tr, out, x, m.weight, m.bias, m.stride, m.padding, m.dilation, m.groups),
        nn.Conv2d: lambda tr, m, out, x: O.conv(tr, out, x, m.weight, m.bias, m.stride, m.padding, m.dilation, m.groups),
        nn.ReLU: lambda tr, m, out, x: O.unary("Relu")(tr, out, x),
        nn.Tanh: lambda tr, m, out, x: O.unary("Tanh")(tr, out, x),
        nn.Sigmoid: lambda tr, m, out, x: O.unary("Sigmoid")(tr, out, x),
        nn.GELU: lambda tr, m, out, x: O.gelu(tr, out, x, m.approximate),
        nn.LeakyReLU: lambda tr, m, out, x: O.leaky_relu(tr, out, x, m.negative_slope),
        nn.SiLU: lambda tr, m, out, x: O.silu(tr, out, x),
        nn.Softmax: lambda tr, m, out, x: O.softmax("Softmax")(tr, out, x, m.dim),
        nn.LogSoftmax: lambda tr, m, out, x: O.softmax("LogSoftmax")(tr, out, x, m.dim),
        nn.Flatten: lambda tr, m, out, x: S.flatten(tr, out, x, m.start_dim, m.end_dim),
        nn.Identity: lambda tr, m, out, x: O.unary("Identity")(tr, out, x),
        nn.Dropout: lambda tr, m, out, x: O.dropout(tr, out, x, m.p, m.training),
        nn.MaxPool1d: lambda tr, m, out, x: O.max_pool(1)(tr, out, x, *pool_args(
            m, "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")),
        nn.MaxPool2d: lambda tr, m, out, x: O.max_pool(2)(tr, out, x, *pool_args(
            m, "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")),
        nn.AvgPool1d: lambda tr, m, out, x: O.avg_pool(1)(tr, out, x, *pool_args(
            m, "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad")),
        nn.AvgPool2d: lambda tr, m, out, x: O.avg_pool(2)(tr, out, x, *pool_args(
            m, "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")),
        nn.AdaptiveAvgPool1d: lambda tr, m, out, x: O.adaptive_avg_pool(1)(tr, out, x, m.output_size),
        nn.AdaptiveAvgPool2d: lambda tr, m, out, x: O.adaptive_avg_pool(2)(tr, out, x, m.output_size),
        nn.LayerNorm: lambda tr, m, out, x: O.layer_norm(tr, out, x, m.normalized_shape, m.weight, m.bias, m.eps),
        nn.Embedding: lambda tr, m, out, x: O.embedding(tr, out, x, m.weight, m.padding_idx, m.max_norm),
    }
    for rnn in (nn.RNN, nn.LSTM, nn.GRU):
        table[rnn] = R.rnn
    for bn in (nn.BatchNorm1d, nn.BatchNorm2d):
        table[bn] = lambda tr, m, out, x: O.batch_norm(
            tr, out, x, m.running_mean, m.running_var, m.weight, m.bias, m.training, 0.1, m.eps)
    return table


def _axes_of(spec) -> dict:
    if spec is None:
        return {}
    if isinstance(spec, dict):
        return {int(k): str(v) for k, v in spec.items()}
    return {int(k): None for k in spec}


def _value_info(helper, name, t, dynamic: dict):
    axes = _axes_of(dynamic.get(name))
    shape = [axes[i] or f"{name}_dynamic_axes_{i + 1}" if i in axes else int(d) for i, d in enumerate(t.shape)]
    elem = helper.np_dtype_to_tensor_dtype(t.detach().numpy().dtype)
    return helper.make_tensor_value_info(name, elem, shape)


def _traced_input(a):
    """A fresh leaf of the recorded class; a floating one requires grad, so that an op the recorder
    misses shows up (its result requires grad but has no recorded value)."""
    if not isinstance(a, Tensor):
        return a
    t = a.detach().requires_grad_(a.is_floating_point())
    t.__class__ = _trace.Traced
    return t


def _flat_tensors(x) -> list:

    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for i in x for t in _flat_tensors(i)]
    if isinstance(x, dict):
        return [t for i in x.values() for t in _flat_tensors(i)]
    return []


def export(model, args, f, *, kwargs, verbose, input_names, output_names, opset_version, dynamic_axes,
           export_params, keep_initializers_as_inputs):
    onnx, helper, numpy_helper = _onnx()

    if isinstance(args, Tensor):
        args = (args,)
    args = tuple(args)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict):  # PyTorch's convention: a trailing dict holds keyword arguments
        kwargs.update(args[-1])
        args = args[:-1]
    params = {id(t): name for name, t in model.state_dict(keep_vars=True).items()}
    tracer = Tracer(helper, numpy_helper, opset_version, params)
    _trace.bind_methods()
    modules = _module_converters()

    # the inputs, as fresh leaves: floating ones require grad so an op the recorder misses shows up
    forward_names = [p for p in inspect.signature(model.forward).parameters]
    traced_args = [_traced_input(a) for a in args]
    traced_kwargs = {k: _traced_input(v) for k, v in kwargs.items()}
    inputs = _flat_tensors(traced_args) + _flat_tensors(traced_kwargs)
    given = list(input_names or [])
    default_names = forward_names[:len(args)] + list(traced_kwargs)
    input_names = []
    for i, t in enumerate(inputs):
        name = given[i] if i < len(given) else (default_names[i] if i < len(default_names) else f"input_{i}")
        tracer.bind(t, name)
        input_names.append(name)

    qualified = {id(m): n for n, m in model.named_modules()}

    # the hooks are the model's own; another thread calling the model runs them too, and is not recorded
    def pre_hook(m, inp):
        if _State.tracer is not tracer:
            return
        tracer.scope.append(qualified[id(m)])
        if type(m) in modules:
            tracer.depth += 1

    def post_hook(m, inp, kwargs, out):
        if _State.tracer is not tracer:
            return
        if type(m) in modules:
            tracer.depth -= 1
            if tracer.depth == 0:
                modules[type(m)](tracer, m, out, *inspect.signature(m.forward).bind(*inp, **kwargs).arguments.values())
                _trace.mark(out)
        tracer.scope.pop()

    was_training = [(m, m.training) for m in model.modules()]
    model.eval()  # as PyTorch's TrainingMode.EVAL
    handles = [h for m in model.modules() for h in (m.register_forward_pre_hook(pre_hook),
                                                     m.register_forward_hook(post_hook, with_kwargs=True))]
    try:
        with level(), enable_grad():  # one transform level of this thread: its op calls reach the tracer
            _State.tracer = tracer
            try:
                out = model(*traced_args, **traced_kwargs)
            finally:
                _State.tracer = None
    finally:
        for h in handles:
            h.remove()
        for m, mode in was_training:
            m.training = mode

    outputs = _flat_tensors(out)
    output_names = list(output_names or [])
    output_names += [("output" if len(outputs) == 1 else f"output_{i}") for i in range(len(output_names), len(outputs))]
    dynamic = dict(dynamic_axes or {})
    for t, name in zip(outputs, output_names):
        tracer.nodes.append(helper.make_node("Identity", [tracer.value(t)], [name], name=f"/{name}/Identity"))
    initializers = [numpy_helper.from_array(a, name) for name, a in tracer.initializers.items()]
    graph_inputs = [_value_info(helper, n, t, dynamic) for n, t in zip(input_names, inputs)]
    if keep_initializers_as_inputs:
        graph_inputs += [helper.make_tensor_value_info(i.name, i.data_type, list(i.dims)) for i in initializers]
    graph = helper.make_graph(tracer.nodes, type(model).__name__, graph_inputs,
                              [_value_info(helper, n, t, dynamic) for n, t in zip(output_names, outputs)],
                              initializer=initializers)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset_version)],
                              producer_name="tinytorch", producer_version=_version())
    proto.ir_version = min(proto.ir_version, 10)  # what current onnxruntime releases read
    onnx.checker.check_model(proto)
    if f is None:
        return proto
    if hasattr(f, "write"):
        f.write(proto.SerializeToString())
    else:
        onnx.save(proto, str(f))
    return None


def _version() -> str:
    return tinytorch.version.tinytorch_version  # tinytorch's own release (the producer is tinytorch)
