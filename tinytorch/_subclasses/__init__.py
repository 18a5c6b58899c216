"""``torch._subclasses``: fake tensors (shapes, dtypes, strides and a device without data, for tracing and for
checking operators): ``tinytorch/_subclasses/fake_tensor.py``."""
from . import fake_tensor  # noqa: F401
from .fake_tensor import DynamicOutputShapeException, FakeTensor, FakeTensorMode, UnsupportedFakeTensorException

__all__ = ["FakeTensor", "FakeTensorMode", "UnsupportedFakeTensorException", "DynamicOutputShapeException"]
