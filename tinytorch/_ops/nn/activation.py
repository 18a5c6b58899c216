"""The piecewise-linear activations (PyTorch's Activation kernels): relu, relu6, leaky_relu, hardtanh,
threshold, hardshrink, softshrink, rrelu (slopes drawn while training) and prelu (a learned slope), and
the helpers the activation files share. Forward in numpy, backward in tinytorch ops, nodes named as
PyTorch's.

An op PyTorch also offers in place (``elu_``, ``threshold_``...) records ``...Backward1`` there;
``apply_inplace`` runs the out-of-place op on a copy of the old value and writes the result back (see
``_ops/pointwise/inplace.py``), with the in-place node class. ``F.X(inplace=True)`` goes to the in-place op."""
from __future__ import annotations

import inspect

import numpy as np

from ..._meta_array import MetaArray
from ..._dtype import NARROW_NP, FLOATING_NP
from ..._dtype_info import promote_types
from .._core import narrow_dtypes
from ...autograd.grad_mode import _State
from ...autograd.node import Node, sum_to
from ...tensor import Tensor, _make
from .._core.batching import first_only, pointwise, unsupported
from .._core.record import OUT, record
from .._core.tensor_iterator import elementwise_layout, kernel_laid_out  # noqa: F401 (shared)
from .._core.registry import aten_only, op
from .._core.util import as_array, c_order
from ..pointwise.compare import where
from ..pointwise.inplace import apply_inplace
from ...random import _engine


# -- shared by the activation files --------------------------------------------------------------
def float_array(input: Tensor, name: str) -> np.ndarray:
    x = input._data
    if x.dtype not in FLOATING_NP:
        raise NotImplementedError(f'"{name}" not implemented for \'{input.dtype._scalar}\'')
    return x


def mask(cond: np.ndarray) -> Tensor:
    return _make(as_array(cond))


def cast(out, x: np.ndarray) -> np.ndarray:
    return as_array(out).astype(x.dtype, copy=False)


def functional_spelling(name: str):
    """Name an ``nn.functional`` adapter as PyTorch's function is named (``F.relu.__name__ == "relu"``)."""
    def named(fn):
        fn.__name__ = fn.__qualname__ = name
        return fn
    return named


def elementwise(op, input, *args, **kwargs):
    """vmap's rule for an activation of ``input`` whose other arguments are numbers: one call on the
    physical batch; ``inplace=True`` is refused (the sample's storage is not its own)."""
    if args or "inplace" in kwargs:
        params = inspect.signature(op).bind(input, *args, **kwargs).arguments
        if params.get("inplace"):
            raise unsupported(f"nn.functional.{op.__name__} with inplace=True")
    return first_only(op, input, *args, **kwargs)


# -- relu ------------------------------------------------------------------------------------------
_ZERO = {}  # dtype -> read-only 0-d zero of that dtype: a Python 0 costs numpy a conversion per call


def _relu(x):
    """max(0, x) elementwise: relu's array step (``tinytorch/_cpu/relu.py`` registers the CPU path onto it:
    float32 through numpy's vectorised clip loop, large arrays across threads, the same bits)."""
    zero = _ZERO.get(x.dtype)
    if zero is None:  # a dtype not seen yet (float8 and complex32 are never cached: PyTorch refuses them)
        if x.dtype in NARROW_NP:
            narrow_dtypes.guard(x.dtype, "clamp_min_scalar_cpu", NotImplementedError(narrow_dtypes.NO_COMPLEX_CLAMP))
        if x.dtype.kind == "b":
            return x.copy()
        if x.dtype == np.float16:  # numpy's half maximum drops the sign of -0.0, PyTorch keeps it
            return _relu_formula(x)
        zero = np.zeros((), x.dtype)
        zero.flags.writeable = False
        _ZERO[x.dtype] = zero
    return np.maximum(zero, x)  # this order keeps -0.0 (and a NaN's payload), as PyTorch's relu does


def _relu_formula(x):
    """relu of one element or an array, as PyTorch computes it: 0 below 0, else x itself (-0.0 and NaN kept)."""
    return np.where(x < 0, 0, x)


