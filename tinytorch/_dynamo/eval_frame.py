"""``torch._dynamo.eval_frame``: ``OptimizedModule``, the wrapper ``torch.compile(model)`` returns in PyTorch.
Libraries test ``isinstance(model, OptimizedModule)`` to unwrap a compiled model (accelerate, transformers'
Trainer). ``tinytorch.compile`` returns the model itself, so no module is one; making one refuses."""
from __future__ import annotations

from ..nn.modules.module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """A module compiled by torch.compile: tinytorch compiles nothing, so there are none."""

    def __init__(self, mod, dynamo_ctx=None) -> None:
        raise NotImplementedError("torch._dynamo.eval_frame.OptimizedModule: tinytorch compiles nothing "
                                  "(tinytorch.compile returns the model itself)")
