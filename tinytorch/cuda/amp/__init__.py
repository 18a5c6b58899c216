"""``tinytorch.cuda.amp``: the deprecated CUDA spellings of ``GradScaler`` and ``autocast``, in PyTorch's two files."""
from .autocast_mode import autocast  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
