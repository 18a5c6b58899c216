"""``torch.distributed.tensor``: the names of PyTorch's sharded tensors, which tinytorch does not have.

Libraries ask whether a model's parameters are DTensors (accelerate, before it prepares a model) and import the
placements for annotations; ``isinstance(p, DTensor)`` is False for every tinytorch tensor. Making one, or
sharding a tensor or module over a device mesh, raises NotImplementedError (a ``try/except`` fallback works)."""
from __future__ import annotations

from ...tensor import Tensor

__all__ = ["DTensor", "distribute_tensor", "distribute_module", "Shard", "Replicate", "Partial", "Placement",
           "ones", "empty", "full", "rand", "randn", "zeros"]

_NO_DTENSOR = ("torch.distributed.tensor.{} is not supported: tinytorch has no sharded tensors (DTensor, device "
               "meshes); its distributed training is data-parallel over MPI (DistributedDataParallel)")


def _refuse(name: str):
    def refused(*args, **kwargs):
        raise NotImplementedError(_NO_DTENSOR.format(name))
    refused.__name__ = refused.__qualname__ = name
    refused.__doc__ = f"Refused: {_NO_DTENSOR.format(name)}."
    return refused


class DTensor(Tensor):
    """PyTorch's tensor sharded over a device mesh: no tinytorch tensor is one, and none can be made."""

    def __new__(cls, *args, **kwargs):
        raise NotImplementedError(_NO_DTENSOR.format("DTensor"))

    from_local = staticmethod(_refuse("DTensor.from_local"))


class Placement:
    """How a DTensor's dimension lies on a mesh dimension: refused on construction, as DTensor."""

    __module__ = "tinytorch.distributed.tensor.placement_types"  # PyTorch's module for the placements

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_DTENSOR.format(type(self).__name__))


class Shard(Placement):
    __module__ = "tinytorch.distributed.tensor.placement_types"


class Replicate(Placement):
    __module__ = "tinytorch.distributed.tensor.placement_types"


class Partial(Placement):
    __module__ = "tinytorch.distributed.tensor.placement_types"


distribute_tensor = _refuse("distribute_tensor")
distribute_module = _refuse("distribute_module")
ones = _refuse("ones")
empty = _refuse("empty")
full = _refuse("full")
rand = _refuse("rand")
randn = _refuse("randn")
zeros = _refuse("zeros")