class ReluBackward0(Node):
    saved_fields = (("result", 0),)

    def backward(self, g):
        if not _State.enabled and _State.array_backward:  # nothing recorded: straight on the arrays
            y = self._one_saved_array()
            if y is not None:
                return (_make(_threshold_backward_array(g._data, y)),)
        (y,) = self._unpacked_saved
        return (threshold_backward(g, y, 0),)

    def jvp(self, t):
        return threshold_backward(t, self._unpacked_saved[0])


class ThresholdBackwardBackward0(Node):
    def backward(self, gg):
        (y,) = self._unpacked_saved
        # PyTorch's formula for the saved tensor is zeros_like(grad): a real zero, so a second
        # derivative through relu is 0 rather than "not used in the graph"
        return threshold_backward(gg, y), (_make(np.zeros_like(gg._data)) if self.next_functions[1][0] else None)


class _PiecewiseBackward(Node):
    """The backward of a piecewise-linear op, ``grad * slope(x)``, as one primitive (PyTorch's
    ``leaky_relu_backward``, ``hardtanh_backward``...): linear in ``grad`` with the same slopes, and
    zero (not absent) with respect to ``x``, as PyTorch's ``self: zeros_like(grad)``."""

    self_first = False  # the operator's TensorIterator lists ``self`` before the gradient (``piecewise_grad``)

    def backward(self, gg):
        (x,) = self._unpacked_saved
        return (piecewise_grad(gg, x, self.slope, type(self)),
                _make(np.zeros_like(gg._data)) if self.next_functions[1][0] else None)


def piecewise_grad(grad: Tensor, x: Tensor, slope, node_cls) -> Tensor:
    """``grad * slope`` elementwise (``slope`` a bool mask or an array of slopes, from ``x``), exactly 0
    where the slope is 0 (PyTorch selects there, so an inf gradient gives 0, not NaN). Laid out as PyTorch's
    kernel's TensorIterator lays it out: ordered by ``x`` first where its operator lists ``self`` first
    (``node_cls.self_first``: leaky_relu_backward, threshold_backward), else by ``grad`` first."""
    g = _promoted(grad, x)
    if slope.dtype == np.bool_:
        out = np.where(slope, g, g.dtype.type(0))
    else:
        out = np.where(slope == 0, g.dtype.type(0), g * slope.astype(g.dtype, copy=False))
    out = out.astype(g.dtype, copy=False)
    out = elementwise_layout(out, x._data, g) if node_cls.self_first else elementwise_layout(out, g, x._data)
    return record(out, node_cls, (grad, x), (x,), slope=slope)


def _piecewise_node(name: str, self_first: bool = False):
    cls = type(name, (_PiecewiseBackward,), {"self_first": self_first})
    cls.__module__ = __name__
    return cls


HardtanhBackwardBackward0 = _piecewise_node("HardtanhBackwardBackward0")
LeakyReluBackwardBackward0 = _piecewise_node("LeakyReluBackwardBackward0", self_first=True)
SoftshrinkBackwardBackward0 = _piecewise_node("SoftshrinkBackwardBackward0")
HardshrinkBackwardBackward0 = _piecewise_node("HardshrinkBackwardBackward0")
# F.threshold's backward is PyTorch's threshold_backward too (relu's is on its output, above)
ThresholdBackwardBackward1 = _piecewise_node("ThresholdBackwardBackward0", self_first=True)


def _promoted(grad: Tensor, x: Tensor) -> np.ndarray:
    """``grad``'s array in the dtype a backward operator's result has: ``grad``'s and ``x``'s promoted (a float16
    gradient at a float32 input gives float32, as a forward-mode tangent of another dtype does)."""
    g = grad._data
    if g.dtype != x._data.dtype:
        g = grad.to(promote_types(grad.dtype, x.dtype))._data
    return g


