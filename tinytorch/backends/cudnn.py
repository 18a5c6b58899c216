"""``tinytorch.backends.cudnn``: the switches scripts set unconditionally. There is no cuDNN, so they
are plain attributes with PyTorch's defaults and change nothing."""
import contextlib

benchmark = False
deterministic = False
enabled = True
allow_tf32 = True
benchmark_limit = None  # what PyTorch reads back on a build whose cuDNN is absent


def is_available() -> bool:
    return False


def version():
    """cuDNN's version, or None as here where it is absent."""
    return None


def is_acceptable(tensor) -> bool:
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
          fp32_precision="none", depthwise_kernel="auto"):
    """``with torch.backends.cudnn.flags(enabled=False): ...``: the switches set for the block and put
    back after it, as PyTorch's context manager does (they change nothing here either way)."""
    module = globals()
    saved = {k: module[k] for k in ("enabled", "benchmark", "deterministic", "allow_tf32")}
    module.update(enabled=enabled, benchmark=benchmark, deterministic=deterministic, allow_tf32=allow_tf32)
    try:
        yield
    finally:
        module.update(saved)
