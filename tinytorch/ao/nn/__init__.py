"""``tinytorch.ao.nn``: ``quantized`` (FloatFunctional; see ``tinytorch/ao/__init__.py``)."""
from . import quantized  # noqa: F401
