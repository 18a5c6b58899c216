"""``tinytorch.ao.quantization.stubs``: the modules that mark where a model would quantize and dequantize; until a
conversion replaces them (never, here: tinytorch has no static quantization) they are identities, as in PyTorch."""
from __future__ import annotations

from ...nn.modules.module import Module

__all__ = ["QuantStub", "DeQuantStub", "QuantWrapper"]


class QuantStub(Module):
    """Where a converted model would quantize its input; until then (always, here) the identity, as in PyTorch."""

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class DeQuantStub(Module):
    """Where a converted model would dequantize; the identity until then (always, here)."""

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class QuantWrapper(Module):
    def __init__(self, module):
        super().__init__()
        qconfig = getattr(module, "qconfig", None)
        self.add_module("quant", QuantStub(qconfig))
        self.add_module("dequant", DeQuantStub(qconfig))
        self.add_module("module", module)

    def forward(self, x):
        return self.dequant(self.module(self.quant(x)))
