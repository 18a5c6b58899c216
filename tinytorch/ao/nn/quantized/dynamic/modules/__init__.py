"""``tinytorch.ao.nn.quantized.dynamic.modules``: the dynamic quantized layers (``linear``, ``rnn``)."""
from .linear import Linear  # noqa: F401
from .rnn import LSTM  # noqa: F401
