"""``tinytorch.ao.nn.quantized.dynamic``: layers with qint8 weights that quantize their float input at every call
(``Linear``, ``LSTM``), as ``quantize_dynamic`` makes them."""
from .modules import LSTM, Linear  # noqa: F401

__all__ = ["Linear", "LSTM"]
