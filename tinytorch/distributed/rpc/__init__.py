"""``torch.distributed.rpc``: remote procedure calls between workers, which tinytorch does not have (its
distributed package is collectives over MPI). ``is_available()`` is False, as on a PyTorch build without
RPC, and the entry points refuse, so libraries that test ``is_available()`` take their local path."""
from __future__ import annotations

from .options import _NO_RPC, TensorPipeRpcBackendOptions  # (its file, as in PyTorch)

__all__ = ["is_available", "init_rpc", "shutdown", "rpc_sync", "rpc_async", "remote", "get_worker_info",
           "TensorPipeRpcBackendOptions"]



def is_available() -> bool:
    return False


def _refuse(name: str):
    def refused(*args, **kwargs):
        raise RuntimeError(_NO_RPC.format(name))
    refused.__name__ = refused.__qualname__ = name
    return refused


init_rpc = _refuse("init_rpc")
shutdown = _refuse("shutdown")
rpc_sync = _refuse("rpc_sync")
rpc_async = _refuse("rpc_async")
remote = _refuse("remote")
get_worker_info = _refuse("get_worker_info")
