"""The modules ``tinytorch.onnx.symbolic_opset9`` ... ``symbolic_opset20``: PyTorch's TorchScript-graph
builders (``opset11.unsqueeze(g, x, 0)``), called only from symbolic functions that tinytorch's exporter
never runs. Any of their functions exists and raises NotImplementedError when called."""
from __future__ import annotations

import types


class _SymbolicOpset(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)

        def unavailable(*args, **kwargs):
            raise NotImplementedError(
                f"torch.onnx.{self.__name__.rpartition('.')[2]}.{name} builds a TorchScript ONNX graph; tinytorch's "
                "exporter records ops itself (see tinytorch.onnx) and runs no symbolic functions")

        unavailable.__name__ = name
        return unavailable

