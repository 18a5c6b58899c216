"""``tinytorch.distributed.tensor.placement_types``: where PyTorch defines the placements (ours are in the package,
refused as DTensor is)."""
from . import Partial, Placement, Replicate, Shard

__all__ = ["Partial", "Placement", "Replicate", "Shard"]
