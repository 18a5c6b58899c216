"""``convert_conv2d/3d_weight_memory_format``: lay the weights of every (transposed) 2-d or 3-d
convolution of a module out in ``memory_format`` (``channels_last``: the channel dim innermost).
Values are unchanged; only the strides are."""
from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module: Module, memory_format, kinds: tuple) -> Module:
    if isinstance(module, kinds):
        with no_grad():
            module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module: Module, memory_format) -> Module:
    """Every Conv2d/ConvTranspose2d weight in ``module`` (at any depth) relaid in ``memory_format``."""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: Module, memory_format) -> Module:
    """Every Conv3d/ConvTranspose3d weight in ``module`` (at any depth) relaid in ``memory_format``."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
