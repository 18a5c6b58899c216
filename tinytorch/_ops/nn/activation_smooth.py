"""The smooth and the hard-sigmoid activations: gelu, silu, mish, softplus, elu/selu/celu, logsigmoid,
softsign, tanhshrink, glu, hardsigmoid, hardswish, and softmin (with nn.functional's softmax and
log_softmax spellings). Forward in numpy, backward from differentiable tinytorch ops (so second
derivatives work), nodes named as PyTorch's (``GeluBackward0``, ``EluBackward1`` when run in place, ...)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..._dtype import LOWP_NP, NARROW_NP
from ..._dtype_info import promote_types
from ..._quiet_fp import silent
from .._core import narrow_dtypes

from ...autograd.grad_mode import _State, no_grad
from ...autograd.node import Node, raw_dim, u64
from ...tensor import Tensor, _make
from .._core.batching import composite
from .._core.registry import ATEN_ONLY, aten_only, op
from .._core.util import as_array, c_order, complex_grad_error, lowp_round, opmath
from .._core.record import OUT, record
from .._core.tensor_iterator import elementwise_layout
from .activation import functional_spelling, cast, elementwise, float_array, kernel_laid_out, mask
from ..pointwise.arith import add_scalar, mul_scalar, number_sub
from ..pointwise.compare import where
from ..pointwise.inplace import apply_inplace
from ..shape.join import cat
from .._core.layout import contiguous_format, suggested_format
from ..reduce.softmax import log_softmax as _log_softmax
from ..reduce.softmax import softmax as _softmax
from ..special.erf_gamma import erf_np

_SQRT_2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_SIXTH_F32 = float(np.float32(1.0 / 6.0))


# -- erf (the exact GELU and its derivatives need it; special.py's vectorised float64 erf) ---------
class ErfBackward0(Node):
    def backward(self, g):
        (x,) = self._unpacked_saved
        return (g * (2.0 / math.sqrt(math.pi)) * (-(x * x)).exp(),)


def _erf_array(x: np.ndarray) -> np.ndarray:
    return as_array(erf_np(as_array(x, np.float64)), x.dtype)


def _erf(input: Tensor) -> Tensor:
    x = float_array(input, "erf_vml_cpu")
    return record(_erf_array(x), ErfBackward0, (input,), (input,))


# -- gelu ------------------------------------------------------------------------------------------
def _gelu_tanh_parts(x):
    """inner = sqrt(2/pi) (x + 0.044715 x^3) and its derivative; works on arrays and Tensors alike."""
    inner = (x + x * x * x * 0.044715) * _SQRT_2_OVER_PI
    d_inner = (x * x * (3 * 0.044715) + 1) * _SQRT_2_OVER_PI
    return inner, d_inner


def _gelu_grad(g, x, erf_x, exp):
    """d gelu(x) / dx = Phi(x) + x phi(x) times ``g``, with ``erf_x`` = erf(x / sqrt 2): on tensors (a
    graph when create_graph) or, with ``exp`` = np.exp, on their arrays (the same ufuncs: the same floats)."""
    cdf = (erf_x + 1) * 0.5
    pdf = exp(x * x * -0.5) * _INV_SQRT_2PI
    return g * (cdf + x * pdf)


@silent
def _gelu_numpy(x: np.ndarray, approximate: str):
    """(gelu(x), erf(x / sqrt 2) or None) by the formulas in numpy, as silent about inf and NaN as PyTorch."""
    if approximate == "tanh":
        inner, _ = _gelu_tanh_parts(x)
        return 0.5 * x * (1 + np.tanh(inner)), None
    erf = _erf_array(x / _SQRT_2)
    return 0.5 * x * (1 + erf), erf


@silent
def _gelu_grad_numpy(g: np.ndarray, x: np.ndarray, erf) -> np.ndarray:
    """``_gelu_grad`` on arrays (``erf`` computed here when the forward kept none), silently."""
    return np.asarray(_gelu_grad(g, x, erf if erf is not None else _erf_array(x / _SQRT_2), np.exp))


def _scalar(v):
    """elu's ``scale`` and ``input_scale`` as PyTorch's saved Scalars show them: its default 1 is an int."""
    return 1 if v == 1 else v


class GeluBackward0(Node):
    saved_fields = (("approximate", "approximate"), ("self", 0))
    erf = None  # erf(x / sqrt 2) from the forward, when it computed one
    exp_half_sq = None  # exp(-x^2 / 2) from the forward, when it took the float32 kernel's steps

    def backward(self, g):
        (x,) = self._unpacked_saved
        if _State.enabled:  # a graph of the gradient: PyTorch's operator, one node (GeluBackwardBackward0)
            return (gelu_backward(g, x, self.approximate),)
        if self.approximate == "tanh":
            return (_gelu_tanh_grad(g, x),)
        if _State.array_backward:  # no graph of the gradient: the formula on arrays
            out = _gelu_grad_laid_out(g, x, self.erf, self.exp_half_sq)
            if out is not None:
                return (out,)
        return (_gelu_grad(g, x, _erf(x / _SQRT_2), Tensor.exp),)

    def jvp(self, t):
        # elementwise: the Jacobian is diagonal, so J t is J^T t (PyTorch's formula: gelu_backward(self_t, self_p))
        return gelu_backward(t, self._unpacked_saved[0], self.approximate)


class GeluBackwardBackward0(Node):
    """gelu_backward(grad_output, self): linear in grad_output; its derivative in self is grad_output * gelu''."""
    saved_fields = (("approximate", "approximate"), ("grad_output", 0), ("self", 1))

    def backward(self, gg):
        g, x = self._unpacked_saved
        return (gelu_backward(gg, x, self.approximate) if self.next_functions[0][0] is not None else None,
                gg * g * _gelu_second_derivative(x, self.approximate) if self.next_functions[1][0] is not None
                else None)


def _gelu_second_derivative(x, approximate):
    """gelu''(x): phi(x) (2 - x^2) for the exact GELU; for the tanh form, with u its tanh's argument,
    (1 - tanh(u)^2) (u' + x (u'' - 2 tanh(u) u'^2) / 2)."""
    if approximate == "tanh":
        inner, d_inner = _gelu_tanh_parts(x)
        th = inner.tanh()
        d2_inner = x * (6 * 0.044715 * _SQRT_2_OVER_PI)
        return number_sub(1, th * th) * (d_inner + x * 0.5 * (d2_inner - th * 2 * d_inner * d_inner))
    return (x * x * -0.5).exp() * _INV_SQRT_2PI * number_sub(2, x * x)


def _gelu_tanh_grad(g, x):
    inner, d_inner = _gelu_tanh_parts(x)
    th = inner.tanh()
    return g * ((th + 1) * 0.5 + x * 0.5 * (1 - th * th) * d_inner)


def _gelu_grad_arrays(g: Tensor, x: Tensor, erf, exp_half_sq) -> Tensor | None:
    """The exact GELU's input gradient on the arrays, from the forward's erf(x / sqrt 2) (``exp_half_sq``,
    exp(-x^2 / 2), is kept by oneDNN's float32 steps, registered from ``tinytorch/_cpu/gelu.py`` with their
    backward); None where only the formula on tensors applies."""
    xd = x._data
    if xd.ndim and g._data.dtype == xd.dtype:  # (0-d arrays: numpy 1.x widens them by Python floats)
        return _make(_gelu_grad_numpy(g._data, xd, erf))
    return None


def _gelu_arrays(storage: np.ndarray, approximate: str) -> tuple:
    """(gelu, erf(x / sqrt 2) or None, exp(-x^2 / 2) or None) of an input array by the formulas (in float32 for
    half and bfloat16, whose erf is not kept). Where PyTorch runs oneDNN's float32 kernel, its steps (and the
    exp(-x^2 / 2) they keep) register from ``tinytorch/_cpu/gelu.py``."""
    x = opmath(storage)
    out, erf = _gelu_numpy(x, approximate)
    return cast(out, storage), erf if x is storage else None, None


def _gelu_grad_laid_out(g: Tensor, x: Tensor, erf, exp_half_sq) -> Tensor | None:
    """``_gelu_grad_arrays`` laid out as PyTorch's gelu_backward lays out its result over (grad_output, self)."""
    out = _gelu_grad_arrays(g, x, erf, exp_half_sq)
    if out is None:
        return None
    d = out._data
    laid = elementwise_layout(d, g._data, x._data)
    return out if laid is d else _make(laid)


