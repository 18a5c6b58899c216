"""``torch.fx.experimental.symbolic_shapes``: the error an export raises where the program's control flow depends
on a tensor's values (``if x.sum() > 0:``). PyTorch's export gives such a value an unbacked symbol (``u0``) and
cannot decide the branch on it; tinytorch's export, which runs the program on the example, refuses the branch
there, before the example's answer is frozen into the graph."""
from __future__ import annotations

__all__ = ["GuardOnDataDependentSymNode"]


class GuardOnDataDependentSymNode(RuntimeError):
    """A branch decided by a tensor's value met while exporting."""
