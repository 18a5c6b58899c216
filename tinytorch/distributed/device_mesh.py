"""``torch.distributed.device_mesh``: PyTorch's n-dimensional process layouts for sharded training, which
tinytorch does not have. The names exist for annotations and checks (diffusers' context-parallel hooks);
making a mesh raises NotImplementedError."""
from __future__ import annotations

__all__ = ["DeviceMesh", "init_device_mesh"]

_NO_MESH = ("torch.distributed.device_mesh.{} is not supported: tinytorch has no device meshes (sharded tensors); "
            "its distributed training is data-parallel over MPI (DistributedDataParallel)")


class DeviceMesh:
    """A layout of processes for sharded tensors: none can be made on tinytorch."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_MESH.format("DeviceMesh"))


def init_device_mesh(device_type: str, mesh_shape, *, mesh_dim_names=None, **kwargs):
    """Refused: tinytorch has no device meshes."""
    raise NotImplementedError(_NO_MESH.format("init_device_mesh"))
