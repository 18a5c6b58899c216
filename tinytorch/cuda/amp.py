"""``tinytorch.cuda.amp``: the deprecated CUDA spellings of ``GradScaler`` and ``autocast``."""
from ..amp.legacy import CudaAutocast as autocast, CudaGradScaler as GradScaler  # noqa: F401
