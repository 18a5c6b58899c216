"""``tinytorch.ao.nn.quantized.modules``: the quantized layers (``linear``)."""
from .linear import Linear, LinearPackedParams  # noqa: F401
