"""``tinytorch.backends.cuda``: the TF32/reduced-precision switches, kept as attributes with PyTorch's
defaults; there is no CUDA, so they change nothing."""


class _MatmulSwitches:
    """``backends.cuda.matmul``: attributes a script sets before training."""

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _MatmulSwitches()


def is_built() -> bool:
    return False


def flash_sdp_enabled() -> bool:
    return True


def enable_flash_sdp(enabled: bool) -> None:
    """Accepted; there is no CUDA kernel to switch."""


def mem_efficient_sdp_enabled() -> bool:
    return True


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Accepted; there is no CUDA kernel to switch."""


def math_sdp_enabled() -> bool:
    return True


def enable_math_sdp(enabled: bool) -> None:
    """Accepted; the math kernel is the only one here."""
