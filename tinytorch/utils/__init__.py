"""``tinytorch.utils``: the torch spelling ``tinytorch.utils.data`` for ``tinytorch.data``, and
``swap_tensors``."""
from . import data
from .._tensor.swap import swap_tensors  # the Tensor's own file; tinytorch.utils is its public name

__all__ = ["data", "swap_tensors"]
from . import viz  # noqa: F401,E402


def __getattr__(name):
    # PyTorch's submodules, loaded on first use
    if name in ("checkpoint", "model_zoo", "_pytree", "hooks", "flop_counter", "dlpack"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
