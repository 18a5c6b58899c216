"""``tinytorch.backends.cudnn``: the switches scripts set unconditionally. There is no cuDNN, so they
are plain attributes with PyTorch's defaults and change nothing."""

benchmark = False
deterministic = False
enabled = True
allow_tf32 = True
benchmark_limit = 10


def is_available() -> bool:
    return False


def version():
    """cuDNN's version, or None as here where it is absent."""
    return None


def is_acceptable(tensor) -> bool:
    return False
