"""``tinytorch.export.decomp_utils``: where PyTorch defines ``CustomDecompTable`` (ours is in ``_decompose.py``)."""
from ._decompose import CustomDecompTable

__all__ = ["CustomDecompTable"]
