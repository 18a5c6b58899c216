"""``tinytorch.nn.parallel``: ``DistributedDataParallel`` over ``tinytorch.distributed``."""
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
