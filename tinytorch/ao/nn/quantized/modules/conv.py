"""``tinytorch.ao.nn.quantized.modules.conv``: the static quantized convolution, which tinytorch refuses to make."""
from ._refused import refused_module

__all__ = ["Conv2d"]

Conv2d = refused_module("Conv2d", __name__)