@aten_only("gelu_backward", recorded=True)
def gelu_backward(grad_output: Tensor, self: Tensor, approximate: str = "none") -> Tensor:
    """``torch.ops.aten.gelu_backward``: GELU's input gradient, the forward's steps run again for what its node
    keeps (so the same floats as the node's backward). As PyTorch's kernel: the operands promoted to one dtype,
    half and bfloat16 computed in float32 and rounded once."""
    gd, xd = grad_output._data.dtype, float_array(self, "GeluKernelImpl").dtype
    storage = promote_types(grad_output.dtype, self.dtype).np
    g, x = grad_output, self
    # (the exact form's float32 beside float64 as they are: oneDNN's refusal of a float64 gradient)
    if gd in LOWP_NP or xd in LOWP_NP or (approximate == "tanh" and gd != xd):
        compute = opmath(np.empty(0, storage)).dtype
        g, x = (_make(t._data.astype(compute, copy=False)) for t in (grad_output, self))
    if approximate == "tanh":
        with no_grad():
            out = _gelu_tanh_grad(g, x)
    else:
        _, erf, exp_half_sq = _gelu_arrays(x._data, approximate)
        out = _gelu_grad_laid_out(g, x, erf, exp_half_sq)
        if out is None:
            with no_grad():
                out = _gelu_grad(g, x, _erf(x / _SQRT_2), Tensor.exp)
    if out._data.dtype != storage:
        out = _make(lowp_round(out._data.astype(storage) if storage not in LOWP_NP else out._data, storage))
    if _State.enabled and (grad_output._requires_grad or self._requires_grad):
        return record(out._data, GeluBackwardBackward0, (grad_output, self), (grad_output, self),
                      approximate=approximate)
    return out


