"""``tinytorch.nn.parallel``: ``DistributedDataParallel`` over ``tinytorch.distributed``, and
``DataParallel`` (which, with no accelerators, calls its module)."""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel
from . import scatter_gather  # noqa: F401  (torch.nn.parallel.scatter_gather)

__all__ = ["data_parallel", "DataParallel", "DistributedDataParallel"]
