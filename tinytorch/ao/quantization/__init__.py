"""``tinytorch.ao.quantization``: see ``tinytorch/ao/__init__.py``: the stubs are identities, the rest raises."""
from __future__ import annotations

from collections import namedtuple

from ...nn.modules.module import Module

__all__ = ["QuantStub", "DeQuantStub", "QuantWrapper", "QConfig", "prepare", "convert", "prepare_qat", "quantize",
           "quantize_dynamic", "fuse_modules", "fuse_modules_qat", "get_default_qconfig", "get_default_qat_qconfig",
           "default_observer", "default_weight_observer", "default_per_channel_weight_observer", "default_qconfig"]

_MISSING = ("tinytorch has no quantization (no quantized tensors or kernels): torch.ao.quantization.{} is not "
            "implemented")


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


QConfig = namedtuple("QConfig", ["activation", "weight"])


class _Unavailable:
    """An observer factory: ``with_args`` composes, calling it (making an observer) raises."""

    def __init__(self, name: str):
        self._name = name

    def with_args(self, **kwargs):
        return self

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(_MISSING.format(self._name))

    def __repr__(self) -> str:
        return f"<unavailable observer {self._name}>"


default_observer = _Unavailable("default_observer")
default_weight_observer = _Unavailable("default_weight_observer")
default_per_channel_weight_observer = _Unavailable("default_per_channel_weight_observer")
default_qconfig = QConfig(activation=default_observer, weight=default_weight_observer)


def _unavailable(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(_MISSING.format(name))

    fn.__name__ = name
    return fn


prepare = _unavailable("prepare")
convert = _unavailable("convert")
prepare_qat = _unavailable("prepare_qat")
quantize = _unavailable("quantize")
quantize_dynamic = _unavailable("quantize_dynamic")
fuse_modules = _unavailable("fuse_modules")
fuse_modules_qat = _unavailable("fuse_modules_qat")
get_default_qconfig = _unavailable("get_default_qconfig")
get_default_qat_qconfig = _unavailable("get_default_qat_qconfig")
