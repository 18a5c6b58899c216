"""``tinytorch.utils.data.sampler``: PyTorch's module path (``torch.utils.data.sampler``) for
``tinytorch.data.sampler``; every name of that module, private ones included, answers here."""
from ...data import sampler as _impl
from ...data.sampler import *  # noqa: F401,F403


def __getattr__(name):
    return getattr(_impl, name)
