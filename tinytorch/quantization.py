"""``tinytorch.quantization``: PyTorch's older path of ``tinytorch.ao.quantization`` (the same objects)."""
from .ao.quantization import *  # noqa: F401,F403
from .ao.quantization import __all__  # noqa: F401
