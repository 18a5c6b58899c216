"""More activation primitives (hardtanh, hardswish, hardsigmoid, mish, glu, prelu, celu, elu/selu
with scales, logsigmoid, softshrink, hardshrink, threshold, rrelu): forward in numpy, backward in
tinytorch ops, nodes named as PyTorch's.

An op PyTorch also offers in place (``elu_``, ``threshold_``...) records ``...Backward1`` there;
``_inplace`` runs the out-of-place op on a copy of the old value and writes the result back (see
``ops/inplace.py``), with the in-place node class."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import _State
from ..autograd.node import Node
from ..ops._util import as_array, sum_to
from ..ops.arith import where
from ..ops.inplace import apply_inplace
from ..ops.join import cat
from ..random import _engine
from ..tensor import Tensor, _make
from ._activation_ops import _float_array

_SIXTH_F32 = float(np.float32(1.0 / 6.0))
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _record(inputs: tuple, out: np.ndarray, node_cls, saved: tuple, **attrs) -> Tensor:
    if _State.enabled and any(t is not None and t._requires_grad for t in inputs):
        node = node_cls(tuple(t._edge() if t is not None else (None, 0) for t in inputs))
        node.__dict__.update(attrs)
        node.save_for_backward(*saved)
        return _make(as_array(out), node)
    return _make(as_array(out))


def _mask(cond: np.ndarray) -> Tensor:
    return _make(as_array(cond))


def _inplace(input: Tensor, op, *args, **kwargs) -> Tensor:
    return apply_inplace(input, op, *args, **kwargs)


def _cast(out, x: np.ndarray) -> np.ndarray:
    return np.asarray(out).astype(x.dtype, copy=False)


# -- hardtanh -------------------------------------------------------------------------------------
class HardtanhBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (where(_mask((x._data > self.lo) & (x._data < self.hi)), g, 0.0),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """x clamped to [min_val, max_val]; the gradient passes strictly inside."""
    x = input._data
    if x.dtype == np.bool_:
        raise RuntimeError("\"hardtanh_cpu\" not implemented for 'Bool'")
    out = np.minimum(np.maximum(x, np.asarray(min_val).astype(x.dtype)),
                     np.asarray(max_val).astype(x.dtype))
    return _record((input,), _cast(out, x), HardtanhBackward0, (input,), lo=min_val, hi=max_val)


# -- hardswish, hardsigmoid -----------------------------------------------------------------------
class HardswishBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        xd = x._data
        inner = g * (x / 3.0 + 0.5)
        return (where(_mask(xd < -3), 0.0, where(_mask(xd <= 3), inner, g)),)


def hardswish(input: Tensor) -> Tensor:
    """x * relu6(x + 3) / 6."""
    x = _float_array(input, "hardswish_cpu")
    out = x * np.minimum(np.maximum(x + 3, 0), 6) / 6
    return _record((input,), _cast(out, x), HardswishBackward0, (input,))


class HardsigmoidBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        # PyTorch's kernel multiplies by 1/6 rounded to float, whatever the dtype
        return (where(_mask((x._data > -3) & (x._data < 3)), g * _SIXTH_F32, 0.0),)


def hardsigmoid(input: Tensor) -> Tensor:
    """relu6(x + 3) / 6."""
    x = _float_array(input, "hardsigmoid_cpu")
    out = np.minimum(np.maximum(x + 3, 0), 6) / 6
    return _record((input,), _cast(out, x), HardsigmoidBackward0, (input,))


# -- mish -----------------------------------------------------------------------------------------
def _softplus_t(x: Tensor) -> Tensor:
    """log(1 + exp(x)), stable, from differentiable ops."""
    return x.clamp(min=0) + ((-x.abs()).exp()).log1p()


class MishBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        t = _softplus_t(x).tanh()
        return (g * (t + x * x.sigmoid() * (1 - t * t)),)


def mish(input: Tensor) -> Tensor:
    """x * tanh(softplus(x))."""
    x = _float_array(input, "mish_cpu")
    out = x * np.tanh(np.logaddexp(0, x))
    return _record((input,), _cast(out, x), MishBackward0, (input,))


# -- glu ------------------------------------------------------------------------------------------
class GluBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        a, b = x.chunk(2, self.dim)
        s = b.sigmoid()
        return (cat([g * s, g * a * s * (1 - s)], self.dim),)


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
    x = _float_array(input, "glu_cpu")
    a, b = np.split(x, 2, axis=d)
    out = a / (1 + np.exp(-b))
    return _record((input,), _cast(out, x), GluBackward0, (input,), dim=d)


# -- prelu ----------------------------------------------------------------------------------------
class PreluKernelBackward0(Node):
    def backward(self, g):
        x, w = self.saved_tensors
        pos = _mask(x._data > 0)
        gx = where(pos, g, w * g)
        gw = sum_to(where(pos, 0.0, x * g), w.shape)
        return (gx, gw)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, else weight * x, the weight shared or per channel (dim 1)."""
    x, w = input._data, weight._data
    if x.dtype != w.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype._legacy[:-6]} "
                           f"and {weight.dtype._legacy[:-6]}")
    if w.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {w.ndim}")
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"prelu_cpu\" not implemented for '{input.dtype._legacy[:-6]}'")
    if w.size != 1:
        if x.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = x.shape[1] if x.ndim >= 2 else 1
        if channels != w.size:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {w.size} and channel size = {channels}.")
    if x.ndim >= 2:
        # PyTorch views the weight as (1, C, 1, ...) first: its graph has that ViewBackward0
        weight = weight.view(tuple(w.size if i == 1 else 1 for i in range(x.ndim)))
    w = weight._data
    out = np.where(x > 0, x, w * x)
    return _record((input, weight), _cast(out, x), PreluKernelBackward0, (input, weight))


