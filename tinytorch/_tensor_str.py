"""``torch._tensor_str``: PyTorch's printing module, which libraries reach for its options and for the
bracketed values without ``tensor(...)`` (PyG writes OFF files with ``_tensor_str``). The printing itself
is ``tinytorch/_tensor/printing.py``; ``PRINT_OPTS`` is its options object, so ``set_printoptions`` shows."""
from __future__ import annotations

from ._tensor.printing import _OPTS as PRINT_OPTS, get_printoptions, printoptions, set_printoptions, tensor_body

__all__ = ["PRINT_OPTS", "get_printoptions", "printoptions", "set_printoptions"]


def _tensor_str(self, indent: int) -> str:
    """The values of ``self`` as ``repr`` lays them out, without ``tensor(`` and the suffixes."""
    if self.numel() == 0:
        return "[]"
    return tensor_body(self.detach().numpy(), self.is_floating_point(), indent)
