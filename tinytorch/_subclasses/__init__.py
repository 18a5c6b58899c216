"""``torch._subclasses``: PyTorch's fake tensors (shapes without data, for tracing). tinytorch has none
(its meta device is the closest thing, ``device="meta"``); ``fake_tensor.is_fake`` answers False."""
from . import fake_tensor  # noqa: F401
from .fake_tensor import FakeTensor, FakeTensorMode  # noqa: F401

__all__ = ["FakeTensor", "FakeTensorMode"]
