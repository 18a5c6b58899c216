"""Which ATen operators a tinytorch op call is, as PyTorch's tracers record it.

tinytorch declares ``torch.nn.functional.linear`` once and runs it as one computation; PyTorch's dispatcher hands
the same call to its tracers as ATen operators, at one of two levels:
  - ``make_fx`` (below autograd): composite ops are decomposed. ``F.linear(x, w, b)`` on a 2-d ``x`` is
    ``aten.t.default(w)`` then ``aten.addmm.default(b, x, t)``, ``softmax`` is ``aten._softmax.default``,
    ``conv2d`` is ``aten.convolution.default``, ``reshape`` a ``view``...
  - ``torch.export`` (pre-dispatch, ``predispatch``): the op as the Python API called it
    (``aten.linear.default``, ``aten.conv2d.default``, ``aten.batch_norm.default``).
``aten_rule`` puts a rule on the declaration of each tinytorch op whose ATen form is not simply
``aten.<name>.<overload>`` with the call's own arguments; every other op is recorded that way (``default_rule``).
A rule gets the recorder ``g`` (its ``call`` adds one ATen node), the call's arguments bound by name (``Args``) and
the op's result; it returns the node(s) standing for the result. ``recorded_as_parts`` marks the ops a tracer sees
as the ops they are made of, ``scalar_overload`` the in-place ops whose ATen overload a number argument picks.

The ATen operators' argument lists (``SCHEMAS``, as ``native_functions.yaml`` writes them) tell which arguments a
recorded call shows: PyTorch's dispatcher leaves out the trailing positional arguments and the keyword-only ones
that hold their defaults (``sum.dim_IntList(x, [0])``, not ``sum.dim_IntList(x, [0], False, dtype=None)``)."""
from __future__ import annotations

from typing import NamedTuple


import numpy as np

from ... import _dtype
from ..._ops._core.arguments import signature as _signature
from ..._ops._core.members import strided
from ..._ops._core.registry import CAPTURE, bind_rule
from ..._size import device
from ..._size import device as device_type
from ..._symbolic import SymInt, concrete, has_symbols
from ..._ops._core.util import reduction_enum
from ..._ops.nn._reduction import resolve as _resolve_reduction
from ..._ops.linalg import matmul as _matmul_ops
from ..._ops.nn.linear import _LinearAddmm
from ..._ops.nn.loss_nll import NllLossBackward0, _total_weight
from ..._ops.nn.activation_smooth import SELU_ALPHA, SELU_SCALE
from ..._ops.nn.attention import ScaledDotProductFlashAttentionForCpuBackward0, _flash_attention_for_cpu
from ..._ops.nn.batch_norm import NativeBatchNormBackward0, _stat
from ..._ops.nn.norm import NativeLayerNormBackward0
from ..._ops.nn.pool import MaxPool2DWithIndicesBackward0, _result1
from ..._ops.nn.resize import UPSAMPLE_OPERATORS
from ..._ops.shape.conversions import _to_args, contiguous_format
from ..._meta_array import MetaArray
from ...tensor import Tensor, _make

__all__ = ["SCHEMAS", "aten_rule", "recorded_as_parts", "Parts", "scalar_overload", "Args", "aten_name", "schema",
           "rule_for"]

def _smoothed_cross_entropy(a) -> bool:
    """cross_entropy of class indices with label smoothing (ATen's cross_entropy_loss_label_smoothing is made of
    ops; without smoothing the rule writes PyTorch's decomposition, _log_softmax and nll_loss_forward)."""
    return bool(a.get("label_smoothing", 0.0)) and a["input"].shape != a["target"].shape


# the namespaces whose ops ATen names with their namespace in front (torch.special.entr is aten.special_entr)
_PREFIXED = ("linalg", "special", "fft")

# name.overload(arguments): the ATen schemas of the operators the rules below emit (the return types left out)
SCHEMAS = """
add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)
sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)
mul.Tensor(Tensor self, Tensor other)
div.Tensor(Tensor self, Tensor other)
div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode)
add_.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)
sub_.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)
mul_.Tensor(Tensor self, Tensor other)
div_.Tensor(Tensor self, Tensor other)
pow.Tensor_Scalar(Tensor self, Scalar exponent)
pow.Tensor_Tensor(Tensor self, Tensor exponent)
sum.default(Tensor self, *, ScalarType? dtype=None)
sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)
amax.default(Tensor self, int[1] dim=[], bool keepdim=False)
argmax.default(Tensor self, int? dim=None, bool keepdim=False)
argmin.default(Tensor self, int? dim=None, bool keepdim=False)
logsumexp.default(Tensor self, int[1] dim, bool keepdim=False)
nansum.default(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)
cumsum.default(Tensor self, int dim, *, ScalarType? dtype=None)
cumprod.default(Tensor self, int dim, *, ScalarType? dtype=None)
all.default(Tensor self)
all.dim(Tensor self, int dim, bool keepdim=False)
all.dims(Tensor self, int[1]? dim=None, bool keepdim=False)
any.default(Tensor self)
any.dim(Tensor self, int dim, bool keepdim=False)
any.dims(Tensor self, int[1]? dim=None, bool keepdim=False)
median.default(Tensor self)
median.dim(Tensor self, int dim, bool keepdim=False)
flip.default(Tensor self, int[] dims)
roll.default(Tensor self, SymInt[1] shifts, int[1] dims=[])
tril.default(Tensor self, int diagonal=0)
triu.default(Tensor self, int diagonal=0)
diagonal.default(Tensor self, int offset=0, int dim1=0, int dim2=1)
addcmul.default(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1)
addcdiv.default(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1)
round.default(Tensor self)
round.decimals(Tensor self, *, int decimals)
lerp.Scalar(Tensor self, Tensor end, Scalar weight)
lerp.Tensor(Tensor self, Tensor end, Tensor weight)
split.Tensor(Tensor self, SymInt split_size, int dim=0)
unbind.int(Tensor self, int dim=0)
movedim.int(Tensor self, int source, int destination)
movedim.intlist(Tensor self, int[] source, int[] destination)
avg_pool1d.default(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, bool ceil_mode=False, bool count_include_pad=True)
split_with_sizes.default(Tensor self, SymInt[] split_sizes, int dim=0)
mse_loss.default(Tensor self, Tensor target, int reduction=1)
smooth_l1_loss.default(Tensor self, Tensor target, int reduction=1, float beta=1.0)
huber_loss.default(Tensor self, Tensor target, int reduction=1, float delta=1.0)
binary_cross_entropy_with_logits.default(Tensor self, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, int reduction=1)
amin.default(Tensor self, int[1] dim=[], bool keepdim=False)
prod.default(Tensor self, *, ScalarType? dtype=None)
prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None)
linalg_vector_norm.default(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)
var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)
var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False)
var.default(Tensor self, bool unbiased=True)
std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)
std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False)
std.default(Tensor self, bool unbiased=True)
var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)
var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False)
var_mean.default(Tensor self, bool unbiased=True)
std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)
std_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False)
std_mean.default(Tensor self, bool unbiased=True)
linalg_norm.default(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)
linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)
linalg_matrix_norm.default(Tensor self, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, ScalarType? dtype=None)
linalg_matrix_norm.str_ord(Tensor self, str ord='fro', int[] dim=[-2,-1], bool keepdim=False, *, ScalarType? dtype=None)
mean.default(Tensor self, *, ScalarType? dtype=None)
mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)
max.default(Tensor self)
max.dim(Tensor self, int dim, bool keepdim=False)
min.default(Tensor self)
min.dim(Tensor self, int dim, bool keepdim=False)
_softmax.default(Tensor self, int dim, bool half_to_float)
_log_softmax.default(Tensor self, int dim, bool half_to_float)
softmax.int(Tensor self, int dim, ScalarType? dtype=None)
log_softmax.int(Tensor self, int dim, ScalarType? dtype=None)
t.default(Tensor self)
slice.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1)
select.int(Tensor self, int dim, SymInt index)
narrow.default(Tensor self, int dim, SymInt start, SymInt length)
index.Tensor(Tensor self, Tensor?[] indices)
index_put.default(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False)
alias.default(Tensor self)
bernoulli_.float(Tensor self, float p=0.5, *, Generator? generator=None)
div_.Scalar(Tensor self, Scalar other)
native_batch_norm.default(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps)
max_pool2d_with_indices.default(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False)
gelu_backward.default(Tensor grad_output, Tensor self, *, str approximate='none')
_scaled_dot_product_flash_attention_for_cpu.default(Tensor query, Tensor key, Tensor value, float dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None)
embedding.default(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False)
threshold_backward.default(Tensor grad_output, Tensor self, Scalar threshold)
leaky_relu.default(Tensor self, Scalar negative_slope=0.01)
elu.default(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1)
celu.default(Tensor self, Scalar alpha=1.0)
hardshrink.default(Tensor self, Scalar lambd=0.5)
softshrink.default(Tensor self, Scalar lambd=0.5)
glu.default(Tensor self, int dim=-1)
index_add.default(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1)
softplus.default(Tensor self, Scalar beta=1, Scalar threshold=20)
topk.default(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True)
avg_pool2d.default(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)
avg_pool3d.default(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)
pad.default(Tensor self, SymInt[] pad, str mode='constant', float? value=None)
clamp.default(Tensor self, Scalar? min=None, Scalar? max=None)
clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None)
sort.default(Tensor self, int dim=-1, bool descending=False)
leaky_relu_.default(Tensor self, Scalar negative_slope=0.01)
elu_.default(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1)
celu_.default(Tensor self, Scalar alpha=1.0)
hardtanh_.default(Tensor self, Scalar min_val=-1, Scalar max_val=1)
cross_entropy_loss.default(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100, float label_smoothing=0.0)
nll_loss_nd.default(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100)
native_layer_norm.default(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps)
native_layer_norm_backward.default(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask)
convolution_backward.default(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask)
_softmax_backward_data.default(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype)
_log_softmax_backward_data.default(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype)
nll_loss_forward.default(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index)
nll_loss_backward.default(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight)
mm.default(Tensor self, Tensor mat2)
tanh.default(Tensor self)
relu.default(Tensor self)
sigmoid.default(Tensor self)
neg.default(Tensor self)
exp.default(Tensor self)
gt.Scalar(Tensor self, Scalar other)
addmm.default(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)
matmul.default(Tensor self, Tensor other)
linear.default(Tensor input, Tensor weight, Tensor? bias=None)
view.default(Tensor self, SymInt[] size)
_unsafe_view.default(Tensor self, SymInt[] size)
reshape.default(Tensor self, SymInt[] shape)
flatten.using_ints(Tensor self, int start_dim=0, int end_dim=-1)
permute.default(Tensor self, int[] dims)
transpose.int(Tensor self, int dim0, int dim1)
as_strided.default(Tensor self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None)
as_strided_scatter.default(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None)
unflatten.int(Tensor self, int dim, SymInt[] sizes)
unsqueeze.default(Tensor self, int dim)
expand.default(Tensor self, SymInt[] size, *, bool implicit=False)
clone.default(Tensor self, *, MemoryFormat? memory_format=None)
copy.default(Tensor self, Tensor src, bool non_blocking=False)
contiguous.default(Tensor self, *, MemoryFormat memory_format=contiguous_format)
cat.default(Tensor[] tensors, int dim=0)
stack.default(Tensor[] tensors, int dim=0)
detach.default(Tensor self)
dropout.default(Tensor input, float p, bool train)
conv2d.default(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1)
convolution.default(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups)
batch_norm.default(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled)
_native_batch_norm_legit_no_training.default(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, float eps)
gelu.default(Tensor self, *, str approximate='none')
to.dtype(Tensor self, ScalarType dtype, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None)
to.device(Tensor self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None)
to.dtype_layout(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None)
_to_copy.default(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None)
ones_like.default(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None)
zeros_like.default(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None)
empty_like.default(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None)
rand_like.default(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None)
randn_like.default(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None)
full_like.default(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None)
ones.default(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
zeros.default(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None)
full.default(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
arange.default(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
linspace.default(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
eye.default(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
"""

