"""``tinytorch.cuda``: there is no GPU backend, so device-selection code falls through to the CPU.

``tinytorch.cuda.amp`` is the submodule ``amp.py``; it builds on ``tinytorch.amp``, which builds on this
package, so this package does not import it: ``tinytorch/__init__`` does, after both have loaded."""


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


class Stream:
    """Exists for annotations and isinstance checks; making one needs CUDA (PyTorch's CPU build's error)."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    """See ``Stream``."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


from . import jiterator  # noqa: E402,F401  (torch.cuda.jiterator: refused without a GPU)
