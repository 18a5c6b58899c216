"""``tinytorch.utils.data.distributed``: PyTorch's module path for ``DistributedSampler``."""
from ...data.distributed import DistributedSampler

__all__ = ["DistributedSampler"]