@op(variants="functional", batch=elementwise)
def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (Phi the standard normal CDF), or its tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    x = float_array(input, "GeluKernelImpl")
    out, erf, exp_half_sq = _gelu_arrays(x, approximate)
    out = elementwise_layout(out, x)  # (the formulas' numpy steps and kernels order their results their own way)
    # the node keeps erf(x / sqrt 2) (and oneDNN's exp(-x^2 / 2)) for the backward's array path
    return record(out, GeluBackward0, (input,), (input,), approximate=approximate, erf=erf, exp_half_sq=exp_half_sq)


# -- silu, mish, softplus --------------------------------------------------------------------------
class SiluBackward0(Node):
    saved_fields = (("self", 0),)

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (_silu_grad(g, x),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


def _silu_grad(g: Tensor, x: Tensor) -> Tensor:
    s = x.sigmoid()
    return g * s * add_scalar(x * number_sub(1, s), 1)


@aten_only("silu_backward", recorded=True)
def silu_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """``torch.ops.aten.silu_backward``: SiLU's input gradient, grad * s * (1 + x * (1 - s)) with s = sigmoid(x)."""
    with no_grad():
        return _silu_grad(grad_output, self)


def _silu(input: Tensor) -> Tensor:
    # complex too (PyTorch's silu has a complex kernel, but no complex gradient); other dtypes get its refusal
    if input._data.dtype.kind == "c":
        if _State.enabled and input._requires_grad:
            raise complex_grad_error("silu")
        x = input._data
    else:
        x = float_array(input, "silu_cpu")
    with np.errstate(all="ignore"):  # (silu(-inf) is -inf / inf: NaN, silently, as in PyTorch)
        out = x / (1 + np.exp(-x))
    return record(cast(out, x), SiluBackward0, (input,), (input,))


@op(variants="functional", batch=elementwise)
def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    return apply_inplace(input, _silu) if inplace else _silu(input)


def _softplus_t(x: Tensor) -> Tensor:
    """log(1 + exp(x)), stable, from differentiable ops."""
    return x.clamp(min=0) + ((-x.abs()).exp()).log1p()


class MishBackward0(Node):
    saved_fields = (("self", 0),)

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (_mish_grad(g, x),)


def _mish_grad(g: Tensor, x: Tensor) -> Tensor:
    t = _softplus_t(x).tanh()
    return g * (t + x * x.sigmoid() * (1 - t * t))


@aten_only("mish_backward", recorded=True)
def mish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """``torch.ops.aten.mish_backward``: Mish's input gradient, grad * (t + x * sigmoid(x) * (1 - t^2)) with
    t = tanh(softplus(x))."""
    with no_grad():
        return _mish_grad(grad_output, self)


@silent  # softplus of a NaN, inf * tanh: PyTorch's values, without numpy's warnings
def _mish(input: Tensor) -> Tensor:
    x = float_array(input, "mish_cpu")
    out = x * np.tanh(np.logaddexp(0, x))
    return record(cast(out, x), MishBackward0, (input,), (input,))


@op(variants="functional", batch=elementwise)
def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    return apply_inplace(input, _mish) if inplace else _mish(input)


class SoftplusBackward0(Node):
    saved_fields = (("beta", "beta"), ("self", 0), ("threshold", "threshold"))

    def backward(self, g):
        (x,) = self._unpacked_saved
        if _State.enabled:  # a graph of the gradient: PyTorch's operator, one node (SoftplusBackwardBackward0)
            return (softplus_backward(g, x, self.beta, self.threshold),)
        return (_softplus_grad(g, x, self.beta, self.threshold),)

    def jvp(self, t):
        # elementwise: the Jacobian is diagonal, so J t is J^T t (PyTorch's formula: softplus_backward(self_t, ...))
        return softplus_backward(t, self._unpacked_saved[0], self.beta, self.threshold)


def _softplus_grad(g: Tensor, x: Tensor, beta, threshold) -> Tensor:
    """d softplus(x) / dx = sigmoid(beta x) times ``g``, ``g`` itself where softplus is linear."""
    bx = x * beta
    return kernel_laid_out(where(bx > threshold, g, g * bx.sigmoid()), g, x)


class SoftplusBackwardBackward0(Node):
    """softplus_backward(grad_output, self): linear in grad_output; its derivative in self is grad_output times
    softplus'' = beta sigmoid'(beta x), 0 where beta x is not below the threshold (PyTorch's formula: the product
    sent through sigmoid_backward, masked, times beta)."""
    saved_fields = (("beta", "beta"), ("grad_output", 0), ("self", 1), ("threshold", "threshold"))

    def backward(self, gg):
        g, x = self._unpacked_saved
        dx = None
        if self.next_functions[1][0] is not None:
            bx = mul_scalar(x, self.beta)
            curved = _make((bx._data < self.threshold).astype(x._data.dtype))
            dx = mul_scalar(ATEN_ONLY["sigmoid_backward"](gg * g, bx.sigmoid()) * curved, self.beta)
        return (softplus_backward(gg, x, self.beta, self.threshold) if self.next_functions[0][0] is not None
                else None, dx)


@aten_only("softplus_backward", recorded=True)
def softplus_backward(grad_output: Tensor, self: Tensor, beta, threshold) -> Tensor:
    """``torch.ops.aten.softplus_backward``: softplus's input gradient, recorded as one node where autograd records."""
    with no_grad():
        out = _softplus_grad(grad_output, self, beta, threshold)
    if _State.enabled and (grad_output._requires_grad or self._requires_grad):
        return record(out._data, SoftplusBackwardBackward0, (grad_output, self), (grad_output, self), beta=beta,
                      threshold=threshold)
    return out


@silent  # logaddexp(0, NaN) warns in numpy; PyTorch's NaN comes silently
def _softplus_array(x: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    bx = x * beta
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta)


@op(variants="functional", batch=elementwise)
def softplus(input: Tensor, beta: float = 1, threshold: float = 20) -> Tensor:
    """log(1 + exp(beta x)) / beta, linear where beta x > threshold."""
    x = float_array(input, "softplus_cpu")
    out = _softplus_array(x, beta, threshold)
    return record(cast(out, x), SoftplusBackward0, (input,), (input,), beta=beta, threshold=threshold)


# -- elu (with PyTorch's scale and input_scale, so selu shares it), selu, celu ----------------------
class EluBackward0(Node):
    saved_fields = (("alpha", "alpha"), ("input_scale", lambda n: _scalar(n.input_scale)),
                    ("scale", lambda n: _scalar(n.scale)), ("self", 0))

    def backward(self, g):
        (saved,) = self._unpacked_saved
        return (_elu_node_grad(g, saved, self.alpha, self.scale, self.input_scale, type(self) is EluBackward1),)

    def jvp(self, t):
        # elementwise: the Jacobian is diagonal, so J t is J^T t (PyTorch's formula: elu_backward(self_t, ...))
        return self.backward(t)[0]


def _elu_node_grad(g: Tensor, saved: Tensor, alpha: float, scale: float, input_scale: float,
                   is_result: bool) -> Tensor:
    """The gradient elu's and celu's nodes hand on: from the input, or from the in-place form's result; where
    autograd records it (create_graph, a forward rule), PyTorch's operator, one node (EluBackwardBackward0)."""
    if _State.enabled:
        return elu_backward(g, alpha, scale, input_scale, is_result, saved)
    if is_result:
        return _elu_grad_of_result(g, saved, alpha, scale, input_scale)
    return _elu_grad(g, saved, alpha, scale, input_scale)


def _elu_grad(g: Tensor, x: Tensor, alpha: float, scale: float, input_scale: float) -> Tensor:
    neg = g * ((x * input_scale).exp() * (alpha * scale * input_scale))
    return kernel_laid_out(where(mask(x._data > 0), g * scale, neg), g, x)


def _elu_grad_of_result(g: Tensor, y: Tensor, alpha: float, scale: float, input_scale: float) -> Tensor:
    """The same from the result ``y`` (its signs are the input's; exp(input_scale * x) is y / (alpha * scale) + 1)."""
    return kernel_laid_out(where(mask(y._data > 0), g * scale, g * input_scale * (y + alpha * scale)), g, y)


@aten_only("elu_backward", recorded=True)
def elu_backward(grad_output: Tensor, alpha: float, scale: float, input_scale: float, is_result: bool,
                 self_or_result: Tensor) -> Tensor:
    """``torch.ops.aten.elu_backward``: ELU's input gradient from its input (the node's formula), or from its
    result with ``is_result`` (``grad * input_scale * (result + alpha * scale)`` where the result is not
    positive, as PyTorch's kernel)."""
    with no_grad():
        if not is_result:
            out = _elu_grad(grad_output, self_or_result, alpha, scale, input_scale)
        else:
            out = _elu_grad_of_result(grad_output, self_or_result, alpha, scale, input_scale)
    if _State.enabled and (grad_output._requires_grad or self_or_result._requires_grad):
        return record(out._data, EluBackwardBackward0, (grad_output, self_or_result), (grad_output, self_or_result),
                      alpha=alpha, scale=scale, input_scale=input_scale, is_result=is_result)
    return out


class EluBackwardBackward0(Node):
    """elu_backward(grad_output, ..., self_or_result): linear in grad_output; its derivative in the input is
    grad_output times elu'' = scale alpha input_scale^2 exp(input_scale x) where x < 0 (elu_backward of
    input_scale grad_output), 0 elsewhere; from the result y, grad_output input_scale where y < 0 (the gradient
    there is grad_output input_scale (y + alpha scale))."""
    saved_fields = (("alpha", "alpha"), ("grad_output", 0), ("input_scale", "input_scale"),
                    ("is_result", "is_result"), ("scale", "scale"), ("self_or_result", 1))

    def backward(self, gg):
        g, saved = self._unpacked_saved
        alpha, scale, input_scale = self.alpha, self.scale, self.input_scale
        d_out = None
        if self.next_functions[0][0] is not None:
            d_out = elu_backward(gg, alpha, scale, input_scale, self.is_result, saved)
        d_saved = None
        if self.next_functions[1][0] is not None:  # (PyTorch's formula: masked where the input is negative)
            bent = _make((saved._data < 0).astype(saved._data.dtype))
            scaled = mul_scalar(gg * g, input_scale)
            if not self.is_result:
                scaled = elu_backward(scaled, alpha, scale, input_scale, False, saved)
            d_saved = scaled * bent
        return d_out, d_saved


class EluBackward1(EluBackward0):
    saved_fields = (("alpha", "alpha"), ("input_scale", lambda n: _scalar(n.input_scale)), ("result", 0),
                    ("scale", lambda n: _scalar(n.scale)))
    pass


def _elu(input: Tensor, alpha: float = 1.0, scale: float = 1, input_scale: float = 1,
         _node=EluBackward0) -> Tensor:
    """scale * x where x > 0, else scale * alpha * (exp(input_scale * x) - 1)."""
    x = float_array(input, "elu_cpu")
    neg = np.expm1(np.minimum(x, 0) * input_scale) * alpha
    out = np.where(x > 0, x, neg) * scale if scale != 1.0 else np.where(x > 0, x, neg)
    # the in-place form's node saves its result (the written tensor), as PyTorch's EluBackward1 does
    saved = (OUT,) if _node is EluBackward1 else (input,)
    return record(cast(out, x), _node, (input,), saved, alpha=alpha, scale=scale, input_scale=input_scale)


@op(variants="functional", batch=elementwise)
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else alpha * (exp(x) - 1)."""
    if inplace:
        return apply_inplace(input, _elu, alpha, _node=EluBackward1)
    return _elu(input, alpha)


@op(variants="functional", no_batch="an in-place op")
def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place elu."""
    return elu(input, alpha, True)


@functional_spelling("selu")
def _selu_functional(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with the self-normalising constants."""
    return selu_(input) if inplace else selu(input)


@op(variants="function functional", functional=_selu_functional, batch=elementwise)
def selu(input: Tensor) -> Tensor:
    """scale * elu(x, alpha) with the self-normalising constants."""
    return _elu(input, SELU_ALPHA, SELU_SCALE, 1)


@op(variants="function functional", no_batch="an in-place op")
def selu_(input: Tensor) -> Tensor:
    """In-place selu."""
    return apply_inplace(input, _elu, SELU_ALPHA, SELU_SCALE, 1, _node=EluBackward1)


class CeluBackward0(Node):
    saved_fields = (("alpha", "alpha"), ("self", 0))

    def backward(self, g):
        (saved,) = self._unpacked_saved
        # PyTorch's derivative is elu's with input_scale 1/alpha, alpha rounded to float first
        s = 1.0 / float(np.float32(self.alpha))
        return (_elu_node_grad(g, saved, self.alpha, 1, s, type(self) is CeluBackward1),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


class CeluBackward1(CeluBackward0):
    saved_fields = (("alpha", "alpha"), ("result", 0))
    pass


def _celu(input: Tensor, alpha: float = 1.0, _node=CeluBackward0) -> Tensor:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    x = float_array(input, "elu_cpu")
    out = np.where(x > 0, x, np.expm1(np.minimum(x, 0) / alpha) * alpha)
    saved = (OUT,) if _node is CeluBackward1 else (input,)
    return record(cast(out, x), _node, (input,), saved, alpha=alpha)


@functional_spelling("celu")
def _celu_functional(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else alpha * (exp(x / alpha) - 1)."""
    return celu_(input, alpha) if inplace else celu(input, alpha)


@op(variants="function functional", functional=_celu_functional, batch=elementwise)
def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """x where x > 0, else alpha * (exp(x / alpha) - 1)."""
    return _celu(input, alpha)


@op(variants="function functional", no_batch="an in-place op")
def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place celu."""
    return apply_inplace(input, _celu, alpha, _node=CeluBackward1)


# -- logsigmoid, softsign, tanhshrink --------------------------------------------------------------
def _buffer(node):
    """The exp(-|x|) PyTorch's CPU kernel keeps as the node's ``buffer``."""
    x = node._slot_value(0)
    return None if x is None else _make(np.exp(-np.abs(x._data)))


class LogSigmoidBackward0(Node):
    saved_fields = (("self", 0), ("buffer", _buffer))

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (g * (-x).sigmoid(),)


@op(variants="functional", batch=elementwise)
def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), computed stably."""
    x = float_array(input, "log_sigmoid_cpu")
    out = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    if type(x) is np.ndarray:  # PyTorch's CPU kernel fills a C-ordered result (on meta: the input's order)
        out = c_order(out)
    return record(cast(out, x), LogSigmoidBackward0, (input,), (input,))


@op(variants="functional", batch=composite)
def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


@op(variants="functional", batch=composite)
def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - input.tanh()


# -- glu -------------------------------------------------------------------------------------------
class GluBackward0(Node):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("self", 0))

    def backward(self, g):
        (x,) = self._unpacked_saved
        a, b = x.chunk(2, self.dim)
        s = b.sigmoid()
        gx = cat([g * s, g * a * s * (1 - s)], self.dim)
        # PyTorch's CPU kernel fills a C-ordered gradient; its meta decomposition cats halves ordered by sigmoid(b)
        # (``cat``: channels-last where they suggest it)
        fmt = suggested_format(tuple(b.shape), b.stride()) if x._meta else None
        return (gx.contiguous(memory_format=fmt or contiguous_format),)


def _batch_glu(op, input, dim=-1):
    """vmap: halve along the logical dim's physical place."""
    return input._wrap(op(input._phys, input._ld(dim)))


@silent  # inf / inf where both halves are infinite: NaN, as PyTorch's, without numpy's warning
def _glu_array(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a / (1 + np.exp(-b))


@op(variants="functional", batch=_batch_glu)
def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b), where a and b are the two halves of ``input`` along ``dim``."""
    x = input._data
    if x.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim + x.ndim if dim < 0 else dim
    if not 0 <= d < x.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-x.ndim}, "
                         f"{x.ndim - 1}], but got {dim})")
    n = x.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    x = float_array(input, "glu_cpu")
    out = _glu_array(*np.split(x, 2, axis=d))
    return record(cast(out, x), GluBackward0, (input,), (input,), dim=d, dim_arg=dim)


# -- hardswish, hardsigmoid ------------------------------------------------------------------------
class HardswishBackward0(Node):
    saved_fields = (("self", 0),)

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (_hardswish_grad(g, x),)


def _hardswish_grad(g: Tensor, x: Tensor) -> Tensor:
    xd = x._data
    inner = g * (x / 3.0 + 0.5)
    # PyTorch's vectorized kernel selects g where x >= 3 and 0 where x < -3, the formula elsewhere: a
    # NaN input gets the formula's NaN (its scalar loop, run only past the last whole block of 16
    # elements, 32 on AVX-512, passes g there: a difference at NaN that tinytorch does not emulate)
    return kernel_laid_out(where(mask(xd < -3), 0.0, where(mask(xd >= 3), g, inner)), g, x)


@aten_only("hardswish_backward", recorded=True)
def hardswish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """``torch.ops.aten.hardswish_backward``: hardswish's input gradient, the node's formula."""
    with no_grad():
        return _hardswish_grad(grad_output, self)


@silent  # -inf * 0 is NaN, as in PyTorch's kernel, without numpy's warning
def _hardswish(input: Tensor) -> Tensor:
    x = float_array(input, "hardswish_cpu")
    out = x * np.minimum(np.maximum(x + 3, 0), 6) / 6
    return record(cast(out, x), HardswishBackward0, (input,), (input,))


@op(variants="functional", batch=elementwise)
def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6."""
    return apply_inplace(input, _hardswish) if inplace else _hardswish(input)


class HardsigmoidBackward0(Node):
    saved_fields = (("self", 0),)

    def backward(self, g):
        (x,) = self._unpacked_saved
        # PyTorch has no derivative for hardsigmoid_backward: the graph says so when it is used
        return (record(_hardsigmoid_grad(g, x)._data, _HardsigmoidBackwardBackward, (g, x)),)


def _hardsigmoid_grad(g: Tensor, x: Tensor) -> Tensor:
    # PyTorch's kernel multiplies by 1/6 rounded to float, whatever the dtype
    return kernel_laid_out(where(mask((x._data > -3) & (x._data < 3)), g * _SIXTH_F32, 0.0), g, x)


@aten_only("hardsigmoid_backward", recorded=True)
def hardsigmoid_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """``torch.ops.aten.hardsigmoid_backward``: hardsigmoid's input gradient, the node's formula."""
    with no_grad():
        return _hardsigmoid_grad(grad_output, self)


class _HardsigmoidBackwardBackward(Node):
    def backward(self, gg):
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


_HardsigmoidBackwardBackward.__name__ = _HardsigmoidBackwardBackward.__qualname__ = "NotImplemented"


def _hardsigmoid(input: Tensor) -> Tensor:
    x = float_array(input, "hardsigmoid_cpu")
    out = np.minimum(np.maximum(x + 3, 0), 6) / 6
    return record(cast(out, x), HardsigmoidBackward0, (input,), (input,))


@op(variants="functional", batch=elementwise)
def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6."""
    return apply_inplace(input, _hardsigmoid) if inplace else _hardsigmoid(input)


# -- softmin, and nn.functional's spellings of softmax and log_softmax ----------------------------
def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


@op(variants="functional", batch=composite)
def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmax(-x) along ``dim``."""
    if dim is None:
        dim = _implicit_dim("softmin", input.ndim, _stacklevel + 1)  # + the public function's frame
    neg = -input
    return _softmax(neg if dtype is None else neg.to(dtype), dim)  # the cast recorded, as PyTorch's graph


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim`` (nn.functional's spelling of the reduction-family op)."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "softmax_lastdim_kernel_impl", "softmax_lastdim_kernel_impl")
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    return _softmax(input if dtype is None else input.to(dtype), dim)  # the cast recorded, as PyTorch's graph


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """log(softmax(x)) along ``dim``, computed stably (nn.functional's spelling)."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    return _log_softmax(input if dtype is None else input.to(dtype), dim)


# -- ATen's in-place operators of the activations that nn.functional writes with ``inplace=True`` only -----
@aten_only("silu_")
def _silu_(self: Tensor) -> Tensor:
    """``torch.ops.aten.silu_``: ``F.silu(self, inplace=True)``."""
    return silu(self, True)


@aten_only("mish_")
def _mish_(self: Tensor) -> Tensor:
    """``torch.ops.aten.mish_``: ``F.mish(self, inplace=True)``."""
    return mish(self, True)


@aten_only("hardswish_")
def _hardswish_(self: Tensor) -> Tensor:
    """``torch.ops.aten.hardswish_``: ``F.hardswish(self, inplace=True)``."""
    return hardswish(self, True)


@aten_only("hardsigmoid_")
def _hardsigmoid_(self: Tensor) -> Tensor:
    """``torch.ops.aten.hardsigmoid_``: ``F.hardsigmoid(self, inplace=True)``."""
    return hardsigmoid(self, True)
