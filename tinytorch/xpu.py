"""``tinytorch.xpu``: Intel's GPU backend is not built in (PyTorch's CPU build answers the same way), so programs
that look for an accelerator before choosing one (the profiler recipe does) fall through to the CPU."""

_NOT_COMPILED = "Torch not compiled with XPU enabled"


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def memory_allocated(device=None) -> int:
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def empty_cache() -> None:
    """Nothing cached: there is no XPU memory."""


def manual_seed(seed: int) -> None:
    """Accepted and ignored, as PyTorch does without XPU."""


manual_seed_all = manual_seed


def seed() -> None:
    """Accepted and ignored, as PyTorch does without XPU."""


seed_all = seed


def _not_compiled(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


init = current_device = synchronize = set_device = get_device_name = _not_compiled
get_device_capability = get_device_properties = get_rng_state = set_rng_state = _not_compiled