# -- elu (with PyTorch's scale and input_scale, so selu shares it), celu ---------------------------
class EluBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        neg = g * ((x * self.input_scale).exp() * (self.alpha * self.scale * self.input_scale))
        return (where(_mask(x._data > 0), g * self.scale, neg),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


class EluBackward1(EluBackward0):
    pass


def elu(input: Tensor, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0,
        _node=EluBackward0) -> Tensor:
    """scale * x where x > 0, else scale * alpha * (exp(input_scale * x) - 1)."""
    x = _float_array(input, "elu_cpu")
    neg = np.expm1(np.minimum(x, 0) * input_scale) * alpha
    out = np.where(x > 0, x, neg) * scale if scale != 1.0 else np.where(x > 0, x, neg)
    return _record((input,), _cast(out, x), _node, (input,), alpha=alpha, scale=scale,
                   input_scale=input_scale)


class CeluBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        # PyTorch's derivative takes 1/alpha from alpha rounded to float
        s = 1.0 / float(np.float32(self.alpha))
        return (where(_mask(x._data > 0), g, g * (x * s).exp() * (self.alpha * s)),)


class CeluBackward1(CeluBackward0):
    pass


def celu(input: Tensor, alpha: float = 1.0, _node=CeluBackward0) -> Tensor:
    """x where x > 0, else alpha * (exp(x / alpha) - 1)."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    x = _float_array(input, "elu_cpu")
    out = np.where(x > 0, x, np.expm1(np.minimum(x, 0) / alpha) * alpha)
    return _record((input,), _cast(out, x), _node, (input,), alpha=alpha)


# -- logsigmoid -----------------------------------------------------------------------------------
class LogSigmoidBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * (-x).sigmoid(),)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), computed stably."""
    x = _float_array(input, "log_sigmoid_cpu")
    out = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    return _record((input,), _cast(out, x), LogSigmoidBackward0, (input,))


# -- shrinks and threshold ------------------------------------------------------------------------
class SoftshrinkBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (where(_mask(np.abs(x._data) > self.lambd), g, 0.0),)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd above lambd, x + lambd below -lambd, else 0."""
    x = _float_array(input, "softshrink_cpu")
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, {np.finfo(x.dtype).max:g}] for input dtype "
                           f"{input.dtype._legacy[:-6]}, but found {lambd:g}")
    out = np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0))
    return _record((input,), _cast(out, x), SoftshrinkBackward0, (input,), lambd=lambd)


class HardshrinkBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (where(_mask((x._data >= -self.lambd) & (x._data <= self.lambd)), 0.0, g),)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > lambd, else 0."""
    x = _float_array(input, "hardshrink_cpu")
    out = np.where((x >= -lambd) & (x <= lambd), 0, x)
    return _record((input,), _cast(out, x), HardshrinkBackward0, (input,), lambd=lambd)


class ThresholdBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (where(_mask(x._data <= self.threshold), 0.0, g),)

    def jvp(self, t):
        (x,) = self.saved_tensors
        return where(_mask(x._data <= self.threshold), 0.0, t)


class ThresholdBackward1(ThresholdBackward0):
    pass


def threshold(input: Tensor, threshold: float, value: float, _node=ThresholdBackward0) -> Tensor:
    """x where x > threshold, else value."""
    x = input._data
    out = np.where(x <= threshold, np.asarray(value).astype(x.dtype), x)
    return _record((input,), _cast(out, x), _node, (input,), threshold=threshold)


# -- rrelu ----------------------------------------------------------------------------------------
class RreluWithNoiseBackward0(Node):
    def backward(self, g):
        (x, noise) = self.saved_tensors
        return (where(_mask(x._data > 0), g, g * noise),)


class RreluWithNoiseBackward1(RreluWithNoiseBackward0):
    pass


def rrelu(input: Tensor, lower: float, upper: float, training: bool,
          _node=RreluWithNoiseBackward0) -> Tensor:
    """Leaky relu whose negative slope is drawn uniformly from [lower, upper] per element while
    training, and is their mean otherwise."""
    x = _float_array(input, "rrelu_with_noise_out_cpu")
    if training:
        # PyTorch rounds the bounds to the input's dtype, then draws one double uniform per
        # non-positive element, in order, scaled as u * (hi - lo) + lo in double (no fused multiply-add)
        noise = np.ones_like(x)
        negative = ~(x > 0)
        lo, hi = float(x.dtype.type(lower)), float(x.dtype.type(upper))
        u = _engine(None).float64_uniform(int(negative.sum()))
        noise[negative] = (u * (hi - lo) + lo).astype(x.dtype)
    else:
        noise = np.where(x > 0, 1, np.asarray((lower + upper) / 2)).astype(x.dtype)
    out = x * noise
    return _record((input,), _cast(out, x), _node, (input, _make(as_array(noise))))


# -- clamp_min (the node PyTorch's losses record) --------------------------------------------------
class ClampMinBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (where(_mask(x._data >= self.lo), g, 0.0),)


def clamp_min(input: Tensor, min: float) -> Tensor:
    """max(x, min); the gradient passes where x >= min."""
    x = input._data
    out = np.maximum(x, np.asarray(min).astype(x.dtype))
    return _record((input,), _cast(out, x), ClampMinBackward0, (input,), lo=min)


# -- the p-norm along dims (normalize and the distance losses need it; 0 gradient at a 0 norm) -----
class NormBackward1(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        # recomputed from x with this same op, so the second derivative sees its dependence on x
        norm = vector_norm(x, self.p, self.dims, True)
        if not self.keepdim:
            for d in self.dims:
                g = g.unsqueeze(d)
        zero = _mask(norm._data == 0)
        p = self.p
        if p == 1:
            return (x.sign() * g,)
        safe = where(zero, 1.0, norm)
        if p == 2:
            return (where(zero, 0.0, x / safe * g),)
        scaled = x * x.abs() ** (p - 2) / safe ** (p - 1)
        return (where(zero, 0.0, scaled * g),)


def vector_norm(input: Tensor, p: float, dim, keepdim: bool) -> Tensor:
    """(sum |x|^p)^(1/p) along ``dim`` (an int or tuple)."""
    x = input._data
    if x.dtype.kind != "f":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input.dtype._legacy[:-6]}")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(sorted(d + x.ndim if d < 0 else d for d in dims))
    if p == 2:
        out = np.sqrt(np.sum(x * x, axis=dims, keepdims=True))
    elif p == 1:
        out = np.sum(np.abs(x), axis=dims, keepdims=True)
    else:
        out = np.sum(np.abs(x) ** p, axis=dims, keepdims=True) ** (1.0 / p)
    out = _cast(out, x)
    if not keepdim:
        out = np.squeeze(out, axis=dims)
    return _record((input,), out, NormBackward1, (input,), p=p, dims=dims, keepdim=keepdim)
