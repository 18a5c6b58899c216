"""``torch._dynamo.exc``: the errors ``torch.compile`` raises. ``Unsupported`` is what ``fullgraph=True`` raises
where the program cannot be captured as one graph (a graph break), with PyTorch's text for the cases tinytorch
detects (``tinytorch/_dynamo/capture.py``)."""
from __future__ import annotations

__all__ = ["TorchDynamoException", "InvalidBackend", "RecompileError", "Unsupported", "RecompileLimitExceeded",
           "UserError"]


class TorchDynamoException(RuntimeError):
    pass


class InvalidBackend(TorchDynamoException):
    """A backend name PyTorch does not know (``torch.compile(backend="bogus")``)."""


class RecompileError(TorchDynamoException):
    """A recompile where ``torch._dynamo.config.error_on_recompile`` asked for none."""


class Unsupported(TorchDynamoException):
    """A graph break where ``fullgraph=True`` asked for none."""

    def __init__(self, msg: str, *, case_name=None, real_stack=None) -> None:
        super().__init__(msg)
        self.msg = msg
        self.case_name = case_name
        self.real_stack = real_stack


class RecompileLimitExceeded(Unsupported):
    pass


class UserError(TorchDynamoException):
    """The program does not allow what the call asked for (``torch.export``'s dynamic shapes: a dim the program
    specialised, two dims it made equal); raised with its message only."""
