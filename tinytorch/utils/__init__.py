"""``tinytorch.utils``: the torch spelling ``tinytorch.utils.data`` for ``tinytorch.data``, and
``swap_tensors``."""
from . import data
from ._swap import swap_tensors

__all__ = ["data", "swap_tensors"]
from . import viz  # noqa: F401,E402
