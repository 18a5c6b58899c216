"""The functional forms of the normalisation, embedding, channel-dropout, padding, resizing and
fold/unfold layers; ``nn.functional`` re-exports them. The arithmetic lives in ``tinytorch/ops``."""
from __future__ import annotations

import warnings

import numpy as np

from ..ops import embedding as _embedding
from ..ops import fold as _fold
from ..ops import norm as _norm
from ..ops import pad as _pad
from ..ops import resize as _resize
from .._random import draws as _draws
from ..random import _engine
from ..tensor import Tensor, _make

batch_norm = _norm.batch_norm
group_norm = _norm.group_norm
pad = _pad.pad
unfold = _fold.unfold
fold = _fold.fold
interpolate = _resize.interpolate


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift elementwise."""
    return _norm.layer_norm(input, normalized_shape, weight, bias, eps)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` at the integer indices ``input``."""
    return _embedding.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)


# -- channel-wise dropout -------------------------------------------------------------------------
def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _channel_mask(shape: tuple, p: float, dtype) -> Tensor:
    """0 for a dropped channel, 1/(1-p) for a kept one; drawn as ``F.dropout`` draws its elements."""
    if p == 1:
        return _make(np.zeros(shape, dtype=dtype))
    # PyTorch: a noise tensor of shape (N, C, 1, ...) filled by bernoulli_(1 - p), divided by 1 - p
    keep = _draws.bernoulli_scalar(_engine(None), int(np.prod(shape)), 1 - p).reshape(shape)
    return _make(keep.astype(dtype) / dtype.type(1 - p))


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """Zero whole channels (dim 1 of a batched input) with probability p, scale the rest by 1/(1-p)."""
    if not training or p == 0:
        return input
    x = input._data
    mask = _channel_mask(x.shape[:2] + (1,) * (x.ndim - 2), p, x.dtype)
    return input.mul_(mask) if inplace else input * mask


def _unbatched(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """Channel dropout of an input without a batch dim, through a batch of one as PyTorch records it."""
    if not training or p == 0:
        return input
    if not inplace:
        return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)
    x = input._data
    return input.mul_(_channel_mask((x.shape[0],) + (1,) * (x.ndim - 1), p, x.dtype))


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
                  stacklevel=3)


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
                      "switch to using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability p."""
    _check_p(p)
    nd = input.ndim
    if nd not in (4, 5):
        _deprecated_dims("dropout3d", nd, 3)
    if nd != 5:
        return _unbatched(input, p, training, inplace)
    return _feature_dropout(input, p, training, inplace)


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None):
    """Deprecated alias of ``interpolate``."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)
