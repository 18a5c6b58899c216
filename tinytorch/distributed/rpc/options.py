"""``torch.distributed.rpc.options``: the RPC backend's options, which refuse as the rest of the package does."""
from __future__ import annotations

_NO_RPC = "tinytorch has no torch.distributed.rpc (its distributed package is collectives over MPI): {}"


class TensorPipeRpcBackendOptions:
    def __init__(self, *args, **kwargs):
        raise RuntimeError(_NO_RPC.format("TensorPipeRpcBackendOptions"))
