"""``tinytorch.fx.node``: ``Node`` and ``Target`` (the names annotations use; no node is ever made)."""
from typing import Any, Callable, Union

Target = Union[Callable[..., Any], str]
Argument = Any


class Node:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("tinytorch has no FX (symbolic tracing into graphs): torch.fx.Node is not "
                                  "implemented")
