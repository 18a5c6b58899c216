"""``tinytorch.lens``: watch autograd run — the graph of a tensor, backward step by step, errors explained.

- ``show(t, params=None)``: the backward graph of ``t`` (text, table, SVG, HTML page);
- ``with trace() as tr: loss.backward()``: the engine's steps in order (text, HTML step-through);
- ``why(exc)``: what an autograd error means in this graph; ``explain_errors(True)`` appends it to the
  messages.

The lens reads only what ``torch.autograd.graph`` offers every PyTorch user, so each function takes
PyTorch tensors too and prints the same text for the same program. It costs nothing when unused: it
is not imported by ``import tinytorch``, and it registers hooks only inside a ``trace`` block."""
from .errors import explain_errors, why
from .graph import Graph, Table, show
from .trace import Step, Trace, trace

__all__ = ["show", "trace", "why", "explain_errors", "Graph", "Table", "Trace", "Step"]
