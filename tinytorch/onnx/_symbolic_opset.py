"""The modules ``tinytorch.onnx.symbolic_opset9`` ... ``symbolic_opset18``: PyTorch's TorchScript-graph
builders (``opset11.unsqueeze(g, x, 0)``), called only from symbolic functions that tinytorch's exporter
never runs. Any of their functions exists and raises NotImplementedError when called."""
from __future__ import annotations


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
