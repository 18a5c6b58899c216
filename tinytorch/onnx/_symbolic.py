"""ONNX nodes for each recorded call: one converter per op, with PyTorch's argument names, called as
``converter(tracer, output_tensor, *the_call's_arguments)``."""
from __future__ import annotations

import math

import numpy as np
from ._errors import OnnxExporterError
from ._rule import export_rule
from ..tensor import Tensor


def _err(msg: str):

    return OnnxExporterError(msg)


def _np_dtype(t):
    return t.detach().numpy().dtype


def _tuple(v, n: int) -> list:
    return [int(x) for x in v] if isinstance(v, (tuple, list)) else [int(v)] * n


def _operand(tr, x, out):
    """A tensor operand cast to the result's dtype, or a Python number as a constant of that dtype."""

    dtype = _np_dtype(out)
    if isinstance(x, Tensor):
        name = tr.value(x)
        if x.dtype != out.dtype:
            name = tr.node("Cast", [name], to=tr.helper.np_dtype_to_tensor_dtype(dtype))
        return name
    return tr.scalar(x, dtype)


# -- elementwise ----------------------------------------------------------------------------
def binary(op_type: str, reflected: bool = False):
    def convert(tr, out, a, b, *, alpha=1):
        x, y = _operand(tr, a, out), _operand(tr, b, out)
        if alpha != 1:
            y = tr.node("Mul", [y, tr.scalar(alpha, _np_dtype(out))])
        tr.node(op_type, [y, x] if reflected else [x, y], out)
    return convert


export_rule("add")(binary("Add"))
export_rule("sub")(binary("Sub"))
export_rule("mul")(binary("Mul"))
export_rule("div")(binary("Div"))


def unary(op_type: str, **attrs):
    def convert(tr, out, input, *args, **kwargs):
        tr.node(op_type, [tr.value(input)], out, **attrs)
    return convert


export_rule("relu")(unary("Relu"))
export_rule("sigmoid")(unary("Sigmoid"))
export_rule("tanh")(unary("Tanh"))
export_rule("exp")(unary("Exp"))
export_rule("log")(unary("Log"))
export_rule("sqrt")(unary("Sqrt"))
export_rule("abs")(unary("Abs"))
export_rule("neg")(unary("Neg"))


@export_rule("F.leaky_relu")
def leaky_relu(tr, out, input, negative_slope=0.01, inplace=False):
    tr.node("LeakyRelu", [tr.value(input)], out, alpha=float(negative_slope))


@export_rule("F.elu")
def elu(tr, out, input, alpha=1.0, inplace=False):
    tr.node("Elu", [tr.value(input)], out, alpha=float(alpha))


@export_rule("F.silu")
def silu(tr, out, input, inplace=False):
    x = tr.value(input)
    tr.node("Mul", [x, tr.node("Sigmoid", [x])], out)


@export_rule("F.gelu")
def gelu(tr, out, input, approximate="none"):
    x = tr.value(input)
    if tr.opset >= 20:
        tr.node("Gelu", [x], out, approximate=approximate)
        return
    dtype = _np_dtype(input)
    half = tr.node("Mul", [x, tr.scalar(0.5, dtype)])
    if approximate == "tanh":  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = tr.node("Mul", [tr.node("Pow", [x, tr.scalar(3.0, dtype)]), tr.scalar(0.044715, dtype)])
        inner = tr.node("Mul", [tr.node("Add", [x, cube]), tr.scalar(math.sqrt(2 / math.pi), dtype)])
        core = tr.node("Tanh", [inner])
    else:  # 0.5 x (1 + erf(x / sqrt(2)))
        core = tr.node("Erf", [tr.node("Div", [x, tr.scalar(math.sqrt(2.0), dtype)])])
    tr.node("Mul", [half, tr.node("Add", [core, tr.scalar(1.0, dtype)])], out)


def _softmax_dim(dim, ndim: int) -> int:
    if dim is None:  # PyTorch's implicit choice (deprecated there)
        return 0 if ndim in (0, 1, 3) else 1
    return dim


def softmax(op_type: str):
    def convert(tr, out, input, dim=None, _stacklevel=3, dtype=None):
        tr.node(op_type, [tr.value(input)], out, axis=_softmax_dim(dim, input.dim()))
    return convert


export_rule("softmax")(softmax("Softmax"))
export_rule("log_softmax")(softmax("LogSoftmax"))


@export_rule("dropout")
def dropout(tr, out, input, p=0.5, training=True, inplace=False):
    if training:
        raise _err("dropout in training mode is random: export the model in eval mode")
    tr.node("Identity", [tr.value(input)], out)


# -- linear algebra, convolution, pooling ---------------------------------------------------
@export_rule("matmul", "mm", "bmm")
def matmul(tr, out, a, b):
    tr.node("MatMul", [tr.value(a), tr.value(b)], out)


