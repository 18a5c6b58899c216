"""``torch._dynamo.eval_frame.OptimizedModule``: the class of ``torch.compile(module)``'s result, which
libraries test with ``isinstance`` to reach the module inside (``_orig_mod``). ``tinytorch.compile``
returns the module itself, so no object is ever one; making one refuses."""
from __future__ import annotations

from ..nn.modules.module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    def __init__(self, mod: Module, dynamo_ctx=None) -> None:
        raise NotImplementedError("tinytorch compiles nothing: torch.compile(module) returns the module itself, "
                                  "and no OptimizedModule is ever made")
