"""``tinytorch._dynamo.utils``: ``is_compile_supported`` (True on the CPU, where ``torch.compile`` runs)."""


def is_compile_supported(device_type) -> bool:
    """True for the CPU, where ``torch.compile`` captures and replays programs."""
    return str(device_type) == "cpu"
