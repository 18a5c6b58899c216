"""``tinytorch.fx.graph_module``: ``GraphModule`` (an ``nn.Module`` subclass, so libraries can derive
from it; constructing one raises NotImplementedError) and the helpers libraries import beside it."""
from __future__ import annotations

from ..nn.modules.module import Module

__all__ = ["GraphModule"]
_USER_PRESERVED_ATTRIBUTES_KEY = "_user_preserved_attributes"


class GraphModule(Module):
    def __init__(self, root, graph, class_name: str = "GraphModule"):
        raise NotImplementedError("tinytorch has no FX (symbolic tracing into graphs): torch.fx.GraphModule is "
                                  "not implemented")


class _CodeOnlyModule(Module):
    def __init__(self, body):
        super().__init__()
        self.__dict__ = body.__dict__


def _copy_attr(from_module: Module, to_module: Module, target: str) -> None:
    """Copy the attribute ``target`` ("a.b.c") of ``from_module`` onto ``to_module``, creating the path."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    setattr(to_module, field, getattr(from_module, field))
