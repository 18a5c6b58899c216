"""``torch._subclasses.fake_tensor``: no tensor is ever fake on tinytorch; making a fake tensor or entering
a fake mode refuses (tinytorch's ``device="meta"`` tensors carry shapes without data)."""
from __future__ import annotations

from ..tensor import Tensor

__all__ = ["FakeTensor", "FakeTensorMode", "is_fake"]

_NO_FAKES = "tinytorch has no fake tensors (PyTorch's tracing machinery); use device='meta' for shapes without data"


def is_fake(x) -> bool:
    """False: tinytorch makes no fake tensors."""
    return False


class FakeTensor(Tensor):
    def __new__(cls, *args, **kwargs):
        raise NotImplementedError(_NO_FAKES)


class FakeTensorMode:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_FAKES)