def _threshold_backward_array(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    """0 where ``y <= 0``, else ``g``: a select, as PyTorch's kernel (a masked inf/NaN gradient gives +0.0,
    where a product would give NaN and numpy's RuntimeWarning; a NaN ``y`` passes its gradient, as
    PyTorch's ``x <= threshold ? 0 : grad`` does). ``tinytorch/_cpu/relu.py`` registers the CPU path onto it
    (the select as bits, a 0-d one in Python, large arrays compiled and across threads: the same floats)."""
    zero = _ZERO.get(g.dtype)
    # laid out as PyTorch's kernel's TensorIterator, whose first operand is ``y`` (then the gradient)
    return elementwise_layout(as_array(np.where(y <= 0, g.dtype.type(0) if zero is None else zero, g)), y, g)


@aten_only("threshold_backward", recorded=True,
           scalar=lambda grad_output, self, threshold=0: np.where(self <= threshold, 0, grad_output))
def threshold_backward(grad_output: Tensor, self: Tensor, threshold=0) -> Tensor:
    """Exactly 0 where ``self <= threshold``, else ``grad_output``: ReLU's backward as one primitive (``self`` its
    result, ``threshold`` 0), and F.threshold's (its input and threshold)."""
    if threshold != 0:
        return piecewise_grad(grad_output, self, ~(self._data <= threshold), ThresholdBackwardBackward1)
    return record(_threshold_backward_array(_promoted(grad_output, self), self._data), ThresholdBackwardBackward0,
                  (grad_output, self), (self,))


@functional_spelling("relu")
def _relu_functional(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0) elementwise."""
    return relu_(input) if inplace else relu(input)


@op(variants="function method functional", functional=_relu_functional, batch=pointwise, scalar=_relu_formula)
def relu(input: Tensor) -> Tensor:
    """max(x, 0) elementwise."""
    return record(_relu(input._data), ReluBackward0, (input,), (OUT,))


_relu_impl = relu.__wrapped__


@op(variants="function method functional", no_batch="an in-place op")
def relu_(input: Tensor) -> Tensor:
    """In-place relu."""
    return apply_inplace(input, _relu_impl)


# -- hardtanh, relu6 -------------------------------------------------------------------------------
class HardtanhBackward0(Node):
    saved_fields = (("self", 0), ("min_val", "lo"), ("max_val", "hi"))

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (hardtanh_backward(g, x, self.lo, self.hi),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


@aten_only("hardtanh_backward", recorded=True)
def hardtanh_backward(grad_output: Tensor, self: Tensor, min_val, max_val) -> Tensor:
    """``torch.ops.aten.hardtanh_backward``: the gradient strictly inside (min_val, max_val), 0 elsewhere."""
    xd = self._data
    return piecewise_grad(grad_output, self, (xd > min_val) & (xd < max_val), HardtanhBackwardBackward0)


def _hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    x = input._data
    if x.dtype == np.bool_:
        raise RuntimeError("\"hardtanh_cpu\" not implemented for 'Bool'")
    out = np.minimum(np.maximum(x, np.asarray(min_val).astype(x.dtype)),
                     np.asarray(max_val).astype(x.dtype))
    return record(cast(out, x), HardtanhBackward0, (input,), (input,), lo=min_val, hi=max_val)


@op(variants="functional", batch=elementwise)
def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """x clamped to [min_val, max_val]; the gradient passes strictly inside."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return apply_inplace(input, _hardtanh, min_val, max_val)
    return _hardtanh(input, min_val, max_val)


@op(variants="functional", no_batch="an in-place op")
def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place hardtanh."""
    return hardtanh(input, min_val, max_val, True)


@op(variants="functional", batch=elementwise)
def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """x clamped to [0, 6] (a hardtanh, as in PyTorch)."""
    return hardtanh(input, 0, 6, inplace)


# -- leaky_relu ------------------------------------------------------------------------------------
class LeakyReluBackward0(Node):
    saved_fields = (("self", 0), ("negative_slope", "negative_slope"))

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (leaky_relu_backward(g, x, self.negative_slope, type(self) is LeakyReluBackward1),)

    def jvp(self, t):
        return self.backward(t)[0]  # elementwise: the Jacobian is diagonal, so J t is J^T t


class LeakyReluBackward1(LeakyReluBackward0):
    saved_fields = (("negative_slope", "negative_slope"), ("result", 0))
    pass


@aten_only("leaky_relu_backward", recorded=True)
def leaky_relu_backward(grad_output: Tensor, self: Tensor, negative_slope, self_is_result: bool) -> Tensor:
    """``torch.ops.aten.leaky_relu_backward``: the gradient where ``self`` (the input, or the in-place form's
    result: the same signs) is positive, times ``negative_slope`` elsewhere."""
    if self_is_result and negative_slope < 0:  # the result's signs are not the input's: PyTorch refuses
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
            "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
            "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
            "in-place leakRelu backward calculation with negative slope")
    xd = self._data
    slope = np.where(xd > 0, xd.dtype.type(1), np.asarray(negative_slope, dtype=xd.dtype))
    return piecewise_grad(grad_output, self, slope, LeakyReluBackwardBackward0)


def _leaky_relu(input: Tensor, negative_slope: float = 0.01, _node=LeakyReluBackward0) -> Tensor:
    x = float_array(input, "leaky_relu_cpu")
    out = np.where(x > 0, x, x * np.asarray(negative_slope, dtype=x.dtype))
    # the in-place form's node saves its result (the written tensor), as PyTorch's LeakyReluBackward1 does
    saved = (OUT,) if _node is LeakyReluBackward1 else (input,)
    return record(out, _node, (input,), saved, negative_slope=negative_slope)


@op(variants="functional", batch=elementwise)
def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else negative_slope * x."""
    if inplace:
        return apply_inplace(input, _leaky_relu, negative_slope, _node=LeakyReluBackward1)
    return _leaky_relu(input, negative_slope)


@op(variants="functional", no_batch="an in-place op")
def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place leaky_relu."""
    return leaky_relu(input, negative_slope, True)


# -- threshold -------------------------------------------------------------------------------------
class ThresholdBackward0(Node):
    saved_fields = (("self", 0), ("threshold", "threshold"))

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (piecewise_grad(g, x, ~(x._data <= self.threshold), ThresholdBackwardBackward1),)

    def jvp(self, t):
        (x,) = self._unpacked_saved
        return where(mask(x._data <= self.threshold), 0.0, t)


class ThresholdBackward1(ThresholdBackward0):
    saved_fields = (("self", 0), ("threshold", "threshold"))  # the input as it was before the write, as PyTorch's
    pass


def _threshold(input: Tensor, threshold: float, value: float, _node=ThresholdBackward0) -> Tensor:
    x = input._data
    out = np.where(x <= threshold, np.asarray(value).astype(x.dtype), x)
    return record(cast(out, x), _node, (input,), (input,), threshold=threshold)


@functional_spelling("threshold")
def _threshold_functional(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """x where x > threshold, else value."""
    if inplace:
        return threshold_(input, threshold, value)
    return globals()["threshold"](input, threshold, value)


@op(variants="function out functional", functional=_threshold_functional, batch=first_only)
def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """x where x > threshold, else value."""
    return _threshold(input, threshold, value)


@op(variants="function functional", no_batch="an in-place op")
def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place threshold."""
    return apply_inplace(input, _threshold, threshold, value, _node=ThresholdBackward1)


# -- shrinks ---------------------------------------------------------------------------------------
class SoftshrinkBackward0(Node):
    saved_fields = (("self", 0), ("lambd", "lambd"))

    def backward(self, g):
        (x,) = self._unpacked_saved
        return (piecewise_grad(g, x, np.abs(x._data) > self.lambd, SoftshrinkBackwardBackward0),)


@op(variants="functional", batch=first_only)
def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd above lambd, x + lambd below -lambd, else 0."""
    x = float_array(input, "softshrink_cpu")
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, {np.finfo(x.dtype).max:g}] for input dtype "
                           f"{input.dtype._scalar}, but found {lambd:g}")
    # tested as PyTorch's vectorized kernel: 0 only inside [-lambd, lambd], so NaN passes through as NaN
    out = np.where(x < -lambd, x + lambd, np.where(x <= lambd, 0, x - lambd))
    return record(cast(out, x), SoftshrinkBackward0, (input,), (input,), lambd=lambd)


class HardshrinkBackward0(Node):
    saved_fields = (("self", 0), ("lambd", "lambd"))

    def backward(self, g):
        (x,) = self._unpacked_saved
        # PyTorch's vectorized shrink_backward keeps the gradient where x < -lambd or x > lambd, so a NaN
        # input gets 0 (its scalar loop, run only past the last whole 16-element block of a contiguous run,
        # passes it instead: a difference at NaN there that tinytorch does not emulate)
        xd = x._data
        return (piecewise_grad(g, x, (xd < -self.lambd) | (xd > self.lambd), HardshrinkBackwardBackward0),)


@op(variants="function method out functional", batch=first_only)
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > lambd, else 0."""
    x = float_array(input, "hardshrink_cpu")
    out = np.where((x >= -lambd) & (x <= lambd), 0, x)
    return record(cast(out, x), HardshrinkBackward0, (input,), (input,), lambd=lambd)


# -- rrelu and prelu: a drawn or learned negative slope ----------------------------------------------
# -- rrelu -----------------------------------------------------------------------------------------
class RreluWithNoiseBackward0(Node):
    saved_fields = (("self", 0), ("noise", 1), ("lower", "lower"), ("upper", "upper"), ("training", "training"))

    def backward(self, g):
        (x, noise) = self._unpacked_saved
        if self.training:
            # grad_output times the drawn slopes; laid out as PyTorch's: its CPU kernel's result is C-ordered as the
            # noise is, its meta decomposition's (``grad_output.mul(noise)``) ordered by grad_output
            return (g * noise if type(g._data) is MetaArray else noise * g,)
        # eval: leaky_relu_backward, ordered by the input (or the in-place form's result), as PyTorch's
        return (where(mask(x._data > 0), g, g * noise),)


class RreluWithNoiseBackward1(RreluWithNoiseBackward0):
    # the in-place form saves its result (the noise is positive: its signs are the input's), as PyTorch's
    saved_fields = (("result", 0), ("noise", 1), ("lower", "lower"), ("upper", "upper"), ("training", "training"))
    pass


def _rrelu(input: Tensor, lower: float, upper: float, training: bool, _node=RreluWithNoiseBackward0) -> Tensor:
    x = float_array(input, "rrelu_with_noise_out_cpu")
    # the noise is C-ordered, and so is the result on CPU (PyTorch's kernel fills ``empty_like(self, contiguous)``;
    # its meta decomposition's result is elementwise over the input, laid out as the input is)
    if training and type(x) is MetaArray:
        noise = MetaArray(x.shape, x.dtype)  # slopes of no values: PyTorch's meta kernel draws nothing either
    elif training:
        # PyTorch rounds the bounds to the input's dtype, then draws one double uniform per
        # non-positive element, in order, scaled as u * (hi - lo) + lo in double (no fused multiply-add);
        # its test is x <= 0, so a NaN takes the positive side (slope 1) and draws nothing
        noise = np.ones_like(x)
        negative = x <= 0
        lo, hi = float(x.dtype.type(lower)), float(x.dtype.type(upper))
        u = _engine(None).float64_uniform(int(negative.sum()))
        noise[negative] = (u * (hi - lo) + lo).astype(x.dtype)
    else:
        noise = np.where(x > 0, 1, np.asarray((lower + upper) / 2)).astype(x.dtype)
    out = x * noise
    if type(x) is not MetaArray:
        noise, out = c_order(noise), c_order(out)
    saved = (OUT if _node is RreluWithNoiseBackward1 else input, _make(as_array(noise)))
    return record(cast(out, x), _node, (input,), saved, lower=lower, upper=upper, training=training)


@functional_spelling("rrelu")
def _rrelu_functional(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
                      inplace: bool = False) -> Tensor:
    """Randomized leaky relu: random negative slopes in [lower, upper] while training."""
    if inplace:
        return rrelu_(input, lower, upper, training)
    return rrelu(input, lower, upper, training)


@op(variants="function functional", functional=_rrelu_functional, no_batch="randomness")
def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator=None) -> Tensor:
    """Leaky relu whose negative slope is drawn uniformly from [lower, upper] per element while
    training, and is their mean otherwise."""
    return _rrelu(input, lower, upper, training)


