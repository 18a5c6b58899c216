"""instance_norm: batch normalisation of each (sample, channel) plane on its own, as PyTorch
computes it: the input viewed as one sample of N*C channels, the running statistics repeated per
sample and, after the update, averaged back over the samples."""
from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from .._core.registry import op
from .activation import functional_spelling
from .batch_norm import batch_norm


def _instance_norm(input: Tensor, weight, bias, running_mean, running_var, use_input_stats: bool, momentum: float,
                   eps: float) -> Tensor:
    shape = tuple(input.shape)
    b, c = shape[0], shape[1]
    flat = input.reshape(1, b * c, *shape[2:])
    rm = running_mean.repeat(b) if running_mean is not None else None
    rv = running_var.repeat(b) if running_var is not None else None
    w = weight.repeat(b) if weight is not None else None
    bb = bias.repeat(b) if bias is not None else None
    out = batch_norm(flat, w, bb, rm, rv, use_input_stats, momentum, eps, False)
    if use_input_stats:
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.reshape(b, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.reshape(b, c).mean(0))
    return out.reshape(shape)


@functional_spelling("instance_norm")
def _instance_norm_functional(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                              weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                              momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each (sample, channel) plane by its own mean and variance."""
    if use_input_stats:
        size = input.shape
        values = 1
        for d in size[2:]:
            values *= d
        if values == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")
    return instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False)


@op(variants="function functional", functional=_instance_norm_functional)
def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """Normalise each (sample, channel) plane by its own mean and variance (ATen's argument order)."""
    return _instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps)
