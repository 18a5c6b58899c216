"""``torch.distributed.rpc.options``: the RPC backend's options, which refuse as the rest of the package does."""
from __future__ import annotations


class TensorPipeRpcBackendOptions:
    def __init__(self, *args, **kwargs):
        from . import _NO_RPC
        raise RuntimeError(_NO_RPC.format("TensorPipeRpcBackendOptions"))
