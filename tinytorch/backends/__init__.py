"""``tinytorch.backends``: only the CPU exists; cudnn/cuda/mps hold the switches scripts set, mkl/mkldnn say they
are absent."""
from . import cpu, cuda, cudnn, mkl, mkldnn, mps  # noqa: F401
