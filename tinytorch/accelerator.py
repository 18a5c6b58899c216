"""``tinytorch.accelerator``: the quickstart asks it for a GPU; there is none, so it says so."""


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False):
    return None


def device_count() -> int:
    return 0
