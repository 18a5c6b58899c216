"""``tinytorch.ao.nn.quantized.modules.functional_modules``: ``FloatFunctional``, the float ops a model marks for
quantization (they compute in float, as PyTorch's do before conversion), and the refused ``QFunctional``."""
from __future__ import annotations

from ..... import cat as _cat, matmul as _matmul
from .....nn.functional import relu as _relu
from .....nn.modules.linear import Identity
from .....nn.modules.module import Module
from ._refused import refused_module

__all__ = ["FloatFunctional", "FXFloatFunctional", "QFunctional"]


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


QFunctional = refused_module("QFunctional", __name__)
