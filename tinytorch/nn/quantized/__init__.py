"""``tinytorch.nn.quantized``: PyTorch's older path of ``tinytorch.ao.nn.quantized`` (the same objects)."""
from ...ao.nn.quantized import *  # noqa: F401,F403
from ...ao.nn.quantized import __all__  # noqa: F401
