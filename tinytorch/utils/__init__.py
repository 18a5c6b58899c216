"""``tinytorch.utils``: the torch spelling ``tinytorch.utils.data`` for ``tinytorch.data``."""
from . import data

__all__ = ["data"]
from . import viz  # noqa: F401,E402
