"""``tinytorch.utils.data``: the same objects as ``tinytorch.data``, under PyTorch's module path."""
from ...data import *  # noqa: F401,F403
from ...data import __all__  # noqa: F401
