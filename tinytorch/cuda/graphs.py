"""``tinytorch.cuda.graphs``: CUDA graph capture, which a CPU-only build names but cannot do."""

__all__ = ["CUDAGraph", "graph"]


class CUDAGraph:
    """``torch.cuda.CUDAGraph``: refused, as PyTorch's CPU build refuses it."""

    def __init__(self, *args, **kwargs) -> None:
        raise RuntimeError("Tried to instantiate dummy base class CUDAGraph")


class graph:
    """``torch.cuda.graph`` (capture into a CUDAGraph): refused, as PyTorch's CPU build refuses it (at its stream)."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode: str = "global") -> None:
        raise RuntimeError("torch.cuda.Stream requires CUDA support")
