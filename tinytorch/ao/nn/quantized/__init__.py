"""``tinytorch.ao.nn.quantized`` (also ``tinytorch.nn.quantized``): ``FloatFunctional``, the float ops a model
marks for quantization (they compute in float, as PyTorch's do before conversion); ``Linear`` and
``LinearPackedParams`` (``modules/linear.py``), and the dynamic layers in ``dynamic``. The static quantized modules
(``Conv2d``, ``QFunctional``, ``Quantize``...) raise NotImplementedError: tinytorch has no static kernels."""
from __future__ import annotations

from .... import cat as _cat, matmul as _matmul
from ....nn.functional import relu as _relu
from ....nn.modules.linear import Identity
from ....nn.modules.module import Module

from . import dynamic  # noqa: F401,E402
from .modules.linear import Linear, LinearPackedParams  # noqa: F401

__all__ = ["FloatFunctional", "FXFloatFunctional", "QFunctional", "Linear", "LinearPackedParams", "Conv2d", "Quantize",
           "DeQuantize", "dynamic"]


class FloatFunctional(Module):
    """``add``/``cat``/``mul``/``add_relu``/``add_scalar``/``mul_scalar``/``matmul`` in float, each result passed
    through ``activation_post_process`` (an Identity until a model is prepared)."""

    def __init__(self):
        super().__init__()
        self.activation_post_process = Identity()

    def forward(self, x):
        raise RuntimeError("FloatFunctional is not intended to use the 'forward'. Please use the underlying "
                           "operation")

    def add(self, x, y):
        return self.activation_post_process(x + y)

    def add_scalar(self, x, y: float):
        return x + y

    def mul(self, x, y):
        return self.activation_post_process(x * y)

    def mul_scalar(self, x, y: float):
        return x * y

    def cat(self, x, dim: int = 0):
        return self.activation_post_process(_cat(x, dim=dim))

    def add_relu(self, x, y):
        return self.activation_post_process(_relu(x + y))

    def matmul(self, x, y):
        return self.activation_post_process(_matmul(x, y))


class FXFloatFunctional(FloatFunctional):
    pass


def _quantized_module(name):
    class Unavailable(Module):
        def __init__(self, *args, **kwargs):
            raise NotImplementedError(f"tinytorch has no static quantization kernels (only quantize_dynamic's): "
                                      f"torch.ao.nn.quantized.{name} is not implemented")

    Unavailable.__name__ = Unavailable.__qualname__ = name
    return Unavailable


QFunctional = _quantized_module("QFunctional")
Conv2d = _quantized_module("Conv2d")
Quantize = _quantized_module("Quantize")
DeQuantize = _quantized_module("DeQuantize")
