"""``tinytorch.nn.quantized.dynamic``: PyTorch's older path of ``tinytorch.ao.nn.quantized.dynamic``."""
from ....ao.nn.quantized.dynamic import *  # noqa: F401,F403
from ....ao.nn.quantized.dynamic import __all__  # noqa: F401
