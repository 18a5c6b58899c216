"""The activations with a drawn or learned negative slope (PyTorch's Activation kernels too): rrelu, whose
slopes are random while training, and prelu, whose slope is a parameter. Split from ``activation.py``,
whose helpers (``record``, ``float_array``...) they use; nodes named as PyTorch's."""
from __future__ import annotations

import numpy as np

from ..._dtype import FLOATING_NP
from ...autograd.grad_mode import _State, no_grad
from ...autograd.node import Node
from ...random import _engine
from ...tensor import Tensor, _make
from .._core.registry import op
from .._core.util import as_array
from ...autograd.node import sum_to
from .activation import cast, float_array, functional_spelling, mask, record
from ..pointwise.compare import where
from ..pointwise.inplace import apply_inplace

# -- rrelu -----------------------------------------------------------------------------------------
class RreluWithNoiseBackward0(Node):
    saved_fields = (("self", 0), ("noise", 1), ("lower", "lower"), ("upper", "upper"), ("training", "training"))

    def backward(self, g):
        (x, noise) = self.saved_tensors
        return (where(mask(x._data > 0), g, g * noise),)


class RreluWithNoiseBackward1(RreluWithNoiseBackward0):
    pass


def _rrelu(input: Tensor, lower: float, upper: float, training: bool, _node=RreluWithNoiseBackward0) -> Tensor:
    x = float_array(input, "rrelu_with_noise_out_cpu")
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
    return record((input,), cast(out, x), _node, (input, _make(as_array(noise))), lower=lower, upper=upper,
                  training=training)


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


# -- prelu -----------------------------------------------------------------------------------------
class PreluKernelBackward0(Node):
    saved_fields = (("self", 0), ("weight", 1))

    def backward(self, g):
        x, w = self.saved_tensors
        if _State.enabled and (g._requires_grad or x._requires_grad or w._requires_grad):
            return _prelu_backward_recorded(g, x, w)
        pos = mask(x._data > 0)
        gx = where(pos, g, w * g)
        gw = sum_to(where(pos, 0.0, x * g), w.shape)
        return (gx, gw)


class PreluKernelBackwardBackward0(Node):
    """PyTorch's prelu_kernel_backward as one node of (grad, input, weight) with two outputs; its own
    backward is linear in the incoming gradients, with a real zero for the input when nothing
    reaches the weight's gradient."""

    def backward(self, ggx, ggw=None):
        g, x, w = self.saved_tensors
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


def _prelu_backward_recorded(g: Tensor, x: Tensor, w: Tensor):
    xd, wd, gd = x._data, w._data, g._data
    pos = xd > 0
    gx = np.where(pos, gd, wd * gd).astype(gd.dtype, copy=False)
    with no_grad():
        gw = sum_to(_make(np.where(pos, 0, xd * gd).astype(gd.dtype, copy=False)), w.shape)._data
    node = PreluKernelBackwardBackward0((g._edge(), x._edge(), w._edge()))
    node._n_outputs = 2
    gxt, gwt = _make(as_array(gx), node), _make(as_array(gw), node)
    gwt._output_nr = 1
    node.save_for_backward(g, x, w)
    return gxt, gwt


@op(variants="function method functional", autocast="lower")
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, else weight * x, the weight shared or per channel (dim 1)."""
    x, w = input._data, weight._data
    if x.dtype != w.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype._legacy[:-6]} "
                           f"and {weight.dtype._legacy[:-6]}")
    if w.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {w.ndim}")
    if x.dtype not in FLOATING_NP:
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
    elif x.ndim == 0 and w.ndim:
        weight = weight.view(())  # a 0-d input keeps its shape
    w = weight._data
    out = np.where(x > 0, x, w * x)
    return record((input, weight), cast(out, x), PreluKernelBackward0, (input, weight))