_REQUIRED = object()
_DEFAULTS = {"[]": [], "None": None, "True": True, "False": False, "'none'": "none", "'constant'": "constant",
             "contiguous_format": "contiguous_format", "'fro'": "fro", "[-2,-1]": [-2, -1]}


def _parse(line: str) -> tuple:
    """``("add.Tensor", [(name, default or _REQUIRED, keyword-only), ...])`` of one ``SCHEMAS`` line; the names of
    its list arguments (``int[1] dim``) go into ``_LISTS``."""
    head, _, rest = line.partition("(")
    params, kw_only = [], False
    for part in rest.rstrip(")").split(", "):
        if part == "*":
            kw_only = True
            continue
        decl, eq, default = part.partition("=")
        name = decl.split()[-1]
        if "[" in decl.split()[0]:
            _LISTS.setdefault(head, set()).add(name)
        value = (_REQUIRED if not eq else _DEFAULTS[default] if default in _DEFAULTS else
                 float(default) if "." in default else int(default))
        params.append((name, value, kw_only))
    return head, params


_LISTS: dict = {}  # overload -> the names of its list arguments
_SCHEMAS = dict(_parse(line) for line in SCHEMAS.strip().splitlines())


def schema(overload: str):
    """The parsed arguments of ``overload`` (``"sum.dim_IntList"``), or None for one ``SCHEMAS`` lacks."""
    return _SCHEMAS.get(overload)


def _is_default(value, default) -> bool:
    if default is _REQUIRED or isinstance(value, Tensor) or has_symbols(value):  # (an export's u0: never a default)
        return False
    if default == "contiguous_format":  # a memory format's default, by its name
        return getattr(value, "__name__", str(value)).endswith("contiguous_format")
    if isinstance(value, (list, tuple)) and isinstance(default, int) and not isinstance(default, bool):
        return all(v == default for v in value)  # int[2] stride=1: [1, 1]
    return type(value) is type(default) and value == default or (value is None and default is None)


