"""The modules ``tinytorch.onnx.symbolic_opset7`` ... ``symbolic_opset20``: PyTorch's TorchScript-graph
builders (``opset11.unsqueeze(g, x, 0)``), called only from symbolic functions that tinytorch's exporter
never runs. Made on first access (``tinytorch.onnx.__getattr__``); any of their functions exists and raises
NotImplementedError when called."""
from __future__ import annotations

import re
import types

OPSET_MODULE = re.compile(r"^symbolic_opset(7|8|9|1\d|20)$")


class OpsetModule(types.ModuleType):
    def __getattr__(self, name):
        return unavailable(self.__name__, name)


def unavailable(module: str, name: str):
    """The function ``module.name``, which raises NotImplementedError naming what is missing."""
    if name.startswith("__"):
        raise AttributeError(name)

    def fn(*args, **kwargs):
        raise NotImplementedError(
            f"torch.onnx.{module.rpartition('.')[2]}.{name} builds a TorchScript ONNX graph; tinytorch's exporter "
            "records ops itself (see tinytorch.onnx) and runs no symbolic functions")

    fn.__name__ = name
    return fn
