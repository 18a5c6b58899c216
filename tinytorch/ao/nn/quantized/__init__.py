"""``tinytorch.ao.nn.quantized`` (also ``tinytorch.nn.quantized``): ``FloatFunctional``
(``modules/functional_modules.py``), the float ops a model marks for quantization (they compute in float, as
PyTorch's do before conversion); ``Linear`` and ``LinearPackedParams`` (``modules/linear.py``), and the dynamic
layers in ``dynamic``. The static quantized modules (``Conv2d``, ``QFunctional``, ``Quantize``...) raise
NotImplementedError: tinytorch has no static kernels."""
from __future__ import annotations

from . import dynamic  # noqa: F401
from .modules import (Conv2d, DeQuantize, FloatFunctional, FXFloatFunctional, Linear,  # noqa: F401
                      LinearPackedParams, QFunctional, Quantize)

__all__ = ["FloatFunctional", "FXFloatFunctional", "QFunctional", "Linear", "LinearPackedParams", "Conv2d", "Quantize",
           "DeQuantize", "dynamic"]
