"""``tinytorch.cuda.streams``: CUDA streams and events, which a CPU-only build names but cannot make."""

__all__ = ["Stream", "Event"]


class Stream:
    """``torch.cuda.Stream``: exists for annotations and isinstance checks; making one is refused, as PyTorch's CPU
    build refuses it (in ``__new__``, with PyTorch's parameters)."""

    def __new__(cls, device=None, priority: int = 0, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    """``torch.cuda.Event``: see ``Stream``."""

    def __new__(cls, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False,
                external: bool = False):
        raise RuntimeError("Tried to instantiate dummy base class Event")
