"""``tinytorch.utils.data.dataset``: PyTorch's module path (``torch.utils.data.dataset``) for
``tinytorch.data.dataset``; every name of that module, private ones included, answers here."""
from ...data import dataset as _impl
from ...data.dataset import *  # noqa: F401,F403


def __getattr__(name):
    return getattr(_impl, name)