@op(variants="function functional", no_batch="randomness")
def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator=None) -> Tensor:
    """In-place rrelu."""
    return apply_inplace(input, _rrelu, lower, upper, training, _node=RreluWithNoiseBackward1)


# -- prelu ----------------------------------------------------------------------------------------
class PreluKernelBackward0(Node):
    saved_fields = (("self", 0), ("weight", 1))

    def backward(self, g):
        x, w = self._unpacked_saved
        gx, gw = _prelu_kernel_backward(g, x, w)
        # the weight's gradient comes back at the input's shape; PyTorch's engine sums it to the weight's
        # (validate_outputs' sum_to: a keepdim sum, the one a graph of it shows)
        return gx, sum_to(gw, w.shape)


class PreluKernelBackwardBackward0(Node):
    """PyTorch's _prelu_kernel_backward as one node of (grad, input, weight) with two outputs; its own
    backward is linear in the incoming gradients, with a real zero for the input when nothing
    reaches the weight's gradient."""

    def backward(self, ggx, ggw=None):
        g, x, w = self._unpacked_saved
        pos = mask(x._data > 0)
        terms = []
        if ggx is not None:
            terms.append(where(pos, ggx, w * ggx))
        if ggw is not None:
            terms.append(where(pos, 0.0, x * ggw))
        gg = None if not terms else terms[0] if len(terms) == 1 else terms[0] + terms[1]
        gx = where(pos, 0.0, g * ggw) if ggw is not None else _make(np.zeros_like(x._data))
        gw = sum_to(where(pos, 0.0, g * ggx), w.shape) if ggx is not None else _make(np.zeros_like(w._data))
        return gg, gx, gw


