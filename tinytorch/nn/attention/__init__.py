"""``torch.nn.attention``: the choice of attention kernel (``SDPBackend``, ``sdpa_kernel``) and flex attention's
module (``flex_attention.py``). tinytorch has one implementation of ``scaled_dot_product_attention``, which follows
PyTorch's CPU kernels; ``sdpa_kernel`` checks its arguments as PyTorch does and the block runs that one
implementation, whichever backends it allows."""
from __future__ import annotations

import contextlib
import enum

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """PyTorch's attention backends, with its numbers."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self) -> str:
        return f"SDPBackend.{self.name}"


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Allow only ``backends`` (one or a list of ``SDPBackend``) inside the block: checked, then the block runs
    tinytorch's one attention implementation."""
    listed = [backends] if isinstance(backends, SDPBackend) else backends
    if not isinstance(listed, (list, tuple)) or not all(isinstance(b, SDPBackend) for b in listed):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances")
    yield
