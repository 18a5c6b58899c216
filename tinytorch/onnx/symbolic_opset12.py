"""``tinytorch.onnx.symbolic_opset12``: see ``_symbolic_opset.py`` (its functions raise when called)."""
import sys

from ._symbolic_opset import _SymbolicOpset

sys.modules[__name__].__class__ = _SymbolicOpset
