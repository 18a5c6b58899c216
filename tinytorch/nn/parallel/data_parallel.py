"""``DataParallel`` as PyTorch runs it without accelerators: the wrapper just calls ``.module``
(``device_ids`` is empty), so models written for it run unchanged and their state_dicts carry
PyTorch's "module." prefix."""
from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Holds ``module``; on a machine without accelerators (tinytorch's case) forward is ``module``'s."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim: int = 0, module_kwargs=None):
    """The functional DataParallel; like PyTorch's, it needs an accelerator to run."""
    raise RuntimeError("device type could not be determined")
