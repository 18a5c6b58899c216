"""``tinytorch.onnx.symbolic_opset9``: see ``_symbolic_opset.py`` (its functions raise when called)."""
from ._symbolic_opset import unavailable


def __getattr__(name):
    return unavailable(__name__, name)
