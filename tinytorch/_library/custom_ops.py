"""``tinytorch._library.custom_ops``: where PyTorch defines ``custom_op`` and the ``CustomOpDef`` it returns (ours are
in ``tinytorch/library.py``); a CustomOpDef prints and pickles by this path."""
from ..library import CustomOpDef, custom_op

__all__ = ["CustomOpDef", "custom_op"]
