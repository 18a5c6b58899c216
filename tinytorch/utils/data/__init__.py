"""``tinytorch.utils.data``: the same objects as ``tinytorch.data``, under PyTorch's module path."""
import importlib

from ... import data as _data
from ...data import __all__  # noqa: F401

# the eager names now; the lazy ones (datasets, transforms, worker info) on first use, as in tinytorch.data
globals().update({_n: getattr(_data, _n) for _n in __all__ if _n not in _data._LAZY})

_SUBMODULES = ("dataloader", "dataset", "distributed", "sampler")


def __getattr__(name):
    if name in _data._LAZY:
        value = getattr(_data, name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:  # loaded by PyTorch's torch.utils.data, so reached as attributes without an import
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_data._LAZY))
