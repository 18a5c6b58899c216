"""``tinytorch.backends``: only the CPU exists."""
from . import mps  # noqa: F401
