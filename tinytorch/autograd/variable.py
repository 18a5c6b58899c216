"""``tinytorch.autograd.variable``: where old code imports ``Variable`` from (``Variable(t)`` is ``t``)."""
from . import Variable  # noqa: F401

__all__ = ["Variable"]
