"""``tinytorch.cuda``: there is no GPU backend, so device-selection code falls through to the CPU.

``tinytorch.cuda.amp`` is the package of PyTorch's deprecated spellings (its two files), built on ``tinytorch.amp``
(which asks ``tinytorch.accelerator``, not this package, whether CUDA is there); ``tinytorch/__init__``
imports it. Streams and events, and graph capture, are in ``streams.py`` and ``graphs.py``, named as PyTorch's
files (their classes print and pickle as ``torch.cuda.streams.Stream``)."""
from .graphs import CUDAGraph, graph  # noqa: F401
from .streams import Event, Stream  # noqa: F401


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed: int) -> None:
    """Accepted and ignored, as PyTorch does without CUDA."""


manual_seed_all = manual_seed


def seed() -> None:
    """Accepted and ignored, as PyTorch does without CUDA."""


seed_all = seed


def get_rng_state_all() -> list:
    """One state per CUDA device: none (PyTorch's answer without CUDA)."""
    return []


def set_rng_state_all(new_states) -> None:
    """One state per CUDA device: there are none to set, as in PyTorch without CUDA."""


def get_rng_state(device="cuda"):
    raise AssertionError("Torch not compiled with CUDA enabled")


def set_rng_state(new_state, device="cuda") -> None:
    raise AssertionError("Torch not compiled with CUDA enabled")


def is_initialized() -> bool:
    return False


def empty_cache() -> None:
    """Nothing cached: there is no CUDA memory."""


def synchronize(device=None) -> None:
    """PyTorch raises here without CUDA (it needs a device to wait for)."""
    raise AssertionError("Torch not compiled with CUDA enabled")


def current_device() -> int:
    raise AssertionError("Torch not compiled with CUDA enabled")


def get_device_name(device=None) -> str:
    raise AssertionError("Torch not compiled with CUDA enabled")


class StreamContext:
    """``with torch.cuda.stream(s)``: with no CUDA there is no stream to select, and the only stream a program can
    pass is None, which PyTorch's context also accepts as "leave the stream alone"."""

    def __init__(self, stream) -> None:
        if stream is not None:
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        self.stream = None

    def __enter__(self):
        return None

    def __exit__(self, *exc) -> None:
        return None


def stream(stream) -> StreamContext:
    return StreamContext(stream)


def get_device_capability(device=None) -> tuple:
    raise AssertionError("Torch not compiled with CUDA enabled")


def memory_allocated(device=None) -> int:
    """0: there is no CUDA memory (PyTorch's CPU build answers the same)."""
    return 0


max_memory_allocated = memory_reserved = memory_allocated


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


default_generators: tuple = ()  # one per CUDA device: none


from . import jiterator  # noqa: E402,F401  (torch.cuda.jiterator: refused without a GPU)
