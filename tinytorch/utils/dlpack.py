"""``torch.utils.dlpack``: PyTorch's module path for the DLPack exchange (``tinytorch.from_dlpack`` and
``tinytorch.to_dlpack``, which share memory with numpy and other DLPack libraries)."""
from .._interop import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]
