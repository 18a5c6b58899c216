"""``tinytorch.backends.mkldnn``: oneDNN (MKL-DNN) is not part of tinytorch, so ``is_available()`` is False
(libraries such as kornia then keep to their plain paths); the switch scripts set is a plain attribute with
PyTorch's default, and ``flags`` sets it for a block, changing nothing else."""
import contextlib

enabled = True
VERBOSE_OFF, VERBOSE_ON, VERBOSE_ON_CREATION = 0, 1, 2


def is_available() -> bool:
    return False


def is_acl_available() -> bool:
    return False


@contextlib.contextmanager
def flags(enabled=False, deterministic=False, fp32_precision="none"):
    module = globals()
    saved = module["enabled"]
    module["enabled"] = enabled
    try:
        yield
    finally:
        module["enabled"] = saved


class verbose:
    """oneDNN's verbose messages: there is no oneDNN to print them; level VERBOSE_OFF is accepted."""

    def __init__(self, level) -> None:
        self.level = level

    def __enter__(self):
        if self.level != VERBOSE_OFF:
            raise RuntimeError("tinytorch has no oneDNN (MKL-DNN) whose verbose mode could be turned on")
        return self

    def __exit__(self, *exc):
        return False
