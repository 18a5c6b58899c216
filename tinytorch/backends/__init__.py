"""``tinytorch.backends``: only the CPU exists; cudnn/cuda/mps hold the switches scripts set."""
from . import cpu, cuda, cudnn, mps  # noqa: F401
