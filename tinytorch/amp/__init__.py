"""``tinytorch.amp``: ``GradScaler`` (PyTorch's loss scaling, on the CPU) and ``autocast``."""
from .autocast_mode import autocast, get_autocast_dtype, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