@export_rule("F.linear")
def linear(tr, out, input, weight, bias=None):
    x, w = tr.value(input), tr.value(weight)
    if input.dim() == 2:
        tr.node("Gemm", [x, w] + ([tr.value(bias)] if bias is not None else []), out, transB=1)
        return
    y = tr.node("MatMul", [x, tr.node("Transpose", [w], perm=[1, 0])], None if bias is not None else out)
    if bias is not None:
        tr.node("Add", [y, tr.value(bias)], out)


@export_rule("conv1d", "conv2d")
def conv(tr, out, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    n = weight.dim() - 2
    kernel = list(weight.shape[2:])
    dilation = _tuple(dilation, n)
    if isinstance(padding, str):
        if padding == "valid":
            pads = [0] * (2 * n)
        else:  # "same": PyTorch puts the odd extra pixel at the end
            total = [d * (k - 1) for d, k in zip(dilation, kernel)]
            pads = [t // 2 for t in total] + [t - t // 2 for t in total]
    else:
        pads = _tuple(padding, n) * 2
    inputs = [tr.value(input), tr.value(weight)] + ([tr.value(bias)] if bias is not None else [])
    tr.node("Conv", inputs, out, kernel_shape=kernel, strides=_tuple(stride, n), pads=pads, dilations=dilation,
            group=int(groups))


def max_pool(n: int):
    def convert(tr, out, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
        if return_indices:
            raise _err("max pooling with return_indices=True is not supported by tinytorch.onnx.export")
        kernel = _tuple(kernel_size, n)
        strides = kernel if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _tuple(stride, n)
        tr.node("MaxPool", [tr.value(input)], out, kernel_shape=kernel, strides=strides, pads=_tuple(padding, n) * 2,
                dilations=_tuple(dilation, n), ceil_mode=int(bool(ceil_mode)))
    return convert


export_rule("max_pool1d")(max_pool(1))
export_rule("max_pool2d")(max_pool(2))


def avg_pool(n: int):
    def convert(tr, out, input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
        if divisor_override is not None:
            raise _err("avg pooling with divisor_override is not supported by tinytorch.onnx.export")
        kernel = _tuple(kernel_size, n)
        strides = kernel if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _tuple(stride, n)
        tr.node("AveragePool", [tr.value(input)], out, kernel_shape=kernel, strides=strides,
                pads=_tuple(padding, n) * 2, ceil_mode=int(bool(ceil_mode)),
                count_include_pad=int(bool(count_include_pad)))
    return convert


export_rule("avg_pool1d")(avg_pool(1))
export_rule("F.avg_pool2d")(avg_pool(2))


def adaptive_avg_pool(n: int):
    def convert(tr, out, input, output_size):
        sizes = list(input.shape[-n:])
        wanted = [s if o is None else o for s, o in zip(sizes, _tuple_none(output_size, n))]
        if all(o == 1 for o in wanted):
            tr.node("GlobalAveragePool", [tr.value(input)], out)
        elif all(s % o == 0 for s, o in zip(sizes, wanted)):  # equal windows: a plain average pooling
            kernel = [s // o for s, o in zip(sizes, wanted)]
            tr.node("AveragePool", [tr.value(input)], out, kernel_shape=kernel, strides=kernel)
        else:
            raise _err(f"adaptive average pooling from {sizes} to {wanted} (uneven windows) is not supported "
                       "by tinytorch.onnx.export")
    return convert


export_rule("adaptive_avg_pool1d")(adaptive_avg_pool(1))
export_rule("F.adaptive_avg_pool2d")(adaptive_avg_pool(2))


def _tuple_none(v, n):
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


# -- normalization, embedding ---------------------------------------------------------------
def batch_norm(tr, out, input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    if training or running_mean is None:
        raise _err("batch norm with batch statistics (training mode or track_running_stats=False) is not "
                   "supported by tinytorch.onnx.export: export the model in eval mode")
    c = input.shape[1]
    dtype = _np_dtype(input)
    scale = tr.value(weight) if weight is not None else tr.const(np.ones(c, dtype))
    shift = tr.value(bias) if bias is not None else tr.const(np.zeros(c, dtype))
    tr.node("BatchNormalization", [tr.value(input), scale, shift, tr.value(running_mean), tr.value(running_var)],
            out, epsilon=float(eps))


def layer_norm(tr, out, input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if tr.opset < 17:
        raise _err("LayerNorm needs opset_version 17 or later (LayerNormalization)")
    shape = _tuple(normalized_shape, 1)
    dtype = _np_dtype(input)
    scale = tr.value(weight) if weight is not None else tr.const(np.ones(shape, dtype))
    inputs = [tr.value(input), scale] + ([tr.value(bias)] if bias is not None else [])
    tr.node("LayerNormalization", inputs, out, axis=-len(shape), epsilon=float(eps))


def embedding(tr, out, input, weight, padding_idx=None, max_norm=None, *args, **kwargs):
    if max_norm is not None:
        raise _err("Embedding with max_norm (renormalizes its weight in place) is not supported by "
                   "tinytorch.onnx.export")
    tr.node("Gather", [tr.value(weight), tr.value(input)], out, axis=0)


@export_rule("Tensor.contiguous")
def identity(tr, out, input, *args, **kwargs):
    tr.node("Identity", [tr.value(input)], out)


# -- the torch.X signatures of the ops whose F.X spelling (above) takes its arguments in another order
@export_rule("batch_norm")
def torch_batch_norm(tr, out, input, weight, bias, running_mean, running_var, training, momentum, eps, *args):
    batch_norm(tr, out, input, running_mean, running_var, weight, bias, training, momentum, eps)


@export_rule("layer_norm")
def torch_layer_norm(tr, out, input, normalized_shape, weight=None, bias=None, eps=1e-5, *args):
    layer_norm(tr, out, input, normalized_shape, weight, bias, eps)


@export_rule("embedding")
def torch_embedding(tr, out, weight, indices, *args, **kwargs):
    embedding(tr, out, indices, weight)


@export_rule("rsub")
def rsub(tr, out, input, other, *, alpha=1):
    x, y = _operand(tr, input, out), _operand(tr, other, out)
    if alpha != 1:
        x = tr.node("Mul", [x, tr.scalar(alpha, _np_dtype(out))])
    tr.node("Sub", [y, x], out)


@export_rule("pow")
def pow(tr, out, input, exponent):
    base = _operand(tr, input, out)
    power = tr.value(exponent) if isinstance(exponent, Tensor) else tr.scalar(exponent, _np_dtype(out))
    tr.node("Pow", [base, power], out)


@export_rule("masked_fill")
def masked_fill(tr, out, input, mask, value):
    fill = tr.value(value) if isinstance(value, Tensor) else tr.scalar(value, _np_dtype(out))
    if isinstance(value, Tensor) and value.dtype != out.dtype:
        fill = tr.node("Cast", [fill], to=tr.helper.np_dtype_to_tensor_dtype(_np_dtype(out)))
    if not tr.knows(input) and not input.requires_grad and tuple(input.shape) == tuple(mask.shape):
        data = input.detach().numpy()
        if data.size and (data == data.flat[0]).all():  # a filled constant (zeros(mask.shape)): a scalar, so the
            base = tr.scalar(data.flat[0], _np_dtype(out))  # mask's dynamic sizes stay dynamic
            tr.node("Where", [tr.value(mask), fill, base], out)
            return
    tr.node("Where", [tr.value(mask), fill, _operand(tr, input, out)], out)


@export_rule("Tensor.float", "Tensor.double", "Tensor.half", "Tensor.long", "Tensor.int", "Tensor.short",
             "Tensor.bool", "Tensor.to", "Tensor.type_as")
def cast(tr, out, input, *args, **kwargs):
    """``x.float()``, ``x.to(dtype)``, ``x.type_as(y)``...: a Cast to the result's dtype."""
    if out.dtype == input.dtype:
        tr.node("Identity", [tr.value(input)], out)
    else:
        tr.node("Cast", [tr.value(input)], out, to=tr.helper.np_dtype_to_tensor_dtype(_np_dtype(out)))


@export_rule("F.scaled_dot_product_attention")
def scaled_dot_product_attention(tr, out, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    if dropout_p > 0:
        raise _err("scaled_dot_product_attention with dropout_p > 0 is random: pass dropout_p=0.0 when exporting")
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        raise _err("scaled_dot_product_attention with enable_gqa (grouped heads) is not supported by "
                   "tinytorch.onnx.export")
    dtype = _np_dtype(query)
    n = key.dim()
    perm = list(range(n - 2)) + [n - 1, n - 2]
    factor = scale if scale is not None else 1 / math.sqrt(query.shape[-1])
    q = tr.node("Mul", [tr.value(query), tr.scalar(factor, dtype)])
    scores = tr.node("MatMul", [q, tr.node("Transpose", [tr.value(key)], perm=perm)])
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:  # the lengths of this trace: a causal model exports for them
        tri = np.where(np.tril(np.ones((L, S), dtype=bool)), 0.0, -np.inf).astype(dtype)
        scores = tr.node("Add", [scores, tr.const(tri)])
    if attn_mask is not None:
        m = tr.value(attn_mask)
        if attn_mask.dtype != query.dtype:  # a bool mask: True takes part (the opposite of MultiheadAttention's)
            m = tr.node("Where", [m, tr.scalar(0.0, dtype), tr.scalar(-np.inf, dtype)])
        scores = tr.node("Add", [scores, m])
    tr.node("MatMul", [tr.node("Softmax", [scores], axis=-1), tr.value(value)], out)
