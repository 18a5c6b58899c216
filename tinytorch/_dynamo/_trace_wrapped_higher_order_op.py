"""``torch._dynamo._trace_wrapped_higher_order_op``: ``TransformGetItemToIndex``, the torch function mode under
which PyTorch's ``vmap`` lets a mask function index a tensor with a batched 0-d index (``A[q_idx]``).
transformers imports it with its masking utilities and enters it only for masks it must build through ``vmap``
(custom mask patterns); its causal and padding masks are built without it. tinytorch's ``vmap`` does not index by
a batched index, and tinytorch has no torch function modes: entering the mode raises NotImplementedError."""
from __future__ import annotations

from ..overrides import TorchFunctionMode

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex(TorchFunctionMode):
    """Indexing by batched 0-d tensors under vmap: refused when entered (see the module's docstring)."""
