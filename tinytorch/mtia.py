"""``tinytorch.mtia``: Meta's accelerator backend is not built in; the answers and errors are PyTorch's CPU build's."""

_NOT_COMPILED = ("Torch not compiled with MTIA enabled. Ensure you have `import mtia.host_runtime.torch_mtia."
                 "dynamic_library` in your python src file and include `//mtia/host_runtime/torch_mtia:torch_mtia` as "
                 "your target dependency!")


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return True  # PyTorch's answer, device or not


def memory_allocated(device=None) -> int:
    return 0


max_memory_allocated = memory_allocated


def reset_peak_memory_stats(device=None) -> None:
    """Nothing to reset."""


def manual_seed(seed: int) -> None:
    """Accepted and ignored, as PyTorch does without MTIA."""


manual_seed_all = manual_seed


def seed() -> None:
    """Accepted and ignored, as PyTorch does without MTIA."""


seed_all = seed


def _without_backend(call: str):
    def refuse(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {call}() without MTIA backend.")
    return refuse


current_device = synchronize = get_device_capability = get_device_properties = _without_backend("getCurrentDevice")
set_device = _without_backend("setCurrentDevice")
empty_cache = _without_backend("emptyCache")


def init() -> None:
    raise AssertionError(_NOT_COMPILED)


get_rng_state = set_rng_state = init
