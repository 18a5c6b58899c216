"""``tinytorch.ao.nn``: ``quantized`` (the quantized layers; see ``tinytorch/ao/__init__.py``)."""
from . import quantized  # noqa: F401
