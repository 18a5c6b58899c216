"""Dropout (PyTorch's Dropout kernels): elementwise ``dropout``, the channel-wise ``dropout1d/2d/3d``,
``alpha_dropout`` and ``feature_alpha_dropout`` (SELU networks: dropped elements or channels set to
SELU's negative saturation, the result rescaled to keep mean and variance), and ``gumbel_softmax``.
Their draws follow PyTorch's CPU streams (``bernoulli_(1 - p)`` per element or channel, or over
(N, C, 1, ...)), so a seeded run drops the same elements. vmap refuses them while they draw (randomness)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..._random import draws as _draws
from ...random import _engine
from ...autograd.grad_mode import no_grad
from ...autograd.node import Node
from ..._meta_array import MetaArray
from ...tensor import Tensor, _make
from .._core.batching import unsupported
from .._core.record import record
from .._core.registry import aten_only, op
from .._core.util import as_array, fit_grad
from .activation import functional_spelling
from ..reduce.softmax import softmax


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def refuse_complex_draw(x: np.ndarray) -> None:
    """PyTorch draws dropout's keep mask with bernoulli_ in the input's dtype, which has no complex kernel."""
    if x.dtype.kind == "c":
        name = "ComplexFloat" if x.dtype == np.complex64 else "ComplexDouble"
        raise NotImplementedError(f'"bernoulli_scalar_cpu_" not implemented for \'{name}\'')


def _dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    if not training or p == 0:
        return input
    x = input._data
    if type(x) is MetaArray:  # a meta input: a meta mask of its layout, nothing drawn (PyTorch's meta bernoulli)
        refuse_complex_draw(x)
        keep_scaled = MetaArray.like(x)
    elif p == 1:
        keep_scaled = np.zeros(x.shape, dtype=x.dtype)
    else:
        refuse_complex_draw(x)
        # PyTorch's CPU dropout: bernoulli_(1 - p) (a double uniform per element), divided by 1 - p
        keep = _in_memory_order(_draws.bernoulli_scalar(_engine(None), x.size, 1 - p), x)
        keep_scaled = _keep_scaled(keep, x.shape, x.dtype, x.dtype.type(1 - p))
    return input.mul_(_make(keep_scaled)) if inplace else input * _make(keep_scaled)


def _in_memory_order(drawn: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``drawn`` (one value per element of ``x``, in the order drawn) placed as PyTorch's mask ``empty_like(input)``
    receives them: in that mask's memory order, which keeps a dense input's strides."""
    order = np.argsort([-s for s in x.strides], kind="stable") if x.ndim > 1 else None
    if order is not None and not x.flags.c_contiguous and x.transpose(order).flags.c_contiguous:
        return drawn.reshape([x.shape[i] for i in order]).transpose(np.argsort(order))
    return drawn.reshape(x.shape)


def _keep_scaled(keep: np.ndarray, shape: tuple, dtype: np.dtype, scale) -> np.ndarray:
    """The drawn mask (ones and zeros) as ``dtype``, divided by ``scale`` (1 - p in that dtype)."""
    out = keep.reshape(shape).astype(dtype)
    out /= scale
    return out


def _batch_dropout(op, input, p=0.5, training=True, inplace=False, train=None):
    """vmap: the identity outside training; drawing per sample is refused (randomness)."""
    training = training if train is None else train
    if inplace or (training and p):
        raise unsupported(f"nn.functional.{op.__name__} with inplace=True or in training mode")
    return input


@functional_spelling("dropout")
def _dropout_functional(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p); the identity unless training."""
    _check_p(p)
    if inplace:
        return dropout_(input, p, training)
    return dropout(input, p, training)


@op(variants="function functional", functional=_dropout_functional, batch=_batch_dropout)
def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p); the identity unless ``train``."""
    return _dropout(input, p, train, False)


@op(variants="function", no_batch="randomness")
def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place dropout."""
    return _dropout(input, p, train, True)


class NativeDropoutBackwardBackward0(Node):
    saved_fields = (("grad_output", 0), ("mask", 1), ("scale", "scale"))

    def backward(self, h):
        if self.need_mask:
            raise NotImplementedError("the derivative for 'native_dropout_backward: mask' is not implemented.")
        _, mask = self._unpacked_saved
        # PyTorch's native_dropout_double_backward: the same product, recorded as its muls
        return fit_grad(h * mask * self.scale, self.g_meta), None


@aten_only("native_dropout_backward")
def native_dropout_backward(grad_output: Tensor, mask: Tensor, scale: float) -> Tensor:
    """``torch.ops.aten.native_dropout_backward``: ``grad_output * mask * scale`` (the mask of kept elements,
    ``scale`` = 1 / (1 - p)), with the usual promotion and broadcasting."""
    with no_grad():
        out = grad_output * mask * scale
    return record(out._data, NativeDropoutBackwardBackward0, (grad_output, mask), (grad_output, mask), scale=scale,
                  need_mask=mask.requires_grad, g_meta=(grad_output._data.shape, grad_output._data.dtype))


# -- channel-wise dropout --------------------------------------------------------------------------
def _channel_mask(shape: tuple, p: float, dtype) -> Tensor:
    """0 for a dropped channel, 1/(1-p) for a kept one; drawn as ``F.dropout`` draws its elements."""
    if p == 1:
        return _make(np.zeros(shape, dtype=dtype))
    refuse_complex_draw(np.empty(0, dtype))
    # PyTorch: a noise tensor of shape (N, C, 1, ...) filled by bernoulli_(1 - p), divided by 1 - p
    keep = _draws.bernoulli_scalar(_engine(None), int(np.prod(shape)), 1 - p).reshape(shape)
    return _make(keep.astype(dtype) / dtype.type(1 - p))


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """Zero whole channels (dim 1 of a batched input) with probability p, scale the rest by 1/(1-p)."""
    if not training or p == 0:
        return input
    x = input._data
    keep = _channel_mask(x.shape[:2] + (1,) * (x.ndim - 2), p, x.dtype)
    return input.mul_(keep) if inplace else input * keep


def _unbatched(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """Channel dropout of an input without a batch dim, through a batch of one as PyTorch records it."""
    if not training or p == 0:
        return input
    if not inplace:
        return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)
    x = input._data
    return input.mul_(_channel_mask((x.shape[0],) + (1,) * (x.ndim - 1), p, x.dtype))


@op(variants="functional", batch=_batch_dropout)
def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) input with probability p."""
    _check_p(p)
    nd = input.ndim
    if nd not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if nd == 2:
        return _unbatched(input, p, training, inplace)
    return _feature_dropout(input, p, training, inplace)


