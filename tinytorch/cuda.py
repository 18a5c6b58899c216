"""``tinytorch.cuda``: there is no GPU backend, so device-selection code falls through to the CPU."""


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed: int) -> None:
    """Accepted and ignored, as PyTorch does without CUDA."""


manual_seed_all = manual_seed


def synchronize(device=None) -> None:
    """Nothing runs asynchronously on the CPU."""
