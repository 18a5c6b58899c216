"""``tinytorch.fx``: PyTorch's FX names, so libraries that mention them import and run; FX itself (symbolic
tracing into a ``Graph``, ``GraphModule`` code generation) is not implemented and raises
NotImplementedError where it would have to compute.

``wrap`` (declare a function a leaf for symbolic tracing) is a registration and returns its argument, as
PyTorch's does outside tracing. ``Tracer`` can be subclassed and constructed; ``Tracer.trace``,
``symbolic_trace``, ``Graph()``, ``GraphModule(...)`` and ``Interpreter`` raise NotImplementedError (so
torchvision's ``create_feature_extractor`` and ``get_graph_node_names`` raise it)."""
from .graph import Graph
from .graph_module import GraphModule
from .node import Node
from .proxy import Proxy
from ._symbolic_trace import Tracer, symbolic_trace, wrap, _wrapped_fns_to_patch  # noqa: F401
from . import graph, graph_module, node, proxy  # noqa: F401

__all__ = ["Graph", "GraphModule", "Node", "Proxy", "Tracer", "symbolic_trace", "wrap", "Interpreter", "Transformer"]

_MISSING = "tinytorch has no FX (symbolic tracing into graphs): {} is not implemented"


class Interpreter:
    def __init__(self, module, *args, **kwargs):
        raise NotImplementedError(_MISSING.format("torch.fx.Interpreter"))


class Transformer(Interpreter):
    pass
