"""``tinytorch.utils.data.dataloader``: PyTorch's module path (``torch.utils.data.dataloader``) for
``tinytorch.data.dataloader``; every name of that module, private ones included, answers here."""
from ...data import dataloader as _impl
from ...data.dataloader import *  # noqa: F401,F403


def __getattr__(name):
    return getattr(_impl, name)
