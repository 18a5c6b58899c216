"""The static quantized modules tinytorch names but cannot run: making one raises NotImplementedError."""
from __future__ import annotations

from .....nn.modules.module import Module


def refused_module(name: str, module: str) -> type:
    """A Module class ``name`` (printed and pickled as ``module.name``) whose construction raises."""

    class Unavailable(Module):
        def __init__(self, *args, **kwargs):
            raise NotImplementedError(f"tinytorch has no static quantization kernels (only quantize_dynamic's): "
                                      f"torch.ao.nn.quantized.{name} is not implemented")

    Unavailable.__name__ = Unavailable.__qualname__ = name
    Unavailable.__module__ = module
    return Unavailable