def shown(overload: str, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The arguments a recorded call of ``overload`` shows: all given ones, bound to the schema, less the trailing
    positional ones and the keyword-only ones that hold their defaults (as given when ``overload`` has no schema)."""
    params = _SCHEMAS.get(overload) or _SCHEMAS.get(_functional_overload(overload))  # (add_.Tensor takes add.Tensor's)
    if params is None:
        return args, kwargs
    values, kwargs = list(args), dict(kwargs)
    for name, default, kw_only in params[len(values):]:
        if not kw_only:
            values.append(kwargs.pop(name, default))
    positional = [v for (name, _, kw_only), v in zip(params, values) if not kw_only]
    while positional and _is_default(positional[-1], params[len(positional) - 1][1]):
        positional.pop()
    keywords = {name: kwargs[name] for name, default, kw_only in params
                if kw_only and name in kwargs and not _is_default(kwargs[name], default)}
    return tuple(positional), keywords


def _functional_overload(overload: str) -> str:
    """``add.Tensor`` for the in-place ``add_.Tensor``: the operator whose arguments an in-place one takes."""
    packet, _, name = overload.partition(".")
    return f"{packet[:-1]}.{name}" if packet.endswith("_") else overload


# -- a call's arguments, by name ----------------------------------------------------------------------
class Args:
    """An op call's arguments bound to the tinytorch function's parameters, defaults filled in. ``a.self`` is
    the first argument (``input`` or ``self``), ``a.positional()`` the ones ATen takes by position."""

    def __init__(self, fn, args: tuple, kwargs: dict):
        sig = _signature(fn)
        self.values: dict = {}
        self.kw_only: set = set()
        if sig is None:
            self.values = {f"arg{i}": a for i, a in enumerate(args)}
            self.values.update(kwargs)
            self.given = set(self.values)
            return
        bound = sig.bind(*args, **kwargs)
        self.given = set(bound.arguments)  # the parameters the call gave (round(x, decimals=0) is not round(x))
        bound.apply_defaults()
        for name, p in sig.parameters.items():
            if name not in bound.arguments or name == "out" or name.startswith("_"):
                continue
            if p.kind is p.VAR_POSITIONAL:  # f(*size): the sizes as one list
                value = bound.arguments[name]
                self.values[name] = list(value[0]) if len(value) == 1 and isinstance(value[0], (list, tuple)) \
                    else list(value)
            elif p.kind is p.VAR_KEYWORD:
                self.values.update(bound.arguments[name])
            else:
                self.values[name] = bound.arguments[name]
                if p.kind is p.KEYWORD_ONLY:
                    self.kw_only.add(name)

    @property
    def self(self):
        return next(iter(self.values.values()))

    def arg(self, i: int):
        """The ``i``-th positional argument (the ops' own functions name their operands ``a``, ``b``...)."""
        values = self.positional()
        return values[i] if i < len(values) else None

    def get(self, name: str, default=None):
        return self.values.get(name, default)

    def __getitem__(self, name: str):
        return self.values[name]

    def positional(self) -> list:
        return [v for k, v in self.values.items() if k not in self.kw_only]

    def keywords(self) -> dict:
        return {k: v for k, v in self.values.items() if k in self.kw_only}


def _listed(dim) -> list:
    return list(dim) if isinstance(dim, (list, tuple)) else [dim]


# -- the rules ----------------------------------------------------------------------------------------
def default_rule(g, name: str, a: Args, out):
    """``aten.<name>.default`` with the call's arguments: its positional ones, and its keyword-only ones that
    differ from their defaults."""
    return g.call(f"{name}.default", *a.positional(), **a.keywords())


def _binary(name):
    def rule(g, _, a, out):
        other = a.arg(1)
        alpha = a.get("alpha", 1)
        if name == "div" and a.get("rounding_mode") is not None:
            return g.call("div.Tensor_mode", a.self, other, rounding_mode=a["rounding_mode"])
        if ((name == "div" and getattr(g, "in_backward", 0)) or getattr(g, "in_composite", 0)) \
                and not isinstance(other, Tensor) and _one(alpha):
            # a backward formula's division by a number (mean's by its count), a C++ composite's number: C++'s
            # Tensor op Scalar in PyTorch
            return g.call(f"{name}.Scalar", a.self, other)
        return g.call(f"{name}.Tensor", a.self, other, **({} if _one(alpha) else {"alpha": alpha}))
    return rule


def _one(alpha) -> bool:
    """An alpha of 1, which the graph leaves out (an export's unbacked symbol is shown whatever its value)."""
    return not has_symbols(alpha) and alpha == 1


def _comparison(name):
    def rule(g, _, a, out):
        other = a.arg(1)
        return g.call(f"{name}.{'Tensor' if isinstance(other, Tensor) else 'Scalar'}", a.self, other)
    return rule


def _pow(g, _, a, out):
    exponent = a.arg(1)
    return g.call("pow.Tensor_Tensor" if isinstance(exponent, Tensor) else "pow.Tensor_Scalar", a.self, exponent)


def _leaky_relu(g, _, a, out):
    """``F.leaky_relu(x, slope, inplace)``: PyTorch's ``leaky_relu`` or, in place, ``leaky_relu_``."""
    name = "leaky_relu_.default" if a.get("inplace", False) else "leaky_relu.default"
    return g.call(name, a.self, a.get("negative_slope", 0.01))


def _elu(g, name, a, out):
    """``F.elu(x, alpha)`` is ATen's ``elu`` with its alpha; ``selu`` is PyTorch's composite of it, ``elu`` with the
    self-normalising alpha and scale; in place (``inplace=True``, ``selu_``), ``elu_`` with the same."""
    aten = "elu_.default" if a.get("inplace", False) or name == "selu_" else "elu.default"
    if name.startswith("selu"):
        return g.call(aten, a.self, SELU_ALPHA, SELU_SCALE)
    return g.call(aten, a.self, a.get("alpha", 1.0))


def _out_of_place(aten: str, *params, fixed: tuple = ()):
    """``F.<op>(x, ..., inplace=False)``: ATen's ``aten`` with the parameters ``params`` (name, default) as given
    and the ``fixed`` ones (``relu6`` is PyTorch's ``hardtanh(x, 0, 6)``), without the flag; ``inplace=True``
    calls the in-place operator ``aten_`` with the same."""
    def rule(g, name, a, out):
        overload = f"{aten}_.default" if a.get("inplace", False) else f"{aten}.default"
        return g.call(overload, a.self, *(a.get(p, d) for p, d in params), *fixed)
    return rule


def _as_given(g, name, a, out):
    """An in-place binding called directly (``F.hardtanh_(x)``, ``F.celu_(x)``): the arguments the call gave, as
    PyTorch's binding hands them on (a default left out is the schema's, which the recording then leaves out)."""
    return g.call(f"{name}.default", a.self, *(v for k, v in list(a.values.items())[1:] if k in a.given))


def _scatter(g, _, a, out):
    """PyTorch's overloads: ``scatter.src`` (a tensor), ``scatter.value`` (a number), ``.reduce`` forms."""
    src = a.get("src")
    if src is None:
        src = a.get("value")
    reduce = a.get("reduce")
    form = "src" if isinstance(src, Tensor) else "value"
    if reduce is None:
        return g.call(f"scatter.{form}", a.self, a.arg(1), a.arg(2), src)
    return g.call(f"scatter.{form}_reduce" if form == "value" else "scatter.reduce", a.self, a.arg(1), a.arg(2),
                  src, reduce=reduce)


def _new_factory(name: str):
    """``x.new_<name>(size)`` (``new_full(size, fill_value)``) as make_fx prints PyTorch's: the size as a list,
    and ``pin_memory = False`` from Python (a backward formula's call, made in C++ in PyTorch, leaves it out)."""
    def rule(g, _, a, out):
        # (a backward formula's new_zeros(sizes, grad.options()): PyTorch prints the dtype, layout and device)
        kw = {k: a[k] for k in ("dtype", "layout", "device") if a.get(k) is not None}
        if not getattr(g, "in_backward", False):
            kw["pin_memory"] = False
        fill = (a["fill_value"],) if name == "full" else ()
        if g.core_aten:  # export's decompositions: the factory itself, with the tensor's options written out
            pinned = kw.pop("pin_memory", None)
            kw = dict(dtype=out.dtype, layout=strided, device=out.device)
            if pinned is not None:
                kw["pin_memory"] = pinned
            if name == "empty":
                return g.call("empty.memory_format", list(a["size"]), **kw)
            fill = fill or ({"zeros": 0, "ones": 1}[name],)
            return g.call("full.default", list(a["size"]), *fill, **kw)
        return g.call(f"new_{name}.default", a.self, list(a["size"]), *fill, **kw)
    return rule


def _factory_options(g, a, out) -> dict:
    """A factory's keywords as PyTorch's Python binding passes them on: the dtype and layout where given, the
    device always, pin_memory False from Python (left out in a backward formula's call, made in C++ in PyTorch)."""
    kw = {k: a[k] for k in ("dtype", "layout") if a.get(k) is not None}
    kw["device"] = out.device
    if not getattr(g, "in_backward", False):
        kw["pin_memory"] = bool(a.get("pin_memory", False))
    return kw


def _factory(name: str):
    """``ones``/``zeros``/``empty`` (``empty.memory_format``, its format where given): the size as one list."""
    overload = "empty.memory_format" if name == "empty" else f"{name}.default"

    def rule(g, _, a, out):
        kw = _factory_options(g, a, out)
        if name == "empty" and a.get("memory_format") is not None:
            kw["memory_format"] = a["memory_format"]
        return g.call(overload, list(a.get("size", a.arg(0))), **kw)
    return rule


def _full(g, _, a, out):
    return g.call("full.default", list(a.arg(0)), a.arg(1), **_factory_options(g, a, out))


def _arange(g, _, a, out):
    """arange(end), arange(start, end), arange(start, end, step): the overload by the arguments given; in export's
    core ATen decomposition the first two are ``arange.start_step`` (from 0 where no start was given, no step),
    their layout written out."""
    kw, start, end = _factory_options(g, a, out), a.get("start"), a.get("end")
    if g.core_aten and "step" not in a.given:
        kw = {k: kw[k] for k in ("dtype",) if k in kw} | {"layout": kw.get("layout", strided)} | \
             {k: kw[k] for k in ("device", "pin_memory") if k in kw}
        start, end = (0, start) if end is None else (start, end)
        return g.call("arange.start_step", start, end, **kw)
    if "step" in a.given:
        return g.call("arange.start_step", start, end, a["step"], **kw)
    if start is not None and end is not None:
        return g.call("arange.start", start, end, **kw)
    return g.call("arange.default", end if start is None else start, **kw)


def _linspace(g, _, a, out):
    return g.call("linspace.default", a["start"], a["end"], a["steps"], **_factory_options(g, a, out))


def _eye(g, _, a, out):
    kw = _factory_options(g, a, out)
    if a.get("m") is None:
        return g.call("eye.default", a["n"], **kw)
    return g.call("eye.m", a["n"], a["m"], **kw)


def _where(g, _, a, out):
    """``where(condition, input, other)``: export keeps PyTorch's overload by which operands are numbers
    (``where.ScalarOther``...); below autograd those decompose to ``where.self`` with each number a
    ``scalar_tensor`` (one argument: ``where.default``, the nonzero places)."""
    if len(a.positional()) < 3:
        return g.call("where.default", *a.positional())
    cond, x, y = a.positional()[:3]
    if g.predispatch:
        form = ("self" if isinstance(x, Tensor) and isinstance(y, Tensor) else "ScalarOther"
                if isinstance(x, Tensor) else "ScalarSelf" if isinstance(y, Tensor) else "Scalar")
        return g.call(f"where.{form}", cond, x, y)
    # PyTorch's Python binding wraps a number operand as a 0-d tensor of the result's dtype first
    x, y = (v if isinstance(v, Tensor) else _zero_d(g, v, out.dtype) for v in (x, y))
    return g.call("where.self", cond, x, y)


def _masked_fill(g, _, a, out):
    """``masked_fill.Scalar`` or ``masked_fill.Tensor``, by the value; in export's core ATen decomposition
    ``where(mask, value, self)``, a number as a 0-d tensor of self's dtype (the number as that dtype's Python type,
    ``2`` into a float tensor is ``2.0``), a 0-d tensor of another dtype copied to it."""
    value, x = a.arg(2), a.self
    if not g.core_aten:
        return g.call(f"masked_fill.{'Tensor' if isinstance(value, Tensor) else 'Scalar'}", x, a.arg(1), value)
    if not isinstance(value, Tensor):
        value = _zero_d(g, _python_scalar(value, x.dtype), x.dtype)
    elif value.dtype != x.dtype:
        value = g.call("_to_copy.default", value, dtype=x.dtype)
    return g.call("where.self", a.arg(1), value, x)


def _python_scalar(value, dtype):
    """``value`` as the Python number of ``dtype``'s kind (a Scalar converted as ATen converts it to the dtype)."""
    kind = bool if dtype == _dtype.bool_ else complex if dtype.is_complex else float if dtype.is_floating_point \
        else int
    return kind(value)


def _opmath(g, tensors: list, dtype) -> tuple:
    """PyTorch's decompositions compute a pointwise op of ``dtype`` (the promoted one) in its "opmath" type (float32
    for the half types): each operand of another dtype copied to it (``_to_copy``, in order), and that type."""
    compute = _dtype.float32 if dtype in (_dtype.float16, _dtype.bfloat16) else dtype
    return [t if t.dtype == compute else g.call("_to_copy.default", t, dtype=compute) for t in tensors], compute


def _addcmul(g, name, a, out):
    """``addcmul.default``; in export's core ATen decomposition ``self + value * tensor1 * tensor2``
    (``mul(tensor1, value)`` even for a value of 1), computed in the opmath type and copied back to the result's."""
    if not g.core_aten:
        return _by_schema("addcmul.default")(g, name, a, out)
    (x, t1, t2), compute = _opmath(g, a.positional()[:3], out.dtype)
    value = a.get("value", 1)
    value = value if compute.is_floating_point or compute.is_complex else int(value)
    r = g.call("add.Tensor", x, g.call("mul.Tensor", g.call("mul.Tensor", t1, value), t2))
    return r if compute == out.dtype else g.call("_to_copy.default", r, dtype=out.dtype)


def _scalar_tensor(g, _, a, out):
    """``scalar_tensor`` with the options it was given: a backward formula's zero (``at::scalar_tensor(0.,
    grad.options())``) shows its layout, cosine_similarity's eps (a dtype and a device) none."""
    layout = {} if a.get("layout") is None else {"layout": strided}
    return g.call("scalar_tensor.default", a.arg(0), dtype=out.dtype, **layout, device=device("cpu"))


def _from_data(g, name, a, out):
    """``torch.tensor(data)`` / ``torch.as_tensor(data)`` of Python values: the tensor made is a constant of the
    graph (a ``_tensor_constant`` attribute, which export lifts to an input ``c_lifted_tensor_<n>``), copied by
    ``lift_fresh_copy``; export's pre-dispatch graph shows ``torch.tensor``'s own ``detach_`` of the copy too. Data
    holding tensors or symbols is written as it was given, and so is every call in a fake trace (make_fx's
    ``tracing_mode="fake"``) and in jit's and torch.compile's captures (``python_indexing``), whose replays and
    plans make the tensor again from the node (``aten.tensor``, as dynamo's graphs hold it)."""
    data = a.self
    leaves = data if isinstance(data, (list, tuple)) else [data]
    while any(isinstance(v, (list, tuple)) for v in leaves):
        leaves = [w for v in leaves for w in (v if isinstance(v, (list, tuple)) else [v])]
    if any(isinstance(v, Tensor) or has_symbols(v) for v in leaves) or not isinstance(out, Tensor) \
            or g.fake_mode is not None or g.python_indexing:
        return default_rule(g, name, a, out)
    node = g.call("lift_fresh_copy.default", g.node(_make(out._data.copy())))
    return g.call("detach_.default", node) if name == "tensor" and g.predispatch else node


def bound_overload(a: Args) -> str:
    """clamp's (clamp_min's, clamp_max's) overload: ``.Tensor`` where a bound is a tensor, else ``.default``."""
    return "Tensor" if any(isinstance(v, Tensor) for v in a.positional()[1:]) else "default"


def _bounded(g, name, a, out):
    return g.call(f"{name}.{bound_overload(a)}", *a.positional(), **a.keywords())


def _zero_d(g, value, dtype):
    """``scalar_tensor(value)`` with its dtype, layout and device spelled out, as PyTorch's tracer shows them."""
    return g.call("scalar_tensor.default", value, dtype=dtype, layout=strided, device=device("cpu"))


def _squeeze(g, _, a, out):
    """PyTorch's three overloads: every size-1 dim, one dim, or a list of dims."""
    dim = a.get("dim")
    if dim is None:
        return g.call("squeeze.default", a.self)
    if isinstance(dim, (list, tuple)):
        return g.call("squeeze.dims", a.self, list(dim))
    return g.call("squeeze.dim", a.self, dim)


def _unflatten(g, _, a, out):
    """One dim split in several: ``aten.unflatten.int`` where the trace keeps composite ops (export's pre-dispatch
    graph), else what it decomposes into, a view of the result's shape (make_fx, compile, run_decompositions)."""
    if g.predispatch:
        return g.call("unflatten.int", a.self, a["dim"], list(a["sizes"]))
    return g.call("view.default", a.self, list(out._data.shape))


def _reduction(name):
    def rule(g, _, a, out):
        dim = a.get("dim")
        dtype = {"dtype": a["dtype"]} if a.get("dtype") is not None else {}
        if dim is None:
            return g.call(f"{name}.default", a.self, **dtype)
        return g.call(f"{name}.{'dim_IntList' if name == 'sum' else 'dim'}", a.self, _listed(dim),
                      a.get("keepdim", False), **dtype)
    return rule


def _keepdim(a) -> bool:
    """keepdim, or its numpy spelling ``keepdims`` where given (which wins)."""
    kept = a.get("keepdims")
    return bool(a.get("keepdim", False) if kept is None else kept)


def _prod(g, _, a, out):
    dtype = {"dtype": a["dtype"]} if a.get("dtype") is not None else {}
    if a.get("dim") is None:
        return g.call("prod.default", a.self, **dtype)
    return g.call("prod.dim_int", a.self, a["dim"], _keepdim(a), **dtype)


def _by_schema(overload: str, written: str | None = None):
    """A rule writing ``overload`` (or ``written``, its in-place form) with the call's arguments matched to its
    schema by name (an argument the call names otherwise by its position; numpy's ``keepdims`` read as
    ``keepdim``), a list argument given as a number or a tuple written as a list; ``shown`` leaves out the
    defaults."""
    params, lists = _SCHEMAS[overload], _LISTS.get(overload, ())

    def rule(g, _, a, out):
        given = a.positional()
        values, keywords = [a.self], {}
        for i, (name, default, kw_only) in enumerate(params[1:], 1):
            v = a.get(name, _REQUIRED)
            if name == "keepdim" and a.get("keepdims") is not None:
                v = a.get("keepdims")
            if v is _REQUIRED or (v is None and default is _REQUIRED):  # (flip(x, 0): a *dims parameter)
                v = given[i] if not kw_only and i < len(given) else default
            elif v is None and default is not None:  # (roll(x, 2): dims None, ATen's [])
                v = default
            if name in lists and isinstance(v, (int, tuple)):
                v = _listed(v)
            if kw_only:
                keywords[name] = v
            else:
                values.append(v)
        return g.call(written or overload, *values, **keywords)
    return rule


def _by_dim(name: str, dims: str | None = None):
    """``name.default(x)`` without a dim, ``name.dim`` with one (``name.dims`` with several, where it has one)."""
    def rule(g, _, a, out):
        dim = a.get("dim")
        if dim is None:
            return g.call(f"{name}.default", a.self)
        if dims is not None and isinstance(dim, (list, tuple)):
            return _by_schema(f"{name}.{dims}")(g, name, a, out)
        return _by_schema(f"{name}.dim")(g, name, a, out)
    return rule


def _round(g, _, a, out):
    if "decimals" not in a.given:
        return g.call("round.default", a.self)
    return g.call("round.decimals", a.self, decimals=a["decimals"])


def _lerp(g, _, a, out):
    """``lerp.Scalar`` or ``lerp.Tensor``, by the weight; in export's core ATen decomposition, where ``|w| >= 0.5``
    ``end + (w - 1) * (end - start)``, elsewhere ``start + w * (end - start)`` (PyTorch's formula, written with two
    ``where``), in the opmath type, a number weight as a 0-d ``full``."""
    weight = a.get("weight", a.arg(2))
    if not g.core_aten:
        return g.call(f"lerp.{'Tensor' if isinstance(weight, Tensor) else 'Scalar'}", a.self, a.arg(1), weight)
    tensors = [a.self, a.arg(1)] + ([weight] if isinstance(weight, Tensor) else [])
    converted, compute = _opmath(g, tensors, out.dtype)
    start, end = converted[:2]
    if isinstance(weight, Tensor):
        weight = converted[2]
    else:
        weight = g.call("full.default", [], weight, dtype=compute, layout=strided, device=_device(out),
                        pin_memory=False)
    high = g.call("ge.Scalar", g.call("abs.default", weight), 0.5)
    coeff = g.call("where.self", high, g.call("sub.Tensor", weight, 1), weight)
    base = g.call("where.self", high, end, start)
    r = g.call("add.Tensor", g.call("mul.Tensor", coeff, g.call("sub.Tensor", end, start)), base)
    return r if compute == out.dtype else g.call("_to_copy.default", r, dtype=out.dtype)


def _split(g, _, a, out):
    size, dim = a.arg(1), a.get("dim", 0)
    if isinstance(size, (list, tuple)):
        return g.call("split_with_sizes.default", a.self, list(size), dim)
    return g.call("split.Tensor", a.self, size, dim)


def _chunk(g, _, a, out):
    """chunk is split into pieces of the ceiling of size / chunks (a composite of PyTorch's); an empty dim into
    ``chunks`` empty pieces by split_with_sizes."""
    chunks, dim = a.arg(1), a.get("dim", 0)
    size = a.self.shape[dim]
    if size == 0:
        return g.call("split_with_sizes.default", a.self, [0] * chunks, dim)
    return g.call("split.Tensor", a.self, -(-size // chunks), dim)


def _narrow(g, _, a, out):
    """``narrow.default`` as export records it; below it (make_fx, run_decompositions) the ``slice`` it is."""
    dim, start, length = a.arg(1), a.arg(2), a.arg(3)
    if g.predispatch and not isinstance(start, Tensor):
        return g.call("narrow.default", a.self, dim, start, length)
    start = int(start) if isinstance(start, Tensor) else start
    if start < 0:
        start += a.self.shape[dim]
    return g.call("slice.Tensor", a.self, dim, start, start + length)


def _movedim(g, name, a, out):
    """movedim is composite in ATen: below autograd the ``permute`` that moves ``source`` to ``destination`` (export's
    pre-dispatch graph keeps ``movedim.int`` or ``.intlist``)."""
    x, source, destination = a.positional()[:3]
    if g.predispatch:
        return g.call(f"movedim.{'int' if isinstance(source, int) else 'intlist'}", x,
                      *[v if isinstance(v, int) else list(v) for v in (source, destination)])
    n = x.ndim
    if not n:  # (a 0-d tensor: its alias)
        return g.call("alias.default", x)
    moved = dict(zip([d % n for d in _listed(destination)], [d % n for d in _listed(source)]))
    rest = iter(d for d in range(n) if d not in moved.values())
    return g.call("permute.default", x, [moved[d] if d in moved else next(rest) for d in range(n)])


def _view_as(g, _, a, out):
    return g.call("view.default", a.self, list(a.arg(1).shape))


def _loss(overload: str):
    """A loss whose reduction ATen takes as its enum (``mse_loss(x, y)``: reduction=1, left out)."""
    params = _SCHEMAS[overload]

    def rule(g, _, a, out):
        values = [a.self, a.arg(1)]
        for name, default, _kw in params[2:]:
            values.append(_loss_reduction(a) if name == "reduction" else a.get(name, default))
        return g.call(overload, *values)
    return rule


def _extremum(name):
    def rule(g, _, a, out):
        dim = a.get("dim")
        if isinstance(dim, Tensor) or a.get("other") is not None:  # max(x, y): the elementwise one
            return g.call(f"{'maximum' if name == 'max' else 'minimum'}.default", a.self, a.get("other", dim))
        if dim is None:
            return g.call(f"{name}.default", a.self)
        return g.call(f"{name}.dim", a.self, dim, a.get("keepdim", False))
    return rule


def _softmax(name):
    def rule(g, _, a, out):
        x, dim, dtype = a.self, a.get("dim"), a.get("dtype")
        if g.predispatch:
            return g.call(f"{name}.int", x, dim, dtype)
        if dtype is not None:
            x = g.call("_to_copy.default", x, dtype=dtype, layout=strided, device=_device(out))
        return g.call(f"_{name}.default", x, dim, False)
    return rule


def _linear(g, _, a, out):
    x, w, b = a["input"], a["weight"], a.get("bias")
    if g.predispatch:
        return g.call("linear.default", x, w, b)
    if x.dim() == 2:
        wt = g.call("t.default", w)
        fn = getattr(out, "grad_fn", None)
        if isinstance(fn, _LinearAddmm):  # W.t() as the backward's formula reads it
            fn.graph_wt = _make(w._data.T)
            g.bind(fn.graph_wt, wt)
        return g.call("mm.default", x, wt) if b is None else g.call("addmm.default", b, x, wt)
    # folded to 2-d: (..., in) viewed as (N, in); PyTorch takes the transpose first when there is no bias
    flat = [x.numel() // x.shape[-1], x.shape[-1]]
    if not x.is_contiguous() and x.dim() >= 3 and w.requires_grad:
        # a strided input: matmul's copy into rows (clone, _unsafe_view), one mm, the bias added afterwards
        wt = g.call("t.default", w)
        rows = g.call("_unsafe_view.default", g.call("clone.default", x, memory_format=contiguous_format), flat)
        fn = getattr(out, "grad_fn", None)
        if b is not None and fn is not None and fn.next_functions:
            fn = fn.next_functions[0][0]  # the sum's first operand: the product's view
        folded = g.call("_unsafe_view.default", g.call("mm.default", rows, wt), list(out.shape))
        if fn is not None:
            _bind_rows(g, _Grad(fn), rows, wt, w)
        return folded if b is None else g.call("add.Tensor", folded, b)
    if b is None:
        wt = g.call("t.default", w)
        view = g.call("view.default", x, flat)
        _bind_rows(g, out, view, wt, w)
        return g.call("_unsafe_view.default", g.call("mm.default", view, wt), list(out.shape))
    view = g.call("view.default", x, flat)
    wt = g.call("t.default", w)
    _bind_rows(g, out, view, wt, w)
    return g.call("view.default", g.call("addmm.default", b, view, wt), list(out.shape))


class _Grad:
    """Stands for a result whose ``grad_fn`` is ``fn`` (what ``_bind_rows`` reads)."""

    def __init__(self, fn):
        self.grad_fn = fn


def _bind_rows(g, out, rows, wt, w) -> None:
    """A folded linear's inner node (behind the view of its result) reads the input's rows and W.t(): the
    ``view`` and ``t`` nodes stand for them, so that a traced backward reads them from the graph."""
    fn = getattr(out, "grad_fn", None)
    inner = fn.next_functions[0][0] if fn is not None and fn.next_functions else None
    if isinstance(inner, _LinearAddmm):
        inner.graph_wt = _make(w._data.T)
        g.bind(inner.graph_wt, wt)
        x_rows = inner._unpacked_saved[0]
        if isinstance(x_rows, Tensor):
            g.bind(x_rows, rows)


def _matmul(g, _, a, out):
    x, y = a.self, a.arg(1)
    if g.predispatch:
        return g.call("matmul.default", x, y)
    if x.dim() == 2 and y.dim() == 2:
        return g.call("mm.default", x, y)
    if x.dim() == 1 and y.dim() == 1:
        return g.call("dot.default", x, y)
    if x.dim() == 2 and y.dim() == 1:
        return g.call("mv.default", x, y)
    return g.call("matmul.default", x, y)  # the batched cases: recorded whole (PyTorch folds them into bmm)


def _reshaping(name):
    """reshape / flatten: below autograd a ``view`` when the result is one, else a copy then ``_unsafe_view``."""
    def rule(g, _, a, out):
        x = a.self
        given = _sizes_given(a, out) if name == "reshape" else list(out._data.shape)  # (a -1 kept as written)
        if g.predispatch:
            if name == "flatten":
                return g.call("flatten.using_ints", x, a.get("start_dim", 0), a.get("end_dim", -1))
            return g.call("reshape.default", x, given)
        if tuple(out.shape) == tuple(x.shape) and name == "flatten":
            return g.node(x)
        if out._base is not None or out._data.base is not None and _shares(out, x):
            return g.call("view.default", x, given)
        copy = g.call("clone.default", x, memory_format=contiguous_format)
        return g.call("_unsafe_view.default", copy, list(out.shape))
    return rule


def _shares(out, x) -> bool:
    try:
        return np.shares_memory(out._data, x._data)
    except TypeError:  # a meta array: it knows no memory, and a reshape of a contiguous input is a view
        return x.is_contiguous()


def _sizes_given(a, out) -> list:
    """A reshape's or view's sizes as the call wrote them (``-1`` and all), else the result's."""
    sizes = a.get("shape")
    if isinstance(sizes, (list, tuple)) and len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = sizes[0]
    if isinstance(sizes, (list, tuple)) and all(isinstance(s, (int, SymInt)) for s in sizes):
        return list(sizes)  # (an export's unbacked u0 among them: its node)
    return list(out._data.shape)


def _view(g, _, a, out):
    return g.call("view.default", a.self, _sizes_given(a, out))


def _contiguous(g, _, a, out):
    x = a.self
    if out is x:  # already contiguous: PyTorch hands ``x`` back before its dispatcher
        return g.node(x)
    return g.call("clone.default", x, memory_format=contiguous_format)


def _expand(g, _, a, out):
    return g.call("expand.default", a.self, list(a.get("size")))


def _expand_as(g, name, a, out):
    """``expand_as`` is composite: below autograd an ``expand`` to the other tensor's sizes."""
    if g.predispatch:
        return default_rule(g, name, a, out)
    return g.call("expand.default", a.self, list(out._data.shape))


def _permute(g, _, a, out):
    return g.call("permute.default", a.self, list(a.get("dims")))


def _transpose(g, _, a, out):
    return g.call("transpose.int", a.self, *[v for v in a.positional()[1:3]])


def _dropout(g, _, a, out):
    """Below autograd, PyTorch's CPU dropout is its composite: ``empty_like``, ``bernoulli_(1 - p)``,
    ``div_(1 - p)`` and the product, whose saved mask is the ``div_`` (so a traced backward multiplies by it)."""
    if g.predispatch:
        return g.call("dropout.default", a["input"], a.get("p", 0.5), a.get("train", True))
    x, p = a["input"], a.get("p", 0.5)
    if not a.get("train", True) or out is x:
        return g.node(x)  # no dropout: the input itself
    if p == 1:
        return default_rule(g, "dropout", a, out)
    return _noise_product(g, x, g.call("empty_like.default", x), p, out.grad_fn)


def _noise_product(g, x, noise, p: float, fn):
    """Dropout's composite after its noise tensor: ``bernoulli_(1 - p)``, ``div_(1 - p)``, the product with ``x``;
    the mask that ``fn`` (the product's node) saved is bound to the ``div_``, which its backward multiplies by."""
    keep = g.call("div_.Scalar", g.call("bernoulli_.float", noise, 1 - p), 1 - p)
    node = g.call("mul.Tensor", x, keep)
    saved = getattr(fn, "_unpacked_saved", None) if type(fn).__name__ == "MulBackward0" else None
    if saved is not None and isinstance(saved[1], Tensor):
        g.bind(saved[1], keep)
    return node


def _conv(nd):
    def rule(g, _, a, out):
        x, w, b = a["input"], a["weight"], a.get("bias")
        stride, padding, dilation = (_nd(a.get(k, d), nd) for k, d in (("stride", 1), ("padding", 0), ("dilation", 1)))
        groups = a.get("groups", 1)
        if g.predispatch:
            return g.call(f"conv{nd}d.default", x, w, b, stride, padding, dilation, groups)
        return g.call("convolution.default", x, w, b, stride, padding, dilation, False, [0] * nd, groups)
    return rule


def _max_pool2d(g, name, a, out):
    """Below autograd PyTorch's max_pool2d is ``max_pool2d_with_indices`` (values, argmax positions); the node's
    backward reads the positions from its second result."""
    if g.predispatch:
        return default_rule(g, name, a, out)
    x = a["input"]
    stride = a.get("stride")
    shown = [_nd(a["kernel_size"], 2), [] if stride is None or stride == [] or stride == () else _nd(stride, 2),
             _nd(a.get("padding", 0), 2), _nd(a.get("dilation", 1), 2), bool(a.get("ceil_mode", False))]
    node = g.call("max_pool2d_with_indices.default", x, *shown)
    values, indices = g.items(node, 2)
    if a.get("return_indices", False):
        return [values, indices]
    fn = getattr(out, "grad_fn", None)
    if type(fn) is MaxPool2DWithIndicesBackward0:
        positions = _result1(fn)  # the positions as the node's backward passes them to its operator
        fn.graph_indices = positions if g.fake_mode is None else g.fake_mode.from_tensor(positions)
        g.bind(fn.graph_indices, indices)
    return values


def _avg_pool(nd: int):
    def rule(g, name, a, out):
        """``avg_pool2d``/``3d`` with its sizes as lists, an omitted stride as ``[]`` (as PyTorch's binding parses
        them)."""
        stride = a.get("stride")
        return g.call(f"avg_pool{nd}d.default", a.self, _nd(a["kernel_size"], nd),
                      [] if stride is None or stride == [] or stride == () else _nd(stride, nd),
                      _nd(a.get("padding", 0), nd), bool(a.get("ceil_mode", False)),
                      bool(a.get("count_include_pad", True)), a.get("divisor_override"))
    return rule


_avg_pool2d = _avg_pool(2)


def _constant_pad(g, name, a, out):
    """``F.pad`` in constant mode (and ATen's ``constant_pad_nd``): the padding as a list, the value a float
    (PyTorch's pad passes ``value or 0.0``)."""
    mode, pad = a.get("mode", "constant"), list(a["pad"])
    if g.predispatch and name == "pad":
        return g.call("pad.default", a.self, pad, mode, a.get("value"))
    if mode in ("reflect", "replicate"):  # below autograd the mode's own operator
        return g.call(f"{'reflection' if mode == 'reflect' else 'replication'}_pad{len(pad) // 2}d.default",
                      a.self, pad)
    if mode != "constant":
        return default_rule(g, name, a, out)
    value = a.get("value")
    return g.call("constant_pad_nd.default", a.self, pad, 0.0 if value is None else value)


def _nd(v, nd: int):
    if isinstance(v, str):
        return v
    return list(v) if isinstance(v, (list, tuple)) else [v] * nd


def _batch_norm(g, _, a, out):
    args = (a["input"], a.get("weight"), a.get("bias"), a.get("running_mean"), a.get("running_var"))
    training, momentum, eps = a.get("training", False), a.get("momentum", 0.1), a.get("eps", 1e-5)
    if g.predispatch:
        return g.call("batch_norm.default", *args, training, momentum, eps, a.get("cudnn_enabled", False))
    batch_stats = bool(training or args[3] is None)
    if g.core_aten and not batch_stats:  # export's decompositions: eval's own operator
        node = g.call("_native_batch_norm_legit_no_training.default", *args, momentum, eps)
        return g.items(node, 3)[0]
    # below autograd PyTorch's CPU batch norm is native_batch_norm (the output and the batch's mean and invstd,
    # empty in eval, its backward reads), in make_fx after an empty reserve buffer that nothing reads
    if not g.core_aten:
        g.call("empty.memory_format", [0], dtype=_dtype.uint8, layout=strided, device=_device(a["input"]))
    node = g.call("native_batch_norm.default", *args, batch_stats, momentum, eps)
    result, mean, invstd = g.items(node, 3)
    fn = getattr(out, "grad_fn", None)
    if isinstance(fn, NativeBatchNormBackward0) and (fn.xc if batch_stats else fn.xhat) is not None:
        # the node whose backward native_batch_norm_backward computes (the training kernel's, or eval's on arrays)
        stats = (_stat(0)(fn), _stat(1)(fn))
        fn.graph_stats = stats if g.fake_mode is None else tuple(g.fake_mode.from_tensor(t) for t in stats)
        g.bind(fn.graph_stats[0], mean)
        g.bind(fn.graph_stats[1], invstd)
    return result


def _gelu(g, _, a, out):
    approximate = a.get("approximate", "none")
    return g.call("gelu.default", a.self, **({"approximate": approximate} if approximate != "none" else {}))


def _nll_loss(g, _, a, out):
    """make_fx's nll_loss of 1-d or 2-d log-probs: ``aten.nll_loss_forward`` (the loss and the total weight its
    backward divides by); export's ``aten.nll_loss_nd``; other make_fx calls as made."""
    if g.predispatch:
        return g.call("nll_loss_nd.default", a["input"], a["target"], a.get("weight"), _loss_reduction(a),
                      a.get("ignore_index", -100))
    if a["input"].dim() > 2:
        return default_rule(g, "nll_loss", a, out)
    return _nll_forward(g, a["input"], a, out)


def _loss_reduction(a) -> int:
    """A loss call's reduction as ATen's enum (its legacy size_average/reduce resolved)."""
    return reduction_enum(_resolve_reduction(a.get("size_average"), a.get("reduce"), a.get("reduction", "mean")))


def _nll_forward(g, logp, a, out):
    if g.core_aten and a.get("weight") is None and a["input"].dim() == 2:
        return _nll_core_aten(g, logp, a["target"], _loss_reduction(a), a.get("ignore_index", -100), out)
    node = g.call("nll_loss_forward.default", logp, a["target"], a.get("weight"), _loss_reduction(a),
                  a.get("ignore_index", -100))
    loss, total = g.items(node, 2)
    fn = getattr(out, "grad_fn", None)
    if isinstance(fn, NllLossBackward0) and fn.graph_args is not None:  # the tensor its backward is given
        g.bind(_total_weight(fn), total)
    return loss


def _nll_core_aten(g, logp, t, reduction: int, ignore_index: int, out):
    """nll_loss_forward of 2-d log-probs without class weights in PyTorch's core ATen decomposition (export's
    run_decompositions): each target's log-prob gathered (an ignored one read at class 0), negated, zeroed where
    ignored, then summed, and for the mean divided by the count of targets not ignored."""
    cpu = _device(t)
    kept = g.call("ne.Scalar", t, ignore_index)
    safe = g.call("where.self", kept, t, g.call("scalar_tensor.default", 0, dtype=t.dtype, layout=strided, device=cpu))
    picked = g.call("squeeze.dims", g.call("gather.default", logp, 1, g.call("unsqueeze.default", safe, 1)), [1])
    neg = g.call("neg.default", picked)
    kept = g.call("ne.Scalar", t, ignore_index)
    losses = g.call("where.self", kept, neg,
                    g.call("scalar_tensor.default", 0, dtype=out.dtype, layout=strided, device=cpu))
    if reduction == 0:
        return losses
    # the total weight, the count of targets kept (a sum's result does not use it: PyTorch's graph drops those
    # nodes, their names taken)
    kept = g.call("ne.Scalar", t, ignore_index)
    total = g.call("sum.dim_IntList", kept, [])
    count = g.call("_to_copy.default", total, dtype=out.dtype, device=cpu)
    loss = g.call("sum.dim_IntList", losses, [])
    if reduction == 2:
        for node in (count, total, kept):
            g.graph.erase_node(node)
        return loss
    return g.call("div.Tensor", loss, count)


def _cross_entropy(g, _, a, out):
    """make_fx's cross_entropy with class indices (1-d or 2-d logits, no label smoothing): PyTorch's
    decomposition, ``_log_softmax`` then ``nll_loss_forward``; anything else as the call was made."""
    x, t = a["input"], a["target"]
    if g.predispatch:  # export: the composite as PyTorch's Python API reaches it
        return g.call("cross_entropy_loss.default", x, t, a.get("weight"), _loss_reduction(a), a.get("ignore_index", -100),
                      float(a.get("label_smoothing", 0.0)))
    if x.dim() > 2 or t._data.dtype.kind not in "iu" or a.get("label_smoothing", 0.0):
        return default_rule(g, "cross_entropy", a, out)
    logp_node = g.call("_log_softmax.default", x, 0 if x.dim() == 1 else 1, False)
    fn = getattr(out, "grad_fn", None)
    if isinstance(fn, NllLossBackward0):  # the log-probs tensor its backward is given, saved by log_softmax's node
        logp = fn.shown[0]
        g.bind(logp, logp_node)
        g.saved_output(logp, logp_node)
    return _nll_forward(g, logp_node, a, out)


def _layer_norm(g, _, a, out):
    """make_fx's layer_norm: ``aten.native_layer_norm`` and its three results (the output, the mean and rstd its
    backward reads); export's the call as made."""
    if g.predispatch:
        return default_rule(g, "layer_norm", a, out)
    shape = a["normalized_shape"]
    shape = [shape] if isinstance(shape, int) else list(shape)
    node = g.call("native_layer_norm.default", a["input"], shape, a.get("weight"), a.get("bias"), a.get("eps", 1e-5))
    result, mean, rstd = g.items(node, 3)
    fn = getattr(out, "grad_fn", None)
    if isinstance(fn, NativeLayerNormBackward0):  # the statistics its backward is given
        fn.graph_stats = tuple(_make(s) for s in fn.stats)
        g.bind(fn.graph_stats[0], mean)
        g.bind(fn.graph_stats[1], rstd)
    return result


def _cat(g, _, a, out):
    return g.call("cat.default", list(a.self), a.get("dim", 0))


def _clone(g, _, a, out):
    fmt = a.get("memory_format")
    return g.call("clone.default", a.self, **({"memory_format": fmt} if fmt is not None else {}))


def _conversion(g, name, a, out):
    """``x.to(dtype)``, ``x.double()``, ``x.type_as(y)``...: make_fx shows the copy ``_to_copy(x, dtype=...)`` (with
    the device where the call named one), nothing where PyTorch hands ``x`` back (nothing changes). Export shows the
    call as PyTorch's Python API reaches ATen, made even where it hands ``x`` back (whose node it is from then on),
    each ``to`` after a check of ``x``'s dtype, device and layout (``_assert_tensor_metadata``): ``to.dtype(x, dtype)``
    for a dtype alone, ``to.device(x, device, dtype)`` for a device and a dtype (``to(other)``: other's),
    ``to.dtype_layout`` for a device alone. ``type_as`` is ``to(y.options())``: its copy names the layout and device
    too, and export keeps the call."""
    x = a.self
    if name == "type_as":
        if g.predispatch:
            return g.call("type_as.default", x, a.arg(1))
        if out is x:
            return g.node(x)
        return g.call("_to_copy.default", x, dtype=out.dtype, layout=strided, device=_device(out))
    if g.predispatch and not g.metadata_checks:  # jit's and torch.compile's captures: the conversion's result
        return g.node(x) if out is x else g.call("to.dtype", x, out.dtype)
    device, dtype, non_blocking, copy = _to_call(name, a, out)
    if not g.predispatch:
        if out is x:
            return g.node(x)
        return g.call("_to_copy.default", x, dtype=out.dtype, **({} if device is None else {"device": device}))
    check = g.graph.create_node("call_function", g.target("_assert_tensor_metadata.default"), (g.node(x),),
                                {"dtype": x.dtype, "device": _device(x), "layout": strided},
                                name="_assert_tensor_metadata_default")
    check.meta["val"] = None
    if device is None:
        return g.call("to.dtype", x, dtype, non_blocking, copy)
    if dtype is None:
        return g.call("to.dtype_layout", x, dtype=x.dtype, layout=strided, device=device, non_blocking=non_blocking,
                      copy=copy)
    return g.call("to.device", x, device, dtype, non_blocking, copy)


def _to_call(name: str, a: Args, out) -> tuple:
    """(device or None, dtype or None, non_blocking, copy) of a conversion call as ATen's ``to`` takes them: ``x.to(y)``
    as ``to(y.device, y.dtype)``; ``x.double()`` and its kind as ``to(dtype)``."""
    if name != "to":
        return None, out.dtype, False, False
    given = list(a.get("args", []))
    kw = {k: a.values[k] for k in ("dtype", "device", "copy", "non_blocking", "memory_format") if k in a.values}
    if given and isinstance(given[0], Tensor):
        other = given.pop(0)
        device, dtype = _device(other), other.dtype
        flags = given
    else:
        device, dtype, _, _ = _to_args(tuple(given), kw)
        flags = [v for v in given if isinstance(v, bool)]
        if device is not None and not isinstance(device, device_type):
            device = device_type(device)
    non_blocking = kw.get("non_blocking", flags[0] if flags else False)
    copy = kw.get("copy", flags[1] if len(flags) > 1 else False)
    return device, dtype, non_blocking, copy


_INT64_MAX = 9223372036854775807


def _getitem(g, _, a, out):
    """``x[index]`` as PyTorch's indexing hands it to the dispatcher: in the index's order, ``None`` an
    ``unsqueeze``, an integer a ``select``, a slice a ``slice`` (left out where it keeps the whole dim:
    start 0, step 1, end past the size), then the tensor indices as one ``index`` (``None`` for the dims
    before them that no tensor indexes); an index that changes nothing is an ``alias``."""
    x, index = a.self, a.arg(1)
    node, indices, recorded, lifted, items = _index_steps(g, x, index)
    fn = getattr(out, "grad_fn", None)
    if fn is not None and fn.__dict__.get("given") is index and any(t is not i for t, i in zip(lifted, items)):
        fn.given = tuple(lifted) if type(index) is tuple else lifted[0]  # its backward reads the graph's tensors
    if indices:
        return g.call("index.Tensor", node, indices)
    return node if recorded else g.call("alias.default", node)


def _index_steps(g, x, index):
    """The view steps of ``x[index]`` (``_getitem``'s, and ``_setitem``'s before its write): the last step's node,
    the tensor indices left for one ``index``/``index_put_`` (``None`` for the dims before them), whether any step
    was recorded, and the key's items with their list indices as the graph's tensors (``lifted``) and as given."""
    items = list(index) if type(index) is tuple else [index]
    if any(type(i) is bool for i in items):
        raise NotImplementedError("make_fx: indexing with True/False is not recorded as ATen operators")
    consumed = sum(_mask_dims(i) if isinstance(i, (Tensor, list, range, np.ndarray)) else
                   0 if i is None or i is Ellipsis else 1 for i in items)
    node, dim, shape = g.node(x), 0, list(x.shape)
    indices: list = []
    recorded = False
    lifted = list(items)  # the key with its list indices as the tensors the graph holds
    value = x._data  # the current view step's value (its node's meta, which export's printed graph shows)
    for n, item in enumerate(items):
        if item is None:
            node = g.call("unsqueeze.default", node, dim)
            value = _step_value(g, node, value, (slice(None),) * dim + (None,))
            shape.insert(dim, 1)
            dim, recorded = dim + 1, True
        elif item is Ellipsis:
            dim += x.dim() - consumed  # the dims the ellipsis stands for, kept whole
        elif isinstance(item, slice):
            start, stop, step = item.start, item.stop, item.step
            step = 1 if step is None else step
            if not has_symbols(item) and start in (None, 0) and step == 1 and (stop is None or stop >= shape[dim]):
                dim += 1
                continue
            if start is None:  # (an export's unbacked end: PyTorch's None start)
                start = None if has_symbols(stop) else 0
            node = g.call("slice.Tensor", node, dim, start, _INT64_MAX if stop is None else stop, step)
            value = _step_value(g, node, value, (slice(None),) * dim + (concrete(item),))
            recorded = True
            dim += 1
        elif isinstance(item, (Tensor, list, range, np.ndarray)):
            if not isinstance(item, Tensor):  # a list (or range) index: a tensor the graph holds as a constant
                item = lifted[n] = _listed_index(g, item)
            indices += [None] * (dim - len(indices)) + [item]
            dim += _mask_dims(item)
        else:
            at = item if isinstance(item, SymInt) else int(item)  # (an export's unbacked u0: its node)
            node = g.call("select.int", node, dim, at)
            value = _step_value(g, node, value, (slice(None),) * dim + (concrete(at), Ellipsis))
            shape.pop(dim)
            recorded = True
    return node, indices, recorded, lifted, items


def _setitem(g, _, a, out):
    """``x[index] = value`` as PyTorch's indexing runs it (``at::indexing::set_item``): a number is first made a 0-d
    tensor of ``x``'s dtype (a constant of the graph, copied by ``lift_fresh_copy``); then ``x[index]``'s view steps;
    then, with tensor indices, one ``index_put_`` (the value viewed without its leading 1s); else the write into the
    view (``copy_to``): ``copy_`` of a value of the view's size, ``fill_`` of a 0-d value, else ``copy_`` of the
    value viewed without its leading 1s and expanded. A write into ``x`` itself (no step) stands for ``x`` after."""
    x, index, value = a.self, a.arg(1), a.arg(2)
    if not isinstance(value, Tensor):
        if isinstance(value, np.ndarray) or has_symbols(value):
            raise NotImplementedError("make_fx: x[index] = value is recorded for a tensor or Python number value")
        value = _lifted_constant(g, _make(np.array(value, dtype=x._data.dtype)))
    node, indices, recorded, _, _ = _index_steps(g, x, index)
    size = list(value.shape)
    while size and size[0] == 1:  # (PyTorch's slicePrefix1sSize)
        size = size[1:]
    src = g.node(value)
    if indices:
        if size != list(value.shape):
            src = g.call("view.default", src, size)
        write = g.call("index_put_.default", node, indices, src)
    else:
        target = tuple(node.meta["val"].shape) if recorded else tuple(x.shape)
        if tuple(value.shape) == target:
            write = g.call("copy_.default", node, src)
        elif value.dim() == 0:
            write = g.call("fill_.Tensor", node, src)
        else:
            src = g.call("view.default", src, size)
            if tuple(size) != target:
                src = g.call("expand.default", src, list(target))
            write = g.call("copy_.default", node, src)
    if not recorded:
        g.bind(x, write)
    return write


def _step_value(g, node, value, key: tuple):
    """``value[key]`` (an array, or a fake tensor's meta array) as ``node``'s value; returned for the next step."""
    out = value[key]
    t = _make(out)
    if isinstance(out, MetaArray):
        t._meta = True
    node.meta["val"] = g.fake_mode.from_tensor(t) if g.fake_mode is not None and not t._meta else t
    return out


def _listed_index(g, item) -> Tensor:
    """The tensor PyTorch makes of a list index (int64, or bool for a list of bools), as ``lift_fresh_copy`` of the
    graph's constant: the tensor returned stands for that node."""
    values = np.asarray(item if not isinstance(item, list) else
                        [v.item() if isinstance(v, Tensor) and v.dim() == 0 else v for v in item])
    if values.dtype.kind not in "biu":
        raise NotImplementedError("make_fx: this list index has no tensor form PyTorch records (ints or bools)")
    return _lifted_constant(g, _make(values if values.dtype == np.bool_ else values.astype(np.int64)))


def _lifted_constant(g, constant: Tensor) -> Tensor:
    """``constant`` as the graph holds a tensor PyTorch makes from Python values: ``lift_fresh_copy`` of the graph's
    constant; the tensor returned stands for that node."""
    lifted = _make(constant._data.copy())
    node = g.call("lift_fresh_copy.default", g.node(constant))
    if g.fake_mode is not None:
        lifted = g.fake_mode.from_tensor(lifted)
    g.bind(lifted, node)
    return lifted


def _mask_dims(index) -> int:
    """The dims a tensor (or list) index covers: a boolean mask its own count, an integer index one."""
    if not isinstance(index, Tensor):
        values = np.asarray(index)
        return values.ndim if values.dtype == np.bool_ else 1
    return index.dim() if str(index.dtype) in ("torch.bool", "torch.uint8") else 1


def _attention(g, name, a, out):
    """Below autograd PyTorch's CPU attention is its flash operator where that kernel runs: the output and each
    row's log-sum-exp, which its backward operator reads."""
    fn = getattr(out, "grad_fn", None)
    if (g.predispatch or type(fn) is not ScaledDotProductFlashAttentionForCpuBackward0 or fn.keep is not None
            or fn.rep != 1 or a.get("dropout_p", 0.0) or a.get("enable_gqa", False)):
        return default_rule(g, name, a, out)
    q, k, v, mask = a["query"], a["key"], a["value"], a.get("attn_mask")
    is_causal, scale = bool(a.get("is_causal", False)), a.get("scale")
    node = g.call("_scaled_dot_product_flash_attention_for_cpu.default", q, k, v, 0.0, is_causal, attn_mask=mask,
                  scale=scale)
    result, lse_node = g.items(node, 2)
    if g.fake_mode is not None:
        lse = g.fake_mode.from_tensor(_make(np.zeros(tuple(q.shape[:-1]), q._data.dtype)))
    else:
        _, lse = CAPTURE[0].unhooked(_flash_attention_for_cpu, (q.detach(), k.detach(), v.detach(), 0.0, is_causal),
                                     {"attn_mask": mask, "scale": scale})
    g.bind(lse, lse_node)
    fn.graph_call = (out, lse, is_causal, scale)
    return result


def _rsub(g, _, a, out):
    other, alpha = a.arg(1), a.get("alpha", 1)
    if isinstance(other, Tensor):
        return g.call("rsub.Tensor", a.self, other, **({} if _one(alpha) else {"alpha": alpha}))
    return g.call("rsub.Scalar", a.self, other, *([] if _one(alpha) else [alpha]))


def _square(g, _, a, out):
    return g.call("pow.Tensor_Scalar", a.self, 2)  # (square is composite in PyTorch: its pow)


def _prelu_kernel(g, name, a, out):
    """``_prelu_kernel``; in export's core ATen decomposition its formula's ops: where(x > 0, x, weight * x)."""
    if not g.core_aten:
        return default_rule(g, name, a, out)
    x = a.arg(0)
    return g.call("where.self", g.call("gt.Scalar", x, 0), x, g.call("mul.Tensor", a.arg(1), x))


def _select(g, _, a, out):
    return g.call("select.int", *a.positional())


def _dims(dim):
    """A dim argument as ATen's ``int[1]?``: a list, or None."""
    return None if dim is None else _listed(dim)


def _vector_norm(g, _, a, out):
    """``linalg_vector_norm`` with its dim as a list (PyTorch's int[1]? argument)."""
    return g.call("linalg_vector_norm.default", a.self, a.get("ord", 2), _dims(a.get("dim")), a.get("keepdim", False),
                  dtype=a.get("dtype"))


def _norm(g, name, a, out):
    """``torch.norm`` is Python in PyTorch: 'fro' over at most two dims is ``linalg_vector_norm`` of ord 2, a number
    its own ord (None: 2.0); 'nuc', and 'fro' over more dims, are matrix norms (written as the call was made)."""
    if "p" not in a.values:  # (masked.norm, of the same name)
        return default_rule(g, name, a, out)
    p, dims = a.get("p"), _dims(a.get("dim"))
    if isinstance(p, str):
        if p != "fro" or (dims is not None and len(dims) > 2):
            return default_rule(g, name, a, out)
        p = 2
    return g.call("linalg_vector_norm.default", a.self, 2.0 if p is None else p, dims, _keepdim(a),
                  dtype=a.get("dtype"))


def _linalg_norm(g, name, a, out):
    """``linalg.norm`` is composite in ATen: a vector norm (ord None: 2.0) unless an ord is given over two dims (or a
    matrix without dims), which is ``linalg_matrix_norm``'s (``_matrix_norm``). Export's pre-dispatch graph keeps the
    call (``.ord_str`` for an ord by name)."""
    ord, dims = a.get("ord"), _dims(a.get("dim"))
    if g.predispatch:
        return g.call(f"linalg_norm.{'ord_str' if isinstance(ord, str) else 'default'}", a.self, ord, dims,
                      _keepdim(a), dtype=a.get("dtype"))
    if isinstance(ord, str) or (ord is not None and (len(dims) == 2 if dims is not None else a.self.ndim == 2)):
        return _matrix_norm(g, name, a, out, "fro" if ord is None else ord, [-2, -1] if dims is None else dims)
    return g.call("linalg_vector_norm.default", a.self, 2.0 if ord is None else ord, dims, _keepdim(a),
                  dtype=a.get("dtype"))


def _matrix_norm(g, name, a, out, ord=None, dims=None):
    """``linalg_matrix_norm``'s Frobenius norm is ``linalg_vector_norm`` of ord 2 over its two dims (wrapped); the
    other orders (singular values, maxima of sums) are written as the call was made."""
    if ord is None and g.predispatch:  # (the call itself, as export's pre-dispatch graph keeps it)
        ord = a.get("ord", "fro")
        return g.call(f"linalg_matrix_norm.{'str_ord' if isinstance(ord, str) else 'default'}", a.self, ord,
                      _listed(a.get("dim", (-2, -1))), _keepdim(a), dtype=a.get("dtype"))
    ord = a.get("ord", "fro") if ord is None else ord
    dims = _listed(a.get("dim", (-2, -1))) if dims is None else dims
    if ord != "fro":
        return default_rule(g, name, a, out)
    n = a.self.ndim
    return g.call("linalg_vector_norm.default", a.self, 2, [d % n if n else d for d in dims], _keepdim(a),
                  dtype=a.get("dtype"))


def _variance(name: str):
    """var / std / var_mean / std_mean as PyTorch's Python binding dispatches them: ``x.var()`` alone is
    ``.correction`` with nothing more; any other call goes through an overload (``.dim``, ``.default``) that hands
    ``.correction`` its correction: the one given, else ``unbiased`` as 1 or 0, else 1."""
    def rule(g, _, a, out):
        given = a.given - {next(iter(a.values))}
        unbiased, dim = a.get("unbiased") is not False, a.get("dim")
        if isinstance(dim, bool):  # var(x, False): ATen's var.default, whose one argument is unbiased
            given, unbiased, dim = given - {"dim"} | {"unbiased"}, dim, None
        if g.predispatch and "correction" not in given and given:  # export keeps the overload the call chose
            if given == {"unbiased"}:
                return g.call(f"{name}.default", a.self, unbiased)
            return g.call(f"{name}.dim", a.self, _dims(dim), unbiased, _keepdim(a))
        if not given:
            correction = None
        elif "correction" in given:
            correction = a.get("correction")
        else:
            correction = int(unbiased)
        if g.core_aten and name.startswith("std"):  # PyTorch's decomposition: the variance's square root
            correction = 1.0 if correction is None else float(correction)
            node = g.call(f"var{name[3:]}.correction", a.self, _dims(dim), correction=correction,
                          keepdim=_keepdim(a))
            if name == "std":
                return g.call("sqrt.default", node)
            var, mean = g.items(node, 2)
            return [g.call("sqrt.default", var), mean]
        if not given:
            return g.call(f"{name}.correction", a.self)
        return g.call(f"{name}.correction", a.self, _dims(dim), correction=correction, keepdim=_keepdim(a))
    return rule


def _logsigmoid(g, _, a, out):
    """Below autograd PyTorch's logsigmoid is ``log_sigmoid_forward`` (the result and a buffer)."""
    if g.predispatch:
        return g.call("log_sigmoid.default", a.self)
    return g.items(g.call("log_sigmoid_forward.default", a.self), 2)[0]


# F.dropout1d/2d/3d: which inputs carry a batch dim
_BATCHED_FROM = {"dropout1d": 3, "dropout2d": 3, "dropout3d": 5}


def _feature_dropout(g, name, a, out):
    """Channel dropout: PyTorch's Python ``F.dropoutNd`` calls ``feature_dropout`` (on a batch of one for an
    unbatched input); below autograd that is ``dropout``'s composite with one noise value per channel:
    ``new_empty([N, C, 1, ...])``, ``bernoulli_(1 - p)``, ``div_(1 - p)`` and the product."""
    x, p, train, inplace = a["input"], a.get("p", 0.5), a.get("training", True), a.get("inplace", False)
    if inplace:  # (tinytorch's own call, as made)
        return default_rule(g, name, a, out)
    batched = x.ndim >= _BATCHED_FROM[name]
    node = g.node(x) if batched else g.call("unsqueeze.default", x, 0)
    shape = ([] if batched else [1]) + list(x._data.shape)
    if g.predispatch:
        node = g.call("feature_dropout.default", node, p, train)
    elif not train or p == 0:
        return g.node(x)  # no dropout: the input itself
    else:
        fn = out.grad_fn
        if fn is not None and not batched and fn.next_functions:  # (the squeeze's node, then the product's)
            fn = fn.next_functions[0][0]
        noise = g.call("new_empty.default", node, shape[:2] + [1] * (len(shape) - 2))
        node = _noise_product(g, node, noise, p, fn)
    return node if batched else g.call("squeeze.dim", node, 0)


def _interpolate(g, name, a, out):
    """``F.interpolate`` (and the deprecated ``upsample*``) is Python in PyTorch: it calls the mode's
    ``upsample_*.vec`` (the size or the scale factors as given: what export shows); below autograd that is the
    ``.default`` overload with the output size worked out and one float scale per spatial dim."""
    x = a["input"]
    nd = x.ndim - 2
    mode = {"upsample_nearest": "nearest", "upsample_bilinear": "bilinear"}.get(name, a.get("mode", "nearest"))
    if mode not in UPSAMPLE_OPERATORS or a.get("antialias", False):  # (area, antialiased: the call as made)
        return default_rule(g, name, a, out)
    op = UPSAMPLE_OPERATORS[mode].format(nd)
    corners = [] if "nearest" in mode else [True if name == "upsample_bilinear" else bool(a.get("align_corners"))]
    size, scale = a.get("size"), a.get("scale_factor")
    scales = None
    if scale is not None and not a.get("recompute_scale_factor"):
        scales = [float(s) for s in scale] if isinstance(scale, (list, tuple)) else [float(scale)] * nd
    out_size = list(out._data.shape[2:])
    if g.predispatch:
        given = None
        if size is not None:
            given = [int(s) for s in size] if isinstance(size, (list, tuple)) else [int(size)] * nd
        elif scales is None:  # recomputed scale factors: PyTorch passes the output size it worked out
            given = out_size
        return g.call(f"{op}.vec", x, given, *corners, scales)
    return g.call(f"{op}.default", x, out_size, *corners, *(scales or []))


def _fold(g, _, a, out):
    """``F.fold`` is ATen's ``col2im`` with every size as a pair."""
    return g.call("col2im.default", a["input"], *(_nd(v, 2) for v in (
        a["output_size"], a["kernel_size"], a.get("dilation", 1), a.get("padding", 0), a.get("stride", 1))))


def _affine_grid(g, _, a, out):
    """``F.affine_grid`` is ATen's ``affine_grid_generator`` (align_corners False where not given)."""
    return g.call("affine_grid_generator.default", a["theta"], [int(s) for s in a["size"]],
                  bool(a.get("align_corners")))


_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDING = {"zeros": 0, "border": 1, "reflection": 2}


def _grid_sample(g, _, a, out):
    """``F.grid_sample`` is ATen's ``grid_sampler`` (export), below autograd ``grid_sampler_2d`` or ``_3d``, with
    the mode and padding as PyTorch's enum numbers."""
    x = a["input"]
    args = (x, a["grid"], _GRID_MODES[a.get("mode", "bilinear")], _GRID_PADDING[a.get("padding_mode", "zeros")],
            bool(a.get("align_corners")))
    if g.predispatch:
        return g.call("grid_sampler.default", *args)
    return g.call(f"grid_sampler_{x.ndim - 2}d.default", *args)


def _conj(g, name, a, out):
    """``conj`` of a real tensor is the tensor itself (no operator runs)."""
    if not a.self.dtype.is_complex:
        return g.node(a.self)
    return default_rule(g, name, a, out)


def _device(t):
    return t.device


def aten_rule(*keys: str):
    """Decorator: ``rule`` records the ops ``keys`` (``REGISTRY`` keys: ``"mul"``, ``"F.linear"``, ``"Tensor.view"``),
    kept on their declarations (``decl.rules["aten"]``, through ``registry.bind_rule``), where the recorder finds it.
    Returns the rule unchanged."""
    def attach(rule):
        for key in keys:
            bind_rule("aten", key, rule)
        return rule
    return attach


# the ops whose ATen form is not simply ``aten.<name>.<overload>`` with the call's own arguments (``default_rule``)
# (a masked or sparse op of a torch op's name records as that op: masked.sum as sum)
aten_rule("add")(_binary("add"))
aten_rule("sub")(_binary("sub"))
aten_rule("mul")(_binary("mul"))
aten_rule("div")(_binary("div"))
aten_rule("pow")(_pow)
aten_rule("eq")(_comparison("eq"))
aten_rule("ne")(_comparison("ne"))
aten_rule("lt")(_comparison("lt"))
aten_rule("le")(_comparison("le"))
aten_rule("gt")(_comparison("gt"))
aten_rule("ge")(_comparison("ge"))
aten_rule("sum", "sparse.sum", "masked.sum")(_reduction("sum"))
aten_rule("mean", "masked.mean")(_reduction("mean"))
aten_rule("max")(_extremum("max"))
aten_rule("min")(_extremum("min"))
aten_rule("prod", "masked.prod")(_prod)
aten_rule("amax", "masked.amax")(_by_schema("amax.default"))
aten_rule("as_strided")(_by_schema("as_strided.default"))  # (size and stride written as lists)
aten_rule("as_strided_scatter")(_by_schema("as_strided_scatter.default"))
aten_rule("amin", "masked.amin")(_by_schema("amin.default"))
aten_rule("argmax", "masked.argmax")(_by_schema("argmax.default"))
aten_rule("argmin", "masked.argmin")(_by_schema("argmin.default"))
aten_rule("logsumexp", "special.logsumexp", "masked.logsumexp")(_by_schema("logsumexp.default"))
aten_rule("nansum")(_by_schema("nansum.default"))
aten_rule("cumsum", "masked.cumsum")(_by_schema("cumsum.default"))
aten_rule("cumprod", "masked.cumprod")(_by_schema("cumprod.default"))
aten_rule("flip")(_by_schema("flip.default"))
aten_rule("roll")(_by_schema("roll.default"))
aten_rule("tril")(_by_schema("tril.default"))
aten_rule("triu")(_by_schema("triu.default"))
aten_rule("diagonal", "linalg.diagonal")(_by_schema("diagonal.default"))
aten_rule("addcmul")(_addcmul)
aten_rule("addcdiv")(_by_schema("addcdiv.default"))
aten_rule("all")(_by_dim("all", "dims"))
aten_rule("any")(_by_dim("any", "dims"))
aten_rule("median", "masked.median")(_by_dim("median"))
aten_rule("ones")(_factory("ones"))
aten_rule("zeros")(_factory("zeros"))
aten_rule("empty")(_factory("empty"))
aten_rule("full")(_full)
aten_rule("arange")(_arange)
aten_rule("linspace")(_linspace)
aten_rule("eye")(_eye)
aten_rule("round")(_round)
aten_rule("lerp")(_lerp)
aten_rule("split")(_split)
aten_rule("unbind")(_by_schema("unbind.int"))
aten_rule("chunk")(_chunk)
aten_rule("narrow")(_narrow)
aten_rule("Tensor.view_as")(_view_as)
aten_rule("movedim")(_movedim)
aten_rule("avg_pool1d")(_by_schema("avg_pool1d.default"))
aten_rule("F.mse_loss")(_loss("mse_loss.default"))
aten_rule("F.smooth_l1_loss")(_loss("smooth_l1_loss.default"))
aten_rule("F.huber_loss")(_loss("huber_loss.default"))
aten_rule("binary_cross_entropy_with_logits")(_loss("binary_cross_entropy_with_logits.default"))
aten_rule("softmax", "special.softmax", "masked.softmax")(_softmax("softmax"))
aten_rule("log_softmax", "special.log_softmax", "masked.log_softmax")(_softmax("log_softmax"))
aten_rule("F.linear")(_linear)
aten_rule("matmul")(_matmul)
aten_rule("reshape")(_reshaping("reshape"))
aten_rule("flatten")(_reshaping("flatten"))
aten_rule("Tensor.view")(_view)
aten_rule("Tensor.contiguous")(_contiguous)
aten_rule("Tensor.expand")(_expand)
aten_rule("permute")(_permute)
aten_rule("transpose")(_transpose)
aten_rule("unflatten")(_unflatten)
aten_rule("dropout")(_dropout)
aten_rule("squeeze")(_squeeze)
aten_rule("F.leaky_relu")(_leaky_relu)
aten_rule("F.elu", "selu", "selu_")(_elu)
aten_rule("F.elu_", "F.hardtanh_", "celu_")(_as_given)
aten_rule("F.silu")(_out_of_place("silu"))
aten_rule("F.mish")(_out_of_place("mish"))
aten_rule("F.hardsigmoid")(_out_of_place("hardsigmoid"))
aten_rule("F.hardswish")(_out_of_place("hardswish"))
aten_rule("F.hardtanh")(_out_of_place("hardtanh", ("min_val", -1.0), ("max_val", 1.0)))
aten_rule("F.relu6")(_out_of_place("hardtanh", fixed=(0, 6)))
aten_rule("scatter")(_scatter)
aten_rule("Tensor.new_zeros")(_new_factory("zeros"))
aten_rule("Tensor.new_ones")(_new_factory("ones"))
aten_rule("Tensor.new_empty")(_new_factory("empty"))
aten_rule("Tensor.new_full")(_new_factory("full"))
aten_rule("scalar_tensor")(_scalar_tensor)
aten_rule("tensor", "as_tensor")(_from_data)
aten_rule("clamp", "clamp_min", "clamp_max")(_bounded)
aten_rule("where")(_where)
aten_rule("masked_fill")(_masked_fill)
aten_rule("linalg.vector_norm")(_vector_norm)
aten_rule("norm", "masked.norm")(_norm)
aten_rule("linalg.norm")(_linalg_norm)
aten_rule("linalg.matrix_norm")(_matrix_norm)
aten_rule("var", "masked.var")(_variance("var"))
aten_rule("std", "masked.std")(_variance("std"))
aten_rule("var_mean")(_variance("var_mean"))
aten_rule("std_mean")(_variance("std_mean"))
aten_rule("F.logsigmoid")(_logsigmoid)
aten_rule("Tensor.expand_as")(_expand_as)
aten_rule("F.dropout1d", "F.dropout2d", "F.dropout3d")(_feature_dropout)
aten_rule("F.interpolate", "F.upsample", "F.upsample_nearest", "F.upsample_bilinear")(_interpolate)
aten_rule("F.fold")(_fold)
aten_rule("F.affine_grid")(_affine_grid)
aten_rule("F.grid_sample")(_grid_sample)
aten_rule("max_pool2d")(_max_pool2d)
aten_rule("F.avg_pool2d")(_avg_pool2d)
aten_rule("F.avg_pool3d")(_avg_pool(3))
aten_rule("F.pad", "constant_pad_nd")(_constant_pad)
aten_rule("conj")(_conj)
aten_rule("F.scaled_dot_product_attention")(_attention)
aten_rule("conv1d")(_conv(1))
aten_rule("conv2d")(_conv(2))
aten_rule("conv3d")(_conv(3))
aten_rule("batch_norm")(_batch_norm)
aten_rule("F.gelu")(_gelu)
aten_rule("cat")(_cat)
aten_rule("clone")(_clone)
aten_rule("F.nll_loss")(_nll_loss)
aten_rule("F.cross_entropy")(_cross_entropy)
aten_rule("layer_norm")(_layer_norm)
aten_rule("Tensor.getitem")(_getitem)
aten_rule("Tensor.setitem")(_setitem)
aten_rule("select")(_select)
aten_rule("rsub")(_rsub)
aten_rule("square")(_square)
aten_rule("_prelu_kernel")(_prelu_kernel)
aten_rule("Tensor.to", "Tensor.float", "Tensor.double", "Tensor.half", "Tensor.bfloat16", "Tensor.long", "Tensor.int",
          "Tensor.short", "Tensor.byte", "Tensor.char", "Tensor.bool", "Tensor.cfloat", "Tensor.cdouble",
          "Tensor.type_as")(_conversion)


class Parts(NamedTuple):
    """How a tracer sees an op made of other ops (its ``decl.rules["parts"]``, put there by ``recorded_as_parts``)."""
    python: bool  # PyTorch writes it in Python over other ops: no ATen operator of its name, both tracers see its parts
    cpp: bool     # ATen's C++ composite: a number it adds or multiplies by is a C++ Scalar (``add_.Scalar``), where
    #               Python's binding makes it a wrapped tensor (``.Tensor``)
    when: object  # None, or a test of the call's arguments (``Args``): only the calls it passes are made of parts


def recorded_as_parts(*keys: str, python: bool = False, cpp: bool = True, when=None) -> None:
    """The ops ``keys`` (``REGISTRY`` keys) are recorded as the ops they call: ``python``, by both tracers (functions
    PyTorch writes in Python: torch.nn.functional's normalize, softsign...); else by make_fx only (ATen's
    CompositeImplicitAutograd ops: PyTorch's dispatcher shows their parts below autograd; export's pre-dispatch graph
    keeps the call)."""
    for key in keys:
        bind_rule("parts", key, Parts(python, cpp and not python, when))


recorded_as_parts("F.softsign", "F.tanhshrink", "F.softmin", "F.multilabel_soft_margin_loss", "F.gaussian_nll_loss",
                  "F.normalize", "F.lp_pool1d", "F.lp_pool2d", "F.lp_pool3d", "F.local_response_norm", "masked.softmin",
                  "masked.normalize", python=True)
recorded_as_parts("prelu", "rms_norm", "einsum", "cosine_similarity", "F.l1_loss", "avg_pool1d", "instance_norm",
                  "linalg.multi_dot", "linalg.vecdot")
recorded_as_parts("F.multi_head_attention_forward", cpp=False)  # (Python in PyTorch, but below autograd only)
# cross_entropy with label smoothing: ATen's cross_entropy_loss_label_smoothing is made of ops
recorded_as_parts("F.cross_entropy", when=_smoothed_cross_entropy)
# matmul where it records its steps as ops (views, mm/mv/bmm, _unsafe_view: a backward reads their results);
# elsewhere its rule writes the one ATen op its node is
recorded_as_parts("matmul", when=lambda a: isinstance(a.self, Tensor) and isinstance(a.arg(1), Tensor)
                  and _matmul_ops.records_steps(a.self, a.arg(1)))


def scalar_overload(at: int, *keys: str) -> None:
    """The in-place ops ``keys`` (``REGISTRY`` keys) have the ATen overloads ``.Tensor`` and ``.Scalar``, told apart
    by their argument at position ``at``: a number picks ``.Scalar`` (``masked_fill_.Scalar``, ``eq_.Tensor``)."""
    for key in keys:
        bind_rule("scalar_at", key, at)


scalar_overload(1, "pow", "fill_", "eq", "ne", "lt", "le", "gt", "ge", "remainder", "fmod", "bitwise_and", "bitwise_or",
                "bitwise_xor")
scalar_overload(2, "masked_fill", "lerp")


def rule_for(decl):
    """The rule of the op ``decl``: the one ``aten_rule`` put on its declaration, else ``default_rule``."""
    return decl.rules.get("aten", default_rule)


def aten_name(name: str, namespace: str) -> str:
    """The ATen operator's name of tinytorch's op ``name`` declared in ``namespace`` (``torch.linalg.vector_norm``
    is ``aten.linalg_vector_norm``)."""
    return f"{namespace}_{name}" if namespace in _PREFIXED else name
