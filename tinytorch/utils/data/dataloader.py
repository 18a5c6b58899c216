"""``tinytorch.utils.data.dataloader``: PyTorch's module path (``torch.utils.data.dataloader``) for
``tinytorch.data.dataloader``; every name of that module, private ones included, answers here, and so does
``_MultiProcessingDataLoaderIter`` (loaded with the worker machinery on first use, as ``DataLoader`` does)."""
import importlib

from ...data import dataloader as _impl
from ...data.dataloader import *  # noqa: F401,F403


def __getattr__(name):
    if name == "_MultiProcessingDataLoaderIter":
        return getattr(importlib.import_module(_impl.__package__ + "._multiprocess"), name)
    return getattr(_impl, name)
