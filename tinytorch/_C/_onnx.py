"""``tinytorch._C._onnx``: where PyTorch's C++ exporter binds ``TensorProtoDataType`` (the enum prints and pickles as
``torch._C._onnx.TensorProtoDataType``); ours is defined with the exporter."""
from ..onnx import TensorProtoDataType

__all__ = ["TensorProtoDataType"]
