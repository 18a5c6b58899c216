"""``tinytorch.fx`` (PyTorch's ``torch.fx``): capture a module's ``forward`` as a graph of calls, edit the graph,
and run it again as generated Python code.

- ``symbolic_trace(model)`` runs ``forward`` once on ``Proxy`` objects (``proxy.py``, ``_symbolic_trace.py``);
  every call they meet becomes a ``Node`` of a ``Graph`` (``node.py``, ``graph.py``).
- ``GraphModule`` turns a graph back into a Module whose ``forward`` is generated source (``graph_module.py``,
  ``_codegen.py``): ``gm.code``, ``print(gm.graph)`` and ``gm.graph.print_tabular()`` print PyTorch's text.
- ``Interpreter`` runs a graph node by node and ``Transformer`` rebuilds it (``interpreter.py``);
  ``subgraph_rewriter.replace_pattern`` swaps a pattern for a replacement; ``passes.shape_prop.ShapeProp``
  records shapes.

The graph holds tinytorch's functions; ``_pytorch_names.py`` gives them PyTorch's names in every text."""
from . import graph, graph_module, immutable_collections, node, passes, proxy, subgraph_rewriter  # noqa: F401
from ._symbolic_trace import PH, ProxyableClassMeta, Tracer, symbolic_trace, wrap  # noqa: F401
from ._symbolic_trace import _wrapped_fns_to_patch  # noqa: F401
from .graph import CodeGen, Graph  # noqa: F401
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_arg
from .proxy import Proxy
from .subgraph_rewriter import replace_pattern

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter", "Transformer", "Node", "Proxy",
           "replace_pattern", "has_side_effect", "map_arg", "PH", "ProxyableClassMeta", "CodeGen"]