def _deprecated_dims(name: str, nd: int, k: int) -> None:
    warnings.warn(f"{name}: Received a {nd}-D input to {name}, which is deprecated and will result in an error in a "
                  f"future release. To retain the behavior and silence this warning, please use dropout instead. "
                  f"Note that {name} exists to provide channel-wise dropout on inputs with {k} spatial dimensions, a "
                  f"channel dimension, and an optional batch dimension (i.e. {k + 1}D or {k + 2}D inputs).",
                  stacklevel=4)


@op(variants="functional", batch=_batch_dropout)
def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) input with probability p (3-d input: PyTorch's (N, C, L) reading)."""
    _check_p(p)
    nd = input.ndim
    if nd not in (3, 4):
        _deprecated_dims("dropout2d", nd, 2)
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This "
                      "behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=3)
    return _feature_dropout(input, p, training, inplace)


@op(variants="functional", batch=_batch_dropout)
def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability p."""
    _check_p(p)
    nd = input.ndim
    if nd not in (4, 5):
        _deprecated_dims("dropout3d", nd, 3)
    if nd != 5:
        return _unbatched(input, p, training, inplace)
    return _feature_dropout(input, p, training, inplace)


# -- gumbel_softmax --------------------------------------------------------------------------------
@op(variants="functional", no_batch="randomness")
def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """Samples from the Gumbel-softmax distribution; ``hard`` gives one-hot samples whose gradient
    is the soft sample's (straight-through)."""

    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=3)
    x = logits._data
    # PyTorch: -empty_like(logits).exponential_().log()
    exp = _draws.exponential_values(_engine(None), x.size, 1.0).astype(x.dtype).reshape(x.shape)
    gumbels = -_make(as_array(exp)).log()
    gumbels = (logits + gumbels) / tau
    y_soft = softmax(gumbels, dim)
    if not hard:
        return y_soft
    d = dim + x.ndim if dim < 0 else dim
    index = np.expand_dims(np.argmax(y_soft._data, axis=d), d)
    hot = np.zeros_like(x)
    np.put_along_axis(hot, index, 1.0, axis=d)
    return _make(hot) - y_soft.detach() + y_soft


# -- alpha_dropout, feature_alpha_dropout ------------------------------------------------------------
_ALPHA = 1.7580993408473766  # -SELU's scale * alpha: the value a dropped unit takes before the affine fix


def _alpha(input: Tensor, p: float, train: bool, feature: bool, inplace: bool) -> Tensor:
    if p == 0 or not train or input.numel() == 0:
        return input
    x = input._data
    if p == 1:
        zero = _make(np.zeros((), x.dtype))
        return input.mul_(zero) if inplace else input * zero
    if feature:
        if x.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = x.shape[:2] + (1,) * (x.ndim - 2)
    else:
        shape = x.shape
    refuse_complex_draw(x)
    if type(x) is MetaArray:  # a meta tensor: the mask's shape only, nothing drawn
        keep = MetaArray(shape, x.dtype)
    else:
        keep = _draws.bernoulli_scalar(_engine(None), int(np.prod(shape)), 1 - p)
        # feature noise is a new (N, C, 1, ...) tensor, drawn in C order; the element mask is empty_like(input)
        keep = (keep.reshape(shape) if feature else _in_memory_order(keep, x)).astype(x.dtype)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    dt = x.dtype.type
    b = (keep - dt(1)) * dt(_ALPHA * a) + dt(_ALPHA * a * p)
    noise = keep * dt(a)
    if inplace:
        return input.mul_(_make(noise)).add_(_make(b))
    return input * _make(noise) + _make(b)


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


@functional_spelling("alpha_dropout")
def _alpha_dropout_functional(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout (keeps SELU's mean and variance); the identity unless training."""
    _check_p(p)
    return _alpha(input, p, training, False, inplace)


@functional_spelling("feature_alpha_dropout")
def _feature_alpha_dropout_functional(input: Tensor, p: float = 0.5, training: bool = False,
                                      inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels; the identity unless training."""
    _check_p(p)
    return _alpha(input, p, training, True, inplace)


@op(variants="function functional", functional=_alpha_dropout_functional, no_batch="randomness")
def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout (keeps SELU's mean and variance); the identity unless ``train``."""
    return _alpha(input, p, train, False, False)


@op(variants="function", no_batch="randomness")
def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place alpha dropout."""
    return _alpha(input, p, train, False, True)


@op(variants="function functional", functional=_feature_alpha_dropout_functional, no_batch="randomness")
def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout of whole channels; the identity unless ``train``."""
    return _alpha(input, p, train, True, False)


@op(variants="function", no_batch="randomness")
def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place feature alpha dropout."""
    return _alpha(input, p, train, True, True)
