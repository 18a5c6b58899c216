"""Activation primitives that ``tinytorch.ops`` lacks: forward in numpy, backward from tinytorch ops.

They live here rather than in ``tinytorch/ops`` because only nn uses them. Each records a node
with PyTorch's name (``LeakyReluBackward0``, ``GeluBackward0``, ...), and each backward is made of
differentiable ops, so second derivatives work."""
from __future__ import annotations

import math

import numpy as np

from ..autograd.grad_mode import _State
from ..autograd.node import Node
from ..ops._util import as_array
from ..ops.arith import where
from ..ops.special import erf_np
from ..tensor import Tensor, _make

_SQRT_2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
def _erf_elementwise(x):  # vectorised erf in double (as exact as math.erf per element, 100x faster)
    return erf_np(np.asarray(x, dtype=np.float64))


def _record(input: Tensor, out: np.ndarray, node_cls, **attrs) -> Tensor:
    if _State.enabled and input._requires_grad:
        node = node_cls((input._edge(),))
        node.__dict__.update(attrs)
        node.save_for_backward(input)
        return _make(out, node)
    return _make(out)


def _float_array(input: Tensor, name: str) -> np.ndarray:
    x = input._data
    if x.dtype.kind != "f":
        raise NotImplementedError(f'"{name}" not implemented for \'{input.dtype._legacy[:-6]}\'')
    return x


# -- erf (needed by the exact GELU and its derivatives) --------------------------------------------
class ErfBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * (2.0 / math.sqrt(math.pi)) * (-(x * x)).exp(),)


def erf(input: Tensor) -> Tensor:
    """The error function, elementwise (math.erf per element: exact, not fast)."""
    x = _float_array(input, "erf_vml_cpu")
    return _record(input, as_array(_erf_elementwise(x).astype(x.dtype)), ErfBackward0)


# -- leaky_relu -----------------------------------------------------------------------------------
class LeakyReluBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (where(x > 0, g, g * self.negative_slope),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x where x > 0, else negative_slope * x."""
    x = _float_array(input, "leaky_relu_cpu")
    out = np.where(x > 0, x, x * np.asarray(negative_slope, dtype=x.dtype))
    return _record(input, as_array(out), LeakyReluBackward0, negative_slope=negative_slope)


# -- gelu -----------------------------------------------------------------------------------------
def _gelu_tanh_parts(x):
    """inner = sqrt(2/pi) (x + 0.044715 x^3) and its derivative; works on arrays and Tensors alike."""
    inner = (x + x * x * x * 0.044715) * _SQRT_2_OVER_PI
    d_inner = (x * x * (3 * 0.044715) + 1) * _SQRT_2_OVER_PI
    return inner, d_inner


class GeluBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        if self.approximate == "tanh":
            inner, d_inner = _gelu_tanh_parts(x)
            th = inner.tanh()
            return (g * ((th + 1) * 0.5 + x * 0.5 * (1 - th * th) * d_inner),)
        if not _State.enabled:  # no graph of the gradient: numpy, reusing the forward's Phi(x)
            xd = x._data
            pdf = np.exp(xd * xd * xd.dtype.type(-0.5)) * xd.dtype.type(_INV_SQRT_2PI)
            return (_make((g._data * (self.cdf + xd * pdf)).astype(xd.dtype, copy=False)),)
        cdf = (erf(x / _SQRT_2) + 1) * 0.5
        pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
        return (g * (cdf + x * pdf),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (Phi the standard normal CDF), or its tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    x = _float_array(input, "GeluKernelImpl")
    if approximate == "tanh":
        inner, _ = _gelu_tanh_parts(x)
        out = 0.5 * x * (1 + np.tanh(inner))
    else:
        cdf = (0.5 * (1 + _erf_elementwise(x / _SQRT_2))).astype(x.dtype)
        out = x * cdf
        return _record(input, as_array(out.astype(x.dtype, copy=False)), GeluBackward0, approximate=approximate,
                       cdf=cdf)
    return _record(input, as_array(out.astype(x.dtype, copy=False)), GeluBackward0, approximate=approximate)


# -- silu, elu, softplus --------------------------------------------------------------------------
class SiluBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        s = x.sigmoid()
        return (g * s * (x * (1 - s) + 1),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


def silu(input: Tensor) -> Tensor:
    """x * sigmoid(x)."""
    x = _float_array(input, "silu_cpu")
    with np.errstate(over="ignore"):
        out = x / (1 + np.exp(-x))
    return _record(input, as_array(out.astype(x.dtype, copy=False)), SiluBackward0)


class SoftplusBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        bx = x * self.beta
        return (where(bx > self.threshold, g, g * bx.sigmoid()),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta x)) / beta, linear where beta x > threshold."""
    x = _float_array(input, "softplus_cpu")
    bx = x * beta
    out = np.where(bx > threshold, x, np.logaddexp(0, bx) / beta)
    return _record(input, as_array(out.astype(x.dtype, copy=False)), SoftplusBackward0, beta=beta,
                   threshold=threshold)