@aten_only("_prelu_kernel_backward", recorded=True)
def _prelu_kernel_backward(grad_output: Tensor, self: Tensor, weight: Tensor) -> tuple:
    """``torch.ops.aten._prelu_kernel_backward``: (grad_input, grad_weight) of prelu at ``self`` with the weight
    (viewed to broadcast against it), both at the broadcast shape: grad where x > 0, else weight * grad, and
    0 where x > 0, else x * grad. One primitive, recorded as one node of two outputs when a graph of the
    gradient is wanted."""
    xd, wd, gd = self._data, weight._data, grad_output._data
    pos = xd > 0
    # laid out as PyTorch's kernel's TensorIterator, whose inputs are (self, weight, grad): ordered by the input
    gx = elementwise_layout(np.where(pos, gd, wd * gd).astype(gd.dtype, copy=False), xd, gd)
    gw = np.where(pos, gd.dtype.type(0), xd * gd).astype(gd.dtype, copy=False)
    return record((gx, gw), PreluKernelBackwardBackward0, (grad_output, self, weight), (grad_output, self, weight))


@op(variants="function")
def _prelu_kernel(input: Tensor, weight: Tensor) -> Tensor:
    """``torch._prelu_kernel``: x where x > 0, else weight * x, the weight broadcast against x (prelu's
    computation, after its checks and the weight's view)."""
    x, w = input._data, weight._data
    out = np.where(x > 0, x, w * x)
    return record(cast(out, x), PreluKernelBackward0, (input, weight), (input, weight))


@op(variants="function method functional", autocast="lower")
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, else weight * x, the weight shared or per channel (dim 1)."""
    x, w = input._data, weight._data
    if x.dtype != w.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype._scalar} "
                           f"and {weight.dtype._scalar}")
    if w.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {w.ndim}")
    if x.dtype not in FLOATING_NP:
        raise NotImplementedError(f"\"prelu_cpu\" not implemented for '{input.dtype._scalar}'")
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
    elif x.ndim == 0 and w.ndim:
        weight = weight.view(())  # a 0-d input keeps its shape
    return _prelu_kernel(input, weight)
