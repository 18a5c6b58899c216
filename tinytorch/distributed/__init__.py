"""``tinytorch.distributed``: PyTorch's ``torch.distributed`` API on MPI (through mpi4py).

Launch with ``mpiexec -n N python script.py``; ``init_process_group("mpi")`` takes the rank and the
world size from MPI. Nothing here imports mpi4py until ``init_process_group`` runs."""
from .distributed_c10d import (Backend, DistBackendError, DistError, DistNetworkError, DistStoreError,  # noqa: F401
                   GroupMember, ProcessGroup, ReduceOp, Work, destroy_process_group, get_backend,
                   get_global_rank, get_group_rank, get_rank, get_world_size, group, init_process_group,
                   is_available, is_initialized, is_mpi_available, new_group, reduce_op)
from .collectives import (all_gather, all_gather_into_tensor, all_gather_object, all_reduce,  # noqa: F401
                          barrier, broadcast, broadcast_object_list, gather, irecv, isend, recv, reduce,
                          scatter, send)

__all__ = [
    "Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "group", "reduce_op",
    "DistError", "DistBackendError", "DistNetworkError", "DistStoreError",
    "init_process_group", "destroy_process_group", "is_available", "is_mpi_available", "is_initialized",
    "get_backend", "get_rank", "get_world_size", "get_global_rank", "get_group_rank", "new_group",
    "all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "all_gather_object",
    "broadcast_object_list", "gather", "scatter", "barrier", "send", "recv", "isend", "irecv",
]


def __getattr__(name: str):
    # PyTorch's sharding submodules, loaded on first use (``torch.distributed.device_mesh.DeviceMesh`` in a
    # library's annotations): their names exist, and using them refuses
    if name in ("device_mesh", "tensor"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
