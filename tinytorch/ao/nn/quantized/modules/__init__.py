"""``tinytorch.ao.nn.quantized.modules``: the quantized layers (``linear``), ``FloatFunctional``
(``functional_modules``), and the static modules tinytorch refuses to make (``Conv2d``, ``QFunctional``,
``Quantize``, ``DeQuantize``)."""
from ._refused import refused_module
from .conv import Conv2d  # noqa: F401
from .functional_modules import FloatFunctional, FXFloatFunctional, QFunctional  # noqa: F401
from .linear import Linear, LinearPackedParams  # noqa: F401

Quantize = refused_module("Quantize", __name__)
DeQuantize = refused_module("DeQuantize", __name__)
